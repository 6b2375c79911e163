// Forced scoring and the trace writer, on the fixture models of fuzz_decode
// (fuzz_options.h). From one input:
//  - fuzzed targets (token ids, special and unknown tokens, raw bytes, empty,
//    whitespace, over-long) scored under fuzzed options: a score is refused with
//    a seq2seq::Error or its numbers hold together (forced_score.cpp);
//  - a fuzzed source decoded step by step under fuzzed options, every snapshot
//    written as the --trace line (to_json, then dump) and parsed back equal;
//    every result then force-scored: the score must accept it, and its logprob
//    and score must be the decode's (snapshot.h, ForcedScore: exactly, for an
//    autoregressive model; within a float rounding for a one-iteration CMLM draft);
//  - now and then, targets scored between the steps of that decode, which must
//    end as a decode of the same source by a fresh session does.
// Any other exception, or a failed check, is a finding.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_options.h"
#include "snapshot_json.h"

namespace {

using namespace seq2seq;
using seq2seq_fuzz::fail;

// A target to score, and the ids it was written from when it holds only
// vocabulary tokens between whitespace (then the score, if any, must hold them).
struct Target {
  std::string text;
  std::vector<int> ids;
  bool known = true;
};

Target fuzzed_target(FuzzedDataProvider& in, const Model& model) {
  const Vocabulary& vocab = model.target_vocab();
  const SpecialIds& sp = model.config().tgt_specials;
  std::vector<int> text_ids;
  for (int id = 0; id < vocab.size(); ++id)
    if (sp.is_text(id)) text_ids.push_back(id);
  const int cap = model.config().autoregressive() ? model.config().max_pos : model.config().max_target_len;
  Target t;
  int n = 0;
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:  // raw bytes
      t.text = in.ConsumeRandomLengthString(64);
      t.known = false;
      return t;
    case 1:  // nothing, or whitespace only
      t.text = in.PickValueInArray({"", " ", "\t", "\n", " \t\r\n ", "\v\f"});
      return t;
    case 2:  // at and just past the longest target the model holds, or far past it
      n = in.ConsumeBool() ? cap - 2 + in.ConsumeIntegralInRange(0, 4) : in.ConsumeIntegralInRange(cap, 4 * cap) + 1000;
      break;
    default:
      n = in.ConsumeIntegralInRange(0, 12);
  }
  const char* sep = in.PickValueInArray({" ", " ", " ", "  ", "\t", "\n", " \r\n"});
  for (int i = 0; i < n; ++i) {
    if (i) t.text += sep;
    switch (in.ConsumeIntegralInRange(0, 15)) {
      case 0:  // any id: specials too
        t.ids.push_back(in.ConsumeIntegralInRange(0, vocab.size() - 1));
        t.text += vocab.token(t.ids.back());
        break;
      case 1:  // not a token, or one glued to bytes
        t.text += in.ConsumeRandomLengthString(6);
        t.known = false;
        break;
      default:
        t.ids.push_back(text_ids[in.ConsumeIntegralInRange<size_t>(0, text_ids.size() - 1)]);
        t.text += vocab.token(t.ids.back());
    }
  }
  if (in.ConsumeIntegralInRange(0, 7) == 0) t.text = sep + t.text + sep;
  return t;
}

// What the JSON writer writes must read back as the same document (a NaN or an
// infinity would come back as null).
nlohmann::json round_trip(const nlohmann::json& j) {
  const nlohmann::json back = nlohmann::json::parse(j.dump());
  if (back != j) fail("a JSON line does not parse back to what was written");
  return back;
}

bool holds(const nlohmann::json& j, const char* key, size_t n) { return j.contains(key) && j[key].is_array() && j[key].size() == n; }

