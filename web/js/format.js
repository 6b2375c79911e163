// How the page writes scores: numbers with a true minus, and the length-normalised
// score of a hypothesis with the formula that gives it. The normalisations themselves
// are the options table's (src/decoding_options.json), as the engine computes them.
import { LENGTH_NORMS, normalizedScore } from './page-options.js';

export { normalizedScore };

/** "log P / |Y| = −2.41 / 3 = −0.80"; "log P / ((5+|Y|)/6)^α = −2.41 / ((5+3)/6)^0.6 = −2.41 / 1.188 = −2.03" */
export function scoreFormula(logprob, length, norm, alpha) {
  const n = LENGTH_NORMS[norm] ?? LENGTH_NORMS.none;
  const s = normalizedScore(logprob, length, norm, alpha);
  if (!n.divisor) return `${n.shown} = ${fmt(s)}`;
  const d = n.divisor(length, alpha);
  const written = n.divisorShown.replace('{length}', String(length)).replace('{alpha}', String(alpha));
  // A divisor written with its numbers is worked out too, unless that is the number itself.
  const worked = written === String(d) ? '' : ` = ${fmt(logprob)} / ${d.toFixed(3)}`;
  return `${n.shown} = ${fmt(logprob)} / ${written}${worked} = ${fmt(s)}`;
}

export function fmt(x, digits = 2) {
  const abs = Math.abs(x).toFixed(digits);
  // A negative number that rounds to zero is written 0, not −0.00.
  return (x < 0 && Number(abs) !== 0 ? '−' : '') + abs;
}
