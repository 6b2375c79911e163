#include "ar_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "errors.h"

namespace seq2seq {

namespace {

// Ranks candidates best first; ties go to the earlier row, then the smaller
// token id, so that the order is the same on every platform.
bool better(double a_lp, int a_row, int a_tok, double b_lp, int b_row, int b_tok) {
  if (a_lp != b_lp) return a_lp > b_lp;
  if (a_row != b_row) return a_row < b_row;
  return a_tok < b_tok;
}

ModelError nothing_to_emit(int t) {
  return ModelError("no token can be emitted at " + output_position(t) + ": the model gives every allowed token probability 0");
}

}  // namespace

ArSearch::ArSearch(StepScorer& scorer, const SpecialIds& specials, const DecodingOptions& options,
                   std::vector<int> prefix, int max_len)
    : scorer_(scorer), sp_(specials), opt_(options), prefix_(std::move(prefix)), max_len_(max_len),
      beam_(options.strategy == Strategy::Greedy ? 1 : options.beam_size), rng_(options.seed) {
  if (sp_.bos < 0 || sp_.eos < 0) throw UsageError("autoregressive search needs BOS and EOS tokens");
  if (max_len_ < 1) throw UsageError("max length must be at least 1");
  if (max_len_ > scorer_.capacity())
    throw UsageError("max length " + std::to_string(max_len_) + " exceeds the decoder's " + std::to_string(scorer_.capacity()) +
                     " positions");
  if (static_cast<int>(prefix_.size()) >= max_len_)
    throw UsageError("the forced prefix (" + std::to_string(prefix_.size()) + " tokens) leaves no room below max length " +
                     std::to_string(max_len_));
  for (int tok : prefix_)
    if (tok < 0 || tok >= scorer_.vocab_size() || !sp_.is_text(tok))
      throw InputError("the forced prefix holds token id " + std::to_string(tok) + ", which cannot be emitted");
  if (opt_.strategy == Strategy::Nar) throw UsageError("ArSearch cannot run the nar strategy");
  live_.push_back(HypothesisView{});  // the root: only BOS, node id 0
}

double ArSearch::score_of(double logprob, int length) const {
  return normalized_score(logprob, length, opt_.length_norm, opt_.gnmt_alpha);
}

double ArSearch::best_possible(double logprob) const {
  // Log-probabilities only fall as tokens are added, and for a negative sum every
  // normalisation here grows with length: the best a live hypothesis can still
  // reach is its current sum normalised at the longest length allowed.
  return score_of(std::min(logprob, 0.0), max_len_);
}

void ArSearch::allowed_tokens(int t, const float* lp, std::vector<char>& allowed, bool& forced) const {
  const int V = scorer_.vocab_size();
  allowed.assign(static_cast<size_t>(V), 1);
  forced = false;
  auto only = [&](int tok) {
    std::fill(allowed.begin(), allowed.end(), 0);
    allowed[static_cast<size_t>(tok)] = 1;
    forced = true;
  };
  if (t < static_cast<int>(prefix_.size())) return only(prefix_[static_cast<size_t>(t)]);
  if (t + 1 >= max_len_) return only(sp_.eos);  // the last position: end here
  for (int v = 0; v < V; ++v)
    if (!sp_.emittable(v) || !std::isfinite(lp[v])) allowed[static_cast<size_t>(v)] = 0;
  if (t < opt_.min_length) allowed[static_cast<size_t>(sp_.eos)] = 0;
}

std::vector<ArSearch::Candidate> ArSearch::select_beam(const RowMatrix& lp, int t, std::vector<Candidate>& pruned) const {
  const int V = scorer_.vocab_size();
  std::vector<Candidate> pool;
  std::vector<char> allowed;
  std::vector<int> order(static_cast<size_t>(V));
  for (int row = 0; row < static_cast<int>(live_.size()); ++row) {
    const float* p = lp.row(row).data();
    bool forced;
    allowed_tokens(t, p, allowed, forced);
    std::iota(order.begin(), order.end(), 0);
    const auto mid = std::stable_partition(order.begin(), order.end(), [&](int v) { return allowed[static_cast<size_t>(v)] != 0; });
    const auto n_allowed = static_cast<size_t>(mid - order.begin());
    // Greedy looks at the single best token (an END ends it); beam search takes
    // 2k so that hypotheses finishing within the top k do not shrink the beam.
    const size_t want = opt_.strategy == Strategy::Greedy ? 1 : static_cast<size_t>(2 * beam_);
    const size_t take = std::min(n_allowed, want);
    std::partial_sort(order.begin(), order.begin() + static_cast<long>(take), mid, [&](int a, int b) {
      return better(p[a], 0, a, p[b], 0, b);
    });
    for (size_t i = 0; i < take; ++i)
      pool.push_back({row, order[i], live_[static_cast<size_t>(row)].logprob + p[order[i]], forced});
  }
  if (pool.empty()) throw nothing_to_emit(t);
  std::sort(pool.begin(), pool.end(), [](const Candidate& a, const Candidate& b) {
    return better(a.logprob, a.row, a.token, b.logprob, b.row, b.token);
  });
  std::vector<Candidate> chosen;
  int live_taken = 0;
  for (size_t rank = 0; rank < pool.size(); ++rank) {
    const Candidate& c = pool[rank];
    const bool keep = c.token == sp_.eos ? static_cast<int>(rank) < beam_ : live_taken < beam_;
    if (keep) {
      chosen.push_back(c);
      if (c.token != sp_.eos) ++live_taken;
    } else {
      pruned.push_back(c);
    }
  }
  return chosen;
}

std::vector<ArSearch::Candidate> ArSearch::select_sample(const RowMatrix& lp, int t) {
  const int V = scorer_.vocab_size();
  std::vector<Candidate> chosen;
  std::vector<char> allowed;
  drawn_from_.assign(live_.size(), {});
  left_out_.assign(live_.size(), {});
  for (int row = 0; row < static_cast<int>(live_.size()); ++row) {
    const float* p = lp.row(row).data();
    bool forced;
    allowed_tokens(t, p, allowed, forced);
    // What renormalising over the allowed tokens leaves out, for a viewer to name: a
    // token the model gives no probability to changes nothing and is not listed.
    if (!forced)
      for (int v = 0; v < V; ++v)
        if (!allowed[static_cast<size_t>(v)] && std::isfinite(p[v])) left_out_[static_cast<size_t>(row)].push_back(v);
    // The root fans out into n_best independent samples; every later hypothesis draws one token.
    const int draws = live_[static_cast<size_t>(row)].id == 0 ? opt_.n_best : 1;
    // Tempered, truncated distribution over the allowed tokens, best first.
    std::vector<std::pair<double, int>> dist;
    for (int v = 0; v < V; ++v)
      if (allowed[static_cast<size_t>(v)]) dist.emplace_back(static_cast<double>(p[v]) / opt_.temperature, v);
    if (dist.empty()) throw nothing_to_emit(t);
    std::sort(dist.begin(), dist.end(), [](const auto& a, const auto& b) { return better(a.first, 0, a.second, b.first, 0, b.second); });
    if (opt_.top_k > 0 && static_cast<int>(dist.size()) > opt_.top_k) dist.resize(static_cast<size_t>(opt_.top_k));
    const double m = dist.front().first;
    double total = 0;
    for (auto& d : dist) total += (d.first = std::exp(d.first - m));
    size_t keep = dist.size();
    if (opt_.top_p < 1.0f) {  // the smallest head whose mass reaches top_p
      double mass = 0;
      for (keep = 0; keep < dist.size();) {
        mass += dist[keep++].first / total;
        if (mass >= opt_.top_p) break;
      }
    }
    dist.resize(keep);
    total = 0;
    for (const auto& d : dist) total += d.first;
    for (const auto& d : dist) drawn_from_[static_cast<size_t>(row)].emplace_back(d.second, d.first / total);
    for (int k = 0; k < draws; ++k) {
      const double u0 = rng_.uniform();
      double u = u0 * total, below = 0;
      size_t pick = 0;
      while (pick + 1 < dist.size() && u >= dist[pick].first) {
        u -= dist[pick].first;
        below += dist[pick++].first;
      }
      const int tok = dist[pick].second;
      chosen.push_back({row, tok, live_[static_cast<size_t>(row)].logprob + p[tok], forced, u0, below / total});
    }
  }
  return chosen;
}

std::vector<int> ArSearch::next_tokens() const {
  if (done_) throw UsageError("the decode has finished: start a new one");
  std::vector<int> fed;
  for (const auto& h : live_) fed.push_back(h.tokens.empty() ? sp_.bos : h.tokens.back());
  return fed;
}

Snapshot ArSearch::step() {
  const std::vector<int> fed = next_tokens();
  RowMatrix lp;
  CrossAndSelfAttention attn;
  try {
    scorer_.score(fed, lp, opt_.attention ? &attn : nullptr);
  } catch (...) {
    done_ = true;  // the scorer's cache is in no state to go on from: this decode is over
    throw;
  }
  return advance(lp, attn, scorer_.copy_step());
}

Snapshot ArSearch::advance(const RowMatrix& lp, const CrossAndSelfAttention& attn, const CopyStep* copy) {
  if (done_) throw UsageError("the decode has finished: start a new one");
  const int t = static_cast<int>(live_.front().tokens.size());  // index of the token chosen now
  std::vector<Candidate> pruned, chosen;
  try {
    if (lp.rows() != static_cast<long>(live_.size()) || lp.cols() != scorer_.vocab_size())
      throw UsageError("advance: scores of the wrong shape for the live hypotheses");
    for (long row = 0; row < lp.rows(); ++row) require_finite_scores(lp.row(row).data(), lp.cols(), output_position(t));
    chosen = opt_.strategy == Strategy::Sample ? select_sample(lp, t) : select_beam(lp, t, pruned);
  } catch (...) {
    done_ = true;  // the scorer's cache is in no state to go on from: this decode is over
    throw;
  }
  ++steps_;

  // Sampling: a token's probability in the distribution its row was drawn from (0 for
  // one cut off by top-k / top-p); -1 (none) for the other strategies.
  auto drawn_prob = [&](int row, int token) {
    if (opt_.strategy != Strategy::Sample) return -1.0f;
    for (const auto& d : drawn_from_[static_cast<size_t>(row)])
      if (d.first == token) return static_cast<float>(d.second);
    return 0.0f;
  };
  // The top candidates of each row's distribution (what the page draws as bars).
  const int V = scorer_.vocab_size();
  auto candidates_of = [&](int row) {
    std::vector<TokenProb> c;
    const float* p = lp.row(row).data();
    for (int v = 0; v < V; ++v)
      if (sp_.emittable(v)) c.push_back({v, std::exp(p[v])});
    const size_t k = std::min(c.size(), static_cast<size_t>(opt_.top_candidates));
    std::partial_sort(c.begin(), c.begin() + static_cast<long>(k), c.end(), [](const TokenProb& a, const TokenProb& b) {
      return a.prob != b.prob ? a.prob > b.prob : a.token < b.token;
    });
    c.resize(k);
    for (TokenProb& x : c) x.drawn_prob = drawn_prob(row, x.token);
    return c;
  };

  Snapshot snap;
  snap.autoregressive = true;
  snap.step = steps_;
  snap.source_length = scorer_.source_length();
  snap.layers = attn.layers;
  snap.heads = attn.heads;
  if (opt_.attention && steps_ == 1) {  // fixed for the whole decode: sent once
    const HeadMaps enc = scorer_.encoder_attention();
    snap.encoder_layers = enc.layers;
    snap.encoder_heads = enc.heads;
    snap.encoder_attention = flatten(enc);
  }

  std::vector<HypothesisView> next_live;
  std::vector<int> parents;
  for (const Candidate& c : chosen) {
    const HypothesisView& parent = live_[static_cast<size_t>(c.row)];
    HypothesisView h;
    h.id = next_id_++;
    h.parent = parent.id;
    h.tokens = parent.tokens;
    h.tokens.push_back(c.token);
    h.logprob = c.logprob;
    h.score = score_of(c.logprob, static_cast<int>(h.tokens.size()));
    h.forced = c.forced;
    h.token_prob = std::exp(lp(c.row, c.token));
    h.token_drawn_prob = drawn_prob(c.row, c.token);
    if (!c.forced) {  // a forced token was not drawn (its one-token draw still took its uniform)
      h.draw = c.draw;
      h.drawn_below = c.drawn_below;
    }
    if (opt_.strategy == Strategy::Sample)
      for (int v : left_out_[static_cast<size_t>(c.row)]) h.left_out.push_back({v, std::exp(lp(c.row, v)), 0.0f});
    h.candidates = candidates_of(c.row);
    if (copy) {  // the pointer-generator's share of this step (copy.h)
      h.p_gen = copy->p_gen[static_cast<size_t>(c.row)];
      const float* a = copy->attention.row(c.row).data();
      if (opt_.attention) h.copy_attention.assign(a, a + copy->attention.cols());
      if (opt_.top_candidates > 0) {  // the copy distribution: each source token's attention, summed
        for (size_t i = 0; i < copy->ids.size(); ++i) {
          auto it = std::find_if(h.copy_probs.begin(), h.copy_probs.end(), [&](const TokenProb& p) { return p.token == copy->ids[i]; });
          if (it == h.copy_probs.end()) h.copy_probs.push_back({copy->ids[i], a[i]});
          else it->prob += a[i];
        }
        std::stable_sort(h.copy_probs.begin(), h.copy_probs.end(), [](const TokenProb& x, const TokenProb& y) {
          return x.prob != y.prob ? x.prob > y.prob : x.token < y.token;
        });
      }
    }
    if (opt_.attention) {
      // A model without attention (an RNN with attention none) has no maps: the
      // attention stays empty rather than reading as zeros.
      const int S = attn.maps.empty() ? 0 : scorer_.source_length();
      h.attention.assign(static_cast<size_t>(S), 0.0f);
      for (const RowMatrix& m : attn.maps)
        for (int s = 0; s < S; ++s) {
          h.attention_heads.push_back(m(c.row, s));
          h.attention[static_cast<size_t>(s)] += m(c.row, s) / static_cast<float>(attn.maps.size());
        }
      for (const RowMatrix& m : attn.self.maps)
        h.self_attention.insert(h.self_attention.end(), m.row(c.row).data(), m.row(c.row).data() + m.cols());
    }
    if (c.token == sp_.eos) {
      h.finished = true;
      finished_.push_back(std::move(h));
    } else {
      parents.push_back(c.row);
      next_live.push_back(std::move(h));
    }
  }
  for (const Candidate& c : pruned)
    snap.pruned.push_back({live_[static_cast<size_t>(c.row)].id, c.token, c.logprob, score_of(c.logprob, t + 1)});

  live_ = std::move(next_live);
  if (!live_.empty()) scorer_.reorder(parents);

  // Done: nothing live, or (beam) the n-th best finished can no longer be beaten.
  if (live_.empty()) {
    done_ = true;
  } else if (opt_.strategy != Strategy::Sample && static_cast<int>(finished_.size()) >= opt_.n_best) {
    const auto fin = sorted_finished();
    const double nth = fin[static_cast<size_t>(opt_.n_best - 1)].score;
    double best_live = -std::numeric_limits<double>::infinity();
    for (const auto& h : live_) best_live = std::max(best_live, best_possible(h.logprob));
    if (best_live <= nth) done_ = true;
  }
  if (done_) {
    snap.results = results();
    live_.clear();  // whatever is left could not win
  }
  snap.done = done_;
  snap.live = live_;
  snap.finished = sorted_finished();
  return snap;
}

std::vector<HypothesisView> ArSearch::sorted_finished() const {
  std::vector<HypothesisView> f = finished_;
  std::stable_sort(f.begin(), f.end(), [](const HypothesisView& a, const HypothesisView& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.logprob != b.logprob) return a.logprob > b.logprob;
    return a.id < b.id;
  });
  return f;
}

std::vector<Result> ArSearch::results() const {
  std::vector<Result> out;
  for (const auto& h : sorted_finished()) {
    if (static_cast<int>(out.size()) >= opt_.n_best) break;
    Result r;
    r.tokens.assign(h.tokens.begin(), h.tokens.end() - 1);  // drop EOS
    r.logprob = h.logprob;
    r.score = h.score;
    r.length = static_cast<int>(h.tokens.size());
    r.steps = steps_;  // the whole decode's passes: one per output position, all hypotheses at once
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace seq2seq
