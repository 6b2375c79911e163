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
  // How many numbers inspect() over a source of `source_length` ids and a decoder input of
  // `target_length` would keep (the elements of every float and byte array of its StepInside),
  // worked out from the shapes alone, so that Model::inspect can refuse a pass too large for
  // limits::kMaxInsideValues before computing any of it. `extra`: a copy model's copy-only
  // tokens of the source (its output distribution's width past the vocabulary). Written next
  // to each inspect(), and held equal to what it keeps by a test.
  virtual uint64_t inside_values(int source_length, int target_length, int extra = 0) const = 0;
};

}  // namespace seq2seq
