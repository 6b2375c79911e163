// A decoding session: one model (shared, immutable), one set of options, and all
// the mutable state of decoding one source at a time.
//
//   Session s(model, options);
//   s.start("PHONEME");
//   while (!s.done()) draw(s.step());   // or: auto nbest = s.run();
#pragma once
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "decoding_options.h"
#include "model.h"
#include "snapshot.h"

namespace seq2seq {

// The search and its scorer, declared only (ar_search.h, nar_search.h, scorer.h):
// a public header, this one keeps the engine's internals (and Eigen) out of view.
class ArSearch;
class NarSearch;
class StepScorer;
class ParallelScorer;

// One source's outcome in Session::run_batch: its n-best, or what decoding it threw.
struct BatchResult {
  std::vector<Result> results;  // best first; empty when error is set
  std::exception_ptr error;     // an InputError or ModelError for this source; null if none
};

class Session {
 public:
  // Throws UsageError if the options are out of range or do not fit the model
  // (nar needs a cmlm model; greedy, beam and sample an autoregressive one).
  Session(std::shared_ptr<const Model> model, const DecodingOptions& options);
  ~Session();

  const DecodingOptions& options() const { return opt_; }
  void set_options(const DecodingOptions& options);  // takes effect at the next start()

  // Tokenizes and encodes the source; throws InputError for bad text.
  void start(const std::string& source);
  // Throws the InputError start(source) would, without encoding anything: a
  // cheap pass over a list of sources before decoding any of them.
  void check(const std::string& source) const;
  bool started() const { return ar_ || nar_; }
  bool done() const;
  // One decoder pass; throws UsageError before start() or after the end.
  Snapshot step();
  // Steps to the end and returns the n-best, best first.
  std::vector<Result> run();
  // start(source) + run() for every source, in order, with the words stepped
  // together: up to `window` sources are in flight at once, and each decoder
  // pass scores the live hypotheses of all of them (an autoregressive
  // Transformer: one matrix product per layer over all their rows; the sources
  // encoded together too). The results are those of decoding each alone. A
  // source that fails gets its error and the others go on; the decode in
  // progress, if any, is left as it was. `window` 0: as many sources as give
  // about kBatchRows hypotheses (beam_size each for beam search, else one);
  // more rows than that measured no faster (docs/performance.md).
  std::vector<BatchResult> run_batch(const std::vector<std::string>& sources, int window = 0) const;
  static constexpr int kBatchRows = 32;
  // The max output length in effect for the current source.
  int max_length() const { return max_len_; }
  const std::vector<int>& source_ids() const { return source_; }
  // The vocabulary the current source's snapshots and results are written in
  // (Model::output_vocab): a copy model's holds the source's copy-only tokens after
  // the target vocabulary. Before start(), the target vocabulary.
  const Vocabulary& output_vocab() const { return out_vocab_ ? *out_vocab_ : model_->target_vocab(); }

  // The forced score of `target` (space-separated target tokens, 'F OW N IY M'; a copy
  // model's may hold tokens of the source the target vocabulary lacks, Model::output_vocab)
  // for `source` under this session's options (snapshot.h, ForcedScore): comparable to
  // the logprob and score of the results run() returns. The current decode, if
  // any, is left as it was. Throws InputError for bad source text, an unknown
  // target token (named), a special token in the target, a target beyond the max
  // length in effect for this source (max_length() after start(source): EOS
  // included for autoregressive models; a CMLM's is its length head's range), and
  // an empty target for a CMLM. The options' prefix and min_length, which only
  // restrict what search may produce, do not enter.
  ForcedScore score(const std::string& source, const std::string& target) const;

 private:
  void fill_text(std::vector<Result>& results, const Vocabulary& vocab) const;
  // The max output length for this source under the options; throws InputError if it leaves no room.
  int max_length_for(const std::vector<int>& source) const;
  // The same length, unchecked against min_length.
  int length_cap(const std::vector<int>& source) const;

  std::shared_ptr<const Model> model_;
  DecodingOptions opt_;
  std::vector<int> source_;
  std::shared_ptr<const Vocabulary> out_vocab_;  // the current source's output vocabulary
  std::string source_text_;  // the source as start() was given it: each snapshot names it
  int max_len_ = 0;
  std::unique_ptr<StepScorer> step_scorer_;
  std::unique_ptr<ParallelScorer> parallel_scorer_;
  std::unique_ptr<ArSearch> ar_;
  std::unique_ptr<NarSearch> nar_;
};

#ifndef __EMSCRIPTEN__
// Session::run_batch over several threads: thread t decodes with sessions[t] (one
// session per thread, all of one model and one set of options), taking the next
// chunk of `sources` as it finishes the last, so that a slow chunk holds up only
// its own thread. The results are those of sessions[0]->run_batch(sources), in the
// same order, each source's error its own. One session: no thread is started.
// (The wasm build has no threads: the npm package's decoder pool runs workers.)
std::vector<BatchResult> run_batch_threads(const std::vector<std::unique_ptr<Session>>& sessions, const std::vector<std::string>& sources);
#endif

}  // namespace seq2seq
