// Forced scores (src/forced_score.h, ForcedScore in src/snapshot.h): a search's own output scores exactly its
// result's logprob and score; per-token log-probabilities match PyTorch's teacher
// forcing (tests/tools/make_fixtures.py, "forced"); the shipped g2p-transformer makes
// a real search error and a real model error on CMUdict test words; bad targets
// are refused with a message.
#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

const std::string kShipped = std::string(SEQ2SEQ_MODEL_DIR) + "/g2p-transformer.safetensors";
const std::vector<std::string> kArFixtures = {"ar_post_sin_tied_relu", "ar_pre_learned_untied_gelu",
                                              "ar_post_learned_tied_gelu_noscale", "ar_pre_sin_tied_relu_f16",
                                              "ar_pre_sin_tied_relu_i8", "rnn_dot", "rnn_multiplicative",
                                              "rnn_reduced_rank", "rnn_additive"};
const std::vector<std::string> kCmlmFixtures = {"cmlm_pre_sin_tied_relu", "cmlm_post_learned_untied_gelu",
                                                "cmlm_pre_sin_tied_relu_offset"};
const std::vector<std::string> kFixtureWords = {"ABC", "FACADE", "BAGGED", "DEAF", "CAGE", "GA-GA", "E.", "B'D", "DECADE", "FEED"};
const std::vector<std::string> kG2pWords = {"PHONEME", "RECORD", "COLONEL", "XYLOPHONE", "O'BRIEN", "ARCHRIVAL", "ABID", "GLORPTASTIC"};

// Search sums float log-probabilities in double, as the forced score does; batched
// and single-hypothesis decoder calls may differ in the last bits of a float.
constexpr double kTol = 1e-5;

DecodingOptions options(Strategy s, LengthNorm norm = LengthNorm::Average, int beam = 5, int n_best = 1) {
  DecodingOptions o;
  o.strategy = s;
  o.length_norm = norm;
  o.beam_size = beam;
  o.n_best = n_best;
  o.attention = false;
  return o;
}

// Every result of decoding `words` under `o`, checked against its own forced score.
int check_results_score_as_forced(const std::shared_ptr<const Model>& model, const DecodingOptions& o,
                                  const std::vector<std::string>& words) {
  Session s(model, o);
  int checked = 0;
  for (const auto& w : words) {
    s.start(w);
    for (const Result& r : s.run()) {
      INFO("word " << w << " output '" << r.text << "'");
      const ForcedScore f = s.score(w, r.text);
      CHECK(f.tokens == r.tokens);
      CHECK(f.text == r.text);
      CHECK(f.length == r.length);
      CHECK(f.token_logprobs.size() == r.tokens.size() + 1);
      CHECK(f.logprob == Approx(r.logprob).margin(kTol));
      CHECK(f.score == Approx(r.score).margin(kTol));
      double sum = 0;
      for (float v : f.token_logprobs) sum += v;
      CHECK(sum == Approx(f.logprob).margin(1e-9));
      ++checked;
    }
  }
  return checked;
}

void check_ar_model(const std::shared_ptr<const Model>& model, const std::vector<std::string>& words) {
  int checked = 0;
  checked += check_results_score_as_forced(model, options(Strategy::Greedy), words);
  for (LengthNorm norm : {LengthNorm::None, LengthNorm::Average, LengthNorm::Gnmt})
    checked += check_results_score_as_forced(model, options(Strategy::Beam, norm, 5, 3), words);
  CHECK(checked >= static_cast<int>(words.size()) * 4);
}

// Fixture sources are ids of one-character tokens: the text they were made from.
std::string source_text(const Model& m, const nlohmann::json& ids) {
  std::string s;
  for (int id : ids.get<std::vector<int>>()) s += m.source_vocab().token(id);
  return s;
}
std::string target_text(const Model& m, const nlohmann::json& ids) { return join_tokens(ids.get<std::vector<int>>(), m.target_vocab()); }

// The largest difference between the per-token log-probabilities and PyTorch's.
double max_diff(const std::vector<float>& ours, const nlohmann::json& ref) {
  REQUIRE(ours.size() == ref.size());
  double worst = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    const double d = std::abs(static_cast<double>(ours[i]) - ref[i].get<double>());
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

}  // namespace

