// The copy mechanism in training (the pointer-generator of src/copy.h, See et al.
// 2017; docs/training.md "The copy mechanism"): the three pieces a copy model adds
// to a training graph, each a forward pass and its backward pass by hand, one
// example's decoder rows at a time (its source, and so its extended vocabulary, is
// its own):
//
//   copy_context   c_t = sum_i a_ti m_i        (the Transformer's context of the copy
//                                               attention; the RNN's is its a_t)
//   copy_gate      g_t = w . [c_t ; h_t ; x_t] + b,   p_gen = sigmoid(g_t)
//   copy_mix       log P_t(w) = log(p_gen P_vocab(w) + (1 - p_gen) sum_i a_ti [x_i = w])
//
// and the loss over the mixed rows (loss.h's smoothed_nll over the width W). The graph computes a (the
// Transformer's last decoder layer's cross-attention averaged over its heads, the
// RNN's attention), h, x and log P_vocab as it does without copying; its backward
// pass takes the gradients these give back: d log P_vocab into the log-softmax
// backward (loss.h), d a into the attention's probabilities (a Transformer's each
// head 1/heads of it), d h and d x into the decoder output and input, d m into the
// encoder output.
#pragma once

#include "train/loss.h"

namespace seq2seq {
namespace train {

// One example's rows: T decoder positions over S source positions; `ids` [S] the
// output id copying each position gives (copy.h, copy_map), ids >= V copy-only; W =
// V + the source's copy-only tokens, the width of its output rows. `scratch`: 2W
// floats the caller owns (nothing here allocates: a training step allocates nothing).
struct CopyShape {
  int rows = 0, V = 0, S = 0, W = 0;
  const int* ids = nullptr;
  float* scratch = nullptr;
};

// context [T x C] = attention [T x S] · memory [S x C].
void copy_context_forward(const float* attention, const float* memory, int rows, int S, int C, float* context);
// dattention += dcontext · memoryᵀ, dmemory += attentionᵀ · dcontext.
void copy_context_backward(const float* dcontext, const float* attention, const float* memory, int rows, int S, int C,
                           float* dattention, float* dmemory);

// The gate's input widths: the context, the decoder state and the decoder input, side
// by side in the weight's columns (copy_gate.weight [1, C + D + X]).
struct GateWidths {
  int C = 0, D = 0, X = 0;
};
// gate [T] = w · [context ; state ; input] + b, each row.
void copy_gate_forward(const float* context, const float* state, const float* input, int rows, GateWidths widths,
                       const float* w, float b, float* gate);
// dw [C + D + X] and db accumulate dgate times the features; dcontext, dstate and
// dinput accumulate dgate · w's columns (any of them null: not wanted).
void copy_gate_backward(const float* dgate, const float* context, const float* state, const float* input, int rows,
                        GateWidths widths, const float* w, float* dw, float* db, float* dcontext, float* dstate,
                        float* dinput);

// logp [T x W] of the mix, from logp_vocab [T x V] (the log-softmax of the logits),
// gate [T] and attention [T x S]: what src/copy.h's mix_copy computes at inference.
void copy_mix_forward(const float* logp_vocab, const float* gate, const float* attention, const CopyShape& shape,
                      float* logp);
// From dlogp [T x W] (d loss / d logp): dlogp_vocab [T x V] (then log_softmax_backward
// to the logits), dgate [T] and dattention [T x S] (written, not accumulated). Where
// both terms of a token are there, its gradient splits between them in the shares
// they hold of it (exp(term - logp)); log(1 - p_gen) and log p_gen move with the gate
// as -p_gen and 1 - p_gen; a copy probability's gradient goes to every source position
// holding the token.
void copy_mix_backward(const float* logp_vocab, const float* gate, const float* attention, const float* logp,
                       const float* dlogp, const CopyShape& shape, float* dlogp_vocab, float* dgate, float* dattention);

}  // namespace train
}  // namespace seq2seq
