// How the page writes scores: numbers with a true minus, and the length-normalised
// score of a hypothesis with the formula that gives it.

// Length normalisation, as src/decoding_options.h defines it. |Y| counts END.
export function normalizedScore(logprob, length, norm, alpha) {
  if (norm === 'average') return logprob / Math.max(1, length);
  if (norm === 'gnmt') return logprob / Math.pow((5 + length) / 6, alpha);
  return logprob;
}

/** What a normalisation ranks finished hypotheses by, as a formula: "log P", "log P / |Y|", "log P / ((5+|Y|)/6)^0.6". */
export function rankingFormula(norm, alpha) {
  if (norm === 'average') return 'log P / |Y|';
  if (norm === 'gnmt') return `log P / ((5+|Y|)/6)^${alpha}`;
  return 'log P';
}

/** "log P / |Y| = −2.41 / 3 = −0.80" */
export function scoreFormula(logprob, length, norm, alpha) {
  const f = (x) => fmt(x);
  const s = normalizedScore(logprob, length, norm, alpha);
  const name = rankingFormula(norm, alpha);
  if (norm === 'average') return `${name} = ${f(logprob)} / ${length} = ${f(s)}`;
  if (norm === 'gnmt') {
    const lp = Math.pow((5 + length) / 6, alpha);
    return `${name} = ${f(logprob)} / ((5+${length})/6)^${alpha} = ${f(logprob)} / ${lp.toFixed(3)} = ${f(s)}`;
  }
  return `${name} = ${f(s)}`;
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
  const pct = 100 * p;
  if (pct === 0) return '0%';
  return `${pct >= 0.095 ? pct.toFixed(1) : String(Number(pct.toPrecision(1)))}%`;
}
