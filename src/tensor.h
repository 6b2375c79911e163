// The dense types the engine computes with, and the few layer primitives that
// every architecture shares (linear, LayerNorm, activations). Eigen does the
// algebra; activations are [rows x features], row-major, one row per token.
#pragma once
#include <Eigen/Core>

#include "model_config.h"

namespace seq2seq {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

// y = x wᵀ + b, with w stored [out x in] as PyTorch stores it.
struct Linear {
  RowMatrix w;
  RowVector b;
  int in() const { return static_cast<int>(w.cols()); }
  int out() const { return static_cast<int>(w.rows()); }
};

struct LayerNormParams {
  RowVector gain, bias;
};

// y = x wᵀ + b into `y` (resized as needed).
void linear(const Eigen::Ref<const RowMatrix>& x, const Linear& l, RowMatrix& y);
// Each row normalised to zero mean and unit (biased) variance, then scaled and shifted.
void layer_norm(const Eigen::Ref<const RowMatrix>& x, const LayerNormParams& p, float eps, RowMatrix& y);
void activate_inplace(RowMatrix& x, Activation a);
// Row-wise log-softmax, in place.
void log_softmax_rows(RowMatrix& x);
// The [n_pos x d] sinusoidal table of docs/model-format.md.
RowMatrix sinusoidal_positions(int n_pos, int d);

}  // namespace seq2seq
