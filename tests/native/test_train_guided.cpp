// Guided attention (src/train/guided_attention.h, docs/training.md "Guided
// attention") against PyTorch autograd (llm.c's discipline; tests/fixtures/train_ga_*,
// tests/tools/train_ga_fixtures.py): the penalty and its gradient alone, then whole
// steps with the penalty in the loss — the cross-entropy, the penalty, every
// parameter's gradient and the AdamW update — for the Transformer (one layer and
// head; every layer and head) and the RNN (additive and dot scores), and 30 steps
// from the same start. Then the rules between its options, and what it does: the
// penalty falls under training where the run without it leaves it high.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "allocation_count.h"
#include "fixtures.h"
#include "model_config.h"
#include "random.h"
#include "safetensors.h"
#include "train/guided_attention.h"
#include "train/run.h"
#include "train/tasks.h"
#include "train/trainer.h"
#include "train_fixtures.h"

using namespace seq2seq::train;
using seq2seq_test::check_rel;
using seq2seq_test::FileBytes;
using seq2seq_test::flat;

namespace {

std::vector<float> tensor(const seq2seq::SafetensorsFile& f, const std::string& name) {
  return seq2seq::tensor_to_f32(f.tensors.at(name), name);
}

TrainingOptions options_of(const nlohmann::json& o, bool rnn) {
  TrainingOptions t;
  t.arch = rnn ? TrainArch::Rnn : TrainArch::Transformer;
  seq2seq_test::read_optimizer_options(o, t);
  REQUIRE(from_string(o["lr_decay"].get<std::string>(), t.lr_decay));
  t.label_smoothing = o["label_smoothing"].get<float>();
  t.dropout = 0.0f;
  t.guided_attention_weight = o["guided_attention_weight"].get<float>();
  t.guided_attention_width = o["guided_attention_width"].get<float>();
  if (!rnn) {
    t.guided_attention_layer = o["guided_attention_layer"];
    t.guided_attention_head = o["guided_attention_head"];
  }
  return t;
}

// The Transformer fixtures' examples: {source, target}; the RNN's: [source, decoder input, targets].
void fill_batch(const nlohmann::json& examples, const seq2seq::ModelConfig& cfg, bool rnn, Batch& b) {
  b.clear();
  for (const auto& e : examples) {
    if (rnn) {
      b.add(e[0].get<std::vector<int>>(), e[1].get<std::vector<int>>(), e[2].get<std::vector<int>>());
      continue;
    }
    const auto src = e["source"].get<std::vector<int>>(), tgt = e["target"].get<std::vector<int>>();
    std::vector<int> in{cfg.tgt_specials.bos}, out = tgt;
    in.insert(in.end(), tgt.begin(), tgt.end());
    out.push_back(cfg.tgt_specials.eos);
    b.add(src, in, out);
  }
}

const char* const kCases[] = {"transformer_layer1_head0", "transformer_all", "rnn_additive", "rnn_dot"};
const GraphLimits kLimits{4, 8, 9};  // the fixtures' batches: 4 examples, sources of 2 to 7 tokens

// A train_ga_* fixture and a trainer built from its options, its parameters loaded.
struct GuidedCase {
  bool rnn;
  std::string base;
  nlohmann::json fx;
  FileBytes model;
  seq2seq::ModelConfig cfg;
  Trainer trainer;
  explicit GuidedCase(const char* name)
      : rnn(std::string(name).rfind("rnn", 0) == 0),
        base(seq2seq_test::fixture_path(std::string("train_ga_") + name)),
        fx(seq2seq_test::load_json(base + ".json")),
        model(base + ".safetensors"),
        cfg(seq2seq::parse_model_config(model.file.metadata.at("config"))),
        trainer(cfg, options_of(fx["options"], rnn), kLimits) {
    trainer.load_parameters(model.file);
  }
};

}  // namespace

