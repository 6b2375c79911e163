// The engine against PyTorch: every fixture in tests/fixtures/ holds a random-weight
// model and the logits, attention weights and length distribution PyTorch computed
// for it (tests/tools/make_fixtures.py). Tolerance: the fixture's own (1e-4 absolute).
#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "model_access.h"
#include "transformer.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

std::vector<std::vector<int>> int_rows(const nlohmann::json& j) {
  std::vector<std::vector<int>> out;
  for (const auto& r : j) out.push_back(r.get<std::vector<int>>());
  return out;
}

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// Selects rows [i*rows, i*rows + n) of a padded block as the fixture's [n][..].
double max_diff_block(const nlohmann::json& ref, const RowMatrix& m, long first_row) { return max_abs_diff(ref, m, first_row); }

// A fixture: PyTorch's numbers, the model they came from, and its inputs.
struct Parity {
  nlohmann::json fx;
  std::shared_ptr<const Model> model;
  double tol;
  std::vector<std::vector<int>> sources, targets;
};


// The fixture under f32 compute (PyTorch's arithmetic: the parity the fixtures
// assert), or under the default compute, which differs for int8 files only.
Parity load_parity(const std::string& name, Compute compute) {
  Parity p;
  p.fx = load_json(fixture_path(name + ".json"));
  p.model = Model::from_file(fixture_path(p.fx["model"].get<std::string>()), compute);
  p.tol = p.fx["tolerance"].get<double>();
  if (p.model->compute() == "int8") p.tol = std::max(p.tol, kInt8ComputeTol);
  p.sources = int_rows(p.fx["sources"]);
  p.targets = int_rows(p.fx["targets"]);
  return p;
}

}  // namespace

TEST_CASE("full-pass logits, attention and length distribution match PyTorch", "[parity]") {
  for (const auto& name : fixture_names()) {
    for (Compute compute : {Compute::F32, Compute::Auto}) {
      SECTION(name + " " + to_string(compute)) {
        const Parity p = load_parity(name, compute);
        const auto& [fx, model, tol, sources, targets] = p;
        const Transformer& tf = ModelAccess::transformer(*model);
        const int B = static_cast<int>(sources.size());
  
        AttentionMaps enc_self, dec_self, cross;
        const EncoderOutput enc = tf.encode(sources, &enc_self);
        const RowMatrix logits = tf.decode_full(enc, iota(B), targets, &dec_self, &cross);
        int T = 0;
        for (const auto& t : targets) T = std::max(T, static_cast<int>(t.size()));
  
        for (int b = 0; b < B; ++b) {
          INFO("batch row " << b);
          CHECK(max_diff_block(fx["logits"][static_cast<size_t>(b)], logits, static_cast<long>(b) * T) <= tol);
          for (int l = 0; l < model->config().enc_layers; ++l)
            for (int h = 0; h < model->config().n_heads; ++h) {
              INFO("encoder layer " << l << " head " << h);
              CHECK(max_abs_diff(fx["enc_self_attn"][b][l][h], enc_self.at(b, l, h)) <= tol);
            }
          for (int l = 0; l < model->config().dec_layers; ++l)
            for (int h = 0; h < model->config().n_heads; ++h) {
              INFO("decoder layer " << l << " head " << h);
              CHECK(max_abs_diff(fx["dec_self_attn"][b][l][h], dec_self.at(b, l, h)) <= tol);
              CHECK(max_abs_diff(fx["cross_attn"][b][l][h], cross.at(b, l, h)) <= tol);
            }
        }
        if (model->config().arch == Arch::Cmlm) {
          RowMatrix len = tf.length_logits(enc);
          log_softmax_rows(len);
          // Lengths an offset head cannot reach sit near -1e4 (probability 0): at that
          // magnitude float32 resolves only ~1e-3, so those are checked as "unreachable
          // on both sides" and the reachable ones to the tolerance.
          int unreachable = 0;
          double worst = 0;
          for (int b = 0; b < B; ++b)
            for (int k = 0; k < len.cols(); ++k) {
              const double ref = fx["length_logprobs"][static_cast<size_t>(b)][static_cast<size_t>(k)].get<double>();
              if (ref < kLengthUnreachable / 2) {
                ++unreachable;
                CHECK(len(b, k) < kLengthUnreachable / 2);
              } else {
                const double d = std::abs(ref - static_cast<double>(len(b, k)));
                if (!(d <= worst)) worst = d;
              }
            }
          CHECK(worst <= tol);
          // the offset fixture must exercise the remapping (absolute heads reach every length)
          CHECK((unreachable > 0) == (model->config().length_offset > 0));
        } else {
          CHECK_FALSE(fx.contains("length_logprobs"));
        }
      }
    }
  }
}

