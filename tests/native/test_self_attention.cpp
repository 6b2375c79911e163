// Self-attention in snapshots against PyTorch: the encoder's (step 1 only), the
// decoder's masked row per autoregressive step (a lane's rows build the lower
// triangle of the full pass over its output) and the CMLM decoder's full map per
// draft. The references are whole decodes that tests/tools/make_fixtures.py ran in
// PyTorch with the engine's rules ("greedy", "mask_predict" in the fixtures).
#include <catch2/catch.hpp>

#include <map>

#include "fixtures.h"
#include "model_access.h"
#include "session.h"
#include "transformer.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

// int8 compute: kInt8ComputeTol (fixtures.h).
double tolerance_for(const nlohmann::json& fx, const Model& m) {
  const double tol = fx["tolerance"].get<double>();
  return m.compute() == "int8" ? std::max(tol, kInt8ComputeTol) : tol;
}

// The text that tokenizes to `ids` (single-character source tokens).
std::string source_text(const Model& m, const std::vector<int>& ids) {
  std::string text;
  for (int id : ids) text += m.source_vocab().token(id);
  REQUIRE(m.tokenize(text) == ids);
  return text;
}

// Element [l][h][q][k] of a flat per-(layer, head) array of [rows x cols] maps.
float at(const std::vector<float>& flat, int heads, int rows, int cols, int l, int h, int q, int k) {
  return flat[static_cast<size_t>(((l * heads + h) * rows + q) * cols + k)];
}

// The largest |sum of a row - 1| over a flat [maps x rows x cols] array.
double worst_row_sum(const std::vector<float>& flat, int cols) {
  double worst = 0;
  for (size_t r = 0; r + static_cast<size_t>(cols) <= flat.size(); r += static_cast<size_t>(cols)) {
    double sum = 0;
    for (int k = 0; k < cols; ++k) sum += flat[r + static_cast<size_t>(k)];
    worst = std::max(worst, std::abs(sum - 1.0));
  }
  return worst;
}

// The encoder self-attention of a step-1 snapshot against PyTorch's [layer][head][S][S].
void check_encoder_attention(const Snapshot& s, const nlohmann::json& ref, const ModelConfig& c, double tol) {
  const int S = s.source_length;
  REQUIRE(s.encoder_layers == c.enc_layers);
  REQUIRE(s.encoder_heads == c.n_heads);
  REQUIRE(s.encoder_attention.size() == static_cast<size_t>(c.enc_layers * c.n_heads * S * S));
  CHECK(worst_row_sum(s.encoder_attention, S) <= 1e-5);
  double worst = 0;
  for (int l = 0; l < c.enc_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h)
      for (int q = 0; q < S; ++q)
        for (int k = 0; k < S; ++k)
          worst = std::max(worst, std::abs(ref[l][h][q][k].get<double>() - at(s.encoder_attention, c.n_heads, S, S, l, h, q, k)));
  CHECK(worst <= tol);
}

// The hypothesis of `s` whose tokens are `tokens` (nullptr: none).
const HypothesisView* with_tokens(const Snapshot& s, const std::vector<int>& tokens) {
  for (const auto* list : {&s.live, &s.finished})
    for (const auto& h : *list)
      if (h.tokens == tokens) return &h;
  return nullptr;
}

// A fixture's PyTorch decode (fx[key]) and the model it ran, under `compute`.
struct Reference {
  nlohmann::json fx;
  std::shared_ptr<const Model> model;
  double tol = 0;
  std::vector<int> source;
  const nlohmann::json& decode(const char* key) const { return fx[key]; }
};

Reference load_reference(const std::string& name, const char* key, Compute compute) {
  Reference r;
  r.fx = load_json(fixture_path(name + ".json"));
  r.model = Model::from_file(fixture_path(r.fx["model"].get<std::string>()), compute);
  r.tol = tolerance_for(r.fx, *r.model);
  r.source = r.fx["sources"][r.fx[key]["source"].get<size_t>()].get<std::vector<int>>();
  return r;
}

// body(reference) in a section per fixture whose name starts with `prefix` and per compute.
template <typename F>
void for_each_reference(const std::string& prefix, const char* key, F&& body) {
  for (const auto& name : fixture_names()) {
    if (name.rfind(prefix, 0) != 0) continue;
    for (Compute compute : {Compute::F32, Compute::Auto})
      SECTION(name + " " + to_string(compute)) body(load_reference(name, key, compute));
  }
}

}  // namespace

