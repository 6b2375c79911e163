// AdamW (Loshchilov & Hutter 2019) as PyTorch's torch.optim.AdamW computes it, the
// learning-rate schedule (linear warm-up, then constant, linear or cosine decay)
// and gradient clipping by the global norm (torch.nn.utils.clip_grad_norm_).
// The moments live here, sized once; a step allocates nothing.
#pragma once
#include <cstddef>
#include <vector>

#include "train/param_store.h"
#include "train/training_options.h"

namespace seq2seq {
namespace train {

// The learning rate of step `step` (1 for the first) of a run of o.steps steps:
// o.learning_rate * step / o.warmup_steps during warm-up, then o.lr_decay from
// o.learning_rate down to o.final_lr_ratio * o.learning_rate at the last step.
float learning_rate_at(const TrainingOptions& o, int step);

// The global L2 norm of every gradient (summed in double); if it exceeds
// max_norm > 0, every gradient is scaled by max_norm / (norm + 1e-6), as PyTorch
// does. Returns the norm before clipping (non-finite if a gradient is).
double clip_gradients(ParamStore& params, float max_norm);

struct AdamWSettings {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.0f;
};

class AdamW {
 public:
  explicit AdamW(size_t n) : m_(n, 0.0f), v_(n, 0.0f) {}
  // One update of every parameter from its gradient: decoupled weight decay on the
  // tensors marked `decay`, then the bias-corrected moment step.
  void step(ParamStore& params, const AdamWSettings& s);
  int steps_taken() const { return t_; }

  // For checkpoints: the moments and the step count, restored as they were.
  std::vector<float>& first_moment() { return m_; }
  std::vector<float>& second_moment() { return v_; }
  const std::vector<float>& first_moment() const { return m_; }
  const std::vector<float>& second_moment() const { return v_; }
  void set_steps_taken(int t) { t_ = t; }

 private:
  std::vector<float> m_, v_;
  int t_ = 0;
};

}  // namespace train
}  // namespace seq2seq
