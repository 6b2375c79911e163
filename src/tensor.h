// The dense types the engine computes with, and the few layer primitives that
// every architecture shares (linear, LayerNorm, activations). Activations are
// Eigen matrices [rows x features], row-major, one row per token; the linear
// layers' products run on the packed kernels of linear_kernel.h.
#pragma once
#include <Eigen/Core>

#include "linear_kernel.h"
#include "model_config.h"

namespace seq2seq {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

struct LayerNormParams {
  RowVector gain, bias;
};

// y = x Wᵀ + b into `y` (resized as needed).
void linear(const Eigen::Ref<const RowMatrix>& x, const Linear& l, RowMatrix& y);
// y = act(x Wᵀ + b): ReLU fused into the product, GELU applied after it.
void linear(const Eigen::Ref<const RowMatrix>& x, const Linear& l, Activation act, RowMatrix& y);
// Each row normalised to zero mean and unit (biased) variance, then scaled and shifted.
void layer_norm(const Eigen::Ref<const RowMatrix>& x, const LayerNormParams& p, float eps, RowMatrix& y);
void activate_inplace(RowMatrix& x, Activation a);
// Row-wise log-softmax, in place.
void log_softmax_rows(RowMatrix& x);
// The [n_pos x d] sinusoidal table of docs/model-format.md.
RowMatrix sinusoidal_positions(int n_pos, int d);

}  // namespace seq2seq
