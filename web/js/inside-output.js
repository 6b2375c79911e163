// "Inside this step" (inside.js): the output block — one position's logits and the
// distribution at a live temperature, as bars, with why the model's top probability
// stops short of 100 % (label smoothing) — and the RNN's step, which has its
// own states, scores and context in place of a Transformer's blocks.
import { label } from './phonemes.js';
import { fmtPct, pctDigits } from './format.js';
import { esc, scrollRegion } from './views.js';
import { lang, t } from './i18n.js';
import { SCORES, scoreWords } from './scores.js';
import { d3, keyTable, row, strip } from './inside-parts.js';

// `lane` below is the inside view's facade of the lane (view-registry.js laneFacade).

/**
 * The temperature the output block divides the logits by: the one the learner set on
 * its slider, else the lane's own (a sampling lane's; 1 for the others, which take
 * the distribution as it is), so that it opens on the distribution the step used.
 */
function temperatureOf(st, lane) {
  return st.temperature ?? (lane.options?.strategy === 'sample' ? lane.options.temperature : 1);
}

/** log softmax of xs over the entries keep(v) allows (the rest -Infinity). */
function logSoftmax(xs, keep = () => true) {
  let m = -Infinity;
  xs.forEach((v, j) => { if (keep(j)) m = Math.max(m, v); });
  let z = 0;
  xs.forEach((v, j) => { if (keep(j)) z += Math.exp(v - m); });
  const lz = m + Math.log(z);
  return Array.from(xs, (v, j) => (keep(j) ? v - lz : -Infinity));
}

/**
 * Position pos's distribution, from the module's own logits z (d.logits):
 *   p    softmax(z) over the whole vocabulary, as the model computes it (the lanes' bars)
 *   p_T  softmax(log p / T) over the tokens search may emit (all but PAD, UNK, BEGIN
 *        and MASK), renormalised: what the engine's sampling draws from before its
 *        top-k and top-p cuts (src/ar_search.cpp, select_sample)
 * and the training target of label smoothing, 1 − ε + ε/V, where the model's recipe
 * gives ε (models.json `training`, from models/train/configs). Tokens best first.
 */
export function outputDistribution(d, st, lane, pos) {
  const V = d.vocabSize;
  const z = Array.from(row(d.logits, pos, V));
  const sp = lane.info?.targetSpecials ?? {};
  const never = new Set([sp.pad, sp.unk, sp.bos, sp.mask].filter((id) => id !== undefined));
  const temp = temperatureOf(st, lane);
  const logp = logSoftmax(z);
  const pT = logSoftmax(logp.map((v) => v / temp), (v) => !never.has(v)).map(Math.exp);
  const order = [...z.keys()].filter((v) => !never.has(v)).sort((a, b) => z[b] - z[a]);
  const eps = lane.model?.training?.labelSmoothing;
  return { z, p: logp.map(Math.exp), pT, order, temp, target: eps == null ? null : 1 - eps + eps / V };
}

/**
 * The distribution as bars that follow the temperature: each token's logit z (a bar
 * from zero, on one scale for the tokens shown), and its probability at T (the bar)
 * over the model's own at T = 1 (pale behind it), the label-smoothed target a dashed
 * line. The numbers are in each bar's title and in the table twin.
 */
