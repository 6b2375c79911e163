// The page's lane types by the kind of model each decodes with, the lanes a first
// visit opens, and the RNNs the compare lane sets side by side: read by the page
// (web/js/lane-types.js) and by boot.js, into which scripts/build-web.mjs inlines this
// file's text (its `export`s dropped), so that boot.js picks the first lane's model as
// the page will: it imports nothing and names no browser API.

/** Each lane type's kind: 'ar' (an autoregressive model), 'nar' (a CMLM) or 'compare' (the four RNNs). */
export const LANE_KINDS = { greedy: 'ar', beam: 'ar', sample: 'ar', nar: 'nar', mp: 'nar', compare: 'compare' };

/** The lanes a first visit (an address with none) opens. */
export const DEFAULT_LANES = ['greedy', 'beam', 'nar', 'mp'];

/** The RNN's attention scores, in the order the course notes build them up. */
export const ATTENTION_SCORES = ['dot', 'multiplicative', 'reduced_rank', 'additive'];

/** The RNN model of each attention score (the first listed), null where there is none. */
export function compareModels(models) {
  return ATTENTION_SCORES.map((score) => models.find((m) => m.arch === 'rnn' && m.attentionScore === score) ?? null);
}
