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

/** A Lexicon over data laid out as lexicon-data.js's exports. */
export function parseLexicon({ source, phones, codes, words, pronunciations }) {
  const phoneOf = new Map([...codes].map((c, i) => [c, phones.split(' ')[i]]));
  // Sorted as JavaScript compares strings (scripts/build-lexicon.mjs): found by
  // binary search. No object is keyed by words, so "constructor" and "__proto__"
  // are words like any other.
  const list = words.split('\n');
  const prons = pronunciations.split('\n');
  const find = (word) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid] < word) lo = mid + 1;
      else hi = mid;
    }
    return list[lo] === word ? lo : -1;
  };
  const decode = (run) => [...run].map((c) => phoneOf.get(c));
  return Object.freeze({
    source: Object.freeze({ ...source }),
    size: list.length,
    /** The word's pronunciations (each an array of ARPAbet phones with stress digits), CMUdict's first first; undefined for a word it lacks. Case is ignored. */
    lookup(word) {
      const at = find(String(word).toLowerCase());
      return at < 0 ? undefined : prons[at].split(' ').map(decode);
    },
    has(word) {
      return find(String(word).toLowerCase()) >= 0;
    },
    /** Every word, in the lexicon's (sorted) order, lower case. */
    words() {
      return list.values();
    },
  });
}
