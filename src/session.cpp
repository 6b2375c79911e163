#include "session.h"

#include <algorithm>
#include <cmath>

#include "ar_search.h"
#include "errors.h"
#include "forced_score.h"
#include "nar_search.h"
#include "model_access.h"
#include "network.h"

namespace seq2seq {

Session::Session(std::shared_ptr<const Model> model, const DecodingOptions& options) : model_(std::move(model)) {
  if (!model_) throw UsageError("a session needs a model");
  set_options(options);
}

Session::~Session() = default;

void Session::set_options(const DecodingOptions& options) {
  validate(options);
  const bool nar = options.strategy == Strategy::Nar;
  if (nar && model_->config().autoregressive())
    throw UsageError("strategy 'nar' needs a non-autoregressive (cmlm) model; this one is autoregressive");
  if (!nar && !model_->config().autoregressive())
    throw UsageError(std::string("strategy '") + to_string(options.strategy) +
                     "' needs an autoregressive model; this one is non-autoregressive (use 'nar')");
  // A minimum length that no source leaves room for is an error of the options,
  // found here rather than at every start().
  const ModelConfig& c = model_->config();
  if (c.autoregressive() && options.min_length >= std::min(options.max_length, c.max_pos))
    throw UsageError("min_length = " + std::to_string(options.min_length) + " leaves no room below the max length of " +
                     std::to_string(std::min(options.max_length, c.max_pos)));
  opt_ = options;
}

void Session::start(const std::string& source) {
  ar_.reset();
  nar_.reset();
  step_scorer_.reset();
  parallel_scorer_.reset();
  out_vocab_.reset();
  ReadSource src = ModelAccess::read(*model_, source);
  source_ = src.input.ids;
  source_text_ = source;
  max_len_ = max_length_for(source_);
  const ModelConfig& c = model_->config();
  const SpecialIds& sp = c.tgt_specials;
  if (c.autoregressive()) {
    // A copy model's prefix may name a token of the source the target vocabulary lacks.
    const std::vector<int> prefix = parse_target_tokens(opt_.prefix, *src.output_vocab);
    step_scorer_ = ModelAccess::network(*model_).step_scorer(src.input, max_len_);
    ar_ = std::make_unique<ArSearch>(*step_scorer_, sp, opt_, prefix, max_len_);
    out_vocab_ = std::move(src.output_vocab);
  } else {
    parallel_scorer_ = ModelAccess::network(*model_).parallel_scorer(source_);
    nar_ = std::make_unique<NarSearch>(*parallel_scorer_, sp, opt_, max_len_);
  }
}

void Session::check(const std::string& source) const { max_length_for(model_->tokenize(source)); }

int Session::length_cap(const std::vector<int>& source) const {
  const ModelConfig& c = model_->config();
  // Clamp to what the model can hold: max_pos decoder positions (AR), or the
  // length head's range (NAR); then the ratio cap, if any.
  int max_len = std::min(opt_.max_length, c.autoregressive() ? c.max_pos : c.max_target_len);
  if (opt_.max_length_ratio > 0)
    max_len = std::min(max_len, std::max(1, static_cast<int>(std::ceil(opt_.max_length_ratio * source.size()))));
  return max_len;
}

int Session::max_length_for(const std::vector<int>& source) const {
  const ModelConfig& c = model_->config();
  const int max_len = length_cap(source);
  // set_options() made sure the model leaves room: only the ratio cap can take it away, for this source.
  if (opt_.min_length >= max_len && c.autoregressive())
    throw InputError("max_length_ratio allows this source of length " + std::to_string(source.size()) + " at most " +
                     std::to_string(max_len) + " output tokens (EOS included): no room for min_length = " +
                     std::to_string(opt_.min_length));
  return max_len;
}

bool Session::done() const {
  if (ar_) return ar_->done();
  if (nar_) return nar_->done();
  return false;
}

Snapshot Session::step() {
  if (!started()) throw UsageError("step() before start(): give the session a source first");
  Snapshot s = ar_ ? ar_->step() : nar_->step();
  s.source = source_text_;
  fill_text(s.results, output_vocab());
  return s;
}

std::vector<Result> Session::run() {
  if (!started()) throw UsageError("run() before start(): give the session a source first");
  if (done()) throw UsageError("the decode has finished: start a new one");
  // Only the results leave: no attention (an encoder pass more) or candidates to copy.
  if (ar_) ar_->results_only(); else nar_->results_only();
  Snapshot last;
  while (!done()) last = step();
  return last.results;
}

ForcedScore Session::score(const std::string& source, const std::string& target) const {
  const ReadSource read = ModelAccess::read(*model_, source);
  const std::vector<int>& src = read.input.ids;
  const Vocabulary& vocab = *read.output_vocab;
  const ModelConfig& c = model_->config();
  const SpecialIds& sp = c.tgt_specials;
  const std::vector<int> ids = parse_target_tokens(target, vocab);
  for (size_t i = 0; i < ids.size(); ++i)
    if (!sp.is_text(ids[i]))
      throw InputError("target token '" + vocab.token(ids[i]) + "' at position " + std::to_string(i + 1) +
                       " is a special token, which search never emits" +
                       (ids[i] == sp.eos ? " (give the target without EOS: its score counts the end)" : ""));
  const int n = static_cast<int>(ids.size());
  ForcedScore f;
  if (c.autoregressive()) {
    const int max_len = length_cap(src);  // min_length does not enter: it restricts search, not the model
    if (n + 1 > max_len)
      throw InputError("the target has " + std::to_string(n) + " tokens, " + std::to_string(n + 1) +
                       " with EOS: more than the max length of " + std::to_string(max_len) +
                       " output tokens (EOS included) in effect for this source");
    const auto scorer = ModelAccess::network(*model_).step_scorer(read.input, n + 1);
    f = force_autoregressive(*scorer, sp, ids, opt_);
  } else {
    if (n == 0) throw InputError("the target is empty: a CMLM scores targets of at least one token");
    // Any length the length head predicts: search decodes predicted lengths up to it
    // whatever max_length says (max_length is the fixed length's), so a CMLM's own
    // output is never refused here.
    if (n > c.max_target_len)
      throw InputError("the target has " + std::to_string(n) + " tokens: more than the max length of " +
                       std::to_string(c.max_target_len) + " this model's length head predicts");
    const auto scorer = ModelAccess::network(*model_).parallel_scorer(src);
    f = force_parallel(*scorer, sp, ids, opt_);
  }
  f.text = join_tokens(f.tokens, vocab);
  return f;
}

void Session::fill_text(std::vector<Result>& results, const Vocabulary& vocab) const {
  for (auto& r : results) r.text = join_tokens(r.tokens, vocab);
}

}  // namespace seq2seq
