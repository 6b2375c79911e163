// The live views of a training run, each a function of a run's facade (train-run.js
// runFacade: its records, its latest probe, its info, its config), so that a lesson's two
// runs side by side are drawn by the same functions. Pictures first, each number on hover
// (an SVG <title>) and in a table twin (a <details> with a table):
//   lossView       the loss per record (the mean cross-entropy over the record's steps), with
//                  the label-smoothing floor where the run has one (info.lossFloor);
//   accuracyView   teacher-forced token accuracy against free-running accuracy, the gap a band;
//   probeView      the probe example's -log p(reference) per position, and its cross-attention;
//   copyView       a copy model's p_gen per output token and where the copied probability came from.
import { heatmap } from './heatmap.js';
import { t } from './i18n.js';
import { esc, scrollRegion } from './views.js';

const W = 360;   // the charts' own units; they scale to the width they are given
const H = 180;
const PAD = { l: 40, r: 10, t: 10, b: 26 };
const num = (v, d = 3) => (Number.isFinite(v) ? Number(v.toFixed(d)).toString() : '—');
const pct = (v) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : '—');

function twin(caption, head, rows) {
  const table = `<table class="tr-table"><caption>${esc(caption)}</caption><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>`
    + `<tbody>${rows.map((r) => `<tr>${r.map((c, i) => (i ? `<td>${esc(c)}</td>` : `<th scope="row">${esc(c)}</th>`)).join('')}</tr>`).join('')}</tbody></table>`;
  return `<details class="twin"><summary>${esc(t('train.tableTwin'))}</summary>${scrollRegion(table)}</details>`;
}

/**
 * A line chart: series [{cls, label, points: [[x, y, title]]}], a band between two series
 * ([[x, yLow, yHigh]]), a horizontal line {y, label}; x from 0 to xMax, y from 0 to yMax.
 */
function lineChart({ caption, series, band = null, hline = null, xMax, yMax, yFormat = (v) => num(v, 2), xLabel, yLabel }) {
  const x = (v) => PAD.l + ((W - PAD.l - PAD.r) * v) / Math.max(1, xMax);
  const y = (v) => H - PAD.b - ((H - PAD.t - PAD.b) * Math.min(v, yMax)) / (yMax || 1);
  let svg = `<svg class="tr-chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(caption)}">`;
  for (const f of [0, 0.5, 1]) {
    svg += `<line class="tr-grid" x1="${PAD.l}" x2="${W - PAD.r}" y1="${y(f * yMax)}" y2="${y(f * yMax)}"/>`
      + `<text class="tr-tick" x="${PAD.l - 4}" y="${y(f * yMax) + 4}" text-anchor="end">${esc(yFormat(f * yMax))}</text>`;
  }
  svg += `<text class="tr-tick" x="${PAD.l}" y="${H - 8}">0</text><text class="tr-tick" x="${W - PAD.r}" y="${H - 8}" text-anchor="end">${esc(String(xMax))}</text>`
    + `<text class="tr-axis" x="${(W + PAD.l) / 2}" y="${H - 8}" text-anchor="middle">${esc(xLabel)}</text>`
    + `<text class="tr-axis" transform="translate(11 ${(H - PAD.b + PAD.t) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`;
  if (band && band.length > 1) {
    const pts = [...band.map(([bx, lo]) => `${x(bx)},${y(lo)}`), ...band.slice().reverse().map(([bx, , hi]) => `${x(bx)},${y(hi)}`)];
    svg += `<polygon class="tr-band" points="${pts.join(' ')}"><title>${esc(t('train.gapBand'))}</title></polygon>`;
  }
  if (hline) {
    svg += `<line class="tr-floor" data-y="${hline.y}" x1="${PAD.l}" x2="${W - PAD.r}" y1="${y(hline.y)}" y2="${y(hline.y)}"><title>${esc(hline.label)}</title></line>`;
  }
  for (const s of series) {
    if (s.points.length > 1) svg += `<polyline class="tr-line ${s.cls}" points="${s.points.map(([px, py]) => `${x(px)},${y(py)}`).join(' ')}"/>`;
    for (const [px, py, title] of s.points) {
      svg += `<circle class="tr-dot ${s.cls}" cx="${x(px)}" cy="${y(py)}" r="2.5" data-x="${px}" data-y="${py}"><title>${esc(title)}</title></circle>`;
    }
  }
  svg += '</svg>';
  const key = series.map((s) => `<span class="tr-key ${s.cls}">${esc(s.label)}</span>`).join('')
    + (band && band.length > 1 ? `<span class="tr-key tr-band-key">${esc(t('train.gapBand'))}</span>` : '')
    + (hline ? `<span class="tr-key tr-floor-key">${esc(hline.label)}</span>` : '');
  return `<div class="tr-chart-wrap">${svg}</div><p class="tr-keys">${key}</p>`;
}

// The least round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten) at or above v: an axis top whose half is a round tick too.
function niceCeil(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * p).find((x) => x >= v);
}

const lastStep = (run) => Math.max(run.info?.steps ?? 0, run.records.at(-1)?.step ?? 0, 1);