// A forced score's numbers, as forced_score.cpp computes them from its token log-probabilities.
void check_forced(const ForcedScore& f, const Model& model, const DecodingOptions& o, const Target* target) {
  const ModelConfig& c = model.config();
  const bool ar = c.autoregressive();
  const size_t n = f.tokens.size();
  if (target && target->known && f.tokens != target->ids) fail("a score holds other tokens than its target");
  for (int id : f.tokens)
    if (id < 0 || id >= model.target_vocab().size() || !c.tgt_specials.is_text(id)) fail("a score holds a token search never emits");
  if (f.text != join_tokens(f.tokens, model.target_vocab())) fail("a score's text is not its tokens");
  if (f.token_logprobs.size() != (ar ? n + 1 : n)) fail("a score has the wrong number of token log-probabilities");
  if (f.length != static_cast<int>(ar ? n + 1 : n) || f.length > (ar ? c.max_pos : c.max_target_len))
    fail("a score's length is not its target's, or past the model's");
  double sum = 0;
  for (float v : f.token_logprobs) {
    if (!std::isfinite(v) || v > 0) fail("a token log-probability is not a finite log-probability");
    sum += v;  // in order, in double, as forced_score.cpp sums
  }
  if (sum != f.logprob) fail("a score's logprob is not the sum of its token log-probabilities");
  double score;
  if (ar) {
    if (f.length_logprob != 0) fail("an autoregressive score has a length log-probability");
    score = normalized_score(f.logprob, f.length, o.length_norm, o.gnmt_alpha);
  } else {
    if (!std::isfinite(f.length_logprob) || f.length_logprob > 0) fail("a CMLM score's length log-probability is not one");
    score = f.logprob / static_cast<double>(n) + (o.nar_length == NarLength::Predicted ? o.length_score_weight * f.length_logprob : 0.0);
  }
  if (!(score == f.score)) fail("a score's score is not its normalised logprob");
  const nlohmann::json back = round_trip(to_json(f, model.target_vocab(), ar));
  if (!holds(back, "tokenLogprobs", f.token_logprobs.size()) || !holds(back, "tokens", n)) fail("a score's JSON lost values");
}

void score_checked(const Session& session, const Model& model, const std::string& source, const Target& target) {
  ForcedScore f;
  try {
    f = session.score(source, target.text);
  } catch (const Error&) {
    return;
  }
  check_forced(f, model, session.options(), &target);
}

// The --trace line of a snapshot, as the CLI writes it, read back.
void check_trace(const Snapshot& s, const Model& model, const std::string& source) {
  nlohmann::json j = to_json(s, model.target_vocab());
  j["source"] = source;
  const nlohmann::json back = round_trip(j);
  if (back.value("step", -1) != s.step) fail("a trace line has another step");
  const bool counts = s.autoregressive ? holds(back, "live", s.live.size()) && holds(back, "finished", s.finished.size()) &&
                                             holds(back, "pruned", s.pruned.size())
                                       : holds(back, "drafts", s.drafts.size()) && holds(back, "lengths", s.lengths.size());
  if (!counts) fail("a trace line holds another number of hypotheses or drafts");
  if (s.done != holds(back, "results", s.results.size())) fail("a trace line holds another number of results");
}

// Re-scoring a decode's result: the score must accept it, and where it is the
// same quantity, agree with it.
void rescore(const Session& session, const Model& model, const std::string& source, const Result& r) {
  const bool ar = model.config().autoregressive();
  // A CMLM scores no empty target (a draft that is all EOS); every other result is a target the score must take.
  if (!ar && r.tokens.empty()) return;
  ForcedScore f;
  try {
    f = session.score(source, r.text);
  } catch (const Error& e) {
    std::fprintf(stderr, "score refused '%s': %s\n", r.text.c_str(), e.what());
    fail("the score refuses a decode's own result");
  }
  check_forced(f, model, session.options(), nullptr);
  if (f.tokens != r.tokens || f.text != r.text) fail("a result's score holds other tokens");
  if (ar) {
    // The log-probabilities are summed in the same order in double (ar_search.cpp,
    // forced_score.cpp), and the Transformer's kernels compute each hypothesis's
    // row alone, in the same order however many share a call: equal to the bit.
    // The RNN's attention takes Eigen products over all rows at once (rnn.cpp:
    // scores, context), which sum in another order for several rows than for
    // one: once search holds more than one hypothesis, each token's
    // log-probability may differ by a few float roundings, carried on to later
    // tokens by the recurrent state. Allowed: 2^-18 (1 + |log p|) per token, 64
    // roundings (2^-24) of a log-probability near 1. normalized_score is linear
    // in logprob at a given length.
    const DecodingOptions& o = session.options();
    const bool rows = o.strategy == Strategy::Beam ? o.beam_size > 1 : o.strategy == Strategy::Sample && o.n_best > 1;
    const double tol = model.config().arch == Arch::Rnn && rows ? std::ldexp(r.length + std::abs(r.logprob), -18) : 0.0;
    const double score_tol = r.logprob != 0 ? tol * std::abs(r.score / r.logprob) : tol;
    if (f.length != r.length || !(std::abs(f.logprob - r.logprob) <= tol) || !(std::abs(f.score - r.score) <= score_tol)) {
      std::fprintf(stderr, "'%s': decode %.17g %.17g length %d, forced %.17g %.17g length %d, tolerance %g\n", r.text.c_str(),
                   r.logprob, r.score, r.length, f.logprob, f.score, f.length, tol);
      fail("an autoregressive result's forced score is not its logprob and score");
    }
    return;
  }
  // CMLM: the same quantity only for a draft of one iteration at the target's
  // length (no EOS inside). The draft keeps each token's probability as
  // expf(lp) and takes logf of it again: per token an error of about an ulp of
  // the probability and one of |lp| in float, bounded by 2^-21 (1 + |lp|).
  if (r.steps != 1 || r.length != static_cast<int>(r.tokens.size())) return;
  const double n = static_cast<double>(r.tokens.size());
  const double tol = std::ldexp(n + std::abs(f.logprob), -21);
  if (f.length != r.length || !(std::abs(f.logprob - r.logprob) <= tol) || !(std::abs(f.score - r.score) <= tol / n)) {
    std::fprintf(stderr, "'%s': draft %.17g %.17g, forced %.17g %.17g, tolerance %g\n", r.text.c_str(), r.logprob, r.score,
                 f.logprob, f.score, tol);
    fail("a one-iteration CMLM draft's forced score is not its logprob and score");
  }
}

