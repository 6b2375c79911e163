// Model::inspect against PyTorch (tests/tools/make_inside_fixtures.py): every
// intermediate of one decoder pass — embeddings, positional encoding, Q, K, V, raw
// and scaled scores, the mask, softmax, each head's output, the residual sums and
// norms, the FFN's hidden layer, the logits; the RNN's states, scores and contexts —
// field by field in the --trace JSON, at the fixtures' tolerance under f32 compute.
// And: its last row is the distribution a decode's step reads; bad calls are errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "errors.h"
#include "fixtures.h"
#include "inside_count.h"
#include "model_access.h"
#include "model_bytes.h"
#include "model_limits.h"
#include "network.h"
#include "snapshot_fields.h"
#include "session.h"
#include "snapshot_json.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

// Every field of `want` is in `got` with the same value (numbers within tol), and
// every array has the same length; `got` may hold more fields. Returns the first
// difference's path, empty if none.
std::string first_difference(const nlohmann::json& got, const nlohmann::json& want, double tol, const std::string& path = "") {
  if (want.is_object()) {
    if (!got.is_object()) return path + ": not an object";
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (!got.contains(it.key())) return path + "." + it.key() + ": missing";
      const std::string d = first_difference(got[it.key()], it.value(), tol, path + "." + it.key());
      if (!d.empty()) return d;
    }
    return "";
  }
  if (want.is_array()) {
    if (!got.is_array() || got.size() != want.size())
      return path + ": " + std::to_string(got.size()) + " values, PyTorch " + std::to_string(want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      const std::string d = first_difference(got[i], want[i], tol, path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  if (want.is_number() && !want.is_boolean()) {
    if (!got.is_number()) return path + ": not a number";
    const double a = got.get<double>(), b = want.get<double>();
    return std::abs(a - b) <= tol ? "" : path + ": " + std::to_string(a) + ", PyTorch " + std::to_string(b);
  }
  return got == want ? "" : path + ": " + got.dump() + ", PyTorch " + want.dump();
}

std::vector<std::string> inside_fixtures() {
  std::vector<std::string> names = fixture_names();
  for (const char* rnn : {"rnn_dot", "rnn_multiplicative", "rnn_reduced_rank", "rnn_additive", "rnn_none"}) names.push_back(rnn);
  // The copy mechanism's fields (tests/tools/make_copy_fixtures.py)
  for (const char* copy : {"copy_ar_pre_sin_tied_relu", "copy_rnn_additive", "copy_words_post_learned_untied"}) names.push_back(copy);
  return names;
}

}  // namespace

TEST_CASE("the inside of a step matches PyTorch's forward hooks, field by field", "[parity][inside]") {
  for (const auto& name : inside_fixtures()) {
    SECTION(name) {
      const auto fx = load_json(fixture_path(name + ".inside.json"));
      const auto model = Model::from_file(fixture_path(fx["model"].get<std::string>()), Compute::F32);
      const StepInside inside = model->inspect(fx["source"].get<std::string>(), fx["tokens"].get<std::vector<int>>());
      std::ostringstream written;
      write_json(written, inside, *model->output_vocab(fx["source"].get<std::string>()));
      const nlohmann::json got = nlohmann::json::parse(written.str());
      // Streamed, every number reads back as the float it was.
      REQUIRE(got["logits"].size() == inside.logits.size());
      for (size_t i = 0; i < inside.logits.size(); ++i) CHECK(got["logits"][i].get<float>() == inside.logits[i]);
      const std::string diff = first_difference(got, fx["inside"], fx["tolerance"].get<double>());
      INFO(name << diff);
      CHECK(diff.empty());
      // The fixtures hold what the engine must show: a learner reads these numbers.
      if (!inside.rnn) {
        const auto& layer = inside.decoder.layers.at(0).self_attention.attention;
        CHECK(layer.queries == static_cast<int>(fx["tokens"].size()) + (inside.arch == "transformer" ? 1 : 0));
        CHECK(layer.scale == Approx(1.0 / std::sqrt(inside.head_dim)));
      }
    }
  }
}

TEST_CASE("the inside's last row is the distribution the decode's step drew from", "[inside][session]") {
  for (const std::string name : {"ar_post_sin_tied_relu", "rnn_additive", "rnn_none"}) {
    SECTION(name) {
      const auto model = Model::from_file(fixture_path(name + ".safetensors"), Compute::F32);
      DecodingOptions o;
      o.strategy = Strategy::Greedy;
      o.max_length = 6;
      Session s(model, o);
      s.start("ABCD");
      std::vector<int> fed;
      while (!s.done()) {
        const Snapshot snap = s.step();
        const HypothesisView& h = snap.live.empty() ? snap.finished.at(0) : snap.live.at(0);
        const StepInside in = model->inspect("ABCD", fed);
        const int V = in.vocab_size, T = static_cast<int>(in.target.size());
        REQUIRE(in.logits.size() == static_cast<size_t>(T * V));
        // softmax of the last row of logits, at the chosen token, is the step's probability
        const float* last = in.logits.data() + static_cast<size_t>((T - 1) * V);
        double m = last[0], z = 0;
        for (int v = 0; v < V; ++v) m = std::max(m, static_cast<double>(last[v]));
        for (int v = 0; v < V; ++v) z += std::exp(last[v] - m);
        const int tok = h.tokens.back();
        CHECK(std::exp(last[tok] - m) / z == Approx(h.token_prob).margin(1e-5));
        fed.push_back(tok);
      }
    }
  }
}

TEST_CASE("a CMLM's inside over an iteration's input is the pass Mask-Predict made", "[inside][session][nar]") {
  const auto model = Model::from_file(fixture_path("cmlm_pre_sin_tied_relu.safetensors"), Compute::F32);
  const int mask = model->config().tgt_specials.mask;
  DecodingOptions o;
  o.strategy = Strategy::Nar;
  o.iterations = 4;
  o.nar_length = NarLength::Fixed;
  o.max_length = 7;
  Session s(model, o);
  s.start("ABCD");
  int passes = 0;
  while (!s.done()) {
    const Snapshot snap = s.step();
    for (const NarDraft& d : snap.drafts) {
      // What the iteration read: the draft it wrote, with MASK where it re-masked.
      std::vector<int> input = d.tokens;
      for (int p = 0; p < d.length; ++p)
        if (d.masked[static_cast<size_t>(p)]) input[static_cast<size_t>(p)] = mask;
      const StepInside in = model->inspect("ABCD", input);
      const int V = in.vocab_size;
      for (int p = 0; p < d.length; ++p) {
        if (!d.masked[static_cast<size_t>(p)]) continue;
        const float* row = in.logits.data() + static_cast<size_t>(p * V);
        double m = row[0], z = 0;
        for (int v = 0; v < V; ++v) m = std::max(m, static_cast<double>(row[v]));
        for (int v = 0; v < V; ++v) z += std::exp(row[v] - m);
        INFO("iteration " << snap.iteration << ", position " << p + 1);
        CHECK(std::exp(row[d.tokens[static_cast<size_t>(p)]] - m) / z == Approx(d.probs[static_cast<size_t>(p)]).margin(1e-5));
      }
      ++passes;
    }
  }
  CHECK(passes >= 2);
}

TEST_CASE("inspect: bad calls are clear errors", "[inside][errors]") {
  const auto ar = Model::from_file(fixture_path("ar_post_sin_tied_relu.safetensors"));
  const auto cmlm = Model::from_file(fixture_path("cmlm_pre_sin_tied_relu.safetensors"));
  const SpecialIds& sp = ar->config().tgt_specials;
  CHECK_THROWS_AS(ar->inspect("", {}), InputError);
  CHECK_THROWS_AS(ar->inspect("A1", {}), InputError);
  CHECK_THROWS_WITH(ar->inspect("ABC", {sp.bos}), Catch::Contains("special token"));
  CHECK_THROWS_WITH(ar->inspect("ABC", {999}), Catch::Contains("outside the target vocabulary"));
  CHECK_THROWS_WITH(ar->inspect("ABC", std::vector<int>(40, 5)), Catch::Contains("positions"));
  CHECK_THROWS_WITH(cmlm->inspect("ABC", {}), Catch::Contains("draft is empty"));
  CHECK_THROWS_WITH(cmlm->inspect("ABC", {cmlm->config().tgt_specials.bos}), Catch::Contains("special token"));
  CHECK_NOTHROW(cmlm->inspect("ABC", {cmlm->config().tgt_specials.mask, 5}));
  // Mask-Predict feeds back an END it kept: a draft may hold one.
  CHECK_NOTHROW(cmlm->inspect("ABC", {5, cmlm->config().tgt_specials.eos, cmlm->config().tgt_specials.mask}));
  CHECK_THROWS_AS(Model::ensemble({ar, ar})->inspect("ABC", {}), UsageError);
}

namespace {

// The model of `fixture` with its max_pos raised (a sinusoidal one: its table is computed, not stored).
std::shared_ptr<const Model> with_max_pos(const std::string& fixture, int max_pos) {
  Parts p = split(read_bytes(fixture_path(fixture + ".safetensors")));
  json c = config_of(p);
  c["max_pos"] = max_pos;
  set_config(p, c);
  const std::vector<uint8_t> bytes = join(p);
  return Model::from_buffer(bytes.data(), bytes.size());
}

}  // namespace

TEST_CASE("inside_values counts exactly the numbers inspect keeps", "[inside][limits]") {
  for (const auto& name : inside_fixtures()) {
    SECTION(name) {
      const auto model = Model::from_file(fixture_path(name + ".safetensors"));
      const Network& net = ModelAccess::network(*model);
      const bool ar = model->config().autoregressive();
      const int mask = model->config().tgt_specials.mask;
      for (const char* source : {"A", "ABC", "ABCDEFG"}) {
        for (size_t tokens : {0, 1, 4}) {
          if (!ar && tokens == 0) continue;
          const std::vector<int> ids(tokens, ar ? 5 : mask);
          const StepInside inside = model->inspect(source, ids);
          INFO(source << ", " << tokens << " tokens");
          // A copy model's distribution is as wide as its vocabulary and the source's copy-only tokens.
          const int extra = inside.copy ? inside.output_vocab_size - inside.vocab_size : 0;
          CHECK(values_kept(inside) == net.inside_values(inside.source_length, static_cast<int>(inside.target.size()), extra));
        }
      }
    }
  }
}

TEST_CASE("an inspect over kMaxInsideValues is an InputError, refused before it is computed", "[inside][errors][limits]") {
  // The fixture read at 1,024 positions: decoding a word of 1,024 letters is cheap, its inside is not.
  const auto model = with_max_pos("ar_post_sin_tied_relu", 1024);
  const Network& net = ModelAccess::network(*model);
  REQUIRE(net.inside_values(1024, 1) > limits::kMaxInsideValues);
  CHECK_THROWS_WITH(model->inspect(std::string(1024, 'A'), {}),
                    "input: the inside of this pass (a source of 1024 positions, a decoder input of 1) holds " +
                        std::to_string(net.inside_values(1024, 1)) + " numbers; inspect keeps at most 16777216: give a shorter source or fewer tokens");
  // The boundary: the longest source whose inside fits is shown, one letter more is refused.
  int fits = 1;
  while (net.inside_values(fits + 1, 1) <= limits::kMaxInsideValues) ++fits;
  CHECK_THROWS_AS(model->inspect(std::string(static_cast<size_t>(fits) + 1, 'A'), {}), InputError);
  const StepInside inside = model->inspect(std::string(static_cast<size_t>(fits), 'A'), {});
  CHECK(values_kept(inside) == net.inside_values(fits, 1));
  CHECK(values_kept(inside) <= limits::kMaxInsideValues);
}
