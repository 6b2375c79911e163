// "Inside this step": how a lane's model computed the decoder pass on screen, with
// the model's own numbers (Model.inspect through the lane's worker, StepInside in
// src/snapshot.h). Which pass is the lane's to say (its insideRequest hook): an
// autoregressive lane's step reads BEGIN and the best hypothesis's tokens before
// the step's; a non-autoregressive lane's iteration reads its draft, MASK where it
// re-masked, and predicts every position at once. A map of the model drawn from
// its config (the architecture strip: embedding + positional encoding, each
// layer's sublayers, the final norm, the output layer) picks what is shown below
// it (inside-parts.js, inside-output.js):
//   embedding + PE   the token embedding, the positional encoding, their sum; a few
//                    dimensions of the encoding as curves over the positions used,
//                    beside the table of them all, as a heatmap
//   attention        q of the picked position, the keys, the raw scores q·k (a key a
//                    row), the scaling by 1/√(d/h), the mask (0 or −∞, dark here and in
//                    the map; the masked self-attention opens on a query with a later
//                    position hidden), the softmax; "without
//                    scaling" shows the softmax of the raw scores (it saturates); the
//                    QKᵀ weights of every position; each head's output,
//                    concatenated and projected by W_O
//   Add & Norm       the branch's input, its output, their sum, its mean and
//                    standard deviation, the normalised result
//   FFN              the hidden layer after the activation (ReLU: the units cut
//                    to 0 counted), the output
//   output           the picked position's logits and its distribution at a live
//                    temperature, as bars (the tempered one as the engine samples from
//                    it, the model's own behind it), and why the top one stops short
//                    of 100 %: label smoothing, with the recipe's ε
// A disclosure, closed by default: nothing is asked of the worker until it opens, and
// what draws it open (inside-body.js, with inside-parts.js and inside-output.js) loads
// with import() when a lane's inside first opens: a first visit does not download it.
// A cell of an attention map drawn with this view's link (a lane's `viewLink('inside', ...)`)
// opens it at that map's attention and that cell's query. What is open and picked
// is in the page's address (its codec: inside-address.js).
import { esc, loadStylesheet } from './views.js';
import { pickKeys } from './heatmap.js';
import { t } from './i18n.js';
import { readInside, writeInside } from './inside-address.js';
import { registerView } from './view-registry.js';


const ARCHS = ['transformer', 'cmlm', 'rnn'];

// What draws the open inside (inside-body.js), once loaded: null until a lane's inside
// first opens.
let drawing = null;
let loading = null;

/** Loads it once for every lane; a failed load is said as the model's failure is, and tried again at the next opening. */
function loadDrawing() {
  loading ??= Promise.all([import('./inside-body.js'), loadStylesheet('style-open.css')]).then(([m]) => { drawing = m; }, (e) => { loading = null; throw e; });
  return loading;
}

// Every function below takes `lane`: the view's facade of the lane (view-registry.js laneFacade).

/** Whether `lane` shows the inside of its pass at step i: a model inspect can open, and a pass its type names. */
function hasInside(lane, i) {
  return ARCHS.includes(lane.model?.arch) && !!lane.pass(i);
}

/** Once per lane: the state, with what the address held, and the listeners to its controls. */
function init(lane) {
  const st = { open: false, key: null, data: null, error: null, stack: 'decoder', layer: 0, sub: 'self', head: 0, unscaled: false, temperature: null, pos: -1, fromAverage: false };
  const held = lane.fromAddress();
  if (held) Object.assign(st, held, { open: true });
  lane.state = st;
  lane.on('toggle', (e) => {
    const d = e.target;
    if (!d.classList?.contains('inside') || st.open === d.open) return;
    st.open = d.open;
    if (d.open) refresh(lane);
    lane.changed();
  }, true);
  lane.on('click', (e) => {
    const b = e.target.closest('[data-action^="in-"]');
    if (!b || !lane.contains(b)) return;
    const a = b.dataset.action;
    if (a === 'in-cell') { jump(lane, b); lane.changed(); return; }
    if (a === 'in-pick') Object.assign(st, { stack: b.dataset.stack, layer: Number(b.dataset.layer), sub: b.dataset.sub, pos: -1, fromAverage: false, written: false });
    else if (a === 'in-head') Object.assign(st, { head: Number(b.dataset.head), fromAverage: false });
    else if (a === 'in-scale') st.unscaled = !st.unscaled;
    else if (a === 'in-pos') Object.assign(st, { pos: Number(b.dataset.pos), written: false });
    draw(lane);
    lane.changed();
    lane.query(`.inside [data-action="${a}"]${b.dataset.head ? `[data-head="${b.dataset.head}"]` : ''}${b.dataset.sub ? `[data-sub="${b.dataset.sub}"][data-layer="${b.dataset.layer}"][data-stack="${b.dataset.stack}"]` : ''}${b.dataset.pos ? `[data-pos="${b.dataset.pos}"]` : ''}`)?.focus();
  });
  lane.on('keydown', pickKeys);
  lane.on('input', (e) => {
    if (!e.target.matches?.('.inside input[data-action="in-temp"]')) return;
    st.temperature = Number(e.target.value);
    const box = lane.query('.inside .in-logits-box');
    if (box && st.data && drawing) box.innerHTML = drawing.logitsTable(st.data, st, lane, st.at);
    const out = lane.query('.inside .in-temp output');
    if (out) out.textContent = st.temperature.toFixed(1);
    lane.changed();
  });
}