/** The loss per record: each point the mean cross-entropy over the record's steps (a moving mean: the smoothing). */
export function lossView(run) {
  const recs = run.records;
  const floor = run.info?.lossFloor > 0 ? run.info.lossFloor : null;
  const points = recs.map((r) => [r.step, r.loss, t('train.lossPoint', { step: r.step, loss: num(r.loss) })]);
  const yMax = niceCeil(Math.max(floor ?? 0, ...recs.map((r) => r.loss).filter(Number.isFinite), 0.5));
  // A record's steps: the run's own logEvery (the trainer fills every option the config left out).
  const caption = t('train.lossCaption', { every: run.info?.options?.logEvery ?? run.config.logEvery });
  const chart = recs.length ? lineChart({
    caption, series: [{ cls: 'tr-loss', label: t('train.lossKey'), points }], xMax: lastStep(run), yMax,
    hline: floor ? { y: floor, label: t('train.floorKey', { floor: num(floor) }) } : null, xLabel: t('train.stepAxis'), yLabel: t('train.lossAxis'),
  }) : `<p class="tr-empty">${esc(t('train.noRecords'))}</p>`;
  return `<figure class="tr-view tr-loss-view"><figcaption>${esc(caption)}</figcaption>${chart}`
    + (floor ? `<p class="tr-note">${esc(t('train.floorNote', { floor: num(floor), e: run.config.labelSmoothing }))}</p>` : '')
    + twin(caption, [t('train.colStep'), t('train.colLoss')], recs.map((r) => [String(r.step), num(r.loss)])) + '</figure>';
}

/**
 * The teacher-forced and the free-running curve. Teacher-forced: held-out token accuracy
 * where the run measures it, else the training batch's (said so); free-running: held-out
 * token accuracy of the greedy output where measured, else whole-word exact match (said so).
 */
export function accuracyView(run) {
  const recs = run.records;
  const heldTf = recs.some((r) => r.heldOutTokenAccuracy !== undefined);
  const freeTok = recs.some((r) => r.freeTokenAccuracy !== undefined);
  const tfOf = (r) => (heldTf ? r.heldOutTokenAccuracy : r.tokenAccuracy);
  const freeOf = (r) => (freeTok ? r.freeTokenAccuracy : r.wordAccuracy);
  const tfLabel = t(heldTf ? 'train.tfHeldOut' : 'train.tfBatch');
  const freeLabel = t(freeTok ? 'train.freeTokens' : 'train.freeWords');
  const tfPts = recs.filter((r) => tfOf(r) !== undefined).map((r) => [r.step, tfOf(r), `${tfLabel}, ${t('train.atStep', { step: r.step })}: ${pct(tfOf(r))}`]);
  const freePts = recs.filter((r) => freeOf(r) !== undefined).map((r) => [r.step, freeOf(r), `${freeLabel}, ${t('train.atStep', { step: r.step })}: ${pct(freeOf(r))}`]);
  const band = recs.filter((r) => tfOf(r) !== undefined && freeOf(r) !== undefined)
    .map((r) => [r.step, Math.min(tfOf(r), freeOf(r)), Math.max(tfOf(r), freeOf(r))]);
  const caption = t('train.accCaption');
  const chart = recs.length ? lineChart({
    caption, series: [{ cls: 'tr-tf', label: tfLabel, points: tfPts }, { cls: 'tr-free', label: freeLabel, points: freePts }], band,
    xMax: lastStep(run), yMax: 1, yFormat: (v) => `${Math.round(100 * v)}%`, xLabel: t('train.stepAxis'), yLabel: t('train.accAxis'),
  }) : `<p class="tr-empty">${esc(t('train.noRecords'))}</p>`;
  const last = band.at(-1);
  const gap = last ? `<p class="tr-note">${esc(t('train.gapNow', { step: last[0], gap: (100 * (last[2] - last[1])).toFixed(1) }))}</p>` : '';
  const rows = recs.filter((r) => tfOf(r) !== undefined || freeOf(r) !== undefined).map((r) => [String(r.step), pct(tfOf(r)), pct(freeOf(r))]);
  return `<figure class="tr-view tr-acc-view"><figcaption>${esc(caption)}</figcaption>${chart}${gap}`
    + twin(caption, [t('train.colStep'), tfLabel, freeLabel], rows) + '</figure>';
}

/** Bars, one per output position: height `values[i]` of `max`, labelled by `labels[i]`, each with its title. */
function barChart({ caption, labels, values, titles, max, cls }) {
  const bw = 26;
  const h = 120;
  const w = PAD.l + labels.length * bw + 4;
  let svg = `<svg class="tr-bars ${cls}" viewBox="0 0 ${w} ${h + 22}" width="${w}" height="${h + 22}" role="img" aria-label="${esc(caption)}">`;
  svg += `<text class="tr-tick" x="${PAD.l - 4}" y="12" text-anchor="end">${esc(num(max, 2))}</text><text class="tr-tick" x="${PAD.l - 4}" y="${h}" text-anchor="end">0</text>`
    + `<line class="tr-grid" x1="${PAD.l}" x2="${w}" y1="${h}" y2="${h}"/>`;
  labels.forEach((lab, i) => {
    const v = Math.max(0, values[i]);
    const bh = max > 0 ? ((h - 8) * Math.min(v, max)) / max : 0;
    svg += `<rect class="tr-bar" x="${PAD.l + i * bw + 3}" y="${h - bh}" width="${bw - 6}" height="${bh}" data-v="${values[i]}"><title>${esc(titles[i])}</title></rect>`
      + `<text class="tr-bar-label" x="${PAD.l + i * bw + bw / 2}" y="${h + 16}" text-anchor="middle">${esc(lab)}</text>`;
  });
  return `${scrollRegion(`${svg}</svg>`, caption)}`;
}