bool same_results(const std::vector<Result>& a, const std::vector<Result>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].tokens != b[i].tokens || a[i].logprob != b[i].logprob || a[i].score != b[i].score || a[i].length != b[i].length)
      return false;
  return true;
}

// Each trace line holds every hypothesis finished so far with its candidates, so
// a trace grows as hypotheses x steps^2: on top of cap_work, wide searches get
// short decodes, which keeps an input well under the fuzzer's 2 s under ASan.
void cap_trace(DecodingOptions& o) {
  constexpr int kBudget = 128;  // hypotheses x output positions
  const int width = std::max(o.beam_size, o.n_best);
  if (width > 0 && o.max_length > 0 && width * o.max_length > kBudget) o.max_length = std::max(4, kBudget / width);
}

// The session the options make; if they are refused, one with the options the
// score reads (length normalisation and caps, the CMLM's length) and the rest
// defaults; if those are refused too, the defaults.
std::unique_ptr<Session> session_for(const std::shared_ptr<const Model>& model, const DecodingOptions& o) {
  try {
    return std::make_unique<Session>(model, o);
  } catch (const Error&) {
  }
  DecodingOptions d;
  d.strategy = model->config().autoregressive() ? Strategy::Greedy : Strategy::Nar;
  DecodingOptions s = d;
  s.length_norm = o.length_norm;
  s.gnmt_alpha = o.gnmt_alpha;
  s.max_length = o.max_length;
  s.max_length_ratio = o.max_length_ratio;
  s.nar_length = o.nar_length;
  s.nar_given_length = o.nar_given_length;
  s.length_score_weight = o.length_score_weight;
  try {
    return std::make_unique<Session>(model, s);
  } catch (const Error&) {
  }
  return std::make_unique<Session>(model, d);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace seq2seq_fuzz;
  FuzzedDataProvider in(bytes, size);
  const auto& model = models()[in.ConsumeIntegralInRange<size_t>(0, models().size() - 1)];
  DecodingOptions options = fuzzed_options(in, *model);
  cap_work(options);
  cap_trace(options);
  const bool raw = in.ConsumeIntegralInRange(0, 3) == 0;
  const bool decode = in.ConsumeIntegralInRange(0, 3) != 0;
  const bool between_steps = in.ConsumeIntegralInRange(0, 3) == 0;
  std::string source = in.ConsumeRandomLengthString(48);
  if (!raw) source = mostly_valid_source(source, model->source_vocab());
  std::vector<Target> targets(in.ConsumeIntegralInRange(0, 3));
  for (Target& t : targets) t = fuzzed_target(in, *model);
  if (std::getenv("SEQ2SEQ_FUZZ_VERBOSE")) {  // to read a finding: what was scored and decoded, and how
    print_options(options);
    std::fprintf(stderr, "model %s source '%s' decode %d between steps %d\n", model->config().name.c_str(), source.c_str(),
                 decode, between_steps);
    for (const Target& t : targets) std::fprintf(stderr, "target '%s'\n", t.text.c_str());
  }
  const std::unique_ptr<Session> session = session_for(model, options);
  for (const Target& t : targets) score_checked(*session, *model, source, t);
  if (!decode) return 0;

  size_t next_target = 0;
  Snapshot last;
  try {
    last = decode_checked(*model, *session, source, [&](const Snapshot& s) {
      check_trace(s, *model, source);
      if (between_steps && !targets.empty()) score_checked(*session, *model, source, targets[next_target++ % targets.size()]);
    });
  } catch (const Error&) {
    return 0;
  }
  for (const Result& r : last.results) rescore(*session, *model, source, r);
  if (between_steps) {
    // Scoring leaves a decode as it was: the same results as a fresh session's run().
    Session fresh(model, session->options());
    fresh.start(source);
    if (!same_results(fresh.run(), last.results)) fail("scores between steps changed the decode");
  }
  return 0;
}
