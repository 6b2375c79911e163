#include "snapshot_json.h"

namespace seq2seq {

namespace {

nlohmann::json hyp_json(const HypothesisView& h, const Vocabulary& v) {
  nlohmann::json cands = nlohmann::json::array();
  for (const auto& c : h.candidates) cands.push_back({{"token", v.token(c.token)}, {"id", c.token}, {"prob", c.prob}});
  nlohmann::json j = {{"id", h.id},           {"parent", h.parent},     {"tokens", h.tokens},
                      {"text", join_tokens(h.tokens, v)}, {"logprob", h.logprob}, {"score", h.score},
                      {"finished", h.finished}, {"forced", h.forced},   {"token_prob", h.token_prob},
                      {"candidates", cands}};
  if (!h.attention.empty()) j["attention"] = h.attention;
  if (!h.self_attention.empty()) j["self_attention"] = h.self_attention;
  return j;
}

}  // namespace

nlohmann::json to_json(const Result& r) {
  return {{"text", r.text}, {"tokens", r.tokens}, {"logprob", r.logprob}, {"score", r.score}, {"length", r.length}};
}

nlohmann::json to_json(const Snapshot& s, const Vocabulary& v) {
  nlohmann::json j = {{"step", s.step}, {"autoregressive", s.autoregressive}, {"done", s.done},
                      {"source_length", s.source_length}};
  if (s.layers > 0) {  // the shape of the per-head attention below
    j["layers"] = s.layers;
    j["heads"] = s.heads;
  }
  if (!s.encoder_attention.empty()) {
    j["encoder_layers"] = s.encoder_layers;
    j["encoder_heads"] = s.encoder_heads;
    j["encoder_attention"] = s.encoder_attention;
  }
  if (s.autoregressive) {
    j["live"] = nlohmann::json::array();
    for (const auto& h : s.live) j["live"].push_back(hyp_json(h, v));
    j["finished"] = nlohmann::json::array();
    for (const auto& h : s.finished) j["finished"].push_back(hyp_json(h, v));
    j["pruned"] = nlohmann::json::array();
    for (const auto& p : s.pruned)
      j["pruned"].push_back({{"parent", p.parent}, {"token", v.token(p.token)}, {"logprob", p.logprob}, {"score", p.score}});
  } else {
    j["iteration"] = s.iteration;
    j["iterations"] = s.iterations;
    j["length_logprobs"] = s.length_logprobs;
    j["lengths"] = s.lengths;
    j["best_draft"] = s.best_draft;
    j["changed"] = s.changed;
    j["drafts"] = nlohmann::json::array();
    for (const auto& d : s.drafts) {
      std::vector<std::string> toks;
      for (int t : d.tokens) toks.push_back(v.token(t));
      std::vector<int> masked(d.masked.begin(), d.masked.end());
      nlohmann::json dj = {{"length", d.length}, {"tokens", toks}, {"probs", d.probs}, {"masked", masked},
                           {"output_length", d.output_length}, {"avg_logprob", d.avg_logprob},
                           {"length_logprob", d.length_logprob}, {"score", d.score}};
      if (!d.self_attention.empty()) dj["self_attention"] = d.self_attention;
      j["drafts"].push_back(std::move(dj));
    }
  }
  if (s.done) {
    j["results"] = nlohmann::json::array();
    for (const auto& r : s.results) j["results"].push_back(to_json(r));
  }
  return j;
}

}  // namespace seq2seq
