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
// A disclosure, closed by default: nothing is asked of the worker until it opens.
// A cell of an attention map drawn with this view's link (a lane's `viewLink('inside', ...)`)
// opens it at that map's attention and that cell's query. What is open and picked
// is in the page's address (its codec: inside-address.js).
import { label } from './phonemes.js';
import { esc } from './views.js';
import { pickKeys } from './heatmap.js';
import { t } from './i18n.js';
import { readInside, writeInside } from './inside-address.js';
import { registerView } from './view-registry.js';


const ARCHS = ['transformer', 'cmlm', 'rnn'];

// The blocks' pictures (inside-parts.js, inside-output.js) load with the view's first
// opening, beside the model's numbers: a first visit, which shows the view closed, does not
// download them (the modules a first visit loads are its static imports, gen-module-lists.mjs).
let blocks = null;
let loading = null;
const loadBlocks = () => (loading ??= Promise.all([import('./inside-parts.js'), import('./inside-output.js')])
  .then(([parts, output]) => { blocks = { ...parts, ...output }; }, (e) => { loading = null; throw e; }));   // a failed download is asked again at the next opening

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
    if (box && st.data && blocks) box.innerHTML = blocks.logitsTable(st.data, st, lane, st.at);
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
  Promise.all([lane.inspect(req.word, req.tokens), loadBlocks()])
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

/** The block picked, held to what this model has (an address may name a fifth layer of three). */
function settle(st, d) {
  if (d.rnn) return;
  if (st.stack !== 'encoder') st.stack = 'decoder';
  const stack = d[st.stack];
  st.layer = st.layer < 0 ? stack.layers.length - 1 : Math.min(st.layer, stack.layers.length - 1);
  st.head = Math.max(0, Math.min(st.head, d.heads - 1));
  const ok = st.sub === 'self' || st.sub === 'ffn' || st.sub === 'embed' || (st.sub === 'cross' && stack.layers[st.layer].hasCross)
    || (st.sub === 'final' && stack.hasFinalNorm) || (st.sub === 'out' && st.stack === 'decoder');
  if (!ok) st.sub = 'self';
}

function body(lane) {
  const st = lane.state;
  if (st.error) return `<p class="note">${esc(t('inside.failed', { error: st.error }))}</p>`;
  const d = st.data;
  if (!d || !st.req || !blocks) return `<p class="pending" data-loading>${esc(t('inside.pending'))}</p>`;
  const { embedView, normView, sublayerView, outputView, rnnBody } = blocks;
  settle(st, d);
  const req = st.req;
  const cmlm = req.kind === 'cmlm';
  // A draft's positions are numbered: MASK, or a phoneme, may stand at several.
  const tokens = d.targetTexts.map((x, p) => (cmlm ? `${p + 1}·${label(x)}` : label(x)));
  const letters = lane.letters();
  const encoder = !d.rnn && st.stack === 'encoder';
  const names = encoder ? letters : tokens;
  const firstPredicted = cmlm ? Math.max(0, Array.from(req.masked).indexOf(1)) : tokens.length - 1;
  // The causal mask hides nothing from the last query (it reads every position before it):
  // the masked self-attention opens one query earlier, where the newest position is hidden.
  const causalSelf = !d.rnn && !cmlm && !encoder && st.sub === 'self' && d.causal;
  const pos = st.pos >= 0 && st.pos < names.length ? st.pos : (encoder ? 0 : causalSelf ? Math.max(0, tokens.length - 2) : firstPredicted);
  st.at = pos;
  let html = `<p class="note">${intro(d, req, lane, tokens)}</p>`;
  if (d.rnn) return html + positionPicker(names, pos, 'decoder') + rnnBody(d, st, lane, letters, pos);
  const stack = d[st.stack];
  html += archStrip(d, st);
  if (cmlm) html += `<p class="note in-length-head">${esc(t('inside.lengthHead'))}</p>`;
  html += positionPicker(names, pos, st.stack);
  if (st.sub === 'embed') html += embedView(d, stack, pos, names);
  else if (st.sub === 'out') html += outputView(d, st, lane, pos);
  else if (st.sub === 'final') html += normView(stack.finalNorm, pos, d.dModel, t('inside.finalNorm'));
  else html += sublayerView(d, stack.layers[st.layer], st, pos, names, letters);
  return html;
}

/** What pass this is: the step's (the token it chose), or the iteration's over its draft. */
function intro(d, req, lane, tokens) {
  const vocab = lane.info?.targetVocab ?? [];
  if (req.kind === 'cmlm') {
    const masks = Array.from(req.masked).filter((m) => m === 1).length;
    return t(req.iteration === 1 ? 'inside.introCmlm1_html' : 'inside.introCmlm_html', { word: esc(req.word), k: req.iteration, prev: req.iteration - 1, L: tokens.length, masks });
  }
  const next = esc(label(vocab[req.next.at(-1)] ?? ''));
  return t(d.rnn ? 'inside.rnnIntro_html' : 'inside.intro_html', { word: esc(req.word), next, pos: tokens.length - 1 });
}

/** The map: the model's blocks from its config, each a button that shows it below. */
function archStrip(d, st) {
  const btn = (stack, layer, sub, text, cls = '') => {
    const on = st.stack === stack && st.sub === sub && (st.layer === layer || sub === 'embed' || sub === 'out' || sub === 'final');
    return `<button type="button" class="arch-block ${cls}${on ? ' on' : ''}" data-action="in-pick" data-stack="${stack}" data-layer="${layer}" data-sub="${sub}" aria-pressed="${on}">${esc(text)}</button>`;
  };
  const norm = d.norm === 'pre' ? t('inside.preLN') : t('inside.postLN');
  const stackRow = (stack, title) => {
    const s = d[stack];
    let out = `<div class="arch-stack"><span class="arch-title">${esc(title)}</span>${btn(stack, 0, 'embed', t('inside.embedBlock', { kind: d.positionalKind === 'sinusoidal' ? t('inside.sinusoidal') : t('inside.learned') }), 'embed')}`;
    s.layers.forEach((b, l) => {
      out += `<span class="arch-layer"><span class="arch-l">${esc(t('inside.layerN', { n: l + 1 }))}</span>`;
      out += btn(stack, l, 'self', stack === 'decoder' && d.causal ? t('inside.maskedSelf') : t('inside.self'));
      if (b.hasCross) out += btn(stack, l, 'cross', t('inside.cross'));
      out += btn(stack, l, 'ffn', t('inside.ffn')) + '</span>';
    });
    if (s.hasFinalNorm) out += btn(stack, 0, 'final', t('inside.finalNorm'));
    if (stack === 'decoder') out += btn(stack, 0, 'out', t('inside.outBlock'), 'out');
    return `${out}</div>`;
  };
  return `<div class="arch" role="group" aria-label="${esc(t('inside.archAria'))}">`
    + `<p class="arch-config">${esc(t('inside.config', { layers: d.encoder.layers.length, dlayers: d.decoder.layers.length, heads: d.heads, d: d.dModel, dh: d.headDim, ff: d.ffnDim, act: d.activation, norm }))}</p>`
    + stackRow('encoder', t('inside.encoder')) + stackRow('decoder', t('inside.decoder')) + '</div>';
}

function positionPicker(names, pos, stack) {
  const b = names.map((n, j) => `<button type="button" class="chip-btn${j === pos ? ' on' : ''}" data-action="in-pos" data-pos="${j}" aria-pressed="${j === pos}">${esc(n)}</button>`).join('');
  return `<p class="in-pos">${esc(t(stack === 'encoder' ? 'inside.posEnc' : 'inside.posDec'))} ${b}</p>`;
}
