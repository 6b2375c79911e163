// The RNN's four attention scores as the page explains them: the name, the
// formula, the weights it adds (from the model's info) and a few sentences.
// score(s, h_j) compares the decoder state s with the encoder state h_j of
// letter j; a softmax over the letters makes the attention weights.

const s = '<i>s</i>';
const h = '<i>h</i><sub><i>j</i></sub>';
const T = '<sup>T</sup>';

export const SCORES = {
  dot: {
    name: 'Dot product',
    formula: `${s}${T}${h}`,
    spoken: 's transposed times h j',
    weights: () => [],
    text: `Compares the two states directly: the score is large when they point the same way. It has nothing to learn,
      so the encoder and the decoder must learn to put matching information in the same coordinates, and both states
      must have the same size.`,
  },
  multiplicative: {
    name: 'Multiplicative',
    formula: `${s}${T}<i>W</i>${h}`,
    spoken: 's transposed times W times h j',
    weights: (i) => [['W', i.decHidden, 2 * i.encHidden]],
    text: `Puts a learned matrix W between the two states, so that any coordinate of s can be matched with any
      coordinate of h. The most flexible product, and the largest: one weight for every pair of coordinates.`,
  },
  reduced_rank: {
    name: 'Reduced rank',
    formula: `(<i>U</i>${s})${T}(<i>V</i>${h})`,
    spoken: 'U s, transposed, times V h j',
    weights: (i) => [['U', i.attnDim, i.decHidden], ['V', i.attnDim, 2 * i.encHidden]],
    text: `Projects both states into a small shared space with U and V and takes the dot product there: the
      multiplicative W, limited to a low rank. Far fewer weights, and the projected encoder states are computed once
      per word, not once per step.`,
  },
  additive: {
    name: 'Additive',
    formula: `<i>v</i>${T}tanh(<i>W</i><sub>1</sub>${h} + <i>W</i><sub>2</sub>${s})`,
    spoken: 'v transposed times tanh of W1 h j plus W2 s',
    weights: (i) => [['W₁', i.attnDim, 2 * i.encHidden], ['W₂', i.attnDim, i.decHidden], ['v', i.attnDim, 1]],
    text: `Feeds both states through a small network (one tanh layer) and reads the score off with v. It is not a
      product of s and h at all: the tanh lets it score pairs in ways no product can. Bahdanau's original attention.`,
  },
};

/** "W 240×240" pieces and their total, from a model's info (encHidden, decHidden, attnDim). */
export function scoreWeights(score, info) {
  const parts = info ? SCORES[score].weights(info) : [];
  return { parts, total: parts.reduce((a, [, r, c]) => a + r * c, 0) };
}
