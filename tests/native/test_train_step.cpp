// Whole training steps of a tiny Transformer against PyTorch (llm.c's discipline):
// from the same initial model and batch, the loss, every parameter's gradient and
// the parameters after one AdamW step within 1e-5 relative; and 100 steps from
// the same start and batches, the loss curve within 1e-3 relative
// (tests/fixtures/train_step_*, tests/tools/make_train_fixtures.py).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "allocation_count.h"
#include "fixtures.h"
#include "model.h"
#include "model_config.h"
#include "safetensors.h"
#include "train/trainer.h"
#include "train_fixtures.h"

using namespace seq2seq::train;
using seq2seq_test::check_rel;

namespace {

const char* const kStepFixtures[] = {"pre_sin_tied_relu", "post_learned_untied_gelu_noscale"};

struct FileBytes {
  std::vector<uint8_t> bytes;
  seq2seq::SafetensorsFile file;
  explicit FileBytes(const std::string& path) : bytes(seq2seq_test::read_bytes(path)), file(seq2seq::parse_safetensors(bytes.data(), bytes.size())) {}
};

TrainingOptions options_of(const nlohmann::json& fx) {
  const auto& o = fx["options"];
  TrainingOptions t;
  t.learning_rate = o["learning_rate"].get<float>();
  t.warmup_steps = o["warmup_steps"];
  t.steps = o["steps"];
  t.lr_decay = LrDecay::Cosine;
  t.final_lr_ratio = o["final_lr_ratio"].get<float>();
  t.beta1 = o["beta1"].get<float>();
  t.beta2 = o["beta2"].get<float>();
  t.adam_eps = o["adam_eps"].get<float>();
  t.weight_decay = o["weight_decay"].get<float>();
  t.clip_norm = o["clip_norm"].get<float>();
  t.label_smoothing = fx["smoothing"].get<float>();
  t.dropout = 0.0f;
  return t;
}

void fill_batch(const nlohmann::json& examples, const seq2seq::ModelConfig& cfg, Batch& b) {
  b.clear();
  for (const auto& e : examples) {
    const auto src = e["source"].get<std::vector<int>>(), tgt = e["target"].get<std::vector<int>>();
    std::vector<int> in{cfg.tgt_specials.bos}, out = tgt;
    in.insert(in.end(), tgt.begin(), tgt.end());
    out.push_back(cfg.tgt_specials.eos);
    b.add(src, in, out);
  }
}

std::vector<float> tensor(const seq2seq::SafetensorsFile& f, const std::string& name) {
  return seq2seq::tensor_to_f32(f.tensors.at(name), name);
}

}  // namespace

