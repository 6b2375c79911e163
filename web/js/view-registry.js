// The views drawn under the lanes, registered in one place (lane-views.js, one line
// per view, in the order they are drawn: it imports a view's module, which registers
// itself here with registerView, or registers a view whose module loads later, `load`
// below). A lane draws every view registered for its type and never names one: adding
// a view is its module, its strings (web/i18n/en.js and zh.js) and its line in
// lane-views.js (docs/development.md, "Adding a view").
//
// A view is a plain object:
//   id        its name; also its key in a lane's address parameter (lane=greedy:inside=...)
//   slot      'body' (after the lane type's own views), 'choice' (an autoregressive lane's:
//             right under the step's bars, how its token was chosen) or 'result' (under a
//             finished result)
//   lanes     (kind) => whether lanes of this type (LANE_TYPES[type]: ar, compare, ...)
//             have it at all; an address naming the view on another lane is told so
//   render    (lane, i) => markup of the view at step i ('' where it has nothing
//             to show); `lane` is the view's facade of the lane (laneFacade, below),
//             never the lane itself
//   init      optional (lane) => called once per lane, before the first render:
//             sets lane.state, listens with lane.on
//   codec     optional {write(state) => string, read(string) => state or null}: how
//             what the view holds open rides in the address (read: null for a value
//             not of its form, left out quietly); with it,
//   save      (lane) => the state to write, or undefined while nothing is open
//   link      optional (lane, i, spec) => what another view's map needs so that a
//             click on its cell opens this view there (heatmap.js's `pick`), or null
//   load      instead of render and init: () => import('./x.js'), the module whose default
//             export is {render, init}; it is loaded when a lane of a type that has the
//             view is first drawn, and the lane drawn again once it is in. For a view no
//             default lane shows (the sampling lane's draw): a first visit does not
//             download it. Such a view has no codec and no link (the address and a map
//             ask for them before anything is drawn).
// Below the registry, the facade a view gets of a lane (laneFacade). Imports only what
// says a lazy view's failure to load on the page, nothing of the browser's: the address
// (address.js) reads the codecs in Node too.
import { esc } from './views.js';
import { t } from './i18n.js';

const VIEWS = [];

/** Registers `view` (the object above) after those registered before it; returns it. */
export function registerView(view) {
  if (typeof view?.id !== 'string' || !/^[a-z][a-z0-9-]*$/.test(view.id)) throw new Error(`a view needs an id of lowercase letters, digits and dashes, not ${JSON.stringify(view?.id)}`);
  if (VIEWS.some((v) => v.id === view.id)) throw new Error(`view ${view.id} is registered twice`);
  if (!['body', 'choice', 'result'].includes(view.slot)) throw new Error(`view ${view.id}: slot is 'body', 'choice' or 'result', not ${JSON.stringify(view.slot)}`);
  if (typeof view.lanes !== 'function') throw new Error(`view ${view.id} needs a lanes function`);
  if (view.load !== undefined) {
    if (typeof view.load !== 'function' || view.render || view.init || view.codec || view.link) throw new Error(`view ${view.id}: a view that loads later has a load function, and no render, init, codec or link of its own`);
    view = { ...view, ...lazily(view) };
  }
  if (typeof view.render !== 'function') throw new Error(`view ${view.id} needs a render function`);
  if (view.codec && (typeof view.codec.read !== 'function' || typeof view.codec.write !== 'function' || typeof view.save !== 'function')) {
    throw new Error(`view ${view.id}: a codec has read and write, and the view a save`);
  }
  VIEWS.push(Object.freeze({ ...view }));
  return view;
}

/**
 * The render of a view registered with `load`: '' until its module is in (the first
 * render on a lane asks for it, loaded once for every lane, and that lane is drawn again
 * when it comes), then the module's, after its init once per lane; a note where it failed
 * to load (the page is reloaded to try again).
 */
