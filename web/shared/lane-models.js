// Which model a lane reads the page's word with: the address's lane parameter, the lane
// types by the kind of model each decodes with, the lanes a first visit opens, the RNNs
// the compare lane sets side by side, and a model's source letters and case as its info
// (the engine's ModelInfo) states them. Read by the page (address.js, app.js,
// lane-types.js), by scripts/build-web.mjs (which example words a model reads) and by
// boot.js, into which build-web inlines this file's text (its `export`s dropped), so that
// boot.js picks the first lane's model as the page will: it imports nothing and names no
// browser API.

/**
 * One `lane` parameter of the address ("beam:beamSize=5,lengthNorm=gnmt") as its type and its
 * key=value pairs, values decoded ("+" a space; a malformed escape kept as it is).
 */
export function splitLaneParam(s) {
  const i = s.indexOf(':');
  const type = i < 0 ? s : s.slice(0, i);
  const pairs = [];
  if (i >= 0) {
    for (const kv of s.slice(i + 1).split(',')) {
      const j = kv.indexOf('=');
      if (j < 0) continue;
      let v = kv.slice(j + 1).replace(/\+/g, ' ');
      try { v = decodeURIComponent(v); } catch { /* keep as is */ }
      pairs.push([kv.slice(0, j), v]);
    }
  }
  return { type, pairs };
}

/** A model id as the address may hold one: word characters, dots and dashes. */
export function cleanModelId(value) {
  return String(value ?? '').replace(/[^\w.-]/g, '');
}

/** The model a lane decodes with: the one it names, if of its kind (ar), else the first of its kind. */
export function pickModel(models, ar, id) {
  return models.find((m) => m.id === id && m.autoregressive === ar) ?? models.find((m) => m.autoregressive === ar);
}

/** The id of a model trained on the page (Train mode), which a reload does not keep. */
export const TRAINED_MODEL = 'trained';

/** Each lane type's kind: 'ar' (an autoregressive model), 'nar' (a CMLM) or 'compare' (the four RNNs). */
export const LANE_KINDS = { greedy: 'ar', beam: 'ar', sample: 'ar', nar: 'nar', mp: 'nar', compare: 'compare' };

/**
 * The lanes a first visit (an address with none) opens: greedy against beam search, both
 * on the one autoregressive model, so that a first visit downloads one model (with the
 * page and the wasm at most 2.5 MB, tests/browser/weight.test.mjs). The
 * non-autoregressive lanes need g2p-cmlm, a second model of about 3 MB: it downloads
 * when the learner adds one of them (or opens an address or a tour stop that has one).
 */
export const DEFAULT_LANES = ['greedy', 'beam'];

/** The RNN's attention scores, in the order the course notes build them up. */
export const ATTENTION_SCORES = ['dot', 'multiplicative', 'reduced_rank', 'additive'];

/** The RNN model of each attention score (the first listed), null where there is none. */
export function compareModels(models) {
  return ATTENTION_SCORES.map((score) => models.find((m) => m.arch === 'rnn' && m.attentionScore === score) ?? null);
}

/** The characters the model reads: its source vocabulary but its special tokens. */
export function sourceLetters(info) {
  const specials = new Set(Object.values(info.sourceSpecials ?? {}));
  return info.sourceVocab.filter((_, i) => !specials.has(i));
}

/** `word` case-folded as the model reads its source. */
export function foldCase(info, word) {
  return info.sourceCase === 'lower' ? word.toLowerCase() : info.sourceCase === 'upper' ? word.toUpperCase() : word;
}