TEST_CASE("forced score of a search's own output is its result's logprob and score", "[forced]") {
  for (Compute compute : {Compute::F32, Compute::Auto}) {
    for (const auto& name : kArFixtures)
      SECTION(name + " " + to_string(compute)) check_ar_model(Model::from_file(fixture_path(name + ".safetensors"), compute), kFixtureWords);
    SECTION(std::string("ensemble ") + to_string(compute)) {
      const auto a = Model::from_file(fixture_path("ar_pre_learned_untied_gelu.safetensors"), compute);
      const auto b = Model::from_file(fixture_path("rnn_additive.safetensors"), compute);
      check_ar_model(Model::ensemble({a, b}), kFixtureWords);
    }
    SECTION(std::string("g2p-transformer ") + to_string(compute)) check_ar_model(Model::from_file(kShipped, compute), kG2pWords);
  }
}

TEST_CASE("forced per-token log-probabilities match PyTorch's teacher forcing", "[forced][parity]") {
  for (const auto& name : fixture_names()) {
    for (Compute compute : {Compute::F32, Compute::Auto}) {
      SECTION(name + " " + to_string(compute)) {
        const auto fx = load_json(fixture_path(name + ".json"));
        const auto model = Model::from_file(fixture_path(name + ".safetensors"), compute);
        // The int8 kernels' activation rounding, as in test_transformer_parity.cpp.
        const double tol = model->compute() == "int8" ? kInt8ComputeTol : fx["tolerance"].get<double>();
        const bool ar = model->config().autoregressive();
        DecodingOptions o = options(ar ? Strategy::Greedy : Strategy::Nar, LengthNorm::None);
        o.length_score_weight = 0.5f;
        const Session s(model, o);
        const auto& forced = fx["forced"];
        for (size_t b = 0; b < forced["targets"].size(); ++b) {
          INFO("example " << b);
          const ForcedScore f = s.score(source_text(*model, fx["sources"][b]), target_text(*model, forced["targets"][b]));
          const auto& ref = forced["token_logprobs"][b];
          CHECK(max_diff(f.token_logprobs, ref) <= tol);
          double ref_sum = 0;
          for (const auto& v : ref) ref_sum += v.get<double>();
          CHECK(f.logprob == Approx(ref_sum).margin(tol * static_cast<double>(ref.size())));
          if (ar) {
            CHECK(f.length == static_cast<int>(ref.size()));
            CHECK(f.score == f.logprob);  // no normalisation
            CHECK(f.length_logprob == 0);
          } else {
            const double n = static_cast<double>(ref.size());
            CHECK(f.length == static_cast<int>(n));
            const double len_ref = forced["length_logprobs"][b].get<double>();
            // A length an offset head cannot reach sits near -1e4, where float resolves ~1e-3.
            CHECK(f.length_logprob == Approx(len_ref).margin(len_ref < -1000 ? 1e-2 : tol));
            CHECK(f.score == Approx(f.logprob / n + 0.5 * f.length_logprob).margin(1e-9));
          }
        }
      }
    }
  }
}

TEST_CASE("CMLM: the forced score is the score of a one-iteration draft at the target's length", "[forced][nar]") {
  for (const auto& name : kCmlmFixtures) {
    SECTION(name) {
      const auto model = Model::from_file(fixture_path(name + ".safetensors"));
      int checked = 0;
      for (NarLength len : {NarLength::Predicted, NarLength::Given}) {
        for (int given : {3, 5, 8}) {
          DecodingOptions o = options(Strategy::Nar);
          o.iterations = 1;
          o.nar_length = len;
          o.nar_given_length = given;
          o.length_candidates = 3;
          o.n_best = 3;
          o.length_score_weight = 0.7f;
          Session s(model, o);
          for (const auto& w : kFixtureWords) {
            s.start(w);
            for (const Result& r : s.run()) {
              if (r.tokens.empty() || r.length != static_cast<int>(r.tokens.size())) continue;  // cut at an EOS: another length
              INFO(name << " word " << w << " output '" << r.text << "'");
              const ForcedScore f = s.score(w, r.text);
              CHECK(f.length == r.length);
              CHECK(f.token_logprobs.size() == r.tokens.size());
              // The draft keeps each token's probability and takes its log again: float rounding.
              CHECK(f.logprob == Approx(r.logprob).margin(1e-5));
              CHECK(f.score == Approx(r.score).margin(1e-5));
              ++checked;
            }
          }
          if (len == NarLength::Predicted) break;  // given length only varies with `given`
        }
      }
      CHECK(checked >= 10);
    }
  }
}