function lazily(view) {
  let impl = null;
  let failed = null;
  let loading = null;
  const asked = new WeakSet();
  const ready = new WeakSet();
  const load = () => {
    loading ??= view.load().then((m) => {
      if (typeof m?.default?.render !== 'function') throw new Error(`view ${view.id}'s module exports no render`);
      impl = m.default;
    }).catch((e) => { failed = e; });
    return loading;
  };
  return {
    render(lane, i) {
      if (impl) {
        if (!ready.has(lane)) { ready.add(lane); impl.init?.(lane); }
        return impl.render(lane, i);
      }
      if (!asked.has(lane)) { asked.add(lane); load().then(() => lane.redraw()); }
      return failed ? `<p class="note view-failed" data-view="${view.id}">${esc(t('view.loadFailed', { error: String(failed?.message ?? failed) }))}</p>` : '';
    },
  };
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

// ------------------------------------------------------------ what a view sees of a lane
// The lane's decode as it is on screen, its model, a way to ask that model for more (the
// inside of a pass, forced scores), the view's own state, and a way to say that what it
// holds open changed (the address). Never the lane: a view cannot reach the lane's
// element, its other views' state, its options' setters or the page. This is the one
// place that reads a lane on a view's behalf.

/** The facade of `lane` for `view`: made once per (lane, view) by Lane.facadeOf. */
export function laneFacade(lane, view) {
  let state = null;
  return Object.freeze({
    /** The lane's element id: a prefix for the ids of the view's own elements. */
    id: lane.id,
    type: lane.type,
    /** The lane's type (LANE_TYPES[type] of lane-types.js: ar, compare, titleKey, ...). */
    get kind() { return lane.kind; },
    /** The page's entry of the lane's model (models.json: id, arch, attention, ...), or null. */
    get model() { return lane.model; },
    /** The model's own facts as the module gives them (ModelInfo: vocabularies, specials, arch), once its decoder is open; else null. */
    get info() { return lane.slot.decoder?.info ?? null; },
    /** The word the lane's snapshots belong to (the page may have moved on to another). */
    get word() { return lane.word; },
    /** The dictionary's reference pronunciations of that word ({prons, split}), or null (none, or the page is on another word). */
    get reference() { return lane.word === lane.ctx.word ? lane.ctx.reference : null; },
    /** The module options the lane's result was decoded under (moduleOptions), or undefined before a decode. */
    get options() { return lane.decodedOptions; },
    /** The step the page shows. */
    get step() { return lane.ctx.step; },
    /** The index of the lane's last snapshot (its last decoder pass). */
    get lastIndex() { return lane.lastIndex; },
    /** The snapshot after decoder pass i, or null. */
    snapshot(i) { return lane.snaps[i] ?? null; },
    /** The source word's letters as the lane's model reads them. */
    letters() { return lane.sourceLetters(); },
    /** The decoder pass the lane shows at step i (its insideRequest: {kind, word, tokens, next, ...}), or null. */
    pass(i) { return lane.insideRequest?.(i) ?? null; },
    /**
     * What the lane's views follow at step i: an autoregressive lane's hypothesis
     * ({hyp, path, picked, pickable}), a non-autoregressive lane's draft ({draft}); or null.
     */
    focus(i) { return lane.viewFocus(i); },
    /** The best result's tokens as decoded at step i, each with the probability the model gave it then ([{text, prob}]), or null. */
    decodedPath(i) { return lane.freeRunning(i); },
    /** The model's inside of one decoder pass (Model.inspect), through the lane's worker. */
    inspect(word, tokens) { return lane.slot.decoder.exclusive(({ inspect }) => inspect(word, tokens)); },
    /** The forced score of `text` for `word` under `options` (Model.score), through the lane's worker. */
    score(word, text, options) { return lane.slot.decoder.exclusive(({ score }) => score(word, text, options)); },
    /** This view's own state on this lane (null until the view sets it). */
    get state() { return state; },
    set state(v) { state = v; },
    /** What the page's address held for this view when the lane was made (codec.read's), once; then undefined. */
    fromAddress() { return lane.takeAddressView(view.id); },
    /** What the view holds open changed: the page rewrites its address. */
    changed() { lane.ctx.viewChanged?.(); },
    /** Draws the view's slot of the lane again (the lane's body, or its result). */
    redraw() { if (view.slot === 'result') lane.renderResult(); else lane.render(lane.ctx.step); },
    /** Listens to events in the lane (capture: e.g. toggle, which does not bubble). */
    on(type, handler, capture = false) { lane.el.addEventListener(type, handler, capture); },
    /** The first element of the lane matching `selector` (the view's own markup, or a map that links to it), or null. */
    query(selector) { return lane.el.querySelector(selector); },
    /** Whether `node` is inside the lane. */
    contains(node) { return lane.el.contains(node); },
    /** What view `id`'s link gives for a map at step i (spec: the view's), or null. */
    link(id, i, spec) { return lane.viewLink(id, i, spec); },
  });
}
