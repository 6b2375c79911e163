// The lane types' classes, by the type names of the address (lane-types.js).
// The one place that tells the types apart: the page makes its lanes here.
import { GreedyLane } from './lane-greedy.js';
import { BeamLane } from './lane-beam.js';
import { SampleLane } from './lane-sample.js';
import { OnePassLane } from './lane-one-pass.js';
import { MaskPredictLane } from './lane-mp.js';
import { CompareLane } from './compare.js';

const LANE_CLASSES = {
  greedy: GreedyLane,
  beam: BeamLane,
  sample: SampleLane,
  nar: OnePassLane,
  mp: MaskPredictLane,
  compare: CompareLane,
};

/** A lane of spec {type, opts} (from makeLane), given ctx: what it may ask of the page (App.laneContext). */
export function createLane(ctx, spec) {
  return new LANE_CLASSES[spec.type](ctx, spec);
}
