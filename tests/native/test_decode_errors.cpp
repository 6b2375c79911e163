// Decoding with models whose weights are finite but so large that float
// arithmetic overflows: every strategy must end with a ModelError for the source,
// never an empty result or a NaN score.
#include <algorithm>
#include <cstring>

#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

// A fixture whose F32 tensors with `part` in their name are multiplied by
// `factor`, clamped to the largest finite float.
std::shared_ptr<const Model> scaled(const std::string& fixture, const std::string& part, double factor) {
  std::vector<uint8_t> bytes = read_bytes(fixture_path(fixture + ".safetensors"));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<size_t>(i)];
  const auto header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
  for (const auto& [name, t] : header.items()) {
    if (name == "__metadata__" || name.find(part) == std::string::npos || t["dtype"] != "F32") continue;
    const size_t begin = 8 + n + t["data_offsets"][0].get<size_t>(), end = 8 + n + t["data_offsets"][1].get<size_t>();
    for (size_t at = begin; at < end; at += 4) {
      float x;
      std::memcpy(&x, &bytes[at], 4);
      x = static_cast<float>(std::clamp(x * factor, -3.4e38, 3.4e38));
      std::memcpy(&bytes[at], &x, 4);
    }
  }
  return Model::from_buffer(bytes.data(), bytes.size());
}

// The ModelError message of decoding `word` ("" if it decoded).
std::string model_error(Session& s, const std::string& word) {
  try {
    s.start(word);
    s.run();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

DecodingOptions with(Strategy s) {
  DecodingOptions o;
  o.strategy = s;
  if (s == Strategy::Beam) o.beam_size = 3;
  return o;
}

// Runs every strategy that fits the model and expects the non-finite-scores error.
void expect_non_finite(const std::shared_ptr<const Model>& model, const std::string& where) {
  std::vector<DecodingOptions> all;
  if (model->config().autoregressive()) {
    for (Strategy s : {Strategy::Greedy, Strategy::Beam, Strategy::Sample}) all.push_back(with(s));
  } else {
    for (NarLength how : {NarLength::Predicted, NarLength::Fixed, NarLength::Given}) {
      DecodingOptions o = with(Strategy::Nar);
      o.nar_length = how;
      o.nar_given_length = 4;
      o.length_candidates = 3;
      all.push_back(o);
    }
  }
  for (const DecodingOptions& o : all) {
    INFO(model->config().name << ": " << to_string(o.strategy) << " " << to_string(o.nar_length));
    Session s(model, o);
    const auto msg = Catch::Contains("the scores of " + where + " are not finite");
    CHECK_THAT(model_error(s, "ABC"), msg);
    // The session goes on to the next source: the same error, no crash, no stale state.
    CHECK_THAT(model_error(s, "BAD"), msg);
  }
}

}  // namespace

TEST_CASE("weights that overflow float arithmetic: a ModelError in every strategy", "[session][errors]") {
  SECTION("autoregressive transformer, decoder FFN weights x 1e20") {
    expect_non_finite(scaled("ar_post_sin_tied_relu", "decoder.layers.1.ffn", 1e20), "output position 1");
  }
  SECTION("RNN, output projection at 3.4e38") {
    expect_non_finite(scaled("rnn_dot", "out.weight", 1e39), "output position 1");
  }
  SECTION("CMLM, decoder FFN weights x 1e20: the tokens") {
    expect_non_finite(scaled("cmlm_pre_sin_tied_relu", "decoder.layers.1.ffn", 1e20), "output position 1");
  }
  SECTION("CMLM, encoder FFN weights x 1e20: the length head") {
    expect_non_finite(scaled("cmlm_pre_sin_tied_relu", "encoder.layers.1.ffn", 1e20), "the target lengths");
  }
}

TEST_CASE("a step that fails ends the decode; the session starts the next source", "[session][errors]") {
  const auto model = scaled("ar_post_sin_tied_relu", "decoder.layers.1.ffn", 1e20);
  Session s(model, with(Strategy::Beam));
  s.start("ABC");
  CHECK_THROWS_AS(s.step(), ModelError);
  CHECK(s.done());
  CHECK_THROWS_WITH(s.step(), Catch::Contains("the decode has finished"));
  CHECK_THROWS_WITH(s.run(), Catch::Contains("the decode has finished"));
  s.start("AB");
  CHECK_FALSE(s.done());
}

TEST_CASE("check() refuses exactly what start() refuses, and decodes nothing", "[session][errors]") {
  const auto model = Model::from_file(fixture_path("ar_post_sin_tied_relu.safetensors"));
  DecodingOptions o;
  o.max_length_ratio = 0.5f;
  o.min_length = 2;  // a source of 1-4 characters leaves no room for it under the ratio cap
  Session s(model, o);
  for (const std::string& text : {std::string(), std::string("ABC"), std::string(100, 'A'), std::string("AB\xff")}) {
    std::string checked, started;
    try {
      s.check(text);
    } catch (const InputError& e) {
      checked = e.what();
    }
    try {
      s.start(text);
    } catch (const InputError& e) {
      started = e.what();
    }
    CHECK_FALSE(checked.empty());
    CHECK(checked == started);
  }
  Session fresh(model, o);
  CHECK_NOTHROW(fresh.check("ABCDEFG"));
  CHECK_FALSE(fresh.started());
}

TEST_CASE("inspect refuses the scores decoding refuses, with decoding's error", "[inside][errors]") {
  struct Case {
    const char* what;
    std::shared_ptr<const Model> model;
  };
  const Case cases[] = {
      {"autoregressive transformer, decoder FFN weights x 1e20", scaled("ar_post_sin_tied_relu", "decoder.layers.1.ffn", 1e20)},
      {"RNN, output projection at 3.4e38", scaled("rnn_dot", "out.weight", 1e39)},
      {"CMLM, decoder FFN weights x 1e20", scaled("cmlm_pre_sin_tied_relu", "decoder.layers.1.ffn", 1e20)},
      // Quantized weights whose scales are finite but huge: they load, and overflow.
      {"int8 transformer, decoder FFN scales at 3.4e38", scaled("ar_pre_sin_tied_relu_i8", "decoder.layers.1.ffn.fc1.weight.scale", 1e39)},
      {"4-bit CMLM, decoder FFN scales at 3.4e38", scaled("cmlm_pre_sin_tied_relu_q4", "decoder.layers.1.ffn.fc1.weight.scale", 1e39)},
  };
  for (const Case& c : cases) {
    SECTION(c.what) {
      const bool ar = c.model->config().autoregressive();
      DecodingOptions o = with(ar ? Strategy::Greedy : Strategy::Nar);
      o.nar_length = NarLength::Given;
      o.nar_given_length = 4;
      Session s(c.model, o);
      const std::string refused = model_error(s, "ABC");
      REQUIRE_THAT(refused, Catch::Contains("are not finite"));
      // The pass the decode's first step made: BOS alone, or a draft of masks.
      const std::vector<int> input = ar ? std::vector<int>{} : std::vector<int>(4, c.model->config().tgt_specials.mask);
      CHECK_THROWS_WITH(c.model->inspect("ABC", input), refused);
      CHECK_THROWS_AS(c.model->inspect("ABC", input), ModelError);
    }
  }
}
