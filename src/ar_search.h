// Autoregressive search over a StepScorer: greedy, beam search and sampling, one
// decoder call per step for all live hypotheses.
//
// Greedy is textbook greedy: the most probable token at every step, ending at the
// first END. Beam search with k = 1 is the same path, except that when END is the
// best token it keeps the runner-up going (the refill rule below) for as long as
// the length normalisation says a longer output could still score better; with no
// normalisation the two always agree.
//
// Beam search, step by step: every live hypothesis is scored in one batched
// call; each proposes its 2k best allowed tokens; the pool is ranked by
// cumulative log-probability; EOS candidates ranked within the top k finish,
// and the first k non-EOS candidates live on (so finishing never shrinks the
// beam); the scorer's cache is gathered by parent. It stops when nothing live
// can still beat the n-th best finished hypothesis under the chosen length
// normalisation, or at max length (where EOS is forced).
#pragma once
#include <vector>

#include "decoding_options.h"
#include "random.h"
#include "scorer.h"
#include "snapshot.h"

namespace seq2seq {

class ArSearch {
 public:
  // `prefix`: forced first tokens; `max_len`: output tokens including EOS.
  ArSearch(StepScorer& scorer, const SpecialIds& specials, const DecodingOptions& options, std::vector<int> prefix,
           int max_len);

  bool done() const { return done_; }
  // From now on snapshots leave out attention and candidates: for a caller that
  // keeps only the results (Session::run), which need neither.
  void results_only() {
    opt_.attention = false;
    opt_.top_candidates = 0;
  }
  // One decoder call; throws UsageError once done.
  Snapshot step();
  // step() in two halves, for a caller that scores several searches' hypotheses
  // in one pass (session_batch.cpp): the tokens to feed the live hypotheses, then
  // the step given their log-probabilities [live x V] (and attention, if asked).
  // A failure in between leaves the search unusable: the caller drops it.
  std::vector<int> next_tokens() const;
  // `copy`: a copy model's mix at this step (scorer.h), for the snapshot; null for none.
  Snapshot advance(const RowMatrix& logprobs, const CrossAndSelfAttention& attention, const CopyStep* copy = nullptr);
  // The n-best finished hypotheses, best first (valid once done).
  std::vector<Result> results() const;

 private:
  struct Candidate {
    int row = 0;           // live hypothesis it extends
    int token = 0;
    double logprob = 0;    // cumulative
    bool forced = false;
    double draw = -1;         // sampling: the uniform u it was drawn with
    double drawn_below = -1;  // sampling: the drawn probability of the tokens before it (its stretch starts there)
  };

  void allowed_tokens(int t, const float* lp, std::vector<char>& allowed, bool& forced) const;
  std::vector<Candidate> select_beam(const RowMatrix& lp, int t, std::vector<Candidate>& pruned) const;
  // Sampling: each row's draw, and (in drawn_from_) the distribution it was drawn from.
  std::vector<Candidate> select_sample(const RowMatrix& lp, int t);
  double score_of(double logprob, int length) const;
  double best_possible(double logprob) const;
  std::vector<HypothesisView> sorted_finished() const;

  StepScorer& scorer_;
  SpecialIds sp_;
  DecodingOptions opt_;
  std::vector<int> prefix_;
  int max_len_;
  int beam_;
  Random rng_;
  std::vector<HypothesisView> live_, finished_;
  // The last step's sampling distribution of each live row: token -> probability after
  // temperature, top-k and top-p (tokens left out have none). Empty unless sampling.
  std::vector<std::vector<std::pair<int, double>>> drawn_from_;
  // And the tokens each row's distribution left out before it was tempered and cut (none at a forced position).
  std::vector<std::vector<int>> left_out_;
  int steps_ = 0, next_id_ = 1;
  bool done_ = false;
};

}  // namespace seq2seq
