#include "tensor.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace seq2seq {

namespace {

void run_linear(const Eigen::Ref<const RowMatrix>& x, const Linear& l, bool relu, RowMatrix& y) {
  if (x.cols() != l.in())
    throw std::logic_error("linear: " + std::to_string(x.cols()) + " inputs for a layer of " + std::to_string(l.in()));
  y.resize(x.rows(), l.out());
  LinearArgs a;
  a.x = x.data();
  a.m = static_cast<int>(x.rows());
  a.ldx = static_cast<int>(x.outerStride());
  a.y = y.data();
  a.ldy = static_cast<int>(y.outerStride());
  a.relu = relu;
  linear_kernel_simd(l, a);
}

}  // namespace

void linear(const Eigen::Ref<const RowMatrix>& x, const Linear& l, RowMatrix& y) { run_linear(x, l, false, y); }

void linear(const Eigen::Ref<const RowMatrix>& x, const Linear& l, Activation act, RowMatrix& y) {
  run_linear(x, l, act == Activation::Relu, y);
  if (act != Activation::Relu) activate_inplace(y, act);
}

void layer_norm(const Eigen::Ref<const RowMatrix>& x, const LayerNormParams& p, float eps, RowMatrix& y) {
  y.resize(x.rows(), x.cols());
  const float inv_n = 1.0f / static_cast<float>(x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float mean = x.row(r).sum() * inv_n;
    const float var = (x.row(r).array() - mean).square().sum() * inv_n;
    const float inv_std = 1.0f / std::sqrt(var + eps);
    y.row(r) = (((x.row(r).array() - mean) * inv_std) * p.gain.array() + p.bias.array()).matrix();
  }
}

void activate_inplace(RowMatrix& x, Activation a) {
  if (a == Activation::Relu) {
    x = x.cwiseMax(0.0f);
  } else {  // exact GELU, as torch.nn.functional.gelu's default
    const float inv_sqrt2 = 0.70710678118654752f;
    x = x.unaryExpr([inv_sqrt2](float v) { return 0.5f * v * (1.0f + std::erf(v * inv_sqrt2)); });
  }
}

void log_softmax_rows(RowMatrix& x) {
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float m = x.row(r).maxCoeff();
    const float lse = m + std::log((x.row(r).array() - m).exp().sum());
    x.row(r).array() -= lse;
  }
}

RowMatrix sinusoidal_positions(int n_pos, int d) {
  RowMatrix p(n_pos, d);
  for (int t = 0; t < n_pos; ++t)
    for (int i = 0; i < d; ++i) {
      // Pairs (2i, 2i+1) share one frequency: 10000^(-2i/d).
      const double freq = std::pow(10000.0, -static_cast<double>(i - (i % 2)) / d);
      const double angle = t * freq;
      p(t, i) = static_cast<float>(i % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return p;
}

}  // namespace seq2seq
