// Non-autoregressive decoding over a ParallelScorer: Mask-Predict (Ghazvininejad
// et al. 2019). Step 1 fills every position of every draft in one decoder pass;
// step t = 2..T re-masks the floor(N·(T−t+1)/T) least confident tokens of each
// draft and predicts them again, all drafts in one pass. Drafts come from the
// length head's best lengths (a length beam, won by average log-probability plus
// an optional weight times the length's log-probability),
// from a fixed maximum length whose output is cut at the first EOS, or from a
// length the user gives.
#pragma once
#include <vector>

#include "decoding_options.h"
#include "scorer.h"
#include "snapshot.h"

namespace seq2seq {

class NarSearch {
 public:
  // `max_len`: the fixed length (NarLength::Fixed), already clamped by the caller.
  NarSearch(ParallelScorer& scorer, const SpecialIds& specials, const DecodingOptions& options, int max_len);

  bool done() const { return done_; }
  // From now on snapshots leave out attention and candidates: for a caller that
  // keeps only the results (Session::run), which need neither.
  void results_only() {
    opt_.attention = false;
    opt_.top_candidates = 0;
  }
  Snapshot step();  // throws UsageError once done
  std::vector<Result> results() const;
  const std::vector<float>& length_logprobs() const { return length_lp_; }
  const std::vector<int>& lengths() const { return lengths_; }

  // How many positions iteration t (1-based) of T re-masks in a draft of n.
  static int masks_at(int n, int t, int T);

 private:
  void finalize(NarDraft& d) const;

  ParallelScorer& scorer_;
  SpecialIds sp_;
  DecodingOptions opt_;
  std::vector<int> emittable_;  // every token but pad, unk, bos and mask
  std::vector<float> length_lp_;
  std::vector<int> lengths_;
  std::vector<NarDraft> drafts_;
  int iteration_ = 0;
  bool done_ = false;
};

}  // namespace seq2seq