TEST_CASE("guided attention alone: W(n, t) and the penalty's gradient equal autograd's", "[train][guided][parity]") {
  const auto fx = seq2seq_test::load_json(seq2seq_test::fixture_path("train_ga_penalty.json"));
  for (const auto& c : fx["cases"]) {
    const int T = c["T"], N = c["N"];
    INFO("T " << T << ", N " << N);
    std::vector<float> w(static_cast<size_t>(T) * N);
    guided_attention_weights(T, N, c["width"].get<float>(), w.data());
    const std::vector<float> want_w = flat(c["W"]);
    // W is 0 on the diagonal: its error is held to the matrix's largest entry.
    check_rel(w, want_w, "W");
    // In a padded layout (row stride N + 3), with a gradient to add to.
    const size_t ld = static_cast<size_t>(N) + 3;
    const std::vector<float> probs = flat(c["probs"]);
    std::vector<float> A(static_cast<size_t>(T) * ld, 0.5f), dA(A.size(), 0.25f);
    for (int t = 0; t < T; ++t) {
      std::copy_n(probs.begin() + t * N, N, A.begin() + static_cast<long>(t * ld));
      std::fill_n(dA.begin() + static_cast<long>(t * ld), N, 0.0f);
    }
    const float lambda = c["weight"].get<float>();
    const double p = guided_attention_matrix(A.data(), T, N, ld, w.data(), lambda / static_cast<float>(T), dA.data());
    CHECK(p == Approx(c["penalty"].get<double>()).epsilon(1e-5));
    std::vector<float> got;
    for (int t = 0; t < T; ++t)
      for (size_t n = 0; n < ld; ++n) {
        const float d = dA[static_cast<size_t>(t) * ld + n];
        if (n < static_cast<size_t>(N)) got.push_back(d);
        else CHECK(d == 0.25f);  // padding: untouched
      }
    check_rel(got, flat(c["dprobs"]), "lambda dP/dA");
  }
}

