// Sessions over real (random-weight) models: search vs exhaustive search, the
// session's contract, and every bad option or misuse.
#include <cmath>
#include <type_traits>

#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "model_access.h"
#include "session.h"
#include "transformer.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

std::shared_ptr<const Model> ar_model() {
  static auto m = Model::from_file(fixture_path("ar_post_sin_tied_relu.safetensors"));
  return m;
}
std::shared_ptr<const Model> cmlm_model() {
  static auto m = Model::from_file(fixture_path("cmlm_pre_sin_tied_relu.safetensors"));
  return m;
}

DecodingOptions with(Strategy s) {
  DecodingOptions o;
  o.strategy = s;
  return o;
}

struct Scored {
  std::vector<int> tokens;
  double logprob;
  int length;
};

// Every output of at most `max_len` tokens (EOS included) scored by the full pass.
std::vector<Scored> exhaustive(const Model& m, const std::vector<int>& src, int max_len) {
  const auto& c = m.config();
  const int bos = c.tgt_specials.bos, eos = c.tgt_specials.eos;
  std::vector<int> emit;
  for (int v = 0; v < static_cast<int>(c.tgt_vocab.size()); ++v)
    if (v != c.tgt_specials.pad && v != c.tgt_specials.unk && v != bos && v != eos && v != c.tgt_specials.mask) emit.push_back(v);
  std::vector<std::vector<int>> seqs = {{}};
  for (int len = 1; len < max_len; ++len) {
    std::vector<std::vector<int>> longer;
    for (const auto& s : seqs)
      if (static_cast<int>(s.size()) == len - 1)
        for (int v : emit) {
          auto t = s;
          t.push_back(v);
          longer.push_back(t);
        }
    seqs.insert(seqs.end(), longer.begin(), longer.end());
  }
  const EncoderOutput enc = ModelAccess::transformer(m).encode({src});
  std::vector<Scored> out;
  for (const auto& s : seqs) {
    std::vector<int> in = {bos};
    in.insert(in.end(), s.begin(), s.end());
    RowMatrix lp = ModelAccess::transformer(m).decode_full(enc, {0}, {in});
    log_softmax_rows(lp);
    double total = 0;
    for (size_t t = 0; t <= s.size(); ++t) total += lp(static_cast<long>(t), t < s.size() ? s[t] : eos);
    out.push_back({s, total, static_cast<int>(s.size()) + 1});
  }
  return out;
}

}  // namespace

TEST_CASE("beam search with a large beam finds the exhaustive best", "[session][exhaustive]") {
  const auto model = ar_model();
  for (const char* word : {"ABC", "GF'D", "E"}) {
    for (LengthNorm norm : {LengthNorm::None, LengthNorm::Average, LengthNorm::Gnmt}) {
      INFO(word << " norm " << to_string(norm));
      const auto all = exhaustive(*model, model->tokenize(word), 3);
      REQUIRE(all.size() == 1 + 11 + 121);
      const Scored* best = &all[0];
      auto norm_of = [&](const Scored& s) { return normalized_score(s.logprob, s.length, norm, 0.6); };
      for (const auto& s : all)
        if (norm_of(s) > norm_of(*best)) best = &s;
      DecodingOptions o = with(Strategy::Beam);
      o.beam_size = 121;
      o.max_length = 3;
      o.length_norm = norm;
      Session session(model, o);
      session.start(word);
      const auto results = session.run();
      CHECK(results.at(0).tokens == best->tokens);
      CHECK(results.at(0).logprob == Approx(best->logprob).margin(1e-4));
      CHECK(results.at(0).score == Approx(norm_of(*best)).margin(1e-4));
    }
  }
}

