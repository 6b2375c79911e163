// Scores a learner can read, under a lane's result: P(sequence) beside log P,
// and the CMUdict reference scored by the lane's own model (forced decoding,
// docs/decoding.md "Forced scores") beside the output's score (drawn by the
// view of forced-view.js; the word list diagnoses with the same functions). When the output
// is wrong, the two normalised scores say whose fault it is: a reference that
// scores higher was missed by the search (search error); one that scores lower
// is not what the model prefers (model error).
import { fmt, fmtPct, rankingFormula } from './format.js';
import { esc, scrollRegion } from './views.js';
import { t } from './i18n.js';
import { PAGE_OPTIONS } from './page-options.js';

/** exp(log P), readable: 0.36, 0.012, 2.1e-3 (two significant digits). */
export function fmtProb(logprob) {
  const p = Math.exp(logprob);
  if (p === 0) return '0';
  if (p >= 0.01) return String(Number(p.toPrecision(2)));
  return p.toExponential(1).replace('e-', 'e−');
}

/** "log P −1.12 · P 0.33": a sequence's log-probability and its probability. */
export function logprobLine(logprob) {
  return `<span class="seq-prob">${esc(t('forced.logP', { lp: fmt(logprob) }))} · ${esc(t('forced.P', { p: fmtProb(logprob) }))}</span>`;
}

const failed = (e) => String(e?.message ?? e);

/**
 * {output, refs}: the forced scores of `output` and of each reference, one after
 * the other through a decoder's `score`. A reference the model cannot read (an
 * unknown phoneme, too long) is named in refs ({text, error}), not fatal.
 */
export async function scoreWithReferences(score, word, output, prons, options) {
  const out = await score(word, output, options);
  const refs = [];
  for (const p of prons) refs.push(await score(word, p, options).catch((e) => ({ text: p, error: failed(e) })));
  return { output: out, refs };
}

/**
 * 'right', 'search', 'model' or 'length' (or null) from forced scores: the best-scoring
 * reference against the output. `lengths` (non-autoregressive lanes): {decoded, imposed},
 * the target lengths the decode tried and whether they were imposed (a fixed or given
 * length) rather than predicted. A reference of a length the decode never tried could
 * not have been found by any search of those lengths: that is a length error, whatever
 * the scores say.
 */
export function diagnose(output, refs, lengths = null) {
  if (!refs.some((r) => !r.error)) return null;
  if (refs.some((r) => !r.error && r.text === output.text)) return 'right';
  const best = bestReference(refs, lengths);
  if (!best) return 'length';
  return best.score > output.score ? 'search' : 'model';
}

/** The reference a diagnosis weighs the output against: the best-scoring one scored (of a length the decode tried, given `lengths`); null if none. */
export function bestReference(refs, lengths = null) {
  const ok = refs.filter((r) => !r.error && (!lengths || lengths.decoded.includes(r.tokens.length)));
  return ok.length ? ok.reduce((a, b) => (b.score > a.score ? b : a)) : null;
}

/** The length error's sentence: the reference's length, what was decoded, and the length head's P of it. */
function lengthWhy(f, lengths) {
  const n = f.refs.find((r) => !r.error).tokens.length;
  const tried = lengths.decoded.join(', ');
  const lp = lengths.logprobs?.[n];
  const p = typeof lp === 'number' ? fmtProb(lp) : null;
  const key = lengths.imposed ? 'forced.lengthImposed' : 'forced.lengthPredicted';
  return t(key, { n, tried, p: p ?? '—' });
}

/**
 * What a lane ranks its outputs by, as a formula: the score its results and the forced
 * scores carry, decoded under module `options`. Autoregressive: log P, normalised for
 * length as the options say (a lane that shows no normalisation decodes with the
 * engine's default, which the page's is). A CMLM (`cmlm`): Mask-Predict's draft score,
 * the average log-probability plus w × log P(length) when the length was predicted
 * (`imposed`: a fixed or given length, which has no log P(length) term).
 */
export function laneRanking(options, { cmlm = false, imposed = false } = {}) {
  if (cmlm) {
    const w = options?.lengthScoreWeight ?? 0;
    return imposed || !w ? t('forced.rankAvg') : t('forced.rankAvgLength', { w });
  }
  return rankingFormula(options?.lengthNorm ?? PAGE_OPTIONS.lengthNorm.default, options?.gnmtAlpha ?? PAGE_OPTIONS.gnmtAlpha.default);
}

/**
 * The block under a result: the output's and the references' scores, and the label when
 * it is wrong. A CMLM's (`cmlm`) are first-pass scores, named so: Mask-Predict's own
 * score of its output comes from its iterations, which the reference never had.
 */