TEST_CASE("one training step with guided attention equals PyTorch: cross-entropy, penalty, every gradient, the AdamW update",
          "[train][guided][step][parity]") {
  for (const char* name : kCases) {
    INFO(name);
    const bool rnn = std::string(name).rfind("rnn", 0) == 0;
    const std::string base = seq2seq_test::fixture_path(std::string("train_ga_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const FileBytes model(base + ".safetensors"), grads(base + ".grads.safetensors"), updated(base + ".updated.safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    const TrainingOptions o = options_of(fx["options"], rnn);
    Trainer t(cfg, o, kLimits);
    t.load_parameters(model.file);
    REQUIRE(t.guided());
    Batch b;
    fill_batch(fx["batch"], cfg, rnn, b);
    const LossSums s = t.compute_gradients(b, true);
    CHECK(s.loss / s.tokens == Approx(fx["cross_entropy"].get<double>()).epsilon(1e-5));
    CHECK(t.attention_loss() == Approx(fx["penalty"].get<double>()).epsilon(1e-5));
    const ParamStore& p = t.params();
    REQUIRE(static_cast<size_t>(p.count()) == grads.file.tensors.size());
    for (const ParamTensor& pt : p.tensors()) {
      const auto want = tensor(grads.file, pt.name);
      // The key bias's gradient is 0 in exact arithmetic (a shift of every score of
      // a query, which the softmax undoes): held to its value-bias neighbour's scale.
      const size_t k = pt.name.find("k_proj.bias");
      const double floor = k == std::string::npos ? 1e-30 : seq2seq_test::max_abs(tensor(grads.file, pt.name.substr(0, k) + "v_proj.bias"));
      check_rel(p.grad(p.index(pt.name)), want, "gradient of " + pt.name, seq2seq_test::kTrainTol, floor);
    }
    const StepStats st = t.update(s);
    CHECK(st.attention_loss == t.attention_loss());
    CHECK(st.grad_norm == Approx(fx["grad_norm"].get<double>()).epsilon(1e-5));
    CHECK(st.learning_rate == Approx(fx["lr"].get<double>()).epsilon(1e-6));
    for (const ParamTensor& pt : p.tensors()) {
      const auto want = tensor(updated.file, pt.name);
      if (pt.name.find("k_proj.bias") == std::string::npos) {
        check_rel(p.value(p.index(pt.name)), want, "after AdamW: " + pt.name);
      } else {
        // AdamW's first move of a gradient that is rounding noise around 0: up to lr either way.
        const float* after = p.value(p.index(pt.name));
        for (size_t i = 0; i < want.size(); ++i) CHECK(std::fabs(after[i] - want[i]) <= 2.0 * st.learning_rate);
      }
    }
  }
}

TEST_CASE("30 steps with guided attention from the same start and batches: cross-entropy and penalty within 1e-3 of PyTorch's",
          "[train][guided][step][parity]") {
  for (const char* name : kCases) {
    INFO(name);
    GuidedCase c(name);
    const auto& curve = c.fx["curve"];
    Batch b;
    double worst_ce = 0, worst_p = 0;
    for (size_t k = 0; k < curve["batches"].size(); ++k) {
      fill_batch(curve["batches"][k], c.cfg, c.rnn, b);
      const StepStats st = c.trainer.step(b);
      const double ce = curve["cross_entropy"][k].get<double>(), pen = curve["penalty"][k].get<double>();
      worst_ce = std::max(worst_ce, std::fabs(st.loss - ce) / ce);
      worst_p = std::max(worst_p, std::fabs(st.attention_loss - pen) / pen);
    }
    INFO("largest relative difference: cross-entropy " << worst_ce << ", penalty " << worst_p);
    CHECK(worst_ce <= 1e-3);
    CHECK(worst_p <= 1e-3);
    CHECK(c.trainer.steps_taken() == 30);
  }
}

TEST_CASE("a step with guided attention allocates nothing: its buffers are sized when the trainer is built", "[train][guided][alloc]") {
  for (const char* name : kCases) {
    INFO(name);
    GuidedCase c(name);
    std::vector<Batch> batches(4);
    for (size_t k = 0; k < batches.size(); ++k) fill_batch(c.fx["curve"]["batches"][k], c.cfg, c.rnn, batches[k]);
    c.trainer.step(batches[0]);
    seq2seq_test::AllocationCount count;
    for (size_t k = 1; k < batches.size(); ++k) c.trainer.step(batches[k]);
    CHECK(count.count() == 0);
  }
}

TEST_CASE("guided attention's options: the weights it guides must exist, errors name the option and its range",
          "[train][guided][options]") {
  auto error_of = [](const TrainingOptions& o, std::string* option = nullptr) -> std::string {
    try {
      validate(o);
    } catch (const OptionError& e) {
      if (option) *option = e.option;
      return e.what();
    }
    return "";
  };
  std::string name;
  TrainingOptions o;
  o.guided_attention_weight = 1;
  o.guided_attention_layer = 1;
  o.guided_attention_head = 3;
  CHECK(error_of(o).empty());  // the last layer and head of the default 2 layers, 4 heads
  o.guided_attention_layer = 2;
  CHECK(error_of(o, &name) ==
        "training option guided_attention_layer = 2 is outside [-1, 1]: the model has layers = 2 decoder layers, 0 the first (-1: all of them)");
  CHECK(name == "guided_attention_layer");
  o.guided_attention_layer = -1;
  o.guided_attention_head = 4;
  CHECK(error_of(o, &name) == "training option guided_attention_head = 4 is outside [-1, 3]: the model has heads = 4 heads, 0 the first (-1: all of them)");
  CHECK(name == "guided_attention_head");
  o = TrainingOptions{};
  o.arch = TrainArch::Rnn;
  o.attention = TrainAttention::None;
  o.guided_attention_weight = 0.5f;
  CHECK(error_of(o, &name) ==
        "training option guided_attention_weight = 0.5: attention none has no attention weights to guide; the scores dot, multiplicative, reduced_rank and additive have");
  CHECK(name == "guided_attention_weight");
  o.guided_attention_weight = 0;  // off: attention none is fine
  CHECK(error_of(o).empty());
  o.attention = TrainAttention::Additive;
  o.guided_attention_weight = 0.5f;
  CHECK(error_of(o).empty());
  o.guided_attention_layer = 0;
  CHECK(error_of(o, &name) == "training option guided_attention_layer = 0: the RNN has one attention and no layers to choose; leave it at -1");
  CHECK(name == "guided_attention_layer");
  o.guided_attention_layer = -1;
  o.guided_attention_head = 0;
  CHECK(error_of(o, &name) == "training option guided_attention_head = 0: the RNN's attention has no heads; leave it at -1");
  // A trainer of a model file is held to the model, whatever the options' arch says.
  const std::string base = seq2seq_test::fixture_path("train_ga_transformer_all");
  const FileBytes model(base + ".safetensors");
  const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
  TrainingOptions t;
  t.guided_attention_weight = 1;
  t.guided_attention_head = 2;  // within the options' 4 heads, not the model's 2
  CHECK_THROWS_WITH(Trainer(cfg, t, kLimits), "guided attention: layer -1, head 2 of a model of 2 decoder layers and 2 heads");
}

TEST_CASE("guided attention does something: under training the penalty falls, and stays far below a run without it",
          "[train][guided][run]") {
  // Copying 3 to 8 letters, a monotonic alignment; the same seed, batches and start.
  auto options = [](TrainArch arch, float weight) {
    TrainingOptions o = task_defaults(Task::Copy);
    o.arch = arch;
    o.min_length = 3;
    o.max_length = 8;
    seq2seq_test::use_small_model(o);
    o.steps = 160;
    o.warmup_steps = 10;
    o.eval_every = 0;
    o.eval_size = 20;
    o.log_every = 20;
    o.guided_attention_weight = weight;
    return o;
  };
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    INFO(to_string(arch));
    // The penalty of a fixed probe batch, teacher-forced, every layer and head.
    Batch probe;
    {
      const auto task = TaskData::create(options(arch, 0.0f), nullptr);
      const seq2seq::SpecialIds sp = target_special_ids();
      seq2seq::Random rng(7);
      TaskExample ex;
      for (int i = 0; i < 16; ++i) {
        task->draw(rng, ex);
        std::vector<int> in{sp.bos}, out = ex.target;
        in.insert(in.end(), ex.target.begin(), ex.target.end());
        out.push_back(sp.eos);
        probe.add(ex.source, in, out);
      }
    }
    auto probe_penalty = [&](TrainingRun& run) {
      Trainer& t = run.trainer();
      t.compute_gradients(probe, false);
      GuidedAttention ga;  // width 0.2, every layer and head
      std::vector<float> w(64 * 64);
      return arch == TrainArch::Rnn ? rnn_guided_attention(t.rnn_graph(), probe, ga, nullptr, w.data())
                                    : transformer_guided_attention(t.graph(), probe, ga, nullptr, w.data());
    };
    TrainingRun plain(options(arch, 0.0f), nullptr), guided(options(arch, 2.0f), nullptr);
    const double start = probe_penalty(guided);
    CHECK(probe_penalty(plain) == Approx(start).epsilon(1e-12));  // the same start
    std::vector<double> records;
    while (!guided.done()) {
      const ProgressRecord r = guided.step(20);
      REQUIRE(r.guided);
      records.push_back(r.attention_loss);
      plain.step(20);
    }
    const double with = probe_penalty(guided), without = probe_penalty(plain);
    WARN(to_string(arch) << ": probe penalty at the start " << start << "; after 160 steps " << with << " with guided attention, "
                         << without << " without; records " << records.front() << " -> " << records.back());
    CHECK(records.back() < 0.7 * records.front());
    CHECK(with < 0.7 * start);
    CHECK(with < 0.7 * without);
  }
}
