// "Inside this step": how a Transformer lane's model computed the step on screen,
// with the model's own numbers (Model.inspect through the lane's worker,
// StepInside in src/snapshot.h). A map of the model drawn from its config (the
// architecture strip: embedding + positional encoding, each layer's sublayers,
// the final norm, the output layer) picks what is shown below it:
//   embedding + PE   the token embedding, the positional encoding, their sum; the
//                    positional table of the positions used, as a heatmap
//   attention        q of the step's position, the keys, the raw scores q·k, the
//                    scaling by 1/√(d/h), the mask, the softmax; "without scaling"
//                    shows the softmax of the raw scores (it saturates); the QKᵀ
//                    weights of every position; each head's output, concatenated
//                    and projected by W_O
//   Add & Norm       the branch's input, its output, their sum, its mean and
//                    standard deviation, the normalised result
//   FFN              the hidden layer after the activation (ReLU: the units cut
//                    to 0 counted), the output
//   output           the logits, and softmax(logits / T) with a live temperature
// A disclosure, closed by default: nothing is asked of the worker until it opens.
import { label } from './phonemes.js';
import { esc, scrollRegion } from './views.js';
import { heatmap } from './heatmap.js';
import { t } from './i18n.js';
import { SCORES, scoreWords } from './scores.js';
import { fmt } from './format.js';

