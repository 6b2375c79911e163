#include "train/optimizer.h"

#include <algorithm>
#include <cmath>

#include "errors.h"
#include "train/train_math.h"

namespace seq2seq {
namespace train {

float learning_rate_at(const TrainingOptions& o, int step) {
  const double lr = o.learning_rate;
  if (o.warmup_steps > 0 && step <= o.warmup_steps) return static_cast<float>(lr * step / o.warmup_steps);
  const int span = std::max(1, o.steps - o.warmup_steps);
  const double progress = std::min(1.0, std::max(0.0, static_cast<double>(step - o.warmup_steps) / span));
  const double floor = o.final_lr_ratio;
  switch (o.lr_decay) {
    case LrDecay::None: return static_cast<float>(lr);
    case LrDecay::Linear: return static_cast<float>(lr * (1.0 - (1.0 - floor) * progress));
    case LrDecay::Cosine: return static_cast<float>(lr * (floor + (1.0 - floor) * 0.5 * (1.0 + std::cos(kPi * progress))));
  }
  return static_cast<float>(lr);
}

double clip_gradients(ParamStore& params, float max_norm) {
  double sum = 0;
  for (float g : params.grads()) sum += static_cast<double>(g) * g;
  const double norm = std::sqrt(sum);
  if (max_norm > 0 && std::isfinite(norm)) {
    const double coef = static_cast<double>(max_norm) / (norm + 1e-6);
    if (coef < 1.0) {
      const float c = static_cast<float>(coef);
      for (float& g : params.grads()) g *= c;
    }
  }
  return norm;
}

void AdamW::step(ParamStore& params, const AdamWSettings& s) {
  if (m_.size() != params.size()) throw UsageError("AdamW: sized for another parameter store");
  ++t_;
  // PyTorch's order: p *= 1 - lr * wd; m = m + (1 - b1) (g - m); v = b2 v + (1 - b2) g^2;
  // p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
  const double bc1 = 1.0 - std::pow(static_cast<double>(s.beta1), t_);
  const double bc2 = 1.0 - std::pow(static_cast<double>(s.beta2), t_);
  const float step_size = static_cast<float>(s.lr / bc1);
  const float bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  const float one_minus_b1 = 1.0f - s.beta1, one_minus_b2 = 1.0f - s.beta2;
  for (const ParamTensor& t : params.tensors()) {
    float* p = params.values().data() + t.offset;
    const float* g = params.grads().data() + t.offset;
    float* m = m_.data() + t.offset;
    float* v = v_.data() + t.offset;
    const float keep = t.decay ? 1.0f - s.lr * s.weight_decay : 1.0f;
    for (size_t i = 0; i < t.size; ++i) {
      p[i] *= keep;
      m[i] += one_minus_b1 * (g[i] - m[i]);
      v[i] = v[i] * s.beta2 + one_minus_b2 * g[i] * g[i];
      const float denom = std::sqrt(v[i]) / bc2_sqrt + s.eps;
      p[i] -= step_size * (m[i] / denom);
    }
  }
}

}  // namespace train
}  // namespace seq2seq
