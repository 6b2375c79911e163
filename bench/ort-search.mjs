// src/ar_search.cpp's greedy and beam search (length norm "average", n-best 1,
// no prefix, min length 0) for the runtimes bench/compare-runtimes.mjs drives
// through exported decoder steps, so that their outputs can be compared with
// ours: beam takes 2k candidates per row (so that finishing hypotheses do not
// shrink the beam), EOS counts only within the top k, and a source is done when
// nothing is live or no live hypothesis can still beat its best finished one.
//
//   const results = await searchBatch(step, n, { greedy, beam, maxLen, specials, vocabSize });
//
// n sources are stepped together, each by these rules alone. step(fed, t,
// origin, word) -> logits [rows x vocabSize]: one row per live hypothesis of
// every unfinished source, in source order; fed[r] is the row's last token,
// origin[r] the row of the previous call's output it continues (before the
// first call: the source's index, one row each), word[r] its source's index.
// A source that finishes has no rows from the next call on. Each result is
// { tokens (EOS included), score }.

function logSoftmax(x) {
  let m = -Infinity;
  for (const v of x) m = Math.max(m, v);
  let s = 0;
  for (const v of x) s += Math.exp(v - m);
  const lse = m + Math.log(s);
  return Array.from(x, (v) => Math.fround(v - lse));  // the engine keeps log-probabilities as float
}

export async function searchBatch(step, n, { greedy, beam = 5, maxLen, specials, vocabSize: V }) {
  const never = new Set([specials.pad, specials.unk, specials.bos, specials.mask]);  // tokens the engine never emits
  const k = greedy ? 1 : beam;
  const want = greedy ? 1 : 2 * beam;
  // first: the source's first row in the previous call's output; origin: its rows' parents there.
  const sources = Array.from({ length: n }, (_, i) => ({ live: [{ logprob: 0, tokens: [] }], origin: [0], first: i, best: null, done: false }));

  // One source's step: its rows of the logits -> its next live hypotheses.
  function advance(src, logits, t) {
    const pool = [];
    src.live.forEach((h, row) => {
      const lp = logSoftmax(logits.subarray(row * V, (row + 1) * V));
      const allowed = t + 1 >= maxLen ? [specials.eos] : [...lp.keys()].filter((v) => !never.has(v));  // the last position can only end
      allowed.sort((a, b) => lp[b] - lp[a] || a - b);
      for (const v of allowed.slice(0, want)) pool.push({ logprob: h.logprob + lp[v], row, v });
    });
    pool.sort((a, b) => b.logprob - a.logprob || a.row - b.row || a.v - b.v);
    const next = [];
    src.origin = [];
    pool.forEach((c, rank) => {
      if (c.v === specials.eos ? rank >= k : next.length >= k) return;
      const h = { logprob: c.logprob, tokens: [...src.live[c.row].tokens, c.v] };
      if (c.v !== specials.eos) {
        next.push(h);
        src.origin.push(c.row);
        return;
      }
      h.score = h.logprob / h.tokens.length;
      const { best } = src;
      if (!best || h.score > best.score || (h.score === best.score && h.logprob > best.logprob)) src.best = h;  // ties: the earlier
    });
    src.live = next;
    src.done = !next.length || (src.best && Math.max(...next.map((h) => Math.min(h.logprob, 0) / maxLen)) <= src.best.score);
  }

  let active = sources.map((_, i) => i);
  for (let t = 0; t < maxLen && active.length; ++t) {
    const fed = [];
    const origin = [];
    const word = [];
    for (const i of active) {
      const src = sources[i];
      src.live.forEach((h, j) => {
        fed.push(h.tokens.at(-1) ?? specials.bos);
        origin.push(src.first + src.origin[j]);
        word.push(i);
      });
    }
    const logits = await step(fed, t, origin, word);
    let row = 0;
    for (const i of active) {
      const src = sources[i];
      const rows = src.live.length;
      advance(src, logits.subarray(row * V, (row + rows) * V), t);
      src.first = row;
      row += rows;
    }
    active = active.filter((i) => !sources[i].done);
  }
  return sources.map(({ best }) => ({ tokens: best.tokens, score: best.score }));
}
