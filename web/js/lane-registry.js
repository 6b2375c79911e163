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

/** A lane of spec {type, opts} (from makeLane) on the page `app`. */
export function createLane(app, spec) {
  return new LANE_CLASSES[spec.type](app, spec);
}
