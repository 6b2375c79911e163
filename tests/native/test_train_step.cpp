// Whole training steps of a tiny Transformer against PyTorch (llm.c's discipline):
// from the same initial model and batch, the loss, every parameter's gradient and
// the parameters after one AdamW step within 1e-5 relative; and 100 steps from
// the same start and batches, the loss curve within 1e-3 relative
// (tests/fixtures/train_step_*, tests/tools/make_train_fixtures.py); the same
// under scheduled sampling's two passes, with the engine's draws replayed there.
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
using seq2seq_test::FileBytes;
using seq2seq_test::step_fixture_options;

namespace {

const char* const kStepFixtures[] = {"pre_sin_tied_relu", "post_learned_untied_gelu_noscale"};

// train_step_pre_sin_tied_relu with dropout on (0.3, and 0.2 on the attention weights).
struct DropoutFixture {
  nlohmann::json fx;
  FileBytes model;
  seq2seq::ModelConfig cfg;
  TrainingOptions options;
  DropoutFixture()
      : fx(seq2seq_test::load_json(seq2seq_test::fixture_path("train_step_pre_sin_tied_relu.json"))),
        model(seq2seq_test::fixture_path("train_step_pre_sin_tied_relu.safetensors")),
        cfg(seq2seq::parse_model_config(model.file.metadata.at("config"))),
        options(step_fixture_options(fx)) {
    options.dropout = 0.3f;
    options.attention_dropout = 0.2f;
  }
};

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

// Every parameter's gradient (`g`'s, before clipping) and value after the update
// (`t`'s) against a fixture's. The key bias's gradient is 0 in exact arithmetic
// (the softmax undoes a shift of every score of a query): held to its value-bias
// neighbour's scale; AdamW's first move of such rounding noise is up to the
// learning rate either way, so its update is held to that band.
void check_step(const ParamStore& g, const ParamStore& t, const FileBytes& grads, const FileBytes& updated, float lr) {
  REQUIRE(g.count() == static_cast<int>(grads.file.tensors.size()));
  for (const ParamTensor& pt : g.tensors()) {
    const std::string& pn = pt.name;
    const auto want = tensor(grads.file, pn);
    const bool key_bias = pn.find("k_proj.bias") != std::string::npos;
    double floor = 1e-30;
    if (key_bias) floor = seq2seq_test::max_abs(tensor(grads.file, pn.substr(0, pn.find("k_proj.bias")) + "v_proj.bias"));
    check_rel(g.grad(g.index(pn)), want, "gradient of " + pn, seq2seq_test::kTrainTol, floor);
    const float* after = t.value(t.index(pn));
    const auto want_after = tensor(updated.file, pn);
    if (!key_bias) {
      check_rel(after, want_after, "after AdamW: " + pn);
    } else {
      for (size_t k = 0; k < want_after.size(); ++k) CHECK(std::fabs(after[k] - want_after[k]) <= 2.0 * lr);
    }
  }
}

const char* const kSamplingFixtures[] = {"ss_pre_sin_tied_relu", "ss_post_learned_untied_gelu_noscale"};

TrainingOptions sampling_options_of(const nlohmann::json& fx) {
  TrainingOptions t = step_fixture_options(fx);
  const auto& o = fx["options"];
  REQUIRE(from_string(o["scheduled_sampling"].get<std::string>(), t.scheduled_sampling));
  REQUIRE(from_string(o["sampling_token"].get<std::string>(), t.sampling_token));
  t.sampling_midpoint = o["sampling_midpoint"];
  t.sampling_min = o["sampling_min"].get<float>();
  return t;
}

// The tokens the decoder read in the last pass, example by example.
std::vector<std::vector<int>> inputs_read(const Trainer& t, const Batch& b) {
  std::vector<std::vector<int>> out;
  for (int e = 0; e < b.size; ++e) {
    const int* p = t.decoder_inputs() + b.dec_off[static_cast<size_t>(e)];
    out.emplace_back(p, p + b.dec_len[static_cast<size_t>(e)]);
  }
  return out;
}

}  // namespace

