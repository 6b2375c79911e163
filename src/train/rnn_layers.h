// The RNN encoder-decoder's own layers for training (the linear layers and the
// embeddings are layers.h's): the GRU's gates, and one decoder state's attention
// over its source with each score of docs/model-format.md, each a forward pass
// that keeps what its backward pass reads and a backward pass written by hand,
// held to PyTorch autograd on the reference's nn.GRUCell, nn.GRU and score
// modules (tests/native/test_train_rnn.cpp).
//
// The products of a GRU step (x W_ihᵀ + b_ih and h W_hhᵀ + b_hh) are the
// caller's, done for many rows at once; what is here is per row. Backward passes
// that produce an input's gradient say whether they write it (=) or add to it (+=).
#pragma once

#include "model_config.h"

namespace seq2seq {
namespace train {

// ---- the GRU's gates, PyTorch's equations (gates r, z, n stacked in that order):
//   r = σ(xp_r + gh_r),  z = σ(xp_z + gh_z),  n = tanh(xp_n + r ⊙ gh_n),
//   h' = (1 − z) ⊙ n + z ⊙ h,
// with xp = x W_ihᵀ + b_ih (row stride ldxp) and gh = h W_hhᵀ + b_hh ([rows x 3H]).

// gates [rows x 3H] = r, z, n (kept for the backward pass); h_new [rows x H].
void gru_forward(const float* xp, int ldxp, const float* gh, const float* h, int rows, int H, float* gates, float* h_new);

// From dh_new [rows x H], the gradient of h' = GRU(h): writes dxp (row stride
// lddxp) and dgh [rows x 3H], the gradients of the two products' outputs, and dh
// [rows x H] = dh_new ⊙ z, h's direct share (the caller adds dgh W_hh). dh may
// be dh_new itself.
void gru_backward(const float* dh_new, const float* gates, const float* gh, const float* h, int rows, int H, float* dxp,
                  int lddxp, float* dgh, float* dh);

// ---- one decoder state's attention over one source of S states m_j (each M wide,
// rows of `memory`), through keys k_j ([S x K], computed from the memory by the
// caller: m_j itself, W m_j, V m_j or W1 m_j) and a query q (K wide: s, s, U s or W2 s):
//   dot, multiplicative, reduced rank: e_j = k_jᵀ q
//   additive:                          e_j = vᵀ tanh(k_j + q)
//   α = softmax(e),  ctx = Σ_j α_j m_j.
// (`none` has no scores: the decoder reads the fixed context vector instead.)

// probs [S], ctx [M]; additive keeps tanh(k_j + q) in act [S x K] (unused otherwise).
void rnn_attention_forward(AttentionScore score, int S, int K, const float* keys, const float* q, const float* v,
                       const float* memory, int M, float* act, float* probs, float* ctx);

// From dctx [M] and, if not null, extra_dprobs [S] (a loss term on the weights
// themselves, as guided attention adds): writes dq [K]; adds to dkeys [S x K],
// dmemory [S x M] and, additive, dv [K]. scratch: S floats.
void rnn_attention_backward(AttentionScore score, int S, int K, const float* keys, const float* q, const float* v,
                        const float* memory, int M, const float* act, const float* probs, const float* dctx,
                        const float* extra_dprobs, float* dq, float* dkeys, float* dmemory, float* dv, float* scratch);

}  // namespace train
}  // namespace seq2seq
