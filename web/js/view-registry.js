// The views drawn under the lanes, registered in one place (lane-views.js imports
// each view's module, in the order they are drawn; the module registers itself
// here with registerView). A lane draws every view registered for its type and
// never names one: adding a view is its module, its strings (web/i18n/en.js and
// zh.js) and its line in lane-views.js (docs/development.md, "Adding a view").
//
// A view is a plain object:
//   id        its name; also its key in a lane's address parameter (lane=greedy:inside=...)
//   slot      'body' (after the lane type's own views), 'choice' (an autoregressive lane's:
//             right under the step's bars, how its token was chosen) or 'result' (under a
//             finished result)
//   lanes     (kind) => whether lanes of this type (LANE_TYPES[type]: ar, compare, ...)
//             have it at all; an address naming the view on another lane is told so
//   render    (lane, i) => markup of the view at step i ('' where it has nothing
//             to show); `lane` is the view's facade of the lane (lane-facade.js),
//             never the lane itself
//   init      optional (lane) => called once per lane, before the first render:
//             sets lane.state, listens with lane.on
//   codec     optional {write(state) => string, read(string) => state or null}: how
//             what the view holds open rides in the address (read: null for a value
//             not of its form, left out quietly); with it,
//   save      (lane) => the state to write, or undefined while nothing is open
//   link      optional (lane, i, spec) => what another view's map needs so that a
//             click on its cell opens this view there (heatmap.js's `pick`), or null
// Imports nothing: the address (address.js) reads the codecs in Node too.

const VIEWS = [];

/** Registers `view` (the object above) after those registered before it; returns it. */
export function registerView(view) {
  if (typeof view?.id !== 'string' || !/^[a-z][a-z0-9-]*$/.test(view.id)) throw new Error(`a view needs an id of lowercase letters, digits and dashes, not ${JSON.stringify(view?.id)}`);
  if (VIEWS.some((v) => v.id === view.id)) throw new Error(`view ${view.id} is registered twice`);
  if (!['body', 'choice', 'result'].includes(view.slot)) throw new Error(`view ${view.id}: slot is 'body', 'choice' or 'result', not ${JSON.stringify(view.slot)}`);
  if (typeof view.render !== 'function' || typeof view.lanes !== 'function') throw new Error(`view ${view.id} needs render and lanes functions`);
  if (view.codec && (typeof view.codec.read !== 'function' || typeof view.codec.write !== 'function' || typeof view.save !== 'function')) {
    throw new Error(`view ${view.id}: a codec has read and write, and the view a save`);
  }
  VIEWS.push(Object.freeze({ ...view }));
  return view;
}

/** The registered views, in the order they are drawn. */
export function registeredViews() {
  return VIEWS.slice();
}

/** The views a lane of this kind (LANE_TYPES[type]) has, in order; only those in `slot` if given. */
export function viewsOf(kind, slot = null) {
  return VIEWS.filter((v) => v.lanes(kind) && (slot == null || v.slot === slot));
}

/** The view registered as `id`, or null. */
export function viewById(id) {
  return VIEWS.find((v) => v.id === id) ?? null;
}
