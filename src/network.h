// What every architecture offers the rest of the library: its size, and the
// scorers that search drives. Model holds one Network; Session asks it for a
// scorer and never needs to know which architecture answered.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "copy.h"
#include "scorer.h"
#include "snapshot.h"

namespace seq2seq {

class Network {
 public:
  virtual ~Network() = default;
  virtual int64_t parameter_count() const = 0;
  // Autoregressive scoring of one source; `capacity`: decoder positions to reserve.
  // A copy model's scorer scores the target vocabulary and the source's copy-only
  // tokens (copy.h: the source's copy map, or the one its ids give).
  virtual std::unique_ptr<StepScorer> step_scorer(const SourceInput& source, int capacity) const = 0;
  // One scorer per source, as step_scorer gives them; an architecture may encode
  // the sources in one pass (the Transformer).
  virtual std::vector<std::unique_ptr<StepScorer>> step_scorers(const std::vector<SourceInput>& sources,
                                                                const std::vector<int>& capacities) const {
    std::vector<std::unique_ptr<StepScorer>> out;
    for (size_t i = 0; i < sources.size(); ++i) out.push_back(step_scorer(sources[i], capacities[i]));
    return out;
  }
  // Non-autoregressive scoring of one source (CMLM only).
  virtual std::unique_ptr<ParallelScorer> parallel_scorer(const std::vector<int>& source) const = 0;
  // Every intermediate of one decoder pass over `target` (the decoder's input ids,
  // BOS first for an autoregressive model, a draft for a CMLM): snapshot.h, StepInside.
  // Separate from decoding, which keeps none of it.
  // A copy model's pass also shows its mix (copy.h), with the source's copy map.
  virtual StepInside inspect(const SourceInput& source, const std::vector<int>& target) const = 0;
};

}  // namespace seq2seq