/** The last decoder layer's cross-attention, averaged over its heads (the RNN's as it is): [T][N]. */
export function attentionRows(probe) {
  const shape = probe.attentionShape;
  const a = probe.crossAttention;
  if (!shape.length || !a.length) return null;
  const [T, N] = shape.slice(-2);
  const heads = shape.length === 4 ? shape[1] : 1;
  const offset = shape.length === 4 ? (shape[0] - 1) * heads * T * N : 0;
  return Array.from({ length: T }, (_, i) => Array.from({ length: N }, (_, j) => {
    let s = 0;
    for (let h = 0; h < heads; h++) s += a[offset + (h * T + i) * N + j];
    return s / heads;
  }));
}

/** The probe example read by the model as it stands: -log p of each reference token, and the cross-attention. */
export function probeView(run) {
  const p = run.probe;
  if (!p) return '';
  const nll = [...p.tokenNll];
  const top = p.topTokens;
  const titles = p.targetTokens.map((tok, i) => t('train.nllBar', { i: i + 1, token: tok, nll: num(nll[i]), p: pct(Math.exp(-nll[i])) })
    + (top ? ` ${t('train.nllTop', { token: top[i], p: pct(p.topProbability?.[i]) })}` : ''));
  const caption = t('train.nllCaption', { source: p.source, step: p.step });
  const max = Math.max(1, ...nll.filter(Number.isFinite));
  const rows = attentionRows(p);
  const attnCaption = t(p.attentionShape.length === 4 ? 'train.attnCaptionLast' : 'train.attnCaption', { source: p.source, step: p.step });
  const attn = rows ? `<figcaption>${esc(attnCaption)}</figcaption>${heatmap({ matrix: rows, rowLabels: p.targetTokens, colLabels: p.sourceTokens, fit: true, caption: attnCaption })}`
    : `<p class="tr-note">${esc(t('train.noAttention'))}</p>`;
  const head = [t('train.colPosition'), t('train.colToken'), t('train.colNll'), t('train.colP')];
  if (top) head.push(t('train.colTop'));
  const table = p.targetTokens.map((tok, i) => [String(i + 1), tok, num(nll[i]), pct(Math.exp(-nll[i])), ...(top ? [`${top[i]} (${pct(p.topProbability?.[i])})`] : [])]);
  return `<figure class="tr-view tr-probe-view"><figcaption>${esc(caption)}</figcaption>`
    + `<p class="tr-note">${esc(t('train.nllNote'))}</p>`
    + barChart({ caption, labels: p.targetTokens, values: nll, titles, max, cls: 'tr-nll' })
    + twin(caption, head, table) + `</figure><figure class="tr-view tr-attn-view">${attn}</figure>`;
}

/** A copy model's probe: p_gen per output token, and (1 - p_gen) a_t,i: the probability copied from each source position. */
export function copyView(run) {
  const p = run.probe;
  if (!p?.copyGate) return '';
  const gate = [...p.copyGate];
  const T = p.targetTokens.length;
  const N = p.sourceTokens.length;
  const copied = Array.from({ length: T }, (_, i) => Array.from({ length: N }, (_, j) => (1 - gate[i]) * (p.copyAttention?.[i * N + j] ?? 0)));
  // What is copied is the source as written: a name the model reads as <unk> is copied as itself.
  const written = p.source.split(/\s+/).filter(Boolean);
  const sourceLabels = written.length === N ? written : p.sourceTokens;
  const caption = t('train.gateCaption', { source: p.source, step: p.step });
  const titles = p.targetTokens.map((tok, i) => t('train.gateBar', { i: i + 1, token: tok, g: num(gate[i]) }));
  return `<figure class="tr-view tr-copy-view"><figcaption>${esc(caption)}</figcaption>`
    + barChart({ caption, labels: p.targetTokens, values: gate, titles, max: 1, cls: 'tr-gate' })
    + twin(caption, [t('train.colPosition'), t('train.colToken'), t('train.colGate')], p.targetTokens.map((tok, i) => [String(i + 1), tok, num(gate[i])]))
    + '</figure><figure class="tr-view tr-copied-view">'
    + `<figcaption>${esc(t('train.copiedCaption', { step: p.step }))}</figcaption>`
    + heatmap({ matrix: copied, rowLabels: p.targetTokens, colLabels: sourceLabels, fit: true, caption: t('train.copiedCaption', { step: p.step }),
      scale: t('train.copiedScale') })
    + '</figure>';
}