TEST_CASE("incremental decoding with the KV cache equals the full pass and PyTorch", "[parity][incremental]") {
  for (const auto& name : fixture_names()) {
    if (name.rfind("ar_", 0) != 0) continue;
    for (Compute compute : {Compute::F32, Compute::Auto}) {
      SECTION(name + " " + to_string(compute)) {
        const Parity p = load_parity(name, compute);
        const auto& [fx, model, tol, sources, targets] = p;
        const Transformer& tf = ModelAccess::transformer(*model);
        const int H = model->config().n_heads;
        for (size_t b = 0; b < sources.size(); ++b) {
          INFO("source " << b);
          const EncoderOutput enc = tf.encode({sources[b]});
          const int T = static_cast<int>(targets[b].size());
          DecoderCache cache = tf.start_cache(enc, 0, 1, T);
          for (int t = 0; t < T; ++t) {
            INFO("step " << t);
            RowMatrix logits;
            StepAttention attn;
            tf.decode_step(cache, {targets[b][static_cast<size_t>(t)]}, logits, &attn);
            CHECK(max_abs_diff(nlohmann::json::array({fx["logits"][b][static_cast<size_t>(t)]}), logits) <= tol);
            for (int l = 0; l < model->config().dec_layers; ++l)
              for (int h = 0; h < H; ++h) {
                const auto& cross_row = fx["cross_attn"][b][static_cast<size_t>(l)][static_cast<size_t>(h)][static_cast<size_t>(t)];
                CHECK(max_abs_diff(nlohmann::json::array({cross_row}), attn.cross[static_cast<size_t>(l * H + h)]) <= tol);
                const auto& self_row = fx["dec_self_attn"][b][static_cast<size_t>(l)][static_cast<size_t>(h)][static_cast<size_t>(t)];
                nlohmann::json visible = nlohmann::json::array();  // keys 0..t; the rest are causally masked
                for (int j = 0; j <= t; ++j) visible.push_back(self_row[static_cast<size_t>(j)]);
                CHECK(max_abs_diff(nlohmann::json::array({visible}), attn.self[static_cast<size_t>(l * H + h)]) <= tol);
              }
          }
          RowMatrix overflow;
          CHECK_THROWS_AS(tf.decode_step(cache, {targets[b][0]}, overflow), UsageError);  // the cache is full
        }
      }
    }
  }
}

