// The forced score of a given target: how likely the model finds it for a source,
// read by teacher forcing instead of searched for. Set beside a decode's result it
// tells the two kinds of mistake apart: if the reference scores higher than the
// wrong output, the search missed it (a search error: a wider search could have
// found it); if lower, the model itself prefers its wrong output (a model error).
//
// Like search, this sees a model only through the scorer interface (scorer.h).
//
// Autoregressive models (Transformer, RNN, ensembles): exact teacher forcing. BOS
// and then the target's tokens are fed one position at a time to a single
// hypothesis; each position's log-probability of the next target token, and at
// the end of EOS, is read from the same distribution search reads. So the forced
// score of a search's output equals that result's logprob and score.
//
// CMLM (Mask-Predict): a CMLM has no left-to-right likelihood. Its own
// factorisation is the one Mask-Predict's first iteration uses: the length head's
// P(n | source) for the target's length n, and each token's P(y_i | source, n
// masks), all positions predicted at once from a fully masked draft. The forced
// score is that draft scored as Mask-Predict scores its drafts: logprob is the
// plain sum of the n tokens' log-probabilities (no EOS: a draft at its predicted
// length has none), score is their average plus length_score_weight * log P(n)
// when the length is predicted (NarLength::Predicted), the average alone
// otherwise, as for a draft of a fixed or given length. This equals the result of
// a one-iteration decode at the target's length when that result is the target.
// After more iterations a result's confidences come from drafts with some tokens
// unmasked, so its numbers and the forced score are comparable but not the same
// quantity.
#pragma once
#include <string>
#include <vector>

#include "decoding_options.h"
#include "model_config.h"

namespace seq2seq {

class StepScorer;      // scorer.h
class ParallelScorer;

struct ForcedScore {
  std::vector<int> tokens;            // the target: no BOS, no EOS
  std::string text;                   // the tokens joined by spaces (Session fills it)
  // One per scored position: autoregressive, each token's and then EOS's
  // log-probability (tokens + 1 values); CMLM, each token's (tokens values).
  std::vector<float> token_logprobs;
  double logprob = 0;                 // their sum: comparable to Result::logprob
  double score = 0;                   // normalised as a Result's score under the same options
  int length = 0;                     // |Y| as the normalisation counts it (as Result::length)
  double length_logprob = 0;          // CMLM: log P(length) from the length head; autoregressive: 0
};

// Teacher forcing through `scorer` (fresh: one hypothesis fed nothing, with room
// for target.size() + 1 positions). Target ids must be emittable tokens (no
// special token; the caller names a bad one to the user).
ForcedScore force_autoregressive(StepScorer& scorer, const SpecialIds& specials, const std::vector<int>& target,
                                 const DecodingOptions& options);

// The CMLM draft score described above; `target` holds at least one token and at
// most scorer.max_target_length().
ForcedScore force_parallel(ParallelScorer& scorer, const SpecialIds& specials, const std::vector<int>& target,
                           const DecodingOptions& options);

}  // namespace seq2seq
