// "Inside this step" (inside.js): the output block — one position's logits, and
// softmax(logits / T) with a live temperature — and the RNN's step, which has its
// own states, scores and context in place of a Transformer's blocks.
import { label } from './phonemes.js';
import { esc, scrollRegion } from './views.js';
import { t } from './i18n.js';
import { SCORES, scoreWords } from './scores.js';
import { d3, keyTable, row, softmax, strip } from './inside-parts.js';

// `lane` below is the inside view's facade of the lane (lane-facade.js).

/**
 * The temperature the output block divides the logits by: the one the learner set on
 * its slider, else the lane's own (a sampling lane's; 1 for the others, which take
 * the distribution as it is), so that it opens on the distribution the step used.
 */
function temperatureOf(st, lane) {
  return st.temperature ?? (lane.options?.strategy === 'sample' ? lane.options.temperature : 1);
}

/** Position pos's logits and their softmax at the temperature, the most probable first. */
export function logitsTable(d, st, lane, pos) {
  const V = d.vocabSize, T = d.target.length;
  const logits = row(d.logits, pos, V);
  const info = lane.info;
  const texts = info?.targetVocab ?? [];
  const sp = info?.targetSpecials ?? {};
  // The softmax is over the whole vocabulary, as the model computes it; the special
  // tokens search never emits are left out of the list only.
  const never = new Set([sp.pad, sp.unk, sp.bos, sp.mask].filter((id) => id !== undefined));
  const temp = temperatureOf(st, lane);
  const probs = softmax(Array.from(logits, (v) => v / temp));
  const chosen = st.req.next[pos];
  const order = [...probs.keys()].filter((v) => !never.has(v)).sort((a, b) => probs[b] - probs[a]).slice(0, 8);
  const rows = order.map((v) => `<tr data-token="${esc(texts[v] ?? v)}" data-p="${probs[v]}"${v === chosen ? ' class="chosen"' : ''}><th scope="row">${esc(label(texts[v] ?? String(v)))}</th><td class="num">${d3(logits[v])}</td><td class="num">${d3(logits[v] / temp)}</td><td class="num">${(probs[v] * 100).toFixed(1)}%</td></tr>`).join('');
  const tt = temp.toFixed(1);
  const caption = st.req.kind === 'cmlm' ? t('inside.logitsCaptionPos', { p: pos + 1, T: tt })
    : pos === T - 1 ? t('inside.logitsCaption', { T: tt }) : t('inside.logitsCaptionStep', { step: pos + 1, T: tt });
  return scrollRegion(`<table class="in-logits"><caption>${esc(caption)}</caption><thead><tr><th scope="col">${esc(t('inside.token'))}</th><th scope="col">${esc(t('inside.logit'))}</th><th scope="col">${esc(t('inside.logitT'))}</th><th scope="col">${esc(t('inside.prob'))}</th></tr></thead><tbody>${rows}</tbody></table>`);
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
      ? t('inside.outPredicted', { p: pos + 1, token, pct: (st.req.probs[pos] * 100).toFixed(1), k: st.req.iteration })
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
