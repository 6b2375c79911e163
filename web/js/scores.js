// The RNN's four attention scores as the page explains them: the name, the
// formula, the weights it adds (from the model's info) and a few sentences.
// score(s, h_j) compares the decoder state s with the encoder state h_j of
// letter j; a softmax over the letters makes the attention weights.

import { t } from './i18n.js';

const s = '<i>s</i>';
const h = '<i>h</i><sub><i>j</i></sub>';
const T = '<sup>T</sup>';

// The words (name, spoken formula, explanation) live in web/i18n/*.js under these keys.
export const SCORES = {
  dot: {
    formula: `${s}${T}${h}`,
    weights: () => [],
    keys: { name: 'score.dot.name', short: 'score.dot.short', spoken: 'score.dot.spoken', text: 'score.dot.text_html' },
  },
  multiplicative: {
    formula: `${s}${T}<i>W</i>${h}`,
    weights: (i) => [['W', i.decHidden, 2 * i.encHidden]],
    keys: { name: 'score.multiplicative.name', short: 'score.multiplicative.short', spoken: 'score.multiplicative.spoken', text: 'score.multiplicative.text_html' },
  },
  reduced_rank: {
    formula: `(<i>U</i>${s})${T}(<i>V</i>${h})`,
    weights: (i) => [['U', i.attnDim, i.decHidden], ['V', i.attnDim, 2 * i.encHidden]],
    keys: { name: 'score.reduced_rank.name', short: 'score.reduced_rank.short', spoken: 'score.reduced_rank.spoken', text: 'score.reduced_rank.text_html' },
  },
  additive: {
    formula: `<i>v</i>${T}tanh(<i>W</i><sub>1</sub>${h} + <i>W</i><sub>2</sub>${s})`,
    weights: (i) => [['W₁', i.attnDim, 2 * i.encHidden], ['W₂', i.attnDim, i.decHidden], ['v', i.attnDim, 1]],
    keys: { name: 'score.additive.name', short: 'score.additive.short', spoken: 'score.additive.spoken', text: 'score.additive.text_html' },
  },
};

/** A score's words in the page's language: name ("Dot product"), short (mid-sentence), spoken, text (markup). */
export function scoreWords(score) {
  const k = SCORES[score].keys;
  return { name: t(k.name), short: t(k.short), spoken: t(k.spoken), text: t(k.text) };
}

/** "W 240×240" pieces and their total, from a model's info (encHidden, decHidden, attnDim). */
export function scoreWeights(score, info) {
  const parts = info ? SCORES[score].weights(info) : [];
  return { parts, total: parts.reduce((a, [, r, c]) => a + r * c, 0) };
}
