// The lane types' classes, by the type names of the address (lane-types.js).
// The one place that tells the types apart: the page makes its lanes here.
// Greedy, beam and sampling come with the page (a first visit opens greedy and
// beam); the non-autoregressive and comparison lanes' modules are fetched when a
// lane of theirs is first asked for, so a first visit does not carry them.
import { GreedyLane } from './lane-greedy.js';
import { BeamLane } from './lane-beam.js';
import { SampleLane } from './lane-sample.js';

const LANE_CLASSES = {
  greedy: GreedyLane,
  beam: BeamLane,
  sample: SampleLane,
};
const ON_DEMAND = {
  nar: () => import('./lane-one-pass.js').then((m) => m.OnePassLane),
  mp: () => import('./lane-mp.js').then((m) => m.MaskPredictLane),
  compare: () => import('./compare.js').then((m) => m.CompareLane),
};

/** Whether every one of these lane types can be made now (createLane), its module loaded. */
export function laneTypesLoaded(types) {
  return types.every((type) => LANE_CLASSES[type]);
}

/** Fetches the modules of these lane types that are not loaded yet; rejects if one cannot be fetched. */
export async function loadLaneTypes(types) {
  await Promise.all([...new Set(types)].filter((type) => !LANE_CLASSES[type]).map(async (type) => {
    if (!ON_DEMAND[type]) throw new Error(`unknown lane type '${type}'`);
    LANE_CLASSES[type] = await ON_DEMAND[type]();
  }));
}

/** A lane of spec {type, opts} (from makeLane), given ctx: what it may ask of the page (App.laneContext). Its type's module is loaded (loadLaneTypes). */
export function createLane(ctx, spec) {
  const Lane = LANE_CLASSES[spec.type];
  if (!Lane) throw new Error(`lane type '${spec.type}': its module is not loaded (loadLaneTypes first)`);
  return new Lane(ctx, spec);
}
