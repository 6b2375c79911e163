// What a registered view (view-registry.js) sees of the lane it is drawn under:
// the lane's decode as it is on screen, its model, a way to ask that model for
// more (the inside of a pass, forced scores), its own state, and a way to say that
// what it holds open changed (the address). Never the lane: a view cannot reach
// the lane's element, its other views' state, its options' setters or the page.
// This file is the one place that reads a lane on a view's behalf.

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
