#include "train/loss.h"

#include <cmath>

namespace seq2seq {
namespace train {

void log_softmax_rows(const float* logits, int rows, int V, float* logp) {
  for (int r = 0; r < rows; ++r) {
    const float* x = logits + static_cast<size_t>(r) * V;
    float* y = logp + static_cast<size_t>(r) * V;
    float mx = x[0];
    for (int k = 1; k < V; ++k) mx = x[k] > mx ? x[k] : mx;
    double sum = 0;
    for (int k = 0; k < V; ++k) sum += std::exp(static_cast<double>(x[k] - mx));
    const float lse = mx + static_cast<float>(std::log(sum));
    for (int k = 0; k < V; ++k) y[k] = x[k] - lse;
  }
}

LossSums smoothed_nll(const float* logp, int rows, int V, const int* targets, int ignore, float smoothing,
                      float scale, float* dlogp, int width) {
  const int W = width < 0 ? V : width;
  LossSums s;
  const double on = 1.0 - smoothing, spread = static_cast<double>(smoothing) / V;
  for (int r = 0; r < rows; ++r) {
    const float* lp = logp + static_cast<size_t>(r) * W;
    float* d = dlogp + static_cast<size_t>(r) * W;
    const int y = targets[r];
    if (y == ignore) {
      for (int k = 0; k < W; ++k) d[k] = 0.0f;
      continue;
    }
    double sum_lp = 0;
    int best = 0;
    for (int k = 0; k < W; ++k) {
      if (k < V) sum_lp += lp[k];
      if (lp[k] > lp[best]) best = k;
    }
    s.loss += -(on * lp[y] + spread * sum_lp);
    s.tokens += 1;
    s.correct += best == y ? 1 : 0;
    for (int k = 0; k < V; ++k) d[k] = static_cast<float>(-spread * scale);
    for (int k = V; k < W; ++k) d[k] = 0.0f;
    d[y] = static_cast<float>(-(on + (y < V ? spread : 0.0)) * scale);
  }
  return s;
}

double smoothed_nll_floor(float smoothing, int V) {
  if (smoothing <= 0 || V <= 1) return 0.0;
  const double spread = static_cast<double>(smoothing) / V, top = 1.0 - smoothing + spread;
  return -top * std::log(top) - (V - 1) * spread * std::log(spread);
}

void log_softmax_backward(const float* logp, const float* dlogp, int rows, int V, float* dlogits) {
  for (int r = 0; r < rows; ++r) {
    const float* lp = logp + static_cast<size_t>(r) * V;
    const float* d = dlogp + static_cast<size_t>(r) * V;
    float* g = dlogits + static_cast<size_t>(r) * V;
    double sum = 0;
    for (int k = 0; k < V; ++k) sum += d[k];
    const float total = static_cast<float>(sum);
    for (int k = 0; k < V; ++k) g[k] = d[k] - std::exp(lp[k]) * total;
  }
}

}  // namespace train
}  // namespace seq2seq