export function forcedView(f, { cmlm = false, lengths = null, rank }) {
  if (!f.done) return `<div class="forced" data-diagnosis="pending" data-loading><p class="pending">${esc(t('forced.pending'))}</p></div>`;
  if (f.error) return `<div class="forced" data-diagnosis="unscored"><p class="note">${esc(t('forced.failed', { error: f.error }))}</p></div>`;
  const kind = diagnose(f.output, f.refs, lengths);
  const d3 = (x) => fmt(x, 3);
  const row = (cls, who, r) => r.error
    ? `<tr class="${cls}"><th scope="row">${esc(who)}</th><td class="arpa-line">${esc(r.text)}</td><td colspan="3">${esc(t('forced.refFailed', { error: r.error }))}</td></tr>`
    : `<tr class="${cls}" data-text="${esc(r.text)}" data-score="${r.score}" data-logprob="${r.logprob}"><th scope="row">${esc(who)}</th><td class="arpa-line">${esc(r.text)}</td><td class="num"><strong>${d3(r.score)}</strong></td><td class="num">${fmt(r.logprob)}</td><td class="num">${fmtProb(r.logprob)}</td></tr>`;
  const refRows = kind === 'right' ? [] : f.refs;
  const table = scrollRegion(`<table class="forced-scores"><caption class="visually-hidden">${esc(t('forced.caption'))}</caption>
    <thead><tr><th scope="col"></th><th scope="col">${esc(t('forced.colPron'))}</th><th scope="col">${esc(t(cmlm ? 'forced.colScore1' : 'forced.colScore'))}</th><th scope="col">${cmlm ? esc(t('forced.colLogP1')) : 'log P'}</th><th scope="col">P</th></tr></thead>
    <tbody>${row('out', t('forced.output'), f.output)}${refRows.map((r) => row('ref', t('forced.reference'), r)).join('')}</tbody></table>`);
  let label = '';
  if (kind === 'search' || kind === 'model') {
    // Whose fault it is, by the lane's own ranking: another ranking (another length
    // normalisation) may order the output and the reference the other way round.
    const ref = bestReference(f.refs, lengths);
    const why = t(kind === 'search' ? 'forced.searchWhy' : 'forced.modelWhy', { rank, out: d3(f.output.score), ref: d3(ref.score) });
    label = `<p class="error-kind"><span class="error-label error-${kind}">${esc(t(kind === 'search' ? 'forced.searchError' : 'forced.modelError'))}</span> ${esc(why)}</p>`;
  } else if (kind === 'length') {
    label = `<p class="error-kind"><span class="error-label error-length">${esc(t('forced.lengthError'))}</span> ${esc(lengthWhy(f, lengths))}</p>`;
  } else if (kind === 'right') {
    label = `<p class="note">${esc(t('forced.right'))}</p>`;
  }
  // A CMLM's rule as its numbers follow it: no log P(length) term at an imposed length.
  const imposed = cmlm && lengths?.imposed ? ` ${t('forced.howCmlmImposed')}` : '';
  const note = `<p class="note">${esc(t(cmlm ? 'forced.howCmlm' : 'forced.how', { rank }) + imposed)}</p>`;
  return `<div class="forced" data-diagnosis="${kind ?? 'unscored'}" data-rank="${esc(rank)}">${label}${table}${note}</div>`;
}

/**
 * Teacher forcing beside free running, for a wrong autoregressive output: position
 * by position the reference's tokens with the probability the model gives each when
 * fed the reference before it (its forced score's tokenLogprobs: how it is trained),
 * and the output's tokens with the probability it gave each when fed its own
 * outputs (`free`: [{text, prob}], EOS last: how it decodes). The first position
 * where they part is marked: from there the model reads prefixes of its own that
 * training never showed it (exposure bias).
 */
export function forcingView(f, free) {
  if (!f?.done || f.error || !free?.length) return '';
  const ref = bestReference(f.refs);
  if (!ref || ref.text === f.output.text) return '';
  const refTexts = [...ref.texts, '</s>'];
  const n = Math.max(refTexts.length, free.length);
  let split = -1;
  for (let k = 0; k < n && split < 0; k++) if (refTexts[k] !== free[k]?.text) split = k;
  const pct = (p) => (p == null ? '' : fmtPct(p));
  const rows = Array.from({ length: n }, (_, k) => {
    const mark = k === split ? ' class="diverge"' : '';
    const rp = k < ref.tokenLogprobs.length ? Math.exp(ref.tokenLogprobs[k]) : null;
    return `<tr${mark} data-k="${k}"><th scope="row">${k + 1}${k === split ? ` <span class="diverge-mark">${esc(t('forcing.parts'))}</span>` : ''}</th>`
      + `<td class="arpa-line">${esc(refTexts[k] ?? '')}</td><td class="num" data-p="${rp ?? ''}">${pct(rp)}</td>`
      + `<td class="arpa-line">${esc(free[k]?.text ?? '')}</td><td class="num" data-p="${free[k]?.prob ?? ''}">${pct(free[k]?.prob)}</td></tr>`;
  }).join('');
  // The caption is drawn above the table's scroll region, at the lane's width: inside it,
  // it took the table's width and was cut with it on a phone. Screen readers read the table's own.
  return `<div class="view forcing" data-split="${split}"><h3>${esc(t('forcing.title'))}</h3>`
    + `<p class="note forcing-caption" aria-hidden="true">${esc(t('forcing.caption'))}</p>`
    + scrollRegion(`<table class="forcing-table"><caption class="visually-hidden">${esc(t('forcing.caption'))}</caption><thead><tr><th scope="col">#</th>`
      + `<th scope="col">${esc(t('forcing.refTok'))}</th><th scope="col">${esc(t('forcing.refP'))}</th>`
      + `<th scope="col">${esc(t('forcing.outTok'))}</th><th scope="col">${esc(t('forcing.outP'))}</th></tr></thead><tbody>${rows}</tbody></table>`)
    + `<p class="note">${esc(t('forcing.why', { k: split + 1 }))}</p></div>`;
}