/** What the address keeps of the view (inside-address.js): its state while open, nothing while closed. */
function save(lane) {
  const st = lane.state;
  if (!st.open) return undefined;
  const { stack, sub, layer, head, pos, unscaled, temperature, fromAverage } = st;
  return { stack, sub, layer, head, pos, unscaled, temperature, fromAverage };
}

/**
 * The link of an attention map of `lane` at step i whose rows are the queries of the
 * pass the inside shows (heatmap.js's `pick`): a cell opens the inside at that
 * attention (stack: encoder or decoder; sub: self or cross) and its row's query. `sel`
 * is the map's head ('l.h') or 'avg', the mean of every layer's heads: that opens the
 * last layer's first head, and the inside says it is one of those averaged. null where
 * the lane shows no inside. `written`: the map names each row by the token its query
 * wrote (an autoregressive step's), not by the query's own token.
 */
function link(lane, i, { stack, sub, sel = 'avg', written = false }) {
  if (!hasInside(lane, i)) return null;
  const avg = sel === 'avg';
  const [l, h] = avg ? [-1, 0] : sel.split('.').map(Number);   // layer -1: the last (settle)
  return {
    action: 'in-cell',
    attrs: `data-in-stack="${stack}" data-in-sub="${sub}" data-in-layer="${l}" data-in-head="${h}" data-in-avg="${avg ? 1 : 0}" data-in-written="${written ? 1 : 0}"`,
    hint: t('inside.cellHint'),
  };
}

/** A map's cell was picked: the inside opens at its attention and query, and comes into view. */
function jump(lane, cell) {
  const st = lane.state;
  const map = cell.closest('[data-in-stack]');
  if (!map) return;
  Object.assign(st, {
    stack: map.dataset.inStack, sub: map.dataset.inSub, layer: Number(map.dataset.inLayer), head: Number(map.dataset.inHead),
    pos: Number(cell.dataset.row), fromAverage: map.dataset.inAvg === '1', written: map.dataset.inWritten === '1', open: true, jumped: true,
  });
  const det = lane.query('details.inside');
  if (det) det.open = true;   // st.open is set: the toggle it fires asks nothing more
  refresh(lane);
}

function refresh(lane) {
  const st = lane.state;
  const req = lane.pass(st.i);
  if (!req) return;
  const key = JSON.stringify([req.word, req.tokens, lane.model?.id]);
  st.req = req;   // what the pass is shown for (the tokens after it, a draft's confidences) may change while its input does not
  if (st.key === key && (st.data || st.error)) { draw(lane); return; }
  st.key = key;
  st.data = null;
  st.error = null;
  draw(lane);
  Promise.all([lane.inspect(req.word, req.tokens), loadDrawing()])
    .then(([d]) => { if (st.key === key) st.data = d; })
    .catch((e) => { if (st.key === key) st.error = String(e?.message ?? e); })
    .finally(() => { if (st.key === key && st.open) draw(lane); });
}

function draw(lane) {
  const st = lane.state;
  const box = lane.query('.inside .in-body');
  if (!box) return;
  box.innerHTML = body(lane);
  // Reached from a map: the query picked comes into view, and the keyboard with it.
  if (st.jumped && st.data) {
    st.jumped = false;
    const at = box.querySelector('.in-pos [aria-pressed="true"]') ?? box;
    box.querySelector('.in-pos')?.scrollIntoView({ block: 'start' });
    at.focus({ preventScroll: true });
  }
}

/**
 * The "Inside this step" section of `lane` at step i ('' where there is none: a
 * model inspect cannot open, a lane type that names no pass, nothing decoded yet).
 */
function render(lane, i) {
  if (!hasInside(lane, i)) return '';
  const st = lane.state;
  st.i = i;
  if (st.open) queueMicrotask(() => refresh(lane));
  return `<details class="view inside"${st.open ? ' open' : ''}><summary><h3>${esc(t('inside.heading'))}</h3></summary>`
    + `<div class="in-body">${st.open ? body(lane) : ''}</div></details>`;
}

/** The open inside's markup: the model's failure, a line while its numbers (or what draws them) are on their way, or them. */
function body(lane) {
  const st = lane.state;
  if (st.error) return `<p class="note">${esc(t('inside.failed', { error: st.error }))}</p>`;
  if (!st.data || !st.req || !drawing) return `<p class="pending" data-loading>${esc(t('inside.pending'))}</p>`;
  return drawing.body(lane);
}

export default registerView({
  id: 'inside',
  slot: 'body',
  // Every lane but the compare lane, whose four panels show their raw scores themselves.
  lanes: (kind) => !kind.compare,
  init,
  render,
  codec: { read: readInside, write: writeInside },
  save,
  link,
});