// Mask-Predict decodes the lengths its length head predicts whatever max_length
// (the fixed length's) and max_length_ratio say: the score takes each such output.
TEST_CASE("CMLM: an output longer than max_length scores as its one-iteration draft", "[forced][nar]") {
  const auto model = Model::from_file(fixture_path("cmlm_pre_sin_tied_relu.safetensors"));
  DecodingOptions o = options(Strategy::Nar);
  o.iterations = 1;
  o.max_length = 2;
  o.max_length_ratio = 0.2f;
  o.length_candidates = 3;
  o.n_best = 3;
  Session s(model, o);
  int checked = 0;
  for (const auto& w : kFixtureWords) {
    s.start(w);
    for (const Result& r : s.run()) {
      if (r.tokens.size() <= 2 || r.length != static_cast<int>(r.tokens.size())) continue;  // cut at an EOS: another length
      INFO("word " << w << " output '" << r.text << "'");
      const ForcedScore f = s.score(w, r.text);
      CHECK(f.tokens == r.tokens);
      CHECK(f.logprob == Approx(r.logprob).margin(1e-5));
      CHECK(f.score == Approx(r.score).margin(1e-5));
      ++checked;
    }
  }
  CHECK(checked >= 5);
}

// On the shipped model with greedy search (CMUdict test split, models/data/cmudict-0.7b.test):
// ARCHRIVAL and MIRAGE are search errors: greedy commits to a likelier phoneme
// and the reference (which beam search with 5 hypotheses finds) scores higher; ABID
// and ABSOLUT are model errors: the model prefers its wrong output to the reference.
TEST_CASE("g2p-transformer: a real search error and a real model error under greedy search", "[forced][models]") {
  struct Case {
    const char* word;
    const char* reference;
    bool search_error;
  };
  const std::vector<Case> cases = {{"ARCHRIVAL", "AA R CH R AY V AH L", true},
                                   {"MIRAGE", "M ER AA ZH", true},
                                   {"ABID", "EY B IH D", false},
                                   {"ABSOLUT", "AE B S AH L UW T", false}};
  for (Compute compute : {Compute::F32, Compute::Auto}) {
    const auto model = Model::from_file(kShipped, compute);
    Session greedy(model, options(Strategy::Greedy));
    Session beam(model, options(Strategy::Beam));
    for (const auto& c : cases) {
      INFO(c.word << " " << to_string(compute));
      greedy.start(c.word);
      const Result out = greedy.run().at(0);
      REQUIRE(out.text != c.reference);  // a wrong output
      const ForcedScore ref = greedy.score(c.word, c.reference);
      const ForcedScore own = greedy.score(c.word, out.text);
      CHECK(own.score == Approx(out.score).margin(kTol));
      if (c.search_error) {
        CHECK(ref.logprob > out.logprob + 0.05);
        CHECK(ref.score > out.score + 0.005);
        beam.start(c.word);
        CHECK(beam.run().at(0).text == c.reference);  // a wider search finds it
      } else {
        CHECK(ref.logprob < out.logprob - 0.5);
        CHECK(ref.score < out.score - 0.1);
      }
    }
  }
}

TEST_CASE("scoring leaves a decode in progress as it was", "[forced]") {
  const auto model = Model::from_file(kShipped);
  DecodingOptions o = options(Strategy::Beam);
  o.attention = true;
  Session a(model, o), b(model, o);
  a.start("TRANSFORMER");
  b.start("TRANSFORMER");
  a.step();
  b.step();
  const ForcedScore f = a.score("PHONEME", "F OW N IY M");
  CHECK(f.token_logprobs.size() == 6);
  CHECK(a.max_length() == b.max_length());
  const auto ra = a.run(), rb = b.run();
  REQUIRE(ra.size() == rb.size());
  for (size_t i = 0; i < ra.size(); ++i) {
    CHECK(ra[i].text == rb[i].text);
    CHECK(ra[i].logprob == rb[i].logprob);
  }
}