TEST_CASE("one training step equals PyTorch: loss, every gradient, the AdamW update", "[train][step][parity]") {
  for (const char* name : kStepFixtures) {
    INFO(name);
    const std::string base = seq2seq_test::fixture_path(std::string("train_step_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const FileBytes model(base + ".safetensors"), grads(base + ".grads.safetensors"), updated(base + ".updated.safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    Trainer t(cfg, options_of(fx), GraphLimits{8, 8, 9});
    t.load_parameters(model.file);
    Batch b;
    fill_batch(fx["batch"], cfg, b);
    const StepStats st = t.step(b);
    CHECK(st.loss == Approx(fx["loss"].get<double>()).epsilon(1e-5));
    CHECK(st.grad_norm == Approx(fx["grad_norm"].get<double>()).epsilon(1e-5));
    // The gradients as they were before clipping: computed again (the step clipped them in place).
    Trainer g(cfg, options_of(fx), GraphLimits{8, 8, 9});
    g.load_parameters(model.file);
    g.compute_gradients(b, true);
    const ParamStore& s = g.params();
    REQUIRE(static_cast<size_t>(s.count()) == fx["parameters"].size());
    for (const auto& n : fx["parameters"]) {
      const std::string pn = n.get<std::string>();
      const int i = s.index(pn);
      REQUIRE(i >= 0);
      const auto want = tensor(grads.file, pn);
      // The key bias's gradient is 0 in exact arithmetic (the softmax undoes a shift
      // of every score of a query): held to its value-bias neighbour's scale.
      const bool key_bias = pn.find("k_proj.bias") != std::string::npos;
      double floor = 1e-30;
      if (key_bias) {
        const std::string v = pn.substr(0, pn.find("k_proj.bias")) + "v_proj.bias";
        floor = seq2seq_test::max_abs(tensor(grads.file, v));
      }
      check_rel(s.grad(i), want, "gradient of " + pn, seq2seq_test::kTrainTol, floor);
      const float* after = t.params().value(t.params().index(pn));
      const auto want_after = tensor(updated.file, pn);
      if (!key_bias) {
        check_rel(after, want_after, "after AdamW: " + pn);
      } else {
        // AdamW's first step moves each parameter by lr * g / (|g| + eps): for a
        // gradient that is rounding noise around 0, by up to lr either way. Both
        // updates stay within that band of the start.
        for (size_t k = 0; k < want_after.size(); ++k) CHECK(std::fabs(after[k] - want_after[k]) <= 2.0 * st.learning_rate);
      }
    }
  }
}

TEST_CASE("100 training steps from the same start and batches: the loss curve within 1e-3 of PyTorch's", "[train][step][parity]") {
  for (const char* name : kStepFixtures) {
    INFO(name);
    const std::string base = seq2seq_test::fixture_path(std::string("train_step_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const FileBytes model(base + ".safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    Trainer t(cfg, options_of(fx), GraphLimits{8, 8, 9});
    t.load_parameters(model.file);
    Batch b;
    const auto& losses = fx["curve"]["losses"];
    double worst = 0;
    for (size_t k = 0; k < losses.size(); ++k) {
      fill_batch(fx["curve"]["batches"][k], cfg, b);
      const double want = losses[k].get<double>();
      const double got = t.step(b).loss;
      worst = std::max(worst, std::fabs(got - want) / want);
    }
    INFO("largest relative difference of the loss over " << losses.size() << " steps: " << worst);
    CHECK(worst <= 1e-3);
    CHECK(t.steps_taken() == 100);
    WARN(name << ": 100 steps, the loss within " << worst << " (relative) of PyTorch's");
  }
}

TEST_CASE("dropout: the backward pass uses the forward's masks (finite differences), and a seed repeats them",
          "[train][step][dropout]") {
  const std::string base = seq2seq_test::fixture_path("train_step_pre_sin_tied_relu");
  const auto fx = seq2seq_test::load_json(base + ".json");
  const FileBytes model(base + ".safetensors");
  const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
  TrainingOptions o = options_of(fx);
  o.dropout = 0.3f;
  o.attention_dropout = 0.2f;
  Trainer t(cfg, o, GraphLimits{8, 8, 9});
  t.load_parameters(model.file);
  Batch b;
  fill_batch(fx["batch"], cfg, b);
  const seq2seq::Random start(99);
  auto loss_at = [&] {
    t.dropout_rng() = start;  // the same masks every time
    const LossSums s = t.compute_gradients(b, true);
    return s.loss / s.tokens;
  };
  const double base_loss = loss_at();
  const std::vector<float> grads = t.params().grads();
  t.dropout_rng() = seq2seq::Random(100);
  const LossSums other = t.compute_gradients(b, true);
  CHECK(other.loss / other.tokens != Approx(base_loss).epsilon(1e-6));  // other masks, another loss
  CHECK(loss_at() == base_loss);  // the seed repeats the masks exactly
  // Central differences on parameters of every kind the masks touch.
  ParamStore& s = t.params();
  int checked = 0;
  for (const char* name : {"src_embed.weight", "encoder.layers.0.self_attn.v_proj.weight", "encoder.layers.1.ffn.fc1.weight",
                           "decoder.layers.0.cross_attn.v_proj.weight", "decoder.layers.1.self_attn.o_proj.bias",
                           "decoder.layers.1.ffn.fc2.weight", "tgt_embed.weight"}) {
    const int i = s.index(name);
    REQUIRE(i >= 0);
    // The entry with the largest gradient: the finite difference is far above f32 noise there.
    size_t best = 0;
    for (size_t k = 0; k < s.tensor(i).size; ++k)
      if (std::fabs(grads[s.tensor(i).offset + k]) > std::fabs(grads[s.tensor(i).offset + best])) best = k;
    float& w = s.value(i)[best];
    const float keep = w, h = 1e-2f;
    w = keep + h;
    const double up = loss_at();
    w = keep - h;
    const double down = loss_at();
    w = keep;
    const double numeric = (up - down) / (2.0 * h), analytic = grads[s.tensor(i).offset + best];
    INFO(name << "[" << best << "]: analytic " << analytic << ", finite difference " << numeric);
    CHECK(std::fabs(numeric - analytic) <= 0.02 * std::fabs(analytic) + 1e-4);
    ++checked;
  }
  CHECK(checked == 7);
}

TEST_CASE("a Transformer step allocates nothing: every buffer is sized when the trainer is built", "[train][step][alloc]") {
  const std::string base = seq2seq_test::fixture_path("train_step_post_learned_untied_gelu_noscale");
  const auto fx = seq2seq_test::load_json(base + ".json");
  const FileBytes model(base + ".safetensors");
  const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
  TrainingOptions o = options_of(fx);
  o.dropout = 0.1f;  // every mask drawn too
  o.attention_dropout = 0.1f;
  Trainer t(cfg, o, GraphLimits{8, 8, 9});
  t.load_parameters(model.file);
  std::vector<Batch> batches(6);
  for (size_t k = 0; k < batches.size(); ++k) fill_batch(fx["curve"]["batches"][k], cfg, batches[k]);
  t.step(batches[0]);
  seq2seq_test::AllocationCount count;
  for (size_t k = 1; k < batches.size(); ++k) t.step(batches[k]);
  CHECK(count.count() == 0);
}