TEST_CASE("greedy snapshots carry PyTorch's encoder and masked decoder self-attention", "[self-attention][parity]") {
  for_each_reference("ar_", "greedy", [](const Reference& ref) {
    const auto& [fx, model, tol, source] = ref;
    const nlohmann::json& g = ref.decode("greedy");
    const ModelConfig& c = model->config();
    const std::vector<int> expected = g["tokens"].get<std::vector<int>>();
    const nlohmann::json& tri = g["dec_self_attn"];  // [layer][head][n][n], n = expected.size()
    const int n = static_cast<int>(expected.size()), L = c.dec_layers, H = c.n_heads;
    REQUIRE(n >= g["min_length"].get<int>() + 1);

    DecodingOptions o;
    o.strategy = Strategy::Greedy;
    o.max_length = g["max_length"].get<int>();
    o.min_length = g["min_length"].get<int>();
    Session session(model, o);
    session.start(source_text(*model, source));
    std::vector<Snapshot> steps;
    while (!session.done()) steps.push_back(session.step());
    REQUIRE(steps.size() == expected.size());

    check_encoder_attention(steps[0], g["enc_self_attn"], c, tol);
    double worst = 0, worst_sum = 0, worst_masked = 0;
    for (int t = 0; t < n; ++t) {
      INFO("step " << t + 1);
      const Snapshot& s = steps[static_cast<size_t>(t)];
      if (t > 0) CHECK(s.encoder_attention.empty());  // sent once, at step 1
      CHECK(s.layers == L);
      CHECK(s.heads == H);
      const HypothesisView* made = with_tokens(s, std::vector<int>(expected.begin(), expected.begin() + t + 1));
      REQUIRE(made != nullptr);  // the engine's greedy path is PyTorch's
      const HypothesisView& h = *made;
      // Step t + 1 fed position t: its row sees positions 0..t and nothing after.
      REQUIRE(h.self_attention.size() == static_cast<size_t>(L * H * (t + 1)));
      worst_sum = std::max(worst_sum, worst_row_sum(h.self_attention, t + 1));
      for (int l = 0; l < L; ++l)
        for (int hd = 0; hd < H; ++hd) {
          for (int k = 0; k <= t; ++k)
            worst = std::max(worst, std::abs(tri[l][hd][t][k].get<double>() - at(h.self_attention, H, 1, t + 1, l, hd, 0, k)));
          for (int k = t + 1; k < n; ++k)  // PyTorch's causal mask: exactly 0 where the row stops
            worst_masked = std::max(worst_masked, std::abs(tri[l][hd][t][k].get<double>()));
        }
    }
    CHECK(worst <= tol);
    CHECK(worst_sum <= 1e-5);
    CHECK(worst_masked == 0);
  });
}

TEST_CASE("beam lanes: the rows along a hypothesis's ancestry are the full pass's lower triangle", "[self-attention]") {
  const auto model = Model::from_file(fixture_path("ar_pre_learned_untied_gelu.safetensors"), Compute::F32);
  const ModelConfig& c = model->config();
  const int L = c.dec_layers, H = c.n_heads;
  DecodingOptions o;
  o.strategy = Strategy::Beam;
  o.beam_size = 4;
  o.n_best = 3;
  o.min_length = 3;
  o.max_length = 10;
  Session session(model, o);
  session.start("FACADE");
  std::map<int, HypothesisView> nodes;  // every hypothesis the decode made, by id
  Snapshot last;
  while (!session.done()) {
    last = session.step();
    for (const auto* list : {&last.live, &last.finished})
      for (const auto& h : *list) nodes.emplace(h.id, h);
  }
  REQUIRE(last.finished.size() >= 3);
  const Transformer& tf = ModelAccess::transformer(*model);
  const EncoderOutput enc = tf.encode({model->tokenize("FACADE")});
  int lanes = 0;
  for (const auto& [id, h] : nodes) {
    if (!h.finished) continue;
    INFO("hypothesis " << id);
    const int n = static_cast<int>(h.tokens.size());
    std::vector<int> fed = {c.tgt_specials.bos};
    fed.insert(fed.end(), h.tokens.begin(), h.tokens.end() - 1);
    AttentionMaps full;
    tf.decode_full(enc, {0}, {fed}, &full);
    // Walk up the lane: the node with t + 1 tokens holds row t.
    double worst = 0;
    for (int node = id; node != 0; node = nodes.at(node).parent) {
      const HypothesisView& v = nodes.at(node);
      const int t = static_cast<int>(v.tokens.size()) - 1;
      REQUIRE(v.self_attention.size() == static_cast<size_t>(L * H * (t + 1)));
      for (int l = 0; l < L; ++l)
        for (int hd = 0; hd < H; ++hd)
          for (int k = 0; k <= t; ++k)
            worst = std::max(worst, static_cast<double>(std::abs(full.at(0, l, hd)(t, k) - at(v.self_attention, H, 1, t + 1, l, hd, 0, k))));
    }
    CHECK(worst <= 1e-5);
    CHECK(n >= 4);
    ++lanes;
  }
  CHECK(lanes >= 3);
}

