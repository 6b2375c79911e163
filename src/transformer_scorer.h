// The Transformer behind the scorer interfaces that search drives.
#pragma once
#include <memory>
#include <vector>

#include "scorer.h"
#include "transformer.h"

namespace seq2seq {

TargetSpecials target_specials(const ModelConfig& config);

// `capacity`: decoder positions to reserve (<= max_pos). The Transformer must
// outlive the scorer.
std::unique_ptr<StepScorer> make_step_scorer(const Transformer& model, const std::vector<int>& source, int capacity);
std::unique_ptr<ParallelScorer> make_parallel_scorer(const Transformer& model, const std::vector<int>& source);

}  // namespace seq2seq
