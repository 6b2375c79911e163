// The trainer's layers, each a forward pass that keeps what its backward pass
// reads and a backward pass written by hand (the shape of llm.c's
// train_gpt2.c): linear, LayerNorm, the FFN's activations, multi-head attention
// with the 1/sqrt(d/h) scaling, masks and dropout on the probabilities, and the
// token embedding with its positions. Each is held to PyTorch autograd on the
// project's reference modules (tests/native/test_train_layers.cpp).
//
// Activations are row-major f32, one row per token, the rows of a batch packed
// one example after another (no padding rows: an example's positions are a span
// of rows). Every backward pass ADDS to the gradients it writes (inputs and
// parameters alike), so a value read by two layers gets the sum of both
// gradients; the caller zeroes the buffers once per step. Nothing here
// allocates: products take the caller's scratch (gemm_kernel.h).
#pragma once
#include <cstddef>

#include "model_config.h"

namespace seq2seq {
namespace train {

// ---- linear: y = x Wᵀ + b, W [out x in] as the model format stores it.

// y [rows x out] = x [rows x in] Wᵀ + b (b may be null). scratch: gemm_scratch_floats(rows, out, in).
void linear_forward(const float* x, int rows, int in, const float* w, const float* b, int out, float* y, float* scratch);
// dx += dy W (dx may be null), dW += dyᵀ x, db += the column sums of dy (db may be null).
// scratch: the larger of gemm_scratch_floats(rows, in, out) and (out, in, rows).
void linear_backward(const float* x, const float* dy, int rows, int in, int out, const float* w, float* dx, float* dw,
                     float* db, float* scratch);

// ---- LayerNorm over each row of d values (biased variance, as PyTorch).

void layer_norm_forward(const float* x, int rows, int d, const float* gain, const float* bias, float eps, float* y,
                        float* mean, float* rstd);
// dx += d loss / dx, dgain += sum dy * xhat, dbias += sum dy.
void layer_norm_backward(const float* x, const float* dy, int rows, int d, const float* gain, const float* mean,
                         const float* rstd, float* dx, float* dgain, float* dbias);

// ---- the FFN's activation, elementwise: ReLU, or the exact (erf) GELU.

void activation_forward(Activation act, const float* h, size_t n, float* out);
// dh += dout * act'(h).
void activation_backward(Activation act, const float* h, const float* dout, size_t n, float* dh);

// ---- dropout and residuals, elementwise.

// y = x * mask (a mask of draw_dropout_mask: 0 or 1 / (1 - p)).
void mul_mask(const float* x, const float* mask, size_t n, float* y);
// dx += dy * mask.
void mul_mask_backward(const float* dy, const float* mask, size_t n, float* dx);
// y = a + b.
void add(const float* a, const float* b, size_t n, float* y);
// dx += dy.
void accumulate(const float* dy, size_t n, float* dx);

// ---- multi-head attention (the core, between the projections).

// One example of a packed batch: its queries are rows [q0, q0 + nq), its keys rows
// [k0, k0 + nk); its probabilities [heads][nq][nk] start at probs + p0.
struct AttentionSpan {
  int q0 = 0, nq = 0, k0 = 0, nk = 0;
  size_t p0 = 0;
};

// Head h reads columns [h dh, (h + 1) dh) of q, k and v (each with its row stride):
// A_h = softmax(Q_h K_hᵀ / sqrt(dh)), with key j > i masked (probability exactly 0)
// for query i when causal; ctx_h = dropout(A_h) V_h. The probabilities are kept
// (before dropout, as the reference returns them).
struct AttentionArgs {
  const AttentionSpan* spans = nullptr;
  int batch = 0, heads = 0, dh = 0;
  bool causal = false;
  const float* q = nullptr;
  int ldq = 0;
  const float* k = nullptr;
  int ldk = 0;
  const float* v = nullptr;
  int ldv = 0;
  float* probs = nullptr;
  const float* drop = nullptr;  // dropout mask, the layout of probs; null: none
  float* ctx = nullptr;
  int ldc = 0;
};
void attention_forward(const AttentionArgs& a);

struct AttentionGrads {
  const float* dctx = nullptr;
  int lddc = 0;
  float* dq = nullptr;
  int lddq = 0;
  float* dk = nullptr;
  int lddk = 0;
  float* dv = nullptr;
  int lddv = 0;
  // An extra gradient of the loss with respect to the probabilities, the layout of
  // probs, added to what flows back from the context: where a loss term on the
  // attention weights themselves (guided attention) enters. Null: none.
  const float* extra_dprobs = nullptr;
};
// scratch: the largest nq * nk of the spans, in floats.
void attention_backward(const AttentionArgs& a, const AttentionGrads& g, float* scratch);

// ---- the token embedding, times `scale`, plus the position's row.

// x[r] = table[ids[r]] * scale + pos_table[pos[r]] for r < rows.
void embedding_forward(const int* ids, const int* pos, int rows, const float* table, int d, float scale,
                       const float* pos_table, float* x);
// dtable[ids[r]] += dx[r] * scale; dpos[pos[r]] += dx[r] when dpos (learned positions).
void embedding_backward(const int* ids, const int* pos, int rows, const float* dx, int d, float scale, float* dtable,
                        float* dpos);

}  // namespace train
}  // namespace seq2seq
