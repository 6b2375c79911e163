// Teacher forcing over the scorer interface (scorer.h), as search sees a model:
// what Session::score runs. Internal (the scorers are); the result, ForcedScore,
// and what its numbers mean are public, in snapshot.h.
#pragma once
#include <vector>

#include "decoding_options.h"
#include "model_config.h"
#include "snapshot.h"

namespace seq2seq {

class StepScorer;      // scorer.h
class ParallelScorer;

// Teacher forcing through `scorer` (fresh: one hypothesis fed nothing, with room
// for target.size() + 1 positions). Target ids must be emittable tokens (no
// special token; the caller names a bad one to the user).
ForcedScore force_autoregressive(StepScorer& scorer, const SpecialIds& specials, const std::vector<int>& target,
                                 const DecodingOptions& options);

// The CMLM draft score (snapshot.h, ForcedScore); `target` holds at least one token and at
// most scorer.max_target_length().
ForcedScore force_parallel(ParallelScorer& scorer, const SpecialIds& specials, const std::vector<int>& target,
                           const DecodingOptions& options);

}  // namespace seq2seq