TEST_CASE("one training step equals PyTorch: loss, every gradient, the AdamW update", "[train][step][parity]") {
  for (const char* name : kStepFixtures) {
    INFO(name);
    const std::string base = seq2seq_test::fixture_path(std::string("train_step_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const FileBytes model(base + ".safetensors"), grads(base + ".grads.safetensors"), updated(base + ".updated.safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    Trainer t(cfg, step_fixture_options(fx), GraphLimits{8, 8, 9});
    t.load_parameters(model.file);
    Batch b;
    fill_batch(fx["batch"], cfg, b);
    const StepStats st = t.step(b);
    CHECK(st.loss == Approx(fx["loss"].get<double>()).epsilon(1e-5));
    CHECK(st.grad_norm == Approx(fx["grad_norm"].get<double>()).epsilon(1e-5));
    // The gradients as they were before clipping: computed again (the step clipped them in place).
    Trainer g(cfg, step_fixture_options(fx), GraphLimits{8, 8, 9});
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
    Trainer t(cfg, step_fixture_options(fx), GraphLimits{8, 8, 9});
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

TEST_CASE("scheduled sampling, two passes: one step equals PyTorch's on the same draws (inputs read, loss, every gradient, AdamW)",
          "[train][step][parity][sampling]") {
  for (const char* name : kSamplingFixtures) {
    INFO(name);
    const auto fx = seq2seq_test::load_json(seq2seq_test::fixture_path(std::string("train_step_") + name + ".json"));
    const auto batches = seq2seq_test::load_json(seq2seq_test::fixture_path(fx["batches"].get<std::string>()));
    const std::string base = seq2seq_test::fixture_path(std::string("train_step_") + name);
    const FileBytes model(seq2seq_test::fixture_path(fx["model"].get<std::string>()));
    const FileBytes grads(base + ".grads.safetensors"), updated(base + ".updated.safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    const TrainingOptions o = sampling_options_of(fx);
    REQUIRE(o.scheduled_sampling != SamplingSchedule::Off);
    Trainer t(cfg, o, GraphLimits{8, 8, 9});
    t.load_parameters(model.file);
    t.sampling_rng() = seq2seq::Random(fx["draw_seed"].get<uint64_t>());
    Batch b;
    fill_batch(batches["batch"], cfg, b);
    const auto& st = fx["step"];
    const LossSums s = t.compute_gradients(b, true, st["epsilon"].get<double>());
    CHECK(s.loss / s.tokens == Approx(st["loss"].get<double>()).epsilon(1e-5));
    // What the second pass read: the true tokens where the coin said so, the first
    // pass's own tokens elsewhere, row for row as PyTorch mixed them.
    CHECK(inputs_read(t, b) == st["fed"].get<std::vector<std::vector<int>>>());
    const std::vector<float> before_clipping = t.params().grads();
    const StepStats up = t.update(s);
    CHECK(up.own_tokens == st["own_tokens"].get<int>());
    CHECK(up.own_tokens > 0);
    CHECK(up.true_token_probability == st["epsilon"].get<double>());
    CHECK(up.grad_norm == Approx(st["grad_norm"].get<double>()).epsilon(1e-5));
    CHECK(up.learning_rate == Approx(st["lr"].get<double>()).epsilon(1e-6));
    ParamStore g = t.params();  // a copy whose gradients are the step's before clipping
    g.grads() = before_clipping;
    check_step(g, t.params(), grads, updated, up.learning_rate);
  }
}

TEST_CASE("scheduled sampling, two passes: 100 steps under the schedule, the loss within 1e-3 of PyTorch's and the same own tokens",
          "[train][step][parity][sampling]") {
  for (const char* name : kSamplingFixtures) {
    INFO(name);
    const auto fx = seq2seq_test::load_json(seq2seq_test::fixture_path(std::string("train_step_") + name + ".json"));
    const auto batches = seq2seq_test::load_json(seq2seq_test::fixture_path(fx["batches"].get<std::string>()));
    const FileBytes model(seq2seq_test::fixture_path(fx["model"].get<std::string>()));
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    Trainer t(cfg, sampling_options_of(fx), GraphLimits{8, 8, 9});
    t.load_parameters(model.file);
    t.sampling_rng() = seq2seq::Random(fx["draw_seed"].get<uint64_t>());
    const auto& curve = fx["curve"];
    REQUIRE(curve["losses"].size() == 100);
    Batch b;
    double worst = 0;
    int own = 0, own_want = 0;
    for (size_t k = 0; k < 100; ++k) {
      fill_batch(batches["curve"]["batches"][k], cfg, b);
      const StepStats st = t.step(b);
      CHECK(std::fabs(st.true_token_probability - curve["epsilons"][k].get<double>()) <= 1e-12);
      CHECK(st.own_tokens == curve["own_tokens"][k].get<int>());
      own += st.own_tokens;
      own_want += curve["own_tokens"][k].get<int>();
      const double want = curve["losses"][k].get<double>();
      worst = std::max(worst, std::fabs(st.loss - want) / want);
    }
    INFO("largest relative difference of the loss over 100 steps: " << worst);
    CHECK(worst <= 1e-3);
    CHECK(own == own_want);
    CHECK(curve["losses"][99].get<double>() < 0.7 * curve["losses"][0].get<double>());  // it learned
    WARN(name << ": 100 two-pass steps, the loss within " << worst << " (relative) of PyTorch's; own tokens read: " << own);
  }
}

TEST_CASE("scheduled sampling, two passes: the second pass keeps the first's dropout masks; epsilon 1 is teacher forcing, "
          "epsilon 0 reads every own token",
          "[train][step][sampling]") {
  const DropoutFixture f;
  Batch b;
  fill_batch(f.fx["batch"], f.cfg, b);
  const int rows = b.dec_rows(), V = static_cast<int>(f.cfg.tgt_vocab.size());

  // The decoder again over the very inputs, with the masks in place: the same logits to the bit.
  Trainer g(f.cfg, f.options, GraphLimits{8, 8, 9});
  g.load_parameters(f.model.file);
  seq2seq::Random rng(99);
  g.graph().forward(b, &rng);
  const std::vector<float> once(g.graph().logits(), g.graph().logits() + static_cast<size_t>(rows) * V);
  g.graph().decode_again(b, b.dec_in.data());
  CHECK(std::equal(once.begin(), once.end(), g.graph().logits()));
  rng = seq2seq::Random(100);  // other masks: other logits (the check above can fail)
  g.graph().forward(b, &rng);
  CHECK_FALSE(std::equal(once.begin(), once.end(), g.graph().logits()));

  // Epsilon 1: every row reads its true token, and the step is teacher forcing's to the bit.
  TrainingOptions so = f.options;
  so.scheduled_sampling = SamplingSchedule::Linear;
  so.sampling_token = SampledToken::Argmax;
  Trainer tf(f.cfg, f.options, GraphLimits{8, 8, 9}), ss(f.cfg, so, GraphLimits{8, 8, 9});
  tf.load_parameters(f.model.file);
  ss.load_parameters(f.model.file);
  tf.dropout_rng() = seq2seq::Random(7);
  ss.dropout_rng() = seq2seq::Random(7);
  const LossSums a = tf.compute_gradients(b, true), c = ss.compute_gradients(b, true, 1.0);
  CHECK(a.loss == c.loss);
  CHECK(tf.params().grads() == ss.params().grads());
  CHECK(std::equal(b.dec_in.begin(), b.dec_in.end(), ss.decoder_inputs()));
  CHECK(ss.update(c).own_tokens == 0);

  // Epsilon 0, argmax: after BOS, every row reads the argmax of the teacher-forced
  // logits (the same masks: the dropout generator restarted) at the row before.
  tf.dropout_rng() = seq2seq::Random(8);
  ss.dropout_rng() = seq2seq::Random(8);
  tf.compute_gradients(b, true);
  const std::vector<float> first(tf.graph().logits(), tf.graph().logits() + static_cast<size_t>(rows) * V);
  ss.compute_gradients(b, true, 0.0);
  int differ = 0;
  for (int e = 0; e < b.size; ++e) {
    const int r0 = b.dec_off[static_cast<size_t>(e)];
    CHECK(ss.decoder_inputs()[r0] == f.cfg.tgt_specials.bos);
    for (int r = r0 + 1; r < r0 + b.dec_len[static_cast<size_t>(e)]; ++r) {
      const float* row = first.data() + static_cast<size_t>(r - 1) * V;
      const int argmax = static_cast<int>(std::max_element(row, row + V) - row);
      CHECK(ss.decoder_inputs()[r] == argmax);
      differ += argmax != b.dec_in[static_cast<size_t>(r)];
    }
  }
  CHECK(differ > 0);
  CHECK(ss.update(LossSums{}).own_tokens == differ);
}

TEST_CASE("dropout: the backward pass uses the forward's masks (finite differences), and a seed repeats them",
          "[train][step][dropout]") {
  const DropoutFixture f;
  Trainer t(f.cfg, f.options, GraphLimits{8, 8, 9});
  t.load_parameters(f.model.file);
  Batch b;
  fill_batch(f.fx["batch"], f.cfg, b);
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
  TrainingOptions o = step_fixture_options(fx);
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
  // Scheduled sampling's two passes too, drawing its own tokens.
  for (SampledToken how : {SampledToken::Sample, SampledToken::Argmax}) {
    o.scheduled_sampling = SamplingSchedule::Exponential;
    o.sampling_midpoint = 1;
    o.sampling_token = how;
    Trainer s(cfg, o, GraphLimits{8, 8, 9});
    s.load_parameters(model.file);
    s.step(batches[0]);
    seq2seq_test::AllocationCount sampled;
    int own = 0;
    for (size_t k = 1; k < batches.size(); ++k) own += s.step(batches[k]).own_tokens;
    CHECK(sampled.count() == 0);
    CHECK(own > 0);
  }
}
