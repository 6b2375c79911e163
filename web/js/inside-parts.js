// The pieces "Inside this step" (inside.js) is drawn with: a vector as a colour
// strip with its numbers (vector-strip.js), and one view per kind of block of a Transformer — the
// embedding and positional encoding, a LayerNorm, a sublayer with its residual sum,
// an attention's stages (q, k, q·k, scaling, mask, softmax, every query's weights,
// the heads concatenated), the feed-forward network. Loaded with import() when a
// lane's inside is first opened (inside.js): a first visit does not download them.
import { esc, scrollRegion } from './views.js';
import { heatmap } from './heatmap.js';
import { t } from './i18n.js';
import { fmt } from './format.js';
import { d3, diverge, maxAbs, strip } from './vector-strip.js';

export { d3, diverge, maxAbs, strip };

/** Row r (width w) of a flat row-major matrix. */
export const row = (flat, r, w) => flat.subarray(r * w, (r + 1) * w);

export function softmax(xs, masked = () => false) {
  let m = -Infinity;
  xs.forEach((v, j) => { if (!masked(j)) m = Math.max(m, v); });
  const e = xs.map((v, j) => (masked(j) ? 0 : Math.exp(v - m)));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

/** The embedding stage: token embedding + positional encoding = the block's input, and the positional table. */
export function embedView(d, stack, pos, names) {
  const w = d.dModel;
  const pe = Array.from({ length: stack.length }, (_, r) => row(stack.positional, r, w));
  const peMax = maxAbs(stack.positional);
  let svg = `<svg class="pe-map" width="${w * 4}" height="${stack.length * 12}" role="img" aria-label="${esc(t('inside.peAria', { n: stack.length, d: w }))}">`;
  pe.forEach((r, i) => r.forEach((v, j) => { svg += `<rect x="${j * 4}" y="${i * 12}" width="4" height="11" fill="${diverge(v, peMax)}"><title>${esc(names[i])}, ${esc(t('inside.peDim', { j }))}: ${d3(v)}</title></rect>`; }));
  svg += '</svg>';
  // Positions are counted from 1, as everywhere on the page (the address's q, the steps).
  return `<div class="in-stage" data-stage="embed"><h4>${esc(t('inside.embedTitle', { name: names[pos], pos: pos + 1 }))}</h4>`
    + `<div class="in-sum">${strip(row(stack.tokenEmbedding, pos, w), t('inside.tokEmb'))}`
    + `<p class="in-op">+</p>${strip(row(stack.positional, pos, w), t('inside.pe'))}`
    + `<p class="in-op">=</p>${strip(row(stack.input, pos, w), t('inside.blockIn'))}</div>`
    + `<p class="note">${t(d.positionalKind === 'sinusoidal' ? 'inside.peSin_html' : 'inside.peLearned_html')}</p>`
    + `<div class="pe-pics">${peCurves(d, stack, pos, names)}`
    + `<div class="pe-table"><h4>${esc(t('inside.peTable'))}</h4>${scrollRegion(svg, t('inside.peAria', { n: stack.length, d: w }))}</div></div></div>`;
}

// Categorical colours that stay apart for the common colour-vision deficiencies (Okabe and Ito).
const CURVE_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00'];

/** The dimensions the curves follow: the first sin and cos pair, then ever slower ones (d/32, d/8, d/2). */
export function peDims(dModel) {
  return [...new Set([0, 1, dModel / 32, dModel / 8, dModel / 2].map((x) => Math.floor(x)))].filter((j) => j < dModel);
}

/**
 * A few dimensions of the positional encoding as curves over the positions used (the
 * module's numbers: stack.positional), beside the table of every dimension: the fast
 * ones swing from one position to the next, the slow ones hardly move. Hover (a dot's
 * title) or the table twin gives each number.
 */
function peCurves(d, stack, pos, names) {
  const w = d.dModel, n = stack.length;
  const dims = peDims(w);
  const val = (p, j) => stack.positional[p * w + j];
  const sin = d.positionalKind === 'sinusoidal';
  const top = sin ? 1 : Math.max(1e-6, ...dims.flatMap((j) => Array.from({ length: n }, (_, p) => Math.abs(val(p, j)))));
  const W = 300, H = 150, L = 34, R = 10, T = 8, B = 22;
  const x = (p) => L + (n > 1 ? p / (n - 1) : 0.5) * (W - L - R);
  const y = (v) => T + (1 - (v + top) / (2 * top)) * (H - T - B);
  const name = (j) => (sin ? t(j % 2 ? 'inside.peDimCos' : 'inside.peDimSin', { j }) : t('inside.peDim', { j }));
  let svg = `<svg class="pe-curves" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(t('inside.peCurvesAria', { n, dims: dims.map(name).join(', ') }))}">`;
  for (const v of [top, 0, -top]) {
    svg += `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" class="pe-grid${v === 0 ? ' zero' : ''}"/><text x="${L - 4}" y="${y(v) + 4}" class="pe-tick" text-anchor="end">${v === 0 ? '0' : (v > 0 ? '' : '−') + fmt(Math.abs(v), sin ? 0 : 2)}</text>`;
  }
  const every = Math.ceil(n / 12);
  names.forEach((nm, p) => { if (p % every === 0) svg += `<text x="${x(p)}" y="${H - 6}" class="pe-tick" text-anchor="middle">${esc(nm)}</text>`; });
  svg += `<line x1="${x(pos)}" x2="${x(pos)}" y1="${T}" y2="${H - B}" class="pe-here"/>`;
  dims.forEach((j, k) => {
    const c = CURVE_COLOURS[k % CURVE_COLOURS.length];
    const pts = Array.from({ length: n }, (_, p) => [x(p), y(val(p, j))]);
    svg += `<g data-dim="${j}" style="--c:${c}"><polyline points="${pts.map((q) => q.join(',')).join(' ')}" class="pe-line"/>`;
    pts.forEach(([px, py], p) => { svg += `<circle cx="${px}" cy="${py}" r="3" data-pos="${p}" data-v="${val(p, j)}"><title>${esc(names[p])}, ${esc(name(j))}: ${d3(val(p, j))}</title></circle>`; });
    svg += '</g>';
  });
  svg += '</svg>';
  const key = dims.map((j, k) => `<li><span class="pe-swatch" style="background:${CURVE_COLOURS[k % CURVE_COLOURS.length]}"></span>${esc(name(j))}</li>`).join('');
  const head = dims.map((j) => `<th scope="col">${esc(name(j))}</th>`).join('');
  const rows = names.map((nm, p) => `<tr><th scope="row">${esc(nm)}</th>${dims.map((j) => `<td data-dim="${j}">${d3(val(p, j))}</td>`).join('')}</tr>`).join('');
  return `<figure class="pe-fig"><figcaption>${esc(t('inside.peCurves'))}</figcaption>${svg}<ul class="pe-key">${key}</ul>`
    + `<details class="twin"><summary>${esc(t('inside.numbers'))}</summary>${scrollRegion(`<table class="vec-table pe-twin"><caption class="visually-hidden">${esc(t('inside.peCurves'))}</caption><thead><tr><th scope="col">${esc(t('inside.pePos'))}</th>${head}</tr></thead><tbody>${rows}</tbody></table>`)}</details></figure>`;
}

/**
 * The distribution of a vector's values as a small histogram (bins over its own range),
 * its range and its mean and standard deviation under it.
 */
export function histogram(values, name) {
  const n = values.length;
  const lo = Math.min(...values), hi = Math.max(...values);
  const BINS = 24, W = 168, H = 44;
  const counts = new Array(BINS).fill(0);
  for (const v of values) counts[Math.min(BINS - 1, Math.floor(((v - lo) / (hi - lo || 1)) * BINS))]++;
  const top = Math.max(...counts);
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  const summary = t('inside.histAria', { name, n, a: d3(lo), b: d3(hi), mean: d3(mean), std: d3(std) });
  let bars = '';
  counts.forEach((c, i) => { const h = (c / top) * (H - 2); bars += `<rect x="${(i * W) / BINS}" y="${H - h}" width="${W / BINS - 1}" height="${h}"><title>${c}</title></rect>`; });
  return `<figure class="hist" data-hist="${esc(name)}" data-mean="${mean}" data-std="${std}"><figcaption>${esc(name)}</figcaption>`
    + `<svg width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(summary)}">${bars}</svg>`
    + `<p class="hist-range"><span>${d3(lo)}</span><span>${d3(hi)}</span></p><p class="hist-stats">${esc(t('inside.histStats', { mean: d3(mean), std: d3(std) }))}</p></figure>`;
}

export function normView(n, pos, w, title) {
  const mean = n.mean[pos], std = n.std[pos];
  const before = row(n.input, pos, w), after = row(n.output, pos, w);
  // (x − mean) / std from the engine's own mean and std: what LayerNorm makes before its learned γ and β.
  const standard = Array.from(before, (v) => (v - mean) / std);
  return `<div class="in-stage" data-stage="norm"><h4>${esc(title)}</h4>`
    + strip(before, t('inside.normIn')) + `<p class="in-op">${esc(t('inside.normOp', { mean: d3(mean), std: d3(std) }))}</p>`
    + strip(after, t('inside.normOut'))
    + `<div class="hists">${histogram(before, t('inside.histBefore'))}<span class="in-op" aria-hidden="true">→</span>${histogram(standard, t('inside.histStandard'))}<span class="in-op" aria-hidden="true">→</span>${histogram(after, t('inside.histAfter'))}</div>`
    + `<p class="note">${esc(t('inside.normRange', { a: d3(Math.min(...before)), b: d3(Math.max(...before)), c: d3(Math.min(...after)), e: d3(Math.max(...after)) }))}</p></div>`;
}

/** A sublayer of a layer (st.sub: self, cross or ffn) at position pos, its LayerNorm and residual sum in the model's order. */
export function sublayerView(d, block, st, pos, names, letters) {
  const sub = st.sub === 'self' ? block.selfAttention : st.sub === 'cross' ? block.crossAttention : block.ffn;
  const w = d.dModel;
  let html = sub.isAttention ? fromMap(d, st, pos, names, st.stack === 'decoder' ? d.decoder.layers.length : d.encoder.layers.length) : '';
  const normFirst = sub.preNorm;
  const normTitle = t(normFirst ? 'inside.normBefore' : 'inside.normAfter');
  if (normFirst) html += normView(sub.norm, pos, w, normTitle);
  if (sub.isAttention) html += attentionView(d, sub, st, pos, st.sub === 'cross' ? letters : names, names);
  else html += ffnView(d, sub, pos);
  html += `<div class="in-stage" data-stage="add"><h4>${esc(t('inside.addTitle'))}</h4>${strip(row(sub.input, pos, w), t('inside.resIn'))}<p class="in-op">+</p>`
    + strip(row(sub.delta, pos, w), t(sub.isAttention ? 'inside.attnOut' : 'inside.ffnOut')) + `<p class="in-op">=</p>`
    + strip(row(sub.sum, pos, w), t('inside.resSum')) + `<p class="note">${esc(t('inside.residualWhy'))}</p></div>`;
  if (!normFirst) html += normView(sub.norm, pos, w, normTitle);
  return html;
}

/** How the attention on show was reached from a map: one of the heads it averaged; the query before the row's token. */
function fromMap(d, st, pos, names, layers) {
  let html = st.fromAverage ? `<p class="note in-from-avg">${esc(t('inside.fromAverage', { layers, heads: d.heads, l: st.layer + 1, h: Math.min(st.head, d.heads - 1) + 1 }))}</p>` : '';
  if (st.written) html += `<p class="note in-written">${esc(t('inside.rowWritten', { q: names[pos] }))}</p>`;
  return html;
}

/**
 * One query's scores over the keys, a key a row and a stage a column (cols: [id, header,
 * values]), so that each key reads left to right through the stages, and the table is
 * as narrow as its stages at any length of word. The last column is the softmax. cell
 * gives a value's text and class (a masked key's, say) where three decimals will not do.
 */
export function keyTable(caption, keyNames, cols, cell = (v) => ({ text: d3(v) })) {
  const head = cols.map(([id, name]) => `<th scope="col" data-col="${id}">${esc(name)}</th>`).join('');
  const td = (id, c, v, j) => {
    const { text, cls = '' } = cell(v, j, id);
    const classes = [cls, c === cols.length - 1 ? 'in-softmax' : ''].filter(Boolean).join(' ');
    return `<td data-col="${id}"${classes ? ` class="${classes}"` : ''}>${text}</td>`;
  };
  const body = keyNames.map((k, j) => `<tr data-key="${j}"><th scope="row">${esc(k)}</th>`
    + cols.map(([id, , vals], c) => td(id, c, vals[j], j)).join('') + '</tr>').join('');
  return scrollRegion(`<table class="in-scores"><caption>${esc(caption)}</caption><thead><tr><th scope="col">${esc(t('inside.keyCol'))}</th>${head}</tr></thead><tbody>${body}</tbody></table>`);
}

function attentionView(d, sub, st, pos, keyNames, queryNames) {
  const a = sub.attention;
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
  const peak = (xs) => Math.max(...xs.filter((_, j) => !masked(j)));
  // A stage named for a mask that is not there would teach one: the encoder, the cross-attention
  // and a CMLM's decoder hide no key from any query.
  const hasMask = a.mask.some((v) => v === 1);
  let html = st.sub === 'self' && st.stack === 'decoder' && !d.causal ? `<p class="note in-no-mask">${esc(t('inside.notMaskedCmlm'))}</p>` : '';
  html += `<div class="in-stage" data-stage="qk"><h4>${esc(t('inside.qkvTitle', { n: h + 1 }))}</h4><p class="in-heads">${headBtns}</p>`
    + `<p class="note">${t('inside.qkv_html', { q: esc(queryNames[pos]) })}</p>`
    + strip(slice(a.q, pos), t('inside.q', { name: queryNames[pos] }));
  for (let j = 0; j < nk; j++) html += strip(slice(a.k, j), t('inside.k', { name: keyNames[j] })) ;
  html += '</div>';
  // The mask is a number like the others: 0 for a key the query may read, −∞ for a later
  // one, added to the scaled score; e^−∞ = 0 is why such a key's weight is 0. The masked
  // key's cells are dark, as in the map below.
  const cell = (v, j, col) => {
    if (col === 'mask') return masked(j) ? { text: '−∞', cls: 'sa-masked' } : { text: '0' };
    return { text: d3(v), cls: masked(j) && col === 'softmax' ? 'sa-masked' : '' };
  };
  const cols = [
    ['raw', t('inside.rawRow'), raw],
    ['scaled', t('inside.scaledRow', { s: d3(a.scale), dh }), scaled],
    ...(hasMask ? [['mask', t('inside.maskCol'), raw]] : []),
    ['softmax', t(st.unscaled ? 'inside.softmaxRawRow' : 'inside.softmaxRow'), st.unscaled ? unscaled : weights],
  ];
  const maskNote = hasMask ? `<p class="note in-mask-why">${esc(t(raw.some((_, j) => masked(j)) ? 'inside.maskWhy' : 'inside.maskNone', { q: queryNames[pos] }))}</p>` : '';
  html += `<div class="in-stage" data-stage="scores"><h4>${esc(t(hasMask ? 'inside.scoresTitle' : 'inside.scoresTitleNoMask'))}</h4>`
    + keyTable(t('inside.scoresCaption', { q: queryNames[pos], n: h + 1 }), keyNames, cols, cell) + maskNote
    + `<p><button type="button" class="small" data-action="in-scale" aria-pressed="${st.unscaled}">${esc(t(st.unscaled ? 'inside.withScaling' : 'inside.withoutScaling'))}</button></p>`
    + `<p class="note">${esc(t('inside.scaleWhy', { dh, s: d3(a.scale) }))} ${esc(t(Math.abs(peak(weights) - peak(unscaled)) < 0.005 ? 'inside.scaleSame' : 'inside.scaleHere', { peak: d3(peak(weights)), rawPeak: d3(peak(unscaled)) }))}</p></div>`;
  // Every query's weights for this head: QKᵀ after scaling, masking and softmax.
  const matrix = Array.from({ length: nq }, (_, qi) => Array.from({ length: nk }, (_, kj) => at(a.weights, qi, kj)));
  html += `<div class="in-stage" data-stage="matrix"><h4>${esc(t(hasMask ? 'inside.matrixTitle' : 'inside.matrixTitleNoMask'))}</h4>`
    + heatmap({ matrix, rowLabels: queryNames, colLabels: keyNames, caption: t('inside.matrixCaption', { n: h + 1 }), fit: true, highlightRow: pos,
      masked: (qi, kj) => a.mask[qi * nk + kj] === 1, maskedText: t('inside.masked'), arrow: '→', values: true, tableClass: 'in-matrix',
      legend: hasMask ? `<p class="legend"><span class="lg sa-lg-masked"></span> ${esc(t('sa.lgMasked'))}</p>` : '' }) + '</div>';
  // The lookup's second half: this head's values, each weighted by the softmax above,
  // summed into the head's output (the keys decided the weights; the values are what
  // is passed on). Masked keys have weight 0 and are left out.
  // Each row is the product weight × v, all on one colour scale with their sum, so that a
  // value the softmax nearly shut out is drawn nearly white.
  const headOut = a.headOutputs.subarray(pos * d.dModel + h * dh, pos * d.dModel + (h + 1) * dh);
  const products = [];
  for (let j = 0; j < nk; j++) if (!masked(j)) products.push([j, slice(a.v, j).map((v) => v * weights[j])]);
  const max = Math.max(maxAbs(headOut), ...products.map(([, p]) => maxAbs(p)));
  const vRows = products.map(([j, p]) => strip(p, t('inside.vWeighted', { w: d3(weights[j]), name: keyNames[j] }), { max }));
  html += `<div class="in-stage" data-stage="values"><h4>${esc(t('inside.valuesTitle', { n: h + 1 }))}</h4>`
    + `<p class="note">${t('inside.values_html', { q: esc(queryNames[pos]) })}</p><div class="in-terms">${vRows.join('')}`
    + `<p class="in-op">Σ =</p>${strip(headOut, t('inside.headOut', { n: h + 1 }), { max })}</div></div>`;
  // Each head's output, side by side, then W_O: the sublayer's output before the residual sum.
  let heads = '';
  for (let k = 0; k < H; k++) heads += strip(a.headOutputs.subarray(pos * d.dModel + k * dh, pos * d.dModel + (k + 1) * dh), t('inside.headOut', { n: k + 1 }));
  html += `<div class="in-stage" data-stage="heads"><h4>${esc(t('inside.headsTitle'))}</h4>${heads}<p class="in-op">${esc(t('inside.concat'))}</p>`
    + strip(row(a.headOutputs, pos, d.dModel), t('inside.concatName')) + `<p class="in-op">${esc(t('inside.timesWo'))}</p>`
    + strip(row(sub.delta, pos, d.dModel), t('inside.projected')) + `<p class="note">${esc(t('inside.woWhy', { d: d.dModel }))}</p></div>`;
  return html;
}

export function ffnView(d, sub, pos) {
  const F = d.ffnDim;
  const hidden = row(sub.ffnHidden, pos, F);
  const zeros = hidden.filter((v) => v === 0).length;
  return `<div class="in-stage" data-stage="ffn"><h4>${esc(t('inside.ffnTitle', { d: d.dModel, f: F }))}</h4>`
    + strip(row(sub.preNorm ? sub.norm.output : sub.input, pos, d.dModel), t('inside.ffnIn'))
    + strip(hidden, t('inside.ffnHidden', { act: d.activation }), { cell: 2 })
    + `<p class="note in-relu">${esc(t(d.activation === 'relu' ? 'inside.reluZeros' : 'inside.geluNote', { zeros, f: F }))}</p></div>`;
}
