#include "train/scheduled_sampling.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "errors.h"

namespace seq2seq {
namespace train {

double inverse_sigmoid_k(int midpoint) {
  // k ln k grows monotonically for k >= 1, from 0: bisection finds the root to the
  // last bit of a double in a fixed number of halvings, the same on every platform.
  const double n = midpoint;
  double lo = 1.0, hi = 2.0;
  while (hi * std::log(hi) < n) hi *= 2.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (mid * std::log(mid) < n ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double true_token_probability(const TrainingOptions& o, int step) {
  const double i = std::max(0, step - 1), n = o.sampling_midpoint;
  double eps = 1.0;
  switch (o.scheduled_sampling) {
    case SamplingSchedule::Off: return 1.0;
    case SamplingSchedule::Linear: eps = 1.0 - i / (2.0 * n); break;
    case SamplingSchedule::Exponential: eps = std::exp2(-i / n); break;
    case SamplingSchedule::InverseSigmoid: {
      const double k = inverse_sigmoid_k(o.sampling_midpoint);
      eps = k / (k + std::exp(i / k));
      break;
    }
  }
  return std::max(static_cast<double>(o.sampling_min), eps);
}

void SamplingDraws::draw(Random& rng, int rows, double epsilon, SampledToken how) {
  epsilon_ = epsilon;
  how_ = how;
  coin_.clear();
  pick_.clear();
  for (int r = 0; r < rows; ++r) {
    coin_.push_back(rng.uniform());
    pick_.push_back(rng.uniform());
  }
}

int own_token(const float* logits, int V, SampledToken how, double pick) {
  int best = 0;
  for (int k = 1; k < V; ++k)
    if (logits[k] > logits[best]) best = k;
  if (how == SampledToken::Argmax) return best;
  double sum = 0;
  for (int k = 0; k < V; ++k) sum += std::exp(static_cast<double>(logits[k]) - logits[best]);
  const double target = pick * sum;
  double acc = 0;
  for (int k = 0; k < V; ++k) {
    acc += std::exp(static_cast<double>(logits[k]) - logits[best]);
    if (acc > target) return k;
  }
  return best;  // rounding left the last bit of mass unassigned: the likeliest token
}

int mix_inputs(const Batch& b, const float* logits, int V, const SamplingDraws& d, int* inputs) {
  if (d.rows() != b.dec_rows())
    throw UsageError("scheduled sampling: draws for " + std::to_string(d.rows()) + " rows, the batch has " +
                     std::to_string(b.dec_rows()));
  int own = 0;
  for (int e = 0; e < b.size; ++e) {
    const int first = b.dec_off[static_cast<size_t>(e)], end = first + b.dec_len[static_cast<size_t>(e)];
    inputs[first] = b.dec_in[static_cast<size_t>(first)];
    for (int row = first + 1; row < end; ++row) {
      int token = b.dec_in[static_cast<size_t>(row)];
      if (!d.reads_true_token(row)) token = own_token(logits + static_cast<size_t>(row - 1) * V, V, d.how(), d.pick(row));
      own += token != b.dec_in[static_cast<size_t>(row)];
      inputs[row] = token;
    }
  }
  return own;
}

}  // namespace train
}  // namespace seq2seq
