// The self-attention matrices' contents (self-attention.js draws their disclosures):
// loaded with import() when a lane's first matrix is opened, so a first visit does not
// download them.
import { label } from './phonemes.js';
import { esc } from './views.js';
import { heatmap } from './heatmap.js';
import { t } from './i18n.js';

// Every function below takes `lane`: the view's facade of the lane (view-registry.js laneFacade).

/** The contents of matrix `which` ('enc' or 'dec') of `lane` at step i. */
export function content(lane, i, which) {
  const m = which === 'enc' ? encoderMatrix(lane) : lane.kind.ar ? arDecoderMatrix(lane, i) : narDecoderMatrix(lane, i);
  if (m.missing) return `<p class="note">${esc(m.missing)}</p>`;
  const sa = lane.state;
  // The head picked, while this model has it (another model may have fewer).
  const [l, h] = sa.head[which].split('.').map(Number);
  const sel = l < m.layers && h < m.heads && m.layers * m.heads > 1 ? sa.head[which] : 'avg';
  const rows = m.rows.map((r) => pick(r, m.layers, m.heads, sel));
  const whichHead = sel === 'avg' ? t('attn.whichAvg') : t('attn.whichHead', { l: l + 1, h: h + 1 });
  const caption = t('attn.captionWhich', { caption: m.caption, which: whichHead });
  const heads = { layers: m.layers, heads: m.heads, selected: sel, action: 'sa-head', aria: t(which === 'enc' ? 'sa.encThumbs' : 'sa.decThumbs'),
    matrixOf: (hl, hh) => m.rows.map((stack) => pick(stack, m.layers, m.heads, `${hl}.${hh}`)), cols: m.labels.length };
  const cells = m.samePass ? lane.link('inside', i, { stack: which === 'enc' ? 'encoder' : 'decoder', sub: 'self', sel }) : null;
  return `<div class="sa-explain">${m.explain}</div>`
    + matrix({ labels: m.labels, numbered: m.numbered, rows, masked: m.masked, caption, axis: m.axis, twinOpen: sa.twin[which], heads, cells });
}

/**
 * One query row of a (layers × heads) stack, [layers * heads * n]: head l.h's
 * numbers, or their mean (each head's row sums to 1, so the mean's does too).
 */
function pick(stack, layers, heads, sel) {
  const n = stack.length / (layers * heads);
  if (sel !== 'avg') {
    const [l, h] = sel.split('.').map(Number);
    return stack.subarray((l * heads + h) * n, (l * heads + h + 1) * n);
  }
  const out = new Float64Array(n);
  for (let k = 0; k < layers * heads; k++) for (let j = 0; j < n; j++) out[j] += stack[k * n + j];
  return out.map((v) => v / (layers * heads));
}

// Each matrix as rows of per-head stacks: rows[q] is [layers * heads * n] for query q.

/** A stack of `maps` square n × n maps, [maps * n * n] (query, key), as n query rows of [maps * n]. */
function queryRows(data, maps, n) {
  return Array.from({ length: n }, (_, q) => {
    const stack = new Float32Array(maps * n);
    for (let k = 0; k < maps; k++) stack.set(data.subarray((k * n + q) * n, (k * n + q + 1) * n), k * n);
    return stack;
  });
}

function encoderMatrix(lane) {
  const s1 = lane.snapshot(1);
  const letters = lane.letters();
  if (!s1?.encoderAttention) return { missing: t('sa.noEncoder') };
  const S = s1.sourceLength;
  return {
    layers: s1.encoderLayers, heads: s1.encoderHeads, masked: false, samePass: true,
    rows: queryRows(s1.encoderAttention, s1.encoderLayers * s1.encoderHeads, S),
    labels: letters.slice(0, S),
    axis: { rows: t('sa.rowsLetters'), cols: t('sa.colsLetters') },
    caption: t('sa.encCaption', { word: letters.join('') }),
    explain: t('sa.enc_html'),
  };
}