TEST_CASE("batched equals one-by-one, and a reordered cache equals recomputation", "[parity][batch]") {
  const Parity p = load_parity("ar_pre_learned_untied_gelu", Compute::F32);
  const auto& [fx, model, tol, sources, targets] = p;
  const Transformer& tf = ModelAccess::transformer(*model);
  const int B = static_cast<int>(sources.size());

  SECTION("encoder and full decoder: a padded batch equals each source alone") {
    const EncoderOutput batch = tf.encode(sources);
    const RowMatrix batch_logits = tf.decode_full(batch, iota(B), targets);
    int T = 0;
    for (const auto& t : targets) T = std::max(T, static_cast<int>(t.size()));
    for (int b = 0; b < B; ++b) {
      const EncoderOutput one = tf.encode({sources[static_cast<size_t>(b)]});
      const RowMatrix logits = tf.decode_full(one, {0}, {targets[static_cast<size_t>(b)]});
      const auto rows = static_cast<Eigen::Index>(targets[static_cast<size_t>(b)].size());
      CHECK((batch_logits.middleRows(static_cast<Eigen::Index>(b) * T, rows) - logits).cwiseAbs().maxCoeff() <= 1e-5);
    }
  }

  // Three hypotheses for source 0, built from the fixture's targets (all start with BOS).
  size_t len = targets[0].size();
  for (const auto& t : targets) len = std::min(len, t.size());
  std::vector<std::vector<int>> hyps;
  for (const auto& t : targets) hyps.emplace_back(t.begin(), t.begin() + static_cast<long>(len));
  const EncoderOutput enc = tf.encode({sources[0]});

  SECTION("several hypotheses in one step equal each hypothesis alone") {
    DecoderCache together = tf.start_cache(enc, 0, B, static_cast<int>(len));
    std::vector<DecoderCache> alone;
    for (int i = 0; i < B; ++i) alone.push_back(tf.start_cache(enc, 0, 1, static_cast<int>(len)));
    for (size_t t = 0; t < len; ++t) {
      std::vector<int> tokens;
      for (const auto& h : hyps) tokens.push_back(h[t]);
      RowMatrix joint;
      tf.decode_step(together, tokens, joint);
      for (int i = 0; i < B; ++i) {
        RowMatrix single;
        tf.decode_step(alone[static_cast<size_t>(i)], {tokens[static_cast<size_t>(i)]}, single);
        CHECK((joint.row(i) - single.row(0)).cwiseAbs().maxCoeff() <= 1e-5);
      }
    }
  }

  SECTION("reorder_cache: continuing reordered hypotheses equals recomputing them") {
    const int half = static_cast<int>(len) / 2;
    const int capacity = static_cast<int>(len) + 2;
    DecoderCache cache = tf.start_cache(enc, 0, B, capacity);
    RowMatrix logits;
    for (int t = 0; t < half; ++t) {
      std::vector<int> tokens;
      for (const auto& h : hyps) tokens.push_back(h[static_cast<size_t>(t)]);
      tf.decode_step(cache, tokens, logits);
    }
    // Beam-search style: a hypothesis dropped, one duplicated, the beam grown to 4.
    const std::vector<int> parents = {2, 0, 2, 1};
    tf.reorder_cache(cache, parents);
    REQUIRE(cache.n_hyps == 4);
    std::vector<std::vector<int>> expected;
    for (int p : parents) expected.emplace_back(hyps[static_cast<size_t>(p)].begin(), hyps[static_cast<size_t>(p)].begin() + half);
    const int V = model->target_vocab().size();
    const std::vector<int> next = {5 % V, 6 % V, 7 % V, 8 % V};
    for (size_t i = 0; i < expected.size(); ++i) expected[i].push_back(next[i]);
    std::vector<int> tokens;
    for (const auto& e : expected) tokens.push_back(e.back());
    tf.decode_step(cache, tokens, logits);
    for (size_t i = 0; i < expected.size(); ++i) {
      const RowMatrix full = tf.decode_full(enc, {0}, {expected[i]});
      CHECK((logits.row(static_cast<Eigen::Index>(i)) - full.row(full.rows() - 1)).cwiseAbs().maxCoeff() <= 1e-5);
    }
    CHECK_THROWS_AS(tf.reorder_cache(cache, {4}), UsageError);
    CHECK_THROWS_AS(tf.reorder_cache(cache, {}), UsageError);
  }
}

TEST_CASE("f16 and int8 storage are what they say and smaller", "[parity][f16][int8]") {
  // (Their numbers are held to PyTorch in the first test case; here: they really are f16 / int8.)
  const auto f16 = Model::from_file(fixture_path("ar_pre_sin_tied_relu_f16.safetensors"));
  CHECK(f16->storage() == "f16");
  const auto i8 = Model::from_file(fixture_path("ar_pre_sin_tied_relu_i8.safetensors"));
  CHECK(i8->storage() == "int8");
  const auto f32 = Model::from_file(fixture_path("ar_post_sin_tied_relu.safetensors"));
  CHECK(f32->storage() == "f32");
  CHECK(f16->file_bytes() < f32->file_bytes());
  CHECK(i8->file_bytes() < f16->file_bytes());
}
