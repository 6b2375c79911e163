// G2P metrics, as models/train/metrics.py defines them (tests/node/metrics.test.mjs
// holds the two to the same numbers on the test split). A plain ES module with no
// imports: the page's word list imports it, and so does scripts/make-models-manifest.mjs
// under Node.
//
// WER: a word is wrong unless its output equals one of its reference pronunciations.
// PER: the edit distance to the closest reference (fewest edits, then the shortest),
// summed over words, over the summed length of those references.

/** A pronunciation as its phonemes: an array as it is, a string split on white space. */
export function tokens(p) {
  return Array.isArray(p) ? p : String(p).split(/\s+/).filter(Boolean);
}

/** Phoneme edit distance (Levenshtein over tokens); each side an array of phonemes or a string. */
export function editDistance(a, b) {
  const x = tokens(a);
  const y = tokens(b);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length];
}

const same = (a, b) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * How one output measures against its references: {right, edits, length}, right
 * when it is one of them, edits to the closest and that reference's length; null
 * when there is no reference.
 */
export function measure(output, refs) {
  if (!refs?.length) return null;
  const h = tokens(output);
  let best = null;
  let right = false;
  for (const r of refs) {
    const t = tokens(r);
    if (same(h, t)) right = true;
    const d = { edits: editDistance(h, t), length: t.length };
    if (!best || d.edits < best.edits || (d.edits === best.edits && d.length < best.length)) best = d;
  }
  return { right, ...best };
}

/** WER and PER (%) over measures (null ones are words with no reference, left out). */
export function rates(measures) {
  const m = measures.filter(Boolean);
  if (!m.length) return { wer: null, per: null, scored: 0 };
  const wrong = m.filter((x) => !x.right).length;
  const edits = m.reduce((a, x) => a + x.edits, 0);
  const length = m.reduce((a, x) => a + x.length, 0);
  return { wer: (100 * wrong) / m.length, per: (100 * edits) / Math.max(1, length), scored: m.length };
}

/**
 * metrics.py's score(): {wer, per} of hyps (Map word -> output; a missing word
 * counts as empty) against refs (Map word -> its references).
 */
export function score(hyps, refs) {
  const { wer, per } = rates([...refs].map(([word, rs]) => measure(hyps.get(word) ?? [], rs)));
  return { wer, per };
}

/** metrics.py's load_references(): word -> [pronunciation as an array of phonemes], in file order, from `WORD  PH ON ES` lines. */
export function parseReferences(text) {
  const refs = new Map();
  for (const line of String(text).split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 2) continue;
    if (!refs.has(parts[0])) refs.set(parts[0], []);
    refs.get(parts[0]).push(parts.slice(1));
  }
  return refs;
}