TEST_CASE("Mask-Predict drafts carry PyTorch's full decoder self-attention", "[self-attention][parity]") {
  for_each_reference("cmlm_", "mask_predict", [](const Reference& reference) {
    const auto& [fx, model, tol, source] = reference;
    const nlohmann::json& mp = reference.decode("mask_predict");
    const ModelConfig& c = model->config();
    const int n = mp["length"].get<int>(), L = c.dec_layers, H = c.n_heads;

    DecodingOptions o;
    o.strategy = Strategy::Nar;
    o.nar_length = NarLength::Given;
    o.nar_given_length = n;
    o.iterations = mp["iterations"].get<int>();
    o.early_stop = false;
    Session session(model, o);
    session.start(source_text(*model, source));
    std::vector<Snapshot> steps;
    while (!session.done()) steps.push_back(session.step());
    REQUIRE(steps.size() == mp["steps"].size());

    check_encoder_attention(steps[0], mp["enc_self_attn"], c, tol);
    for (size_t i = 0; i < steps.size(); ++i) {
      INFO("iteration " << i + 1);
      const Snapshot& s = steps[i];
      const nlohmann::json& ref = mp["steps"][i];
      if (i > 0) CHECK(s.encoder_attention.empty());
      CHECK(s.layers == L);
      CHECK(s.heads == H);
      REQUIRE(s.drafts.size() == 1);
      const NarDraft& d = s.drafts[0];
      CHECK(d.tokens == ref["tokens"].get<std::vector<int>>());
      const std::vector<int> fed = ref["fed"].get<std::vector<int>>();
      for (int k = 0; k < n; ++k) CHECK((d.masked[static_cast<size_t>(k)] != 0) == (fed[static_cast<size_t>(k)] == c.tgt_specials.mask));
      REQUIRE(d.self_attention.size() == static_cast<size_t>(L * H * n * n));
      CHECK(worst_row_sum(d.self_attention, n) <= 1e-5);
      double worst = 0;
      for (int l = 0; l < L; ++l)
        for (int hd = 0; hd < H; ++hd)
          for (int q = 0; q < n; ++q)
            for (int k = 0; k < n; ++k)
              worst = std::max(worst, std::abs(ref["dec_self_attn"][l][hd][q][k].get<double>() - at(d.self_attention, H, n, n, l, hd, q, k)));
      CHECK(worst <= tol);
    }
  });
}

TEST_CASE("self-attention is absent with attention off, and for the RNN", "[self-attention]") {
  auto decode = [](const std::string& file, DecodingOptions o) {
    Session session(Model::from_file(fixture_path(file)), o);
    session.start("BEAD");
    std::vector<Snapshot> steps;
    while (!session.done()) steps.push_back(session.step());
    return steps;
  };
  auto no_self_attention = [](const std::vector<Snapshot>& steps) {
    for (const Snapshot& s : steps) {
      CHECK(s.encoder_attention.empty());
      CHECK(s.encoder_layers == 0);
      for (const auto* list : {&s.live, &s.finished})
        for (const auto& h : *list) CHECK(h.self_attention.empty());
      for (const auto& d : s.drafts) CHECK(d.self_attention.empty());
    }
  };
  DecodingOptions off;
  off.attention = false;
  off.strategy = Strategy::Beam;
  off.min_length = 2;
  no_self_attention(decode("ar_post_sin_tied_relu.safetensors", off));
  off.strategy = Strategy::Nar;
  const auto nar = decode("cmlm_pre_sin_tied_relu.safetensors", off);
  no_self_attention(nar);
  for (const auto& d : nar.back().drafts) CHECK(d.attention.empty());

  DecodingOptions on;
  on.strategy = Strategy::Beam;
  on.min_length = 2;
  const auto rnn = decode("rnn_additive.safetensors", on);  // cross-attention only
  no_self_attention(rnn);
  CHECK(rnn.front().live.front().attention.size() == 4);
}