/** Diverging colour of v in [-max, max]: blue below 0, red above, white at 0. */
function diverge(v, max) {
  const x = Math.max(-1, Math.min(1, max > 0 ? v / max : 0));
  const a = Math.abs(x);
  const [r, g, b] = x >= 0 ? [203, 24, 29] : [33, 102, 172];
  const mix = (c) => Math.round(255 + (c - 255) * a);
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

const maxAbs = (xs) => xs.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
const d3 = (v) => fmt(v, 3);

/** A vector as a colour strip (one cell per value, its number on hover) with a table twin. */
export function strip(values, name, { max = maxAbs(values), cell = 6 } = {}) {
  const n = values.length;
  const W = Math.max(1, n) * cell;
  let svg = `<svg class="vec" width="${W}" height="14" viewBox="0 0 ${W} 14" role="img" aria-label="${esc(t('inside.vecAria', { name, n }))}">`;
  for (let i = 0; i < n; i++) svg += `<rect x="${i * cell}" y="0" width="${cell}" height="14" fill="${diverge(values[i], max)}"><title>${esc(name)}[${i}] = ${d3(values[i])}</title></rect>`;
  svg += '</svg>';
  const cells = Array.from(values, (v, i) => `<td data-i="${i}">${d3(v)}</td>`).join('');
  return `<div class="vec-row" data-vec="${esc(name)}"><span class="vec-name">${esc(name)}</span>${scrollRegion(svg, t('inside.vecAria', { name, n }))}`
    + `<details class="twin"><summary>${esc(t('inside.numbers'))}</summary>${scrollRegion(`<table class="vec-table"><caption class="visually-hidden">${esc(name)}</caption><tbody><tr>${cells}</tr></tbody></table>`)}</details></div>`;
}

/** Row r (width w) of a flat row-major matrix. */
const row = (flat, r, w) => flat.subarray(r * w, (r + 1) * w);

function softmax(xs, masked = () => false) {
  let m = -Infinity;
  xs.forEach((v, j) => { if (!masked(j)) m = Math.max(m, v); });
  const e = xs.map((v, j) => (masked(j) ? 0 : Math.exp(v - m)));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

/** The lane's inside state; the first call starts listening to its controls. */
function stateOf(lane) {
  if (lane.ui.inside) return lane.ui.inside;
  const st = { open: false, key: null, data: null, error: null, stack: 'decoder', layer: 0, sub: 'self', head: 0, unscaled: false, temperature: null, pos: -1 };
  lane.ui.inside = st;
  lane.el.addEventListener('toggle', (e) => {
    const d = e.target;
    if (!d.classList?.contains('inside') || st.open === d.open) return;
    st.open = d.open;
    if (d.open) refresh(lane);
  }, true);
  lane.el.addEventListener('click', (e) => {
    const b = e.target.closest('[data-action^="in-"]');
    if (!b || !lane.el.contains(b)) return;
    const a = b.dataset.action;
    if (a === 'in-pick') Object.assign(st, { stack: b.dataset.stack, layer: Number(b.dataset.layer), sub: b.dataset.sub, pos: -1 });
    else if (a === 'in-head') st.head = Number(b.dataset.head);
    else if (a === 'in-scale') st.unscaled = !st.unscaled;
    else if (a === 'in-pos') st.pos = Number(b.dataset.pos);
    draw(lane);
    lane.el.querySelector(`.inside [data-action="${a}"]${b.dataset.head ? `[data-head="${b.dataset.head}"]` : ''}${b.dataset.sub ? `[data-sub="${b.dataset.sub}"][data-layer="${b.dataset.layer}"][data-stack="${b.dataset.stack}"]` : ''}${b.dataset.pos ? `[data-pos="${b.dataset.pos}"]` : ''}`)?.focus();
  });
  lane.el.addEventListener('input', (e) => {
    if (!e.target.matches?.('.inside input[data-action="in-temp"]')) return;
    st.temperature = Number(e.target.value);
    const box = lane.el.querySelector('.inside .in-logits-box');
    if (box && st.data) box.innerHTML = logitsTable(st.data, st, lane);
    const out = lane.el.querySelector('.inside .in-temp output');
    if (out) out.textContent = st.temperature.toFixed(1);
  });
  return st;
}

/** What the step on screen asks the model: the source and the decoder's tokens before the step's token. */
function request(lane, i) {
  const s = lane.snaps[i];
  if (!s?.autoregressive) return null;
  const cur = s.live[0] ?? s.finished[0];  // the hypothesis the step's bars show
  if (!cur) return null;
  return { word: lane.word, tokens: cur.tokens.slice(0, -1), chosen: cur.tokens.at(-1), candidates: cur.candidates };
}

function refresh(lane) {
  const st = lane.ui.inside;
  const req = request(lane, st.i);
  if (!req) return;
  const key = JSON.stringify([req.word, req.tokens, lane.model?.id]);
  if (st.key === key && (st.data || st.error)) { draw(lane); return; }
  st.key = key;
  st.data = null;
  st.error = null;
  st.req = req;
  draw(lane);
  lane.slot.decoder.exclusive(({ inspect }) => inspect(req.word, req.tokens))
    .then((d) => { if (st.key === key) st.data = d; })
    .catch((e) => { if (st.key === key) st.error = String(e?.message ?? e); })
    .finally(() => { if (st.key === key && st.open) draw(lane); });
}

function draw(lane) {
  const box = lane.el.querySelector('.inside .in-body');
  if (box) box.innerHTML = body(lane);
}

/**
 * The "Inside this step" section of `lane` at step i ('' where there is none:
 * not a Transformer, not autoregressive, nothing decoded yet).
 */
export function insideView(lane, i) {
  const s = lane.snaps[i];
  if (!s || !s.autoregressive || !['transformer', 'rnn'].includes(lane.model?.arch)) return '';
  const st = stateOf(lane);
  st.i = i;
  if (st.open) queueMicrotask(() => refresh(lane));
  return `<details class="view inside"${st.open ? ' open' : ''}><summary><h3>${esc(t('inside.heading'))}</h3></summary>`
    + `<div class="in-body">${st.open ? body(lane) : ''}</div></details>`;
}

function body(lane) {
  const st = lane.ui.inside;
  if (st.error) return `<p class="note">${esc(t('inside.failed', { error: st.error }))}</p>`;
  const d = st.data;
  if (!d) return `<p class="pending">${esc(t('inside.pending'))}</p>`;
  const tokens = d.targetTexts.map(label);
  const letters = lane.sourceLetters();
  if (d.rnn) return rnnBody(d, st, lane, letters, tokens);
  const stack = d[st.stack];
  const names = st.stack === 'encoder' ? letters : tokens;
  const pos = st.pos >= 0 && st.pos < stack.length ? st.pos : (st.stack === 'encoder' ? 0 : stack.length - 1);
  const vocab = lane.slot.decoder?.info?.targetVocab ?? [];
  let html = `<p class="note">${t('inside.intro_html', { word: esc(st.req.word), next: esc(label(vocab[st.req.chosen] ?? '')), pos: tokens.length - 1 })}</p>`;
  html += archStrip(d, st);
  html += positionPicker(names, pos, st.stack);
  if (st.sub === 'embed') html += embedView(d, stack, pos, names);
  else if (st.sub === 'out') html += outputView(d, st, lane);
  else if (st.sub === 'final') html += normView(stack.finalNorm, pos, d.dModel, t('inside.finalNorm'));
  else html += sublayerView(d, stack.layers[st.layer], st, pos, names, letters, tokens);
  return html;
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

function embedView(d, stack, pos, names) {
  const w = d.dModel;
  const pe = Array.from({ length: stack.length }, (_, r) => row(stack.positional, r, w));
  const peMax = maxAbs(stack.positional);
  let svg = `<svg class="pe-map" width="${w * 4}" height="${stack.length * 12}" role="img" aria-label="${esc(t('inside.peAria', { n: stack.length, d: w }))}">`;
  pe.forEach((r, i) => r.forEach((v, j) => { svg += `<rect x="${j * 4}" y="${i * 12}" width="4" height="11" fill="${diverge(v, peMax)}"><title>${esc(names[i])}, dim ${j}: ${d3(v)}</title></rect>`; }));
  svg += '</svg>';
  return `<div class="in-stage"><h4>${esc(t('inside.embedTitle', { name: names[pos], pos }))}</h4>`
    + strip(row(stack.tokenEmbedding, pos, w), t('inside.tokEmb'))
    + `<p class="in-op">+</p>` + strip(row(stack.positional, pos, w), t('inside.pe'))
    + `<p class="in-op">=</p>` + strip(row(stack.input, pos, w), t('inside.blockIn'))
    + `<p class="note">${t(d.positionalKind === 'sinusoidal' ? 'inside.peSin_html' : 'inside.peLearned_html')}</p>`
    + `<h4>${esc(t('inside.peTable'))}</h4>${scrollRegion(svg, t('inside.peAria', { n: stack.length, d: w }))}</div>`;
}

function normView(n, pos, w, title) {
  const mean = n.mean[pos], std = n.std[pos];
  const before = row(n.input, pos, w), after = row(n.output, pos, w);
  return `<div class="in-stage"><h4>${esc(title)}</h4>`
    + strip(before, t('inside.normIn')) + `<p class="in-op">${esc(t('inside.normOp', { mean: d3(mean), std: d3(std) }))}</p>`
    + strip(after, t('inside.normOut'))
    + `<p class="note">${esc(t('inside.normRange', { a: d3(Math.min(...before)), b: d3(Math.max(...before)), c: d3(Math.min(...after)), e: d3(Math.max(...after)) }))}</p></div>`;
}

function sublayerView(d, block, st, pos, names, letters, tokens) {
  const sub = st.sub === 'self' ? block.selfAttention : st.sub === 'cross' ? block.crossAttention : block.ffn;
  const w = d.dModel;
  let html = '';
  const normFirst = sub.preNorm;
  const normTitle = t(normFirst ? 'inside.normBefore' : 'inside.normAfter');
  if (normFirst) html += normView(sub.norm, pos, w, normTitle);
  if (sub.isAttention) html += attentionView(d, sub.attention, st, pos, st.sub === 'cross' ? letters : names, names);
  else html += ffnView(d, sub, pos);
  html += `<div class="in-stage"><h4>${esc(t('inside.addTitle'))}</h4>${strip(row(sub.input, pos, w), t('inside.resIn'))}<p class="in-op">+</p>`
    + strip(row(sub.delta, pos, w), t(sub.isAttention ? 'inside.attnOut' : 'inside.ffnOut')) + `<p class="in-op">=</p>`
    + strip(row(sub.sum, pos, w), t('inside.resSum')) + `<p class="note">${esc(t('inside.residualWhy'))}</p></div>`;
  if (!normFirst) html += normView(sub.norm, pos, w, normTitle);
  return html;
}

function attentionView(d, a, st, pos, keyNames, queryNames) {
  const H = d.heads, dh = d.headDim, nq = a.queries, nk = a.keys;
  const h = Math.min(st.head, H - 1);
  const headBtns = Array.from({ length: H }, (_, k) => `<button type="button" class="chip-btn${k === h ? ' on' : ''}" data-action="in-head" data-head="${k}" aria-pressed="${k === h}">${esc(t('inside.headN', { n: k + 1 }))}</button>`).join('');
  const slice = (flat, r) => flat.subarray(r * d.dModel + h * dh, r * d.dModel + (h + 1) * dh);
  const at = (flat, qi, kj) => flat[(h * nq + qi) * nk + kj];
  const masked = (kj) => a.mask[pos * nk + kj] === 1;
  const raw = Array.from({ length: nk }, (_, j) => at(a.scores, pos, j));
  const scaled = Array.from({ length: nk }, (_, j) => at(a.scaled, pos, j));
  const weights = Array.from({ length: nk }, (_, j) => at(a.weights, pos, j));
  const unscaled = softmax(raw, masked);
  const cell = (v, j) => (masked(j) ? `<td class="sa-masked">${esc(t('inside.masked'))}</td>` : `<td>${d3(v)}</td>`);
  const head = keyNames.map((k) => `<th scope="col">${esc(k)}</th>`).join('');
  const line = (name, vals, cls = '') => `<tr class="${cls}"><th scope="row">${name}</th>${vals.map(cell).join('')}</tr>`;
  const peak = (xs) => Math.max(...xs.filter((_, j) => !masked(j)));
  let html = `<div class="in-stage"><h4>${esc(t('inside.qkvTitle', { n: h + 1 }))}</h4><p class="in-heads">${headBtns}</p>`
    + `<p class="note">${t('inside.qkv_html', { q: esc(queryNames[pos]) })}</p>`
    + strip(slice(a.q, pos), t('inside.q', { name: queryNames[pos] }));
  for (let j = 0; j < nk; j++) html += strip(slice(a.k, j), t('inside.k', { name: keyNames[j] })) ;
  html += '</div>';
  const scaleRow = `<tr><th scope="row">${esc(t('inside.scaledRow', { s: d3(a.scale), dh }))}</th>${scaled.map(cell).join('')}</tr>`;
  html += `<div class="in-stage"><h4>${esc(t('inside.scoresTitle'))}</h4>`
    + scrollRegion(`<table class="in-scores"><caption>${esc(t('inside.scoresCaption', { q: queryNames[pos], n: h + 1 }))}</caption><thead><tr><th scope="col"></th>${head}</tr></thead><tbody>`
      + line(esc(t('inside.rawRow')), raw) + scaleRow
      + line(esc(t(st.unscaled ? 'inside.softmaxRawRow' : 'inside.softmaxRow')), st.unscaled ? unscaled : weights, 'in-softmax')
      + '</tbody></table>')
    + `<p><button type="button" class="small" data-action="in-scale" aria-pressed="${st.unscaled}">${esc(t(st.unscaled ? 'inside.withScaling' : 'inside.withoutScaling'))}</button></p>`
    + `<p class="note">${esc(t('inside.scaleWhy', { dh, s: d3(a.scale) }))} ${esc(t(Math.abs(peak(weights) - peak(unscaled)) < 0.005 ? 'inside.scaleSame' : 'inside.scaleHere', { peak: d3(peak(weights)), rawPeak: d3(peak(unscaled)) }))}</p></div>`;
  // Every query's weights for this head: QKᵀ after scaling, masking and softmax.
  const matrix = Array.from({ length: nq }, (_, qi) => Array.from({ length: nk }, (_, kj) => at(a.weights, qi, kj)));
  html += `<div class="in-stage"><h4>${esc(t('inside.matrixTitle'))}</h4>`
    + heatmap({ matrix, rowLabels: queryNames, colLabels: keyNames, caption: t('inside.matrixCaption', { n: h + 1 }), fit: true, highlightRow: pos,
      masked: (qi, kj) => a.mask[qi * nk + kj] === 1, maskedText: t('inside.masked'), arrow: '→' }) + '</div>';
  // Each head's output, side by side, then W_O.
  let heads = '';
  for (let k = 0; k < H; k++) heads += strip(a.headOutputs.subarray(pos * d.dModel + k * dh, pos * d.dModel + (k + 1) * dh), t('inside.headOut', { n: k + 1 }));
  html += `<div class="in-stage"><h4>${esc(t('inside.headsTitle'))}</h4>${heads}<p class="in-op">${esc(t('inside.concat'))}</p>`
    + strip(row(a.headOutputs, pos, d.dModel), t('inside.concatName')) + `<p class="note">${esc(t('inside.woWhy', { d: d.dModel }))}</p></div>`;
  return html;
}

function ffnView(d, sub, pos) {
  const F = d.ffnDim;
  const hidden = row(sub.ffnHidden, pos, F);
  const zeros = hidden.filter((v) => v === 0).length;
  return `<div class="in-stage"><h4>${esc(t('inside.ffnTitle', { d: d.dModel, f: F }))}</h4>`
    + strip(row(sub.preNorm ? sub.norm.output : sub.input, pos, d.dModel), t('inside.ffnIn'))
    + strip(hidden, t('inside.ffnHidden', { act: d.activation }), { cell: 2 })
    + `<p class="note in-relu">${esc(t(d.activation === 'relu' ? 'inside.reluZeros' : 'inside.geluNote', { zeros, f: F }))}</p></div>`;
}

/**
 * The temperature the output block divides the logits by: the one the learner set on
 * its slider, else the lane's own (a sampling lane's; 1 for the others, which take
 * the distribution as it is), so that it opens on the distribution the step used.
 */
function temperatureOf(st, lane) {
  return st.temperature ?? (lane.decodedOptions?.strategy === 'sample' ? lane.decodedOptions.temperature : 1);
}

function logitsTable(d, st, lane) {
  const V = d.vocabSize, T = d.target.length;
  const logits = row(d.logits, T - 1, V);
  const info = lane.slot.decoder?.info;
  const texts = info?.targetVocab ?? [];
  const sp = info?.targetSpecials ?? {};
  // The softmax is over the whole vocabulary, as the model computes it; the special
  // tokens search never emits are left out of the list only.
  const never = new Set([sp.pad, sp.unk, sp.bos, sp.mask].filter((id) => id !== undefined));
  const temp = temperatureOf(st, lane);
  const probs = softmax(Array.from(logits, (v) => v / temp));
  const order = [...probs.keys()].filter((v) => !never.has(v)).sort((a, b) => probs[b] - probs[a]).slice(0, 8);
  const rows = order.map((v) => `<tr data-token="${esc(texts[v] ?? v)}" data-p="${probs[v]}"${v === st.req.chosen ? ' class="chosen"' : ''}><th scope="row">${esc(label(texts[v] ?? String(v)))}</th><td class="num">${d3(logits[v])}</td><td class="num">${d3(logits[v] / temp)}</td><td class="num">${(probs[v] * 100).toFixed(1)}%</td></tr>`).join('');
  return scrollRegion(`<table class="in-logits"><caption>${esc(t('inside.logitsCaption', { T: temp.toFixed(1) }))}</caption><thead><tr><th scope="col">${esc(t('inside.token'))}</th><th scope="col">${esc(t('inside.logit'))}</th><th scope="col">${esc(t('inside.logitT'))}</th><th scope="col">${esc(t('inside.prob'))}</th></tr></thead><tbody>${rows}</tbody></table>`);
}

function outputView(d, st, lane) {
  const temp = temperatureOf(st, lane);
  return `<div class="in-stage in-output"><h4>${esc(t('inside.outTitle'))}</h4>`
    + `<label class="in-temp">${esc(t('inside.temp'))} <input type="range" min="0.1" max="3" step="0.1" value="${temp}" data-action="in-temp"> <output>${temp.toFixed(1)}</output></label>`
    + `<div class="in-logits-box">${logitsTable(d, st, lane)}</div>`
    + `<p class="note">${esc(t('inside.outWhy'))}</p></div>`;
}

/**
 * The RNN's step: the encoder states h_j, the decoder state s_t, the raw scores e_j
 * of the model's score, their softmax, the context a_t = Σ α_j h_j, and [a_t ; s_t]
 * into the output layer. Without attention: the one context vector c instead.
 */
function rnnBody(d, st, lane, letters, tokens) {
  const vocab = lane.slot.decoder?.info?.targetVocab ?? [];
  const T = d.target.length, S = d.sourceLength, H2 = d.encoderWidth, D = d.decoderWidth;
  const last = T - 1;
  let html = `<p class="note">${t('inside.rnnIntro_html', { word: esc(st.req.word), next: esc(label(vocab[st.req.chosen] ?? '')), pos: tokens.length - 1 })}</p>`;
  html += `<div class="in-stage"><h4>${esc(t('inside.rnnEncoder', { n: S, w: H2 }))}</h4>`;
  for (let j = 0; j < S; j++) html += strip(row(d.encoderStates, j, H2), `h${j + 1} (${letters[j]})`);
  html += strip(d.contextVector, t('inside.rnnC'));
  html += `<p class="note">${esc(t('inside.rnnCWhy'))}</p></div>`;
  html += `<div class="in-stage"><h4>${esc(t('inside.rnnDecoder', { w: D }))}</h4>${strip(row(d.decoderStates, last, D), t('inside.rnnS', { t: T }))}</div>`;
  if (d.attention === 'none') {
    html += `<div class="in-stage"><h4>${esc(t('inside.rnnNoAttention'))}</h4>${strip(row(d.context, last, H2), t('inside.rnnA', { t: T }))}`
      + `<p class="note">${t('rnn.noAttention_html')}</p></div>`;
  } else {
    const name = Object.hasOwn(SCORES, d.attention) ? scoreWords(d.attention).short : d.attention;
    const formula = SCORES[d.attention]?.formula ?? '';
    const raw = Array.from(row(d.scores, last, S));
    const weights = Array.from(row(d.weights, last, S));
    const head = letters.map((l) => `<th scope="col">${esc(l)}</th>`).join('');
    const line = (nm, vals) => `<tr><th scope="row">${esc(nm)}</th>${vals.map((v) => `<td>${d3(v)}</td>`).join('')}</tr>`;
    html += `<div class="in-stage"><h4>${esc(t('inside.rnnScores', { name }))}</h4><p class="formula">e<sub>j</sub> = ${formula}</p>`
      + scrollRegion(`<table class="in-scores"><caption>${esc(t('inside.rnnScoresCaption', { t: T }))}</caption><thead><tr><th scope="col"></th>${head}</tr></thead><tbody>`
        + line(t('inside.rnnRawRow'), raw) + line(t('inside.softmaxRow'), weights) + '</tbody></table>')
      + strip(row(d.context, last, H2), t('inside.rnnA', { t: T }))
      + `<p class="note">${esc(t('inside.rnnAWhy'))}</p></div>`;
  }
  html += outputView(d, st, lane);
  return html;
}

