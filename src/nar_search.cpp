#include "nar_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "errors.h"

namespace seq2seq {

int NarSearch::masks_at(int n, int t, int T) {
  if (t <= 1) return n;
  return static_cast<int>((static_cast<long long>(n) * (T - t + 1)) / T);
}

NarSearch::NarSearch(ParallelScorer& scorer, const SpecialIds& specials, const DecodingOptions& options, int max_len)
    : scorer_(scorer), sp_(specials), opt_(options) {
  if (sp_.mask < 0) throw UsageError("Mask-Predict needs a MASK token");
  for (int v = 0; v < scorer_.vocab_size(); ++v)
    if (sp_.emittable(v)) emittable_.push_back(v);
  if (emittable_.empty()) throw ModelError("the target vocabulary has no token that may be emitted, only special tokens");
  length_lp_ = scorer_.length_logprobs();
  require_finite_scores(length_lp_.data(), static_cast<long>(length_lp_.size()), "the target lengths");
  const int max_target = scorer_.max_target_length();
  switch (opt_.nar_length) {
    case NarLength::Predicted: {
      std::vector<int> order(static_cast<size_t>(max_target));  // lengths 1..max_target; 0 is no output
      std::iota(order.begin(), order.end(), 1);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return length_lp_[static_cast<size_t>(a)] > length_lp_[static_cast<size_t>(b)];
      });
      order.resize(std::min(order.size(), static_cast<size_t>(opt_.length_candidates)));
      lengths_ = order;
      break;
    }
    case NarLength::Fixed:
      if (max_len < 1) throw UsageError("fixed-length decoding needs max_length >= 1");
      lengths_ = {std::min(max_len, max_target)};
      break;
    case NarLength::Given:
      if (opt_.nar_given_length < 1 || opt_.nar_given_length > max_target)
        throw UsageError("nar_given_length = " + std::to_string(opt_.nar_given_length) + " is outside this model's [1, " +
                         std::to_string(max_target) + "]");
      lengths_ = {opt_.nar_given_length};
      break;
  }
  for (int n : lengths_) {
    NarDraft d;
    d.length = n;
    d.tokens.assign(static_cast<size_t>(n), sp_.mask);
    d.probs.assign(static_cast<size_t>(n), 0.0f);
    d.masked.assign(static_cast<size_t>(n), 1);
    if (opt_.nar_length == NarLength::Predicted) d.length_logprob = length_lp_[static_cast<size_t>(n)];
    drafts_.push_back(std::move(d));
  }
}

void NarSearch::finalize(NarDraft& d) const {
  const auto eos = std::find(d.tokens.begin(), d.tokens.end(), sp_.eos);
  d.output_length = static_cast<int>(eos - d.tokens.begin());
  const int counted = std::min(d.length, d.output_length + (eos != d.tokens.end() ? 1 : 0));
  double sum = 0;
  for (int i = 0; i < counted; ++i) sum += std::log(std::max(d.probs[static_cast<size_t>(i)], 1e-30f));
  d.avg_logprob = counted > 0 ? sum / counted : 0.0;
  // Drafts of different lengths are compared by their tokens' confidence and by how likely
  // the length head finds their length: the decoder, always trained at the true length,
  // is not calibrated across lengths on its own.
  d.score = d.avg_logprob + opt_.length_score_weight * d.length_logprob;
}