TEST_CASE("forced scoring refuses bad targets with a message", "[forced][errors]") {
  const auto ar = Model::from_file(kShipped);
  const Session s(ar, options(Strategy::Greedy));
  auto message = [&](const Session& session, const std::string& src, const std::string& tgt) {
    try {
      session.score(src, tgt);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    FAIL("no InputError for '" << src << "' / '" << tgt << "'");
    return std::string();
  };
  CHECK_THAT(message(s, "PHONEME", "F OW XX IY M"), Catch::Contains("'XX'") && Catch::Contains("target vocabulary"));
  CHECK_THAT(message(s, "PHONEME", "F OW N IY M </s>"), Catch::Contains("'</s>'") && Catch::Contains("position 6") &&
                                                            Catch::Contains("without EOS"));
  CHECK_THAT(message(s, "PHONEME", "<s> F OW"), Catch::Contains("'<s>'") && Catch::Contains("special token"));
  CHECK_THAT(message(s, "PHONEME", "F <unk>"), Catch::Contains("'<unk>'"));
  CHECK_THAT(message(s, "PHONEME!", "F OW N IY M"), Catch::Contains("'!'"));  // the source as start() checks it
  CHECK_THAT(message(s, "", "F OW N IY M"), Catch::Contains("empty"));

  // The max length in effect for the source, EOS included.
  DecodingOptions shortish = options(Strategy::Greedy);
  shortish.max_length = 5;
  const Session capped(ar, shortish);
  CHECK_NOTHROW(capped.score("PHONEME", "F OW N IY"));  // 4 tokens + EOS = 5
  CHECK_THAT(message(capped, "PHONEME", "F OW N IY M"), Catch::Contains("6 with EOS") && Catch::Contains("max length of 5"));
  DecodingOptions ratio = options(Strategy::Greedy);
  ratio.max_length_ratio = 0.5f;
  CHECK_THAT(message(Session(ar, ratio), "PHONEME", "F OW N IY M"), Catch::Contains("max length of 4"));
  std::string long_target;
  for (int i = 0; i < ar->config().max_pos; ++i) long_target += "AH ";
  CHECK_THAT(message(s, "PHONEME", long_target), Catch::Contains("max length of " + std::to_string(ar->config().max_pos)));

  // An empty target is a word read as nothing: the probability of ending at once.
  const ForcedScore nothing = s.score("PHONEME", "  ");
  CHECK(nothing.tokens.empty());
  CHECK(nothing.length == 1);
  CHECK(nothing.token_logprobs.size() == 1);
  CHECK(nothing.logprob < -5);

  // min_length and the prefix restrict search, not the model: the score ignores them.
  DecodingOptions restricted = options(Strategy::Greedy);
  restricted.min_length = 8;
  restricted.prefix = "AH";
  CHECK(Session(ar, restricted).score("PHONEME", "F OW N IY M").logprob == s.score("PHONEME", "F OW N IY M").logprob);

  const auto cmlm = Model::from_file(fixture_path("cmlm_pre_sin_tied_relu.safetensors"));
  const Session nar(cmlm, options(Strategy::Nar));
  CHECK_THAT(message(nar, "ABC", ""), Catch::Contains("empty"));
  CHECK_THAT(message(nar, "ABC", "AA <mask>"), Catch::Contains("'<mask>'"));
  std::string too_long;
  for (int i = 0; i <= cmlm->config().max_target_len; ++i) too_long += "AA ";
  CHECK_THAT(message(nar, "ABC", too_long), Catch::Contains("max length of " + std::to_string(cmlm->config().max_target_len)) &&
                                                Catch::Contains("length head predicts"));
  CHECK(nar.score("ABC", "AA B").token_logprobs.size() == 2);
}