TEST_CASE("the last snapshot carries what run() returns", "[session][snapshot]") {
  for (Strategy s : {Strategy::Greedy, Strategy::Beam, Strategy::Sample}) {
    DecodingOptions o = with(s);
    o.beam_size = 4;
    o.n_best = s == Strategy::Greedy ? 1 : 3;
    o.seed = 11;
    Session stepped(ar_model(), o), ran(ar_model(), o);
    stepped.start("DEAF");
    ran.start("DEAF");
    Snapshot last;
    int steps = 0;
    while (!stepped.done()) {
      last = stepped.step();
      ++steps;
    }
    const auto results = ran.run();
    CHECK(last.done);
    CHECK(last.step == steps);
    REQUIRE(last.results.size() == results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      CHECK(last.results[i].tokens == results[i].tokens);
      CHECK(last.results[i].text == results[i].text);
      CHECK(last.results[i].score == results[i].score);
    }
    CHECK_THROWS_AS(stepped.step(), UsageError);
    CHECK_THROWS_AS(stepped.run(), UsageError);
  }
  Session nar(cmlm_model(), with(Strategy::Nar)), nar2(cmlm_model(), with(Strategy::Nar));
  nar.start("ABC");
  nar2.start("ABC");
  Snapshot last;
  while (!nar.done()) last = nar.step();
  CHECK(last.results.at(0).text == nar2.run().at(0).text);
}

TEST_CASE("NAR sessions on a CMLM: length beam, fixed length, given length", "[session][nar]") {
  DecodingOptions o = with(Strategy::Nar);
  o.length_candidates = 3;
  o.iterations = 4;
  Session s(cmlm_model(), o);
  s.start("ABCD");
  const Snapshot first = s.step();
  CHECK(first.drafts.size() == 3);
  CHECK(first.length_logprobs.size() == 17);
  double total = 0;
  for (float lp : first.length_logprobs) total += std::exp(lp);
  CHECK(total == Approx(1.0).epsilon(1e-5));
  for (const auto& d : first.drafts) CHECK(d.attention.size() == static_cast<size_t>(d.length * 4));

  o.nar_length = NarLength::Given;
  o.nar_given_length = 5;
  s.set_options(o);
  s.start("ABCD");
  CHECK(s.step().drafts.at(0).length == 5);

  o.nar_length = NarLength::Fixed;
  o.max_length = 9;
  s.set_options(o);
  s.start("ABCD");
  const Snapshot fixed = s.step();
  CHECK(fixed.drafts.at(0).length == 9);
  CHECK(fixed.drafts.at(0).output_length <= 9);
}

TEST_CASE("absurd options are refused with a message", "[session][errors]") {
  auto refuse = [](DecodingOptions o, const char* words) {
    CHECK_THROWS_WITH(Session(ar_model(), o), Catch::Contains(words));
  };
  DecodingOptions o = with(Strategy::Beam);
  o.beam_size = 0;
  refuse(o, "beam_size");
  o.beam_size = 100000;
  refuse(o, "beam_size");
  o = with(Strategy::Beam);
  o.n_best = 9;
  refuse(o, "exceeds beam_size");
  o = with(Strategy::Greedy);
  o.max_length = 0;
  refuse(o, "max_length");
  o = with(Strategy::Sample);
  o.temperature = 0;
  refuse(o, "temperature");
  o.temperature = -1;
  refuse(o, "temperature");
  o.temperature = std::nanf("");
  refuse(o, "temperature");
  o = with(Strategy::Sample);
  o.top_p = 0;
  refuse(o, "top_p");
  o.top_p = 1.5f;
  refuse(o, "top_p");
  o = with(Strategy::Greedy);
  o.iterations = 0;
  refuse(o, "iterations");
  o = with(Strategy::Greedy);
  o.min_length = 300;
  refuse(o, "min_length");
  CHECK_THROWS_WITH(Session(ar_model(), with(Strategy::Nar)), Catch::Contains("needs a non-autoregressive"));
  CHECK_THROWS_WITH(Session(cmlm_model(), with(Strategy::Beam)), Catch::Contains("needs an autoregressive"));
  CHECK_THROWS_AS(Session(nullptr, with(Strategy::Greedy)), UsageError);
}