function arDecoderMatrix(lane, i) {
  const s = lane.snapshot(i);
  // The hypothesis the lane's views follow (in a beam lane the one the learner picked
  // in the table or the tree, as its cross-attention does).
  const focus = lane.focus(i);
  if (!focus) return { missing: t('sa.noDecoder') };
  const { hyp: h, path, picked, pickable } = focus;
  if (!path.length || path.some((n) => !n.selfAttention)) return { missing: t('sa.noDecoder') };
  // Row q is what position q (BEGIN, then the tokens written) looked at when it was fed,
  // kept by the ancestor that was made at that step.
  const labels = ['<s>', ...h.texts.slice(0, path.length - 1)].map(label);
  const hyp = h.texts.filter((x) => x !== '</s>').map(label).join(' ') || t('out.empty');
  return {
    layers: s.layers, heads: s.heads, rows: path.map((n) => n.selfAttention), masked: true, labels,
    samePass: lane.pass(i)?.id === h.id,   // the hypothesis the inside's pass reads
    axis: { rows: t('sa.rowsPhonemes'), cols: t('sa.colsPhonemes') },
    caption: t(picked ? 'sa.decCaptionBeamSel' : pickable ? 'sa.decCaptionBeam' : 'sa.decCaptionAr', { hyp, i }),
    explain: t('sa.decAr_html'),
  };
}

function narDecoderMatrix(lane, i) {
  const s = lane.snapshot(i);
  const dr = lane.focus(i)?.draft;
  if (!dr?.selfAttention || !s.layers) return { missing: t('sa.noDecoder') };
  const n = dr.length;
  // What each position was fed in this iteration: MASK where it was (re-)masked, else the token kept.
  const labels = dr.texts.map((x, p) => `${p + 1}·${label(dr.masked[p] ? '<mask>' : x)}`);
  return {
    layers: s.layers, heads: s.heads, rows: queryRows(dr.selfAttention, s.layers * s.heads, n), masked: false, labels, numbered: true, samePass: true,
    axis: { rows: t('sa.rowsPositions'), cols: t('sa.colsPositions') },
    caption: t('sa.decCaptionNar', { i, L: n }),
    explain: t(lane.type === 'nar' ? 'sa.decNar_html' : 'sa.decMp_html'),
  };
}

/**
 * A square attention matrix (queries × keys, the same labels) under its axis
 * names, with its colour key, table twin and head grid (heatmap.js). Masked
 * cells (a key after its query) are drawn hatched and have no number.
 */
function matrix({ labels, numbered = false, rows, masked, caption, axis, twinOpen, heads, cells }) {
  // In the table each header names its position too (a word may repeat a letter), unless its label does.
  const pos = (k) => (numbered ? '' : `<span class="sa-pos"> ${k + 1}</span>`);
  const key = masked ? `<p class="legend"><span class="lg sa-lg-masked"></span> ${esc(t('sa.lgMasked'))}</p>` : '';
  // The axes named in words above the matrix, where they fit at any size (the table's
  // corner names them in full for screen readers, and shows the arrows only).
  const axes = `<p class="sa-axes"><span>↓ ${esc(t('sa.rowsAre', { what: axis.rows }))}</span> <span>→ ${esc(t('sa.colsAre', { what: axis.cols }))}</span></p>`;
  return heatmap({
    matrix: rows, rowLabels: labels, colLabels: labels, caption, arrow: '→', fit: true,
    masked: masked ? (q, k) => k > q : null, maskedText: t('sa.masked'),
    svgClass: 'sa-matrix', tableClass: 'sa-table', region: t('sa.region', { caption }), above: axes, legend: key,
    corner: `<span class="visually-hidden">${esc(t('sa.corner', axis))}</span><span aria-hidden="true">↓ →</span>`,
    headerSuffix: pos, values: true, twinOpen, heads, pick: cells,
  });
}