Snapshot NarSearch::step() {
  if (done_) throw UsageError("the decode has finished: start a new one");
  ++iteration_;
  const int T = opt_.iterations;
  std::vector<std::vector<int>> before;
  for (auto& d : drafts_) {
    before.push_back(d.tokens);
    std::fill(d.masked.begin(), d.masked.end(), 0);
    const int n_mask = masks_at(d.length, iteration_, T);
    // The n_mask least confident positions (ties: the earlier position).
    std::vector<int> order(static_cast<size_t>(d.length));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return d.probs[static_cast<size_t>(a)] < d.probs[static_cast<size_t>(b)];
    });
    for (int i = 0; i < n_mask; ++i) {
      d.masked[static_cast<size_t>(order[static_cast<size_t>(i)])] = 1;
      d.tokens[static_cast<size_t>(order[static_cast<size_t>(i)])] = sp_.mask;
    }
  }
  std::vector<std::vector<int>> inputs;
  for (const auto& d : drafts_) inputs.push_back(d.tokens);
  std::vector<RowMatrix> lp;
  std::vector<RowMatrix> attn;
  std::vector<HeadMaps> self_attn;
  try {
    scorer_.score(inputs, lp, opt_.attention ? &attn : nullptr, opt_.attention ? &self_attn : nullptr);
    for (size_t r = 0; r < drafts_.size(); ++r)
      for (int i = 0; i < drafts_[r].length; ++i)
        if (drafts_[r].masked[static_cast<size_t>(i)])
          require_finite_scores(lp[r].row(i).data(), lp[r].cols(), output_position(i));
  } catch (...) {
    done_ = true;  // half-predicted drafts are no result: this decode is over
    throw;
  }

  bool changed = false;
  for (size_t r = 0; r < drafts_.size(); ++r) {
    NarDraft& d = drafts_[r];
    for (int i = 0; i < d.length; ++i) {
      if (!d.masked[static_cast<size_t>(i)]) continue;
      int best = emittable_.front();
      for (int v : emittable_)
        if (lp[r](i, v) > lp[r](i, best)) best = v;
      d.tokens[static_cast<size_t>(i)] = best;
      d.probs[static_cast<size_t>(i)] = std::exp(lp[r](i, best));
    }
    if (d.tokens != before[r]) changed = true;
    if (opt_.attention) {
      d.attention.assign(attn[r].data(), attn[r].data() + attn[r].size());
      d.self_attention = r < self_attn.size() ? flatten(self_attn[r]) : std::vector<float>{};
    }
    finalize(d);
  }

  bool last = iteration_ >= T;  // or the schedule would re-mask nothing next time
  if (!last) {
    last = true;
    for (const auto& d : drafts_) last = last && masks_at(d.length, iteration_ + 1, T) == 0;
  }
  done_ = last || (opt_.early_stop && iteration_ > 1 && !changed);

  Snapshot snap;
  snap.autoregressive = false;
  snap.step = iteration_;
  snap.iteration = iteration_;
  snap.iterations = T;
  snap.source_length = scorer_.source_length();
  if (!self_attn.empty()) {
    snap.layers = self_attn.front().layers;
    snap.heads = self_attn.front().heads;
  }
  if (opt_.attention && iteration_ == 1) {  // fixed for the whole decode: sent once
    const HeadMaps enc = scorer_.encoder_attention();
    snap.encoder_layers = enc.layers;
    snap.encoder_heads = enc.heads;
    snap.encoder_attention = flatten(enc);
  }
  snap.length_logprobs = length_lp_;
  snap.lengths = lengths_;
  snap.drafts = drafts_;
  snap.changed = changed || iteration_ == 1;
  snap.best_draft = 0;
  for (size_t r = 1; r < drafts_.size(); ++r)
    if (drafts_[r].score > drafts_[static_cast<size_t>(snap.best_draft)].score) snap.best_draft = static_cast<int>(r);
  snap.done = done_;
  if (done_) snap.results = results();
  return snap;
}

std::vector<Result> NarSearch::results() const {
  std::vector<size_t> order(drafts_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return drafts_[a].score > drafts_[b].score; });
  std::vector<Result> out;
  for (size_t i : order) {
    if (static_cast<int>(out.size()) >= opt_.n_best) break;
    const NarDraft& d = drafts_[i];
    Result r;
    r.tokens.assign(d.tokens.begin(), d.tokens.begin() + d.output_length);
    r.length = std::min(d.length, d.output_length + 1);
    r.score = d.score;
    r.steps = iteration_;  // one decoder pass per iteration, all drafts at once
    for (int k = 0; k < r.length; ++k) r.logprob += std::log(std::max(d.probs[static_cast<size_t>(k)], 1e-30f));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace seq2seq
