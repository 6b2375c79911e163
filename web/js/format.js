// How the page writes scores: numbers with a true minus, and the length-normalised
// score of a hypothesis with the formula that gives it. The normalisations themselves
// are the options table's (src/decoding_options.json), as the engine computes them.
import { LENGTH_NORMS, normalizedScore } from './page-options.js';

export { normalizedScore };

/** What a normalisation ranks finished hypotheses by, as a formula with α's value: "log P", "log P / |Y|", "log P / ((5+|Y|)/6)^0.6". */
export function rankingFormula(norm, alpha) {
  return (LENGTH_NORMS[norm] ?? LENGTH_NORMS.none).shown.replace('α', String(alpha));
}

/** "log P / |Y| = −2.41 / 3 = −0.80"; "log P / ((5+|Y|)/6)^0.6 = −2.41 / ((5+3)/6)^0.6 = −2.41 / 1.188 = −2.03" */
export function scoreFormula(logprob, length, norm, alpha) {
  const n = LENGTH_NORMS[norm] ?? LENGTH_NORMS.none;
  const s = normalizedScore(logprob, length, norm, alpha);
  const name = rankingFormula(norm, alpha);
  if (!n.divisor) return `${name} = ${fmt(s)}`;
  const d = n.divisor(length, alpha);
  const written = n.divisorShown.replace('{length}', String(length)).replace('{alpha}', String(alpha));
  // A divisor written with its numbers is worked out too, unless that is the number itself.
  const worked = written === String(d) ? '' : ` = ${fmt(logprob)} / ${d.toFixed(3)}`;
  return `${name} = ${fmt(logprob)} / ${written}${worked} = ${fmt(s)}`;
}

export function fmt(x, digits = 2) {
  const abs = Math.abs(x).toFixed(digits);
  // A negative number that rounds to zero is written 0, not −0.00.
  return (x < 0 && Number(abs) !== 0 ? '−' : '') + abs;
}

/**
 * A probability as a percentage, the one way the page writes one: one decimal down to
 * 0.1 %, one significant digit below ("0.1%", "0.04%", never "0.10%" beside "0.1%").
 */
export function fmtPct(p) {
  return `${pctDigits(p)}%`;
}

/** fmtPct's number without the sign, for a sentence that writes "{pct}%". */
export function pctDigits(p) {
  const pct = 100 * p;
  if (pct === 0) return '0';
  return pct >= 0.095 ? pct.toFixed(1) : String(Number(pct.toPrecision(1)));
}
