// The lexicon: CMUdict's words and pronunciations (lexicon-data.js, written by
// scripts/build-lexicon.mjs, which describes its layout). It is imported only
// when loadLexicon() is first called (createPhonemizer calls it), so that a page
// that never phonemizes never downloads it; the one import is shared.

let loading = null;

/** The package's lexicon; the same object for every call. */
export function loadLexicon() {
  loading ??= import('./lexicon-data.js').then(parseLexicon);
  loading.catch(() => { loading = null; });
  return loading;
}

/**
 * `text`'s lines, front-coded in blocks of `block` (scripts/build-lexicon.mjs): a
 * line is undone from its block's first line, only when asked for.
 */
function frontCoded(text, block, marks) {
  const lines = text.split('\n');
  const counts = new Map([...marks].map((c, n) => [c, n]));
  /** How many leading characters line i shares with the line before. */
  const shared = (i) => counts.get(lines[i][0]);
  /** Line i's characters after those. */
  const rest = (i) => lines[i].slice(1);
  return {
    size: lines.length,
    shared,
    rest,
    /** The first line of block b, written whole. */
    head: (b) => rest(b * block),
    line(i) {
      const first = i - (i % block);
      let out = rest(first);
      for (let j = first + 1; j <= i; j++) out = out.slice(0, shared(j)) + rest(j);
      return out;
    },
    * all() {
      let out = '';
      for (let i = 0; i < lines.length; i++) {
        out = i % block === 0 ? rest(i) : out.slice(0, shared(i)) + rest(i);
        yield out;
      }
    },
  };
}

/** A Lexicon over data laid out as lexicon-data.js's exports. */
export function parseLexicon({ source, phones, codes, block, wordMarks, pronMarks, words, pronunciations }) {
  const phoneOf = new Map([...codes].map((c, i) => [c, phones.split(' ')[i]]));
  // Sorted as JavaScript compares strings (scripts/build-lexicon.mjs): found by
  // binary search over the blocks' first words, then within the block. No object
  // is keyed by words, so "constructor" and "__proto__" are words like any other.
  const list = frontCoded(words, block, wordMarks);
  const prons = frontCoded(pronunciations, block, pronMarks);
  const find = (word) => {
    // The last block whose first word is not after the word.
    let lo = 0;
    let hi = Math.ceil(list.size / block);
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (list.head(mid) <= word) lo = mid;
      else hi = mid;
    }
    for (let i = lo * block, w = ''; i < Math.min(list.size, (lo + 1) * block); i++) {
      w = i === lo * block ? list.head(lo) : w.slice(0, list.shared(i)) + list.rest(i);
      if (w === word) return i;
      if (w > word) return -1;
    }
    return -1;
  };
  const decode = (run) => [...run].map((c) => phoneOf.get(c));
  return Object.freeze({
    source: Object.freeze({ ...source }),
    size: list.size,
    /** The word's pronunciations (each an array of ARPAbet phones with stress digits), CMUdict's first first; undefined for a word it lacks. Case is ignored. */
    lookup(word) {
      const at = find(String(word).toLowerCase());
      return at < 0 ? undefined : prons.line(at).split(' ').map(decode);
    },
    has(word) {
      return find(String(word).toLowerCase()) >= 0;
    },
    /** Every word, in the lexicon's (sorted) order, lower case. */
    words() {
      return list.all();
    },
  });
}
