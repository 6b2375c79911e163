// An ensemble of autoregressive models as one network: its next-token
// distribution is the mean of the members' probabilities. Search drives it
// through the same StepScorer as any single model, so greedy, beam and sampling
// work unchanged. Used to decode with several trained models at once (the
// training recipe's teachers for distillation); the page runs single models.
#pragma once
#include <memory>
#include <vector>

#include "network.h"

namespace seq2seq {

class Model;

class Ensemble final : public Network {
 public:
  // Members must be autoregressive with the same vocabularies and without the copy
  // mechanism (checked by Model::ensemble, the way to build one).
  explicit Ensemble(std::vector<std::shared_ptr<const Model>> members);

  int64_t parameter_count() const override;
  // Attention, when asked (cross, decoder self and encoder self), is the first
  // member's (members may differ in layers and heads, so there is no one map to
  // average them into).
  std::unique_ptr<StepScorer> step_scorer(const SourceInput& source, int capacity) const override;
  std::unique_ptr<ParallelScorer> parallel_scorer(const std::vector<int>& source) const override;
  // Throws UsageError: the inside of a step is one network's, not a mix of several.
  StepInside inspect(const SourceInput& source, const std::vector<int>& target) const override;
  uint64_t inside_values(int source_length, int target_length, int extra = 0) const override;
  const std::vector<std::shared_ptr<const Model>>& members() const { return members_; }

 private:
  std::vector<std::shared_ptr<const Model>> members_;
};

// log(mean_m exp(member[m])) row by row, computed without overflow: the mixture
// of the members' next-token distributions, written into `out` [n x V].
void mean_of_probabilities(const std::vector<RowMatrix>& member_logprobs, RowMatrix& out);

}  // namespace seq2seq