TEST_CASE("bad input and misuse are refused with a message", "[session][errors]") {
  Session s(ar_model(), with(Strategy::Greedy));
  CHECK_THROWS_WITH(s.step(), Catch::Contains("before start"));
  CHECK_THROWS_WITH(s.run(), Catch::Contains("before start"));
  CHECK_THROWS_AS(s.start(""), InputError);
  CHECK_THROWS_WITH(s.start("ABZ"), Catch::Contains("'Z' at position 3"));
  CHECK_THROWS_WITH(s.start(std::string(40, 'A')), Catch::Contains("at most 32"));
  DecodingOptions o = with(Strategy::Greedy);
  o.prefix = "AA QQ";
  s.set_options(o);
  CHECK_THROWS_WITH(s.start("ABC"), Catch::Contains("'QQ'"));
  o.prefix = "AA AA AA";
  o.max_length = 3;
  s.set_options(o);
  CHECK_THROWS_WITH(s.start("ABC"), Catch::Contains("no room"));
  o.prefix = "<s>";
  o.max_length = 10;
  s.set_options(o);
  CHECK_THROWS_WITH(s.start("ABC"), Catch::Contains("cannot be emitted"));
  // A failed start leaves no half-started decode behind.
  CHECK_FALSE(s.started());
  // A valid start after failures works, and the max length is clamped to the model.
  o = with(Strategy::Greedy);
  o.max_length = 100000;
  s.set_options(o);
  s.start("abc");
  CHECK(s.max_length() == 32);
  CHECK_NOTHROW(s.run());
}

TEST_CASE("a max length ratio caps the output by the source length", "[session]") {
  DecodingOptions o = with(Strategy::Greedy);
  o.max_length_ratio = 1.0f;
  o.min_length = 2;
  Session s(ar_model(), o);
  s.start("ABC");
  CHECK(s.max_length() == 3);
  const auto r = s.run();
  CHECK(r.at(0).length <= 3);
  CHECK(r.at(0).length >= 3);  // min 2 tokens + EOS
}

TEST_CASE("a minimum length no source leaves room for is an option error; one this source leaves no room for, an input error",
          "[session][errors]") {
  DecodingOptions o = with(Strategy::Greedy);
  o.min_length = 40;  // the fixture's decoder holds 32 positions
  o.max_length = 100;
  CHECK_THROWS_MATCHES(Session(ar_model(), o), UsageError, Catch::Message("min_length = 40 leaves no room below the max length of 32"));
  o.min_length = 3;
  o.max_length_ratio = 0.5f;
  Session s(ar_model(), o);
  CHECK_THROWS_MATCHES(s.start("A"), InputError,
                       Catch::Message("input: max_length_ratio allows this source of length 1 at most 1 output tokens (EOS "
                                      "included): no room for min_length = 3"));
  s.start("ABCDEFG");  // ceil(0.5 * 7) = 4 tokens
  CHECK(s.run().at(0).length == 4);
}

TEST_CASE("validate() holds every numeric option to its option_range, at both ends", "[session][errors]") {
  namespace R = option_range;
  int checked = 0;
  for_each_numeric_option([&](const NumericOption& opt, auto field, const auto& range) {
    using T = std::decay_t<decltype(range.lo)>;
    INFO(opt.name << " in " << to_string(range));
    if constexpr (std::is_same_v<T, int>) {
      for (int bad : {range.lo - 1, range.hi + 1}) {
        DecodingOptions o = with(Strategy::Sample);
        o.*field = bad;
        CHECK_THROWS_WITH(validate(o), Catch::Contains(std::string(opt.name) + " = " + std::to_string(bad) + " " + opt.outside +
                                                       " " + to_string(range)));
      }
      ++checked;
    } else if constexpr (std::is_same_v<T, float>) {
      for (float bad : {range.open_lo ? range.lo : std::nextafter(range.lo, -1e9f), std::nextafter(range.hi, 1e9f), std::nanf("")}) {
        DecodingOptions o = with(Strategy::Sample);
        o.*field = bad;
        CHECK_THROWS_WITH(validate(o), Catch::Contains(opt.name) && Catch::Contains(to_string(range)));
      }
      DecodingOptions o = with(Strategy::Sample);
      o.*field = range.hi;
      CHECK_NOTHROW(validate(o));
      ++checked;
    }
    // The seed takes every uint64_t: nothing to be outside.
  });
  CHECK(checked == 14);
  CHECK(to_string(R::beam_size) == "[1, 256]");
  CHECK(to_string(R::top_p) == "(0, 1]");
  CHECK(to_string(R::seed) == "[0, 18446744073709551615]");
}