export function logitsTable(d, st, lane, pos) {
  const { z, p, pT, order, temp, target } = outputDistribution(d, st, lane, pos);
  const texts = lane.info?.targetVocab ?? [];
  const top = order.slice(0, 8);
  const chosen = st.req.next[pos];
  const zMax = Math.max(1e-6, ...top.map((v) => Math.abs(z[v])));
  const tt = temp.toFixed(1);
  const bars = top.map((v) => {
    const name = label(texts[v] ?? String(v));
    const w = (Math.abs(z[v]) / zMax) * 50;
    const zBar = `<span class="ib-z" style="${z[v] >= 0 ? 'left:50%' : `left:${(50 - w).toFixed(2)}%`};width:${w.toFixed(2)}%"></span>`;
    const line = target == null ? '' : `<span class="ib-target" style="left:${(target * 100).toFixed(2)}%"></span>`;
    const desc = t('inside.barDesc', { token: name, z: d3(z[v]), zt: d3(z[v] / temp), T: tt, pt: fmtPct(pT[v]), p: fmtPct(p[v]) });
    return `<li class="${v === chosen ? 'chosen' : ''}" data-token="${esc(texts[v] ?? v)}" data-z="${z[v]}" data-p="${p[v]}" data-pt="${pT[v]}" title="${esc(desc)}">`
      + `<span class="ib-tok">${esc(name)}</span><span class="ib-ztrack" aria-hidden="true"><span class="ib-zero"></span>${zBar}</span><span class="ib-num">${d3(z[v])}</span>`
      + `<span class="ib-track" aria-hidden="true"><span class="ib-ghost" style="width:${(p[v] * 100).toFixed(2)}%"></span><span class="ib-fill" style="width:${(pT[v] * 100).toFixed(2)}%"></span>${line}</span>`
      + `<span class="ib-num ib-pt">${fmtPct(pT[v])}</span><span class="visually-hidden">${esc(desc)}</span></li>`;
  }).join('');
  const T = d.target.length;
  const caption = st.req.kind === 'cmlm' ? t('inside.logitsCaptionPos', { p: pos + 1, T: tt })
    : pos === T - 1 ? t('inside.logitsCaption', { T: tt }) : t('inside.logitsCaptionStep', { step: pos + 1, T: tt });
  const rows = top.map((v) => `<tr data-token="${esc(texts[v] ?? v)}" data-p="${p[v]}" data-pt="${pT[v]}"${v === chosen ? ' class="chosen"' : ''}><th scope="row">${esc(label(texts[v] ?? String(v)))}</th>`
    + `<td class="num">${d3(z[v])}</td><td class="num">${d3(z[v] / temp)}</td><td class="num">${fmtPct(pT[v])}</td><td class="num">${fmtPct(p[v])}</td></tr>`).join('');
  const head = ['inside.token', 'inside.logit', 'inside.logitT', 'inside.probT', 'inside.prob'].map((k) => `<th scope="col">${esc(t(k, { T: tt }))}</th>`).join('');
  return `<p class="in-bars-caption">${esc(caption)}</p>`
    + `<div class="in-bars-head" aria-hidden="true"><span></span><span>${esc(t('inside.logit'))}</span><span></span><span>${esc(t('inside.probT', { T: tt }))}</span><span></span></div>`
    + `<ol class="in-bars">${bars}</ol>`
    + `<ul class="note in-bars-key"><li><span class="lg ib-lg-fill"></span> ${esc(t('inside.keyTempered', { T: tt }))}</li><li><span class="lg ib-lg-ghost"></span> ${esc(t('inside.keyModel'))}</li>`
    + `${target == null ? '' : `<li><span class="lg ib-lg-target"></span> ${esc(t('inside.keyTarget', { target: fmtPct(target) }))}</li>`}</ul>`
    + `<details class="twin"><summary>${esc(t('inside.numbers'))}</summary>${scrollRegion(`<table class="in-logits"><caption>${esc(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`)}</details>`;
}

/**
 * Why the model's top probability stops short of 100 % (the lanes' bars sit near 96 %
 * on every confident phoneme): label smoothing in its training, with the recipe's ε,
 * and for a distilled model the share of its loss that was its teachers' distribution.
 * Nothing where the page has no recipe for the model (a test fixture).
 */
function capNote(d, lane, pos, dist) {
  const tr = lane.model?.training;
  if (!tr || dist.target == null) return '';
  const V = d.vocabSize;
  const best = dist.order[0];
  const texts = lane.info?.targetVocab ?? [];
  const args = { eps: tr.labelSmoothing, V, target: fmtPct(dist.target), other: fmtPct(tr.labelSmoothing / V), config: tr.config,
    top: fmtPct(dist.p[best]), token: label(texts[best] ?? ''), w: tr.distillWeight };
  const here = dist.p[best] < dist.target ? 'inside.capBelow' : tr.distillWeight ? 'inside.capAboveDistilled' : 'inside.capAbove';
  // The Train mode's label-smoothing lesson trains two small models to show the same stop happen.
  const lesson = `?view=train&lesson=smoothing${lang() === 'en' ? '' : `&lang=${lang()}`}`;
  return `<p class="note in-cap" data-eps="${tr.labelSmoothing}" data-target="${dist.target}" data-top="${dist.p[best]}" data-here="${here}">${esc(t('inside.capWhy', args))} `
    + `${esc(t(here, args))} <a class="in-cap-lesson" href="${esc(lesson)}">${esc(t('inside.capLesson'))}</a></p>`;
}

/**
 * What position pos's distribution was for: an autoregressive step (the last position's
 * is this step's; an earlier one's, with the causal mask, is the same as in the step
 * that chose its token), or a CMLM's position (predicted in this iteration, or kept).
 */
function outputNote(d, st, lane, pos) {
  const vocab = lane.info?.targetVocab ?? [];
  const token = esc(label(vocab[st.req.next[pos]] ?? ''));
  if (st.req.kind === 'cmlm') {
    const why = st.req.masked[pos]
      ? t('inside.outPredicted', { p: pos + 1, token, pct: pctDigits(st.req.probs[pos]), k: st.req.iteration })
      : t('inside.outKept', { p: pos + 1, token });
    return `<p class="note in-out-pos">${esc(why)}</p><p class="note">${esc(t('inside.outWhyCmlm'))}</p>`;
  }
  const earlier = pos < d.target.length - 1 ? `<p class="note in-out-pos">${esc(t(d.rnn ? 'inside.outEarlierRnn' : 'inside.outEarlier', { step: pos + 1, token }))}</p>` : '';
  return `${earlier}<p class="note">${esc(t('inside.outWhy'))}</p>`;
}

export function outputView(d, st, lane, pos) {
  const temp = temperatureOf(st, lane);
  return `<div class="in-stage in-output"><h4>${esc(t('inside.outTitle'))}</h4>`
    + `<label class="in-temp">${esc(t('inside.temp'))} <input type="range" min="0.1" max="3" step="0.1" value="${temp}" data-action="in-temp"> <output>${temp.toFixed(1)}</output></label>`
    + `<div class="in-logits-box">${logitsTable(d, st, lane, pos)}</div>`
    + capNote(d, lane, pos, outputDistribution(d, st, lane, pos))
    + outputNote(d, st, lane, pos) + '</div>';
}

/**
 * The RNN's step at decoder position pos: the encoder states h_j, the decoder state
 * s_t, the raw scores e_j of the model's score, their softmax, the context
 * a_t = Σ α_j h_j, and [a_t ; s_t] into the output layer. Without attention: the one
 * context vector c instead.
 */
export function rnnBody(d, st, lane, letters, pos) {
  const S = d.sourceLength, H2 = d.encoderWidth, D = d.decoderWidth;
  const T = pos + 1;
  let html = `<div class="in-stage"><h4>${esc(t('inside.rnnEncoder', { n: S, w: H2 }))}</h4>`;
  for (let j = 0; j < S; j++) html += strip(row(d.encoderStates, j, H2), `h${j + 1} (${letters[j]})`);
  html += strip(d.contextVector, t('inside.rnnC'));
  html += `<p class="note">${esc(t('inside.rnnCWhy'))}</p></div>`;
  html += `<div class="in-stage"><h4>${esc(t('inside.rnnDecoder', { w: D }))}</h4>${strip(row(d.decoderStates, pos, D), t('inside.rnnS', { t: T }))}</div>`;
  if (d.attention === 'none') {
    html += `<div class="in-stage"><h4>${esc(t('inside.rnnNoAttention'))}</h4>${strip(row(d.context, pos, H2), t('inside.rnnA', { t: T }))}`
      + `<p class="note">${t('rnn.noAttention_html')}</p></div>`;
  } else {
    const name = Object.hasOwn(SCORES, d.attention) ? scoreWords(d.attention).short : d.attention;
    const formula = SCORES[d.attention]?.formula ?? '';
    const raw = Array.from(row(d.scores, pos, S));
    const weights = Array.from(row(d.weights, pos, S));
    html += `<div class="in-stage"><h4>${esc(t('inside.rnnScores', { name }))}</h4><p class="formula">e<sub>j</sub> = ${formula}</p>`
      + keyTable(t('inside.rnnScoresCaption', { t: T }), letters, [['raw', t('inside.rnnRawRow'), raw], ['softmax', t('inside.softmaxRow'), weights]])
      + strip(row(d.context, pos, H2), t('inside.rnnA', { t: T }))
      + `<p class="note">${esc(t('inside.rnnAWhy'))}</p></div>`;
  }
  return html + outputView(d, st, lane, pos);
}
