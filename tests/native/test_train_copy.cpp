// The copy mechanism's training against PyTorch autograd
// (tests/tools/make_copy_train_fixtures.py): its pieces alone (src/train/copy_mix.h,
// train_copy_layers.json: the context of the copy attention, the gate, the mixed
// log-probabilities and the label-smoothed loss of a batch of two examples with
// extended vocabularies of their own, and the gradient of that loss with respect to
// the logits, the copy attention (through the mix and through the context), the
// encoder output, the decoder state and input and the gate's parameters), and one
// whole training step of a word-level copy Transformer and of a copy RNN
// (train_copy_step_transformer, train_copy_step_rnn: the loss, every parameter's
// gradient and the AdamW update), each within 1e-5
// relative; the trained model exported is a copy model that decodes as it trained.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "copy.h"
#include "fixtures.h"
#include "model_access.h"
#include "network.h"
#include "safetensors.h"
#include "session.h"
#include "train/copy_mix.h"
#include "train/loss.h"
#include "train/trainer.h"
#include "train_fixtures.h"

using namespace seq2seq;
using namespace seq2seq::train;
using namespace seq2seq_test;

namespace {

std::vector<float> floats(const nlohmann::json& j) {
  std::vector<float> v;
  for (const auto& x : j) v.push_back(x.get<float>());
  return v;
}

void check_close(const std::vector<float>& got, const nlohmann::json& ref, const std::string& what) {
  REQUIRE(got.size() == ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = ref[i].get<double>();
    INFO(what << " element " << i << ": got " << got[i] << ", want " << want);
    REQUIRE(std::fabs(got[i] - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
  }
}

}  // namespace

TEST_CASE("the copy mechanism's forward and backward pieces match PyTorch autograd", "[train][copy]") {
  const auto fx = load_json(fixture_path("train_copy_layers.json"));
  const int V = fx["V"].get<int>();
  const GateWidths g{fx["widths"][0].get<int>(), fx["widths"][1].get<int>(), fx["widths"][2].get<int>()};
  const std::vector<float> w = floats(fx["gate_weight"]);
  const float b = fx["gate_bias"][0].get<float>();
  const float scale = 1.0f / fx["tokens"].get<float>();
  std::vector<float> dw(w.size(), 0.0f);
  float db = 0;
  double loss = 0;
  int tokens = 0;
  for (size_t e = 0; e < fx["examples"].size(); ++e) {
    INFO("example " << e);
    const auto& ex = fx["examples"][e];
    const int T = ex["rows"].get<int>(), S = ex["S"].get<int>(), W = ex["W"].get<int>();
    const std::vector<int> ids = ex["ids"].get<std::vector<int>>(), targets = ex["targets"].get<std::vector<int>>();
    const std::vector<float> logits = floats(ex["logits"]), attention = floats(ex["attention"]), memory = floats(ex["memory"]),
                             state = floats(ex["state"]), input = floats(ex["input"]);
    std::vector<float> scratch(static_cast<size_t>(2 * W));
    const CopyShape shape{T, V, S, W, ids.data(), scratch.data()};

    // Forward: the context, the gate, the vocabulary's log-softmax and the mix.
    std::vector<float> context(static_cast<size_t>(T * g.C)), gate(static_cast<size_t>(T)), lpv(static_cast<size_t>(T * V)),
        lp(static_cast<size_t>(T * W));
    copy_context_forward(attention.data(), memory.data(), T, S, g.C, context.data());
    check_close(context, ex["context"], "context");
    copy_gate_forward(context.data(), state.data(), input.data(), T, g, w.data(), b, gate.data());
    check_close(gate, ex["gate"], "gate");
    log_softmax_rows(logits.data(), T, V, lpv.data());
    copy_mix_forward(lpv.data(), gate.data(), attention.data(), shape, lp.data());
    check_close(lp, ex["log_probs"], "log P");

    // The loss, then backward in reverse.
    std::vector<float> dlp(lp.size()), dlpv(lpv.size()), dlogits(logits.size()), dgate(gate.size()), dattention(attention.size()),
        dcontext(context.size(), 0.0f), dmemory(memory.size(), 0.0f), dstate(state.size(), 0.0f), dinput(input.size(), 0.0f);
    const LossSums sums = smoothed_nll(lp.data(), T, V, targets.data(), fx["ignore"].get<int>(), fx["smoothing"].get<float>(),
                                       scale, dlp.data(), W);
    loss += sums.loss;
    tokens += sums.tokens;
    copy_mix_backward(lpv.data(), gate.data(), attention.data(), lp.data(), dlp.data(), shape, dlpv.data(), dgate.data(),
                      dattention.data());
    log_softmax_backward(lpv.data(), dlpv.data(), T, V, dlogits.data());
    copy_gate_backward(dgate.data(), context.data(), state.data(), input.data(), T, g, w.data(), dw.data(), &db,
                       dcontext.data(), dstate.data(), dinput.data());
    copy_context_backward(dcontext.data(), attention.data(), memory.data(), T, S, g.C, dattention.data(), dmemory.data());
    check_close(dlogits, ex["grads"]["logits"], "d logits");
    check_close(dattention, ex["grads"]["attention"], "d attention");
    check_close(dmemory, ex["grads"]["memory"], "d memory");
    check_close(dstate, ex["grads"]["state"], "d state");
    check_close(dinput, ex["grads"]["input"], "d input");
  }
  CHECK(tokens == fx["tokens"].get<int>());
  CHECK(loss / tokens == Approx(fx["loss"].get<double>()).epsilon(1e-5));
  check_close(dw, fx["grads"]["gate_weight"], "d gate weight");
  check_close({db}, fx["grads"]["gate_bias"], "d gate bias");
}

TEST_CASE("the copy loss: a copy-only target, ignored rows, and the smoothing over the target vocabulary", "[train][copy]") {
  // Two rows over V = 3 and one copy-only token (W = 4); the second row is ignored.
  const float lp[8] = {std::log(0.5f), std::log(0.2f), std::log(0.1f), std::log(0.2f),
                       -std::numeric_limits<float>::infinity(), 0, 0, 0};
  const int targets[2] = {3, -1};
  float d[8];
  const LossSums s = smoothed_nll(lp, 2, 3, targets, -1, 0.3f, 1.0f, d, 4);
  CHECK(s.tokens == 1);
  CHECK(s.correct == 0);  // the argmax is token 0
  CHECK(s.loss == Approx(-(0.7 * std::log(0.2) + 0.1 * (std::log(0.5) + std::log(0.2) + std::log(0.1)))));
  CHECK(d[3] == Approx(-0.7f));
  CHECK(d[0] == Approx(-0.1f));
  for (int k = 4; k < 8; ++k) CHECK(d[k] == 0.0f);  // the ignored row: no gradient, -infinity or not
}

namespace {

// The fixture's batch: <s> and the target read (a copied token past the vocabulary as
// <unk>), the target and </s> predicted, each source with its copy ids.
void copy_batch(const nlohmann::json& examples, const ModelConfig& cfg, Batch& b) {
  b.clear();
  const int V = static_cast<int>(cfg.tgt_vocab.size());
  for (const auto& e : examples) {
    const auto src = e["source"].get<std::vector<int>>(), tgt = e["target"].get<std::vector<int>>();
    const auto ids = e["copy_ids"].get<std::vector<int>>();
    std::vector<int> in{cfg.tgt_specials.bos}, out = tgt;
    for (int t : tgt) in.push_back(t >= V ? cfg.tgt_specials.unk : t);
    out.push_back(cfg.tgt_specials.eos);
    b.add(src, in, out, &ids, e["copy_extra"].get<int>());
  }
}

std::vector<float> tensor_of(const SafetensorsFile& f, const std::string& name) { return tensor_to_f32(f.tensors.at(name), name); }

}  // namespace

TEST_CASE("one training step of a copy Transformer and of a copy RNN equals PyTorch: loss, every gradient, the AdamW update",
          "[train][copy][step]") {
  const std::string arch = GENERATE(as<std::string>{}, "transformer", "rnn");
  INFO(arch);
  const std::string base = fixture_path("train_copy_step_" + arch);
  const auto fx = load_json(base + ".json");
  const FileBytes model(base + ".safetensors"), grads(base + ".grads.safetensors"), updated(base + ".updated.safetensors");
  const ModelConfig cfg = parse_model_config(model.file.metadata.at("config"));
  REQUIRE(cfg.copy);
  REQUIRE((cfg.arch == Arch::Rnn) == (arch == "rnn"));
  const GraphLimits limits{4, 4, 4};
  Batch b;
  copy_batch(fx["batch"], cfg, b);
  REQUIRE(std::any_of(b.target.begin(), b.target.end(), [&](int y) { return y >= static_cast<int>(cfg.tgt_vocab.size()); }));
  // The gradients before clipping.
  Trainer g(cfg, step_fixture_options(fx), limits);
  g.load_parameters(model.file);
  const LossSums sums = g.compute_gradients(b, true);
  CHECK(sums.loss / sums.tokens == Approx(fx["loss"].get<double>()).epsilon(1e-5));
  const ParamStore& s = g.params();
  REQUIRE(static_cast<size_t>(s.count()) == fx["parameters"].size());
  Trainer t(cfg, step_fixture_options(fx), limits);
  t.load_parameters(model.file);
  const StepStats st = t.step(b);
  CHECK(st.grad_norm == Approx(fx["grad_norm"].get<double>()).epsilon(1e-5));
  for (const auto& n : fx["parameters"]) {
    const std::string pn = n.get<std::string>();
    const int i = s.index(pn);
    REQUIRE(i >= 0);
    // The key bias's gradient is 0 in exact arithmetic: held to its value-bias neighbour's scale (test_train_step.cpp).
    const bool key_bias = pn.find("k_proj.bias") != std::string::npos;
    double floor = 1e-30;
    if (key_bias) floor = max_abs(tensor_of(grads.file, pn.substr(0, pn.find("k_proj.bias")) + "v_proj.bias"));
    check_rel(s.grad(i), tensor_of(grads.file, pn), "gradient of " + pn, kTrainTol, floor);
    const float* after = t.params().value(t.params().index(pn));
    const auto want_after = tensor_of(updated.file, pn);
    if (!key_bias) {
      check_rel(after, want_after, "after AdamW: " + pn);
    } else {
      for (size_t k = 0; k < want_after.size(); ++k) CHECK(std::fabs(after[k] - want_after[k]) <= 2.0 * st.learning_rate);
    }
  }
  // The copy gate learns: its gradient is there and not negligible.
  CHECK(max_abs(tensor_of(grads.file, "copy_gate.weight")) > 1e-3);

  // Exported, the trained model is a copy model whose decoding reads the distribution it trained on:
  // the engine's log-probability of each target token, teacher-forced, is what the trainer's loss saw.
  const std::vector<uint8_t> bytes = t.export_model(ExportStorage::F32);
  const auto trained = Model::from_buffer(bytes.data(), bytes.size(), Compute::F32);
  REQUIRE(trained->config().copy);
  Batch one;
  const auto& e = fx["batch"][1];  // "my name is kuroro" -> "hello kuroro"
  copy_batch(nlohmann::json::array({e}), cfg, one);
  TrainingOptions plain = step_fixture_options(fx);
  plain.label_smoothing = 0.0f;
  Trainer unsmoothed(cfg, plain, limits);
  unsmoothed.load_parameters(parse_safetensors(bytes.data(), bytes.size()));
  const LossSums l = unsmoothed.compute_gradients(one, false);
  const ForcedScore f = Session(trained, DecodingOptions{}).score("my name is kuroro", "hello kuroro");
  CHECK(f.text == "hello kuroro");
  CHECK(-f.logprob == Approx(l.loss).epsilon(1e-5));
}

TEST_CASE("a copy model's batch: copy ids for every example, vocabulary ids read by the decoder", "[train][copy]") {
  const FileBytes model(fixture_path("train_copy_step_transformer.safetensors"));
  const ModelConfig cfg = parse_model_config(model.file.metadata.at("config"));
  Trainer t(cfg, TrainingOptions{}, GraphLimits{4, 4, 4});
  Batch b;
  b.add({2, 3}, {2, 4}, {4, 3});  // no copy ids
  CHECK_THROWS_WITH(t.compute_gradients(b, false), Catch::Contains("copy ids"));
  b.clear();
  const std::vector<int> ids{8, 5};
  b.add({2, 5}, {2, 8}, {8, 3}, &ids, 1);  // the decoder fed the copy-only id 8, not <unk>
  CHECK_THROWS_WITH(t.compute_gradients(b, false), Catch::Contains("vocabulary ids"));
  CHECK_THROWS_WITH(b.add({2, 5}, {2}, {3}), Catch::Contains("every example"));
  const std::vector<int> short_ids{8};
  CHECK_THROWS_WITH(b.add({2, 5}, {2}, {3}, &short_ids, 1), Catch::Contains("differ in length"));
  // A copy RNN copies through its attention, and its scheduled sampling would draw from the mix: without
  // attention, or with scheduled sampling, it is refused before anything is built.
  ModelConfig rnn = cfg;
  rnn.arch = Arch::Rnn;
  rnn.cell = RnnCell::Gru;
  rnn.emb_dim = 4, rnn.enc_hidden = 4, rnn.dec_hidden = 8, rnn.enc_layers = 1, rnn.attention = AttentionScore::Dot;
  CHECK_NOTHROW(Trainer(rnn, TrainingOptions{}, GraphLimits{4, 4, 4}));
  TrainingOptions sampling;
  sampling.arch = TrainArch::Rnn;
  sampling.scheduled_sampling = SamplingSchedule::Linear;
  CHECK_THROWS_WITH(Trainer(rnn, sampling, GraphLimits{4, 4, 4}), Catch::Contains("not a copy model's mix"));
  rnn.attention = AttentionScore::None;
  CHECK_THROWS_WITH(Trainer(rnn, TrainingOptions{}, GraphLimits{4, 4, 4}), Catch::Contains("attention 'none' has none"));
}

