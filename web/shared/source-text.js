// A model's source side as its info (the engine's ModelInfo) states it: the letters it
// reads and how it folds case. Read by the page (app.js checks and folds the word) and
// by scripts/build-web.mjs (which example words a model can read); imports nothing.

/** The characters the model reads: its source vocabulary but its special tokens. */
export function sourceLetters(info) {
  const specials = new Set(Object.values(info.sourceSpecials ?? {}));
  return info.sourceVocab.filter((_, i) => !specials.has(i));
}

/** `word` case-folded as the model reads its source. */
export function foldCase(info, word) {
  return info.sourceCase === 'lower' ? word.toLowerCase() : info.sourceCase === 'upper' ? word.toUpperCase() : word;
}
