// Scheduled sampling (Bengio et al. 2015), the course notes' answer to exposure
// bias (曝光偏差): in training the decoder reads the true previous token (teacher
// forcing), at test time its own; so, position by position, it reads the true
// token with probability epsilon and its own otherwise, epsilon falling as
// training goes on (the options' scheduled_sampling, sampling_midpoint,
// sampling_min, sampling_token). The loss still compares every position with the
// true token; no gradient flows through the choice.
//
// The draws come from the trainer's seeded generator in a fixed order, two for
// every decoder row whatever the outcomes, so a run repeats and the same draws
// replayed in PyTorch give the same inputs (tests/tools/make_train_fixtures.py).
//
// The RNN's decoder runs token by token, so it chooses each input as it goes
// (rnn_graph.h). The Transformer's decoder computes every position at once, so it
// takes the two-pass form (Mihaylova & Martins 2019): a first, teacher-forced pass
// gives the model's prediction at every position, mix_inputs() mixes them with the
// true tokens, and a second pass over the mix is the one trained (trainer.cpp).
#pragma once
#include <cstddef>
#include <vector>

#include "random.h"
#include "train/graph.h"
#include "train/training_options.h"

namespace seq2seq {
namespace train {

// epsilon at optimizer step `step` (1 for the first; i = step - 1 steps taken
// before): 1 when the schedule is off, else the schedule's value (training_options.h),
// never below o.sampling_min.
double true_token_probability(const TrainingOptions& o, int step);

// The inverse sigmoid schedule's k for a midpoint N: the k >= 1 with k ln k = N
// (so that k / (k + exp(N / k)) = 1/2).
double inverse_sigmoid_k(int midpoint);

// One step's draws, row for row of a batch's decoder inputs: the row reads the
// true token when coin < epsilon; otherwise the model's own, chosen with `pick`
// (own_token()). Buffers sized once for the most rows a step has.
class SamplingDraws {
 public:
  explicit SamplingDraws(size_t max_rows) { coin_.reserve(max_rows); pick_.reserve(max_rows); }
  // Draws coin then pick for each of `rows` rows from `rng`; epsilon is this step's.
  void draw(Random& rng, int rows, double epsilon, SampledToken how);
  double epsilon() const { return epsilon_; }
  SampledToken how() const { return how_; }
  int rows() const { return static_cast<int>(coin_.size()); }
  bool reads_true_token(int row) const { return coin_[static_cast<size_t>(row)] < epsilon_; }
  double pick(int row) const { return pick_[static_cast<size_t>(row)]; }
  const std::vector<double>& coins() const { return coin_; }
  const std::vector<double>& picks() const { return pick_; }

 private:
  std::vector<double> coin_, pick_;
  double epsilon_ = 1.0;
  SampledToken how_ = SampledToken::Sample;
};

// The model's own token from its logits at the previous position: the argmax
// (the first of equals), or the first token k whose cumulative softmax
// probability exceeds `pick` (in [0, 1)), the inverse of the distribution's CDF.
int own_token(const float* logits, int V, SampledToken how, double pick);

// The two-pass form's mix: `inputs` (b.dec_rows() ids) becomes b.dec_in with each
// row after an example's first (BOS) that does not read the true token (`d`,
// drawn for b's decoder rows) replaced by own_token() of `logits` at the row
// before, the first pass's prediction of that very token ([b.dec_rows() x V]).
// Returns how many rows read a token other than the true one.
int mix_inputs(const Batch& b, const float* logits, int V, const SamplingDraws& d, int* inputs);

}  // namespace train
}  // namespace seq2seq
