// The RNN encoder-decoder's trainer against PyTorch autograd (llm.c's discipline,
// tests/fixtures/train_rnn_*, tests/tools/train_rnn_fixtures.py): each layer
// alone (the GRU cell, the bidirectional encoder through time, each attention
// score, the output layer), then whole steps — the loss, every parameter's
// gradient and the AdamW update — for every score, with teacher forcing and with
// scheduled sampling on replayed draws, and 100 steps' loss curves.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.h"
#include "model.h"
#include "model_access.h"
#include "rnn.h"
#include "session.h"
#include "model_config.h"
#include "random.h"
#include "safetensors.h"
#include "train/gemm_kernel.h"
#include "train/layers.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/rnn_graph.h"
#include "train/rnn_layers.h"
#include "train/scheduled_sampling.h"
#include "train/run.h"
#include "train/trainer.h"
#include "allocation_count.h"
#include "train_fixtures.h"

using namespace seq2seq::train;
using seq2seq::AttentionScore;
using seq2seq_test::check_rel;
using seq2seq_test::FileBytes;
using seq2seq_test::flat;

namespace {

const nlohmann::json& layers_fixture() {
  static const nlohmann::json fx = seq2seq_test::load_json(seq2seq_test::fixture_path("train_rnn_layers.json"));
  return fx;
}

std::vector<float> tensor(const seq2seq::SafetensorsFile& f, const std::string& name) {
  return seq2seq::tensor_to_f32(f.tensors.at(name), name);
}

seq2seq::ModelConfig config_of(const nlohmann::json& cfg) { return seq2seq::parse_model_config(cfg.dump()); }

// The relative error check over the rows of an example-by-example fixture list.
void check_rows(const float* got, const nlohmann::json& want, const std::string& what) { check_rel(got, flat(want), what); }

}  // namespace

// ---------------------------------------------------------------------------
// Layers alone

TEST_CASE("GRU cell: output and every gradient equal nn.GRUCell's", "[train][rnn][layers]") {
  const auto& fx = layers_fixture()["gru_cell"];
  const int n = fx["rows"], in = fx["in"], H = fx["hidden"];
  const auto w_ih = flat(fx["params"]["weight_ih"]), w_hh = flat(fx["params"]["weight_hh"]);
  const auto b_ih = flat(fx["params"]["bias_ih"]), b_hh = flat(fx["params"]["bias_hh"]);
  const auto x = flat(fx["x"]), h = flat(fx["h"]), dy = flat(fx["dy"]);
  std::vector<float> scratch(gemm_scratch_floats(64, 64, 64));
  std::vector<float> xp(static_cast<size_t>(n) * 3 * H), gh(xp.size()), gates(xp.size()), y(static_cast<size_t>(n) * H);
  linear_forward(x.data(), n, in, w_ih.data(), b_ih.data(), 3 * H, xp.data(), scratch.data());
  linear_forward(h.data(), n, H, w_hh.data(), b_hh.data(), 3 * H, gh.data(), scratch.data());
  gru_forward(xp.data(), 3 * H, gh.data(), h.data(), n, H, gates.data(), y.data());
  check_rel(y, flat(fx["y"]), "h'");

  std::vector<float> dxp(xp.size()), dgh(xp.size()), dh(y.size()), dx(x.size(), 0.0f);
  std::vector<float> dw_ih(w_ih.size(), 0.0f), dw_hh(w_hh.size(), 0.0f), db_ih(b_ih.size(), 0.0f), db_hh(b_hh.size(), 0.0f);
  gru_backward(dy.data(), gates.data(), gh.data(), h.data(), n, H, dxp.data(), 3 * H, dgh.data(), dh.data());
  linear_backward(h.data(), dgh.data(), n, H, 3 * H, w_hh.data(), dh.data(), dw_hh.data(), db_hh.data(), scratch.data());
  linear_backward(x.data(), dxp.data(), n, in, 3 * H, w_ih.data(), dx.data(), dw_ih.data(), db_ih.data(), scratch.data());
  check_rel(dx, flat(fx["dx"]), "dx");
  check_rel(dh, flat(fx["dh"]), "dh");
  check_rel(dw_ih, flat(fx["grads"]["weight_ih"]), "d weight_ih");
  check_rel(dw_hh, flat(fx["grads"]["weight_hh"]), "d weight_hh");
  check_rel(db_ih, flat(fx["grads"]["bias_ih"]), "d bias_ih");
  check_rel(db_hh, flat(fx["grads"]["bias_hh"]), "d bias_hh");
}

TEST_CASE("bidirectional two-layer GRU encoder through time: memory and every gradient equal PyTorch's (packed batch)",
          "[train][rnn][layers]") {
  const auto& fx = layers_fixture()["encoder"];
  const seq2seq::ModelConfig cfg = config_of(fx["config"]);
  ParamStore store;
  RnnGraph g(cfg, GraphLimits{3, 5, 1}, DropoutRates{}, store);
  store.allocate();
  for (const auto& [name, values] : fx["params"].items()) {
    const int i = store.index(name);
    REQUIRE(i >= 0);
    const auto v = flat(values);
    REQUIRE(v.size() == store.tensor(i).size);
    std::copy(v.begin(), v.end(), store.value(i));
  }
  Batch b;
  for (const auto& s : fx["sources"]) b.add(s.get<std::vector<int>>(), {2}, {3});
  g.encoder_forward(b, nullptr);
  check_rows(g.memory(), fx["y"], "memory");
  const auto dy = flat(fx["dy"]);
  REQUIRE(dy.size() == static_cast<size_t>(b.src_rows()) * 2 * cfg.enc_hidden);
  g.encoder_backward(b, dy.data());
  int checked = 0;
  for (const auto& [name, want] : fx["grads"].items()) {
    check_rel(store.grad(store.index(name)), flat(want), "gradient of " + name);
    ++checked;
  }
  CHECK(checked == 17);  // the source embedding and 2 layers x 2 directions x 4 tensors
}

TEST_CASE("attention scores: weights, context and every gradient equal PyTorch's (dot, multiplicative, reduced rank, additive)",
          "[train][rnn][layers]") {
  for (const auto& item : layers_fixture()["attention"].items()) {
    const std::string name = item.key();
    const nlohmann::json& fx = item.value();  // (a structured binding, which lambdas may not capture in C++17)
    INFO(name);
    AttentionScore score = AttentionScore::None;
    for (AttentionScore a : {AttentionScore::Dot, AttentionScore::Multiplicative, AttentionScore::ReducedRank, AttentionScore::Additive})
      if (name == seq2seq::to_string(a)) score = a;
    REQUIRE(score != AttentionScore::None);
    const int H2 = fx["enc2"], D = fx["dec"], A = fx["attn_dim"];
    const int K = score == AttentionScore::Dot ? H2 : score == AttentionScore::Multiplicative ? D : A;
    const auto lengths = fx["lengths"].get<std::vector<int>>();
    const auto s = flat(fx["s"]), dctx = flat(fx["dctx"]);
    std::vector<float> scratch(gemm_scratch_floats(64, 64, 64));
    std::vector<float> p(16);  // the backward pass's scratch
    auto param = [&](const char* n) { return flat(fx["params"][n]); };
    // The key weight (multiplicative W, reduced rank V, additive W1) and the query
    // weight (reduced rank U, additive W2).
    std::vector<float> wk, wq, v;
    if (score == AttentionScore::Multiplicative) wk = param("W.weight");
    if (score == AttentionScore::ReducedRank) wk = param("V.weight"), wq = param("U.weight");
    if (score == AttentionScore::Additive) wk = param("W1.weight"), wq = param("W2.weight"), v = param("v.weight");
    std::vector<float> dwk(wk.size(), 0.0f), dwq(wq.size(), 0.0f), dv(v.size(), 0.0f);
    std::vector<float> got_ctx, got_alpha, got_dmem, got_ds;
    for (size_t i = 0; i < lengths.size(); ++i) {
      const int S = lengths[i];
      const auto mem = flat(fx["memory"][i]);
      const float* si = s.data() + i * static_cast<size_t>(D);
      std::vector<float> keys(static_cast<size_t>(S) * K), q(static_cast<size_t>(K));
      if (wk.empty()) keys = mem;
      else linear_forward(mem.data(), S, H2, wk.data(), nullptr, K, keys.data(), scratch.data());
      if (wq.empty()) std::copy(si, si + D, q.begin());
      else linear_forward(si, 1, D, wq.data(), nullptr, K, q.data(), scratch.data());
      std::vector<float> act(static_cast<size_t>(S) * K), probs(static_cast<size_t>(S)), ctx(static_cast<size_t>(H2));
      rnn_attention_forward(score, S, K, keys.data(), q.data(), v.empty() ? nullptr : v.data(), mem.data(), H2, act.data(),
                            probs.data(), ctx.data());
      got_ctx.insert(got_ctx.end(), ctx.begin(), ctx.end());
      got_alpha.insert(got_alpha.end(), probs.begin(), probs.end());
      const auto dalpha = flat(fx["dalpha"][i]);
      std::vector<float> dq(static_cast<size_t>(K)), dkeys(keys.size(), 0.0f), dmem(mem.size(), 0.0f), ds(static_cast<size_t>(D), 0.0f);
      rnn_attention_backward(score, S, K, keys.data(), q.data(), v.empty() ? nullptr : v.data(), mem.data(), H2, act.data(),
                             probs.data(), dctx.data() + i * static_cast<size_t>(H2), dalpha.data(), dq.data(), dkeys.data(),
                             dmem.data(), dv.empty() ? nullptr : dv.data(), p.data());
      if (wk.empty()) for (size_t k = 0; k < dmem.size(); ++k) dmem[k] += dkeys[k];
      else linear_backward(mem.data(), dkeys.data(), S, H2, K, wk.data(), dmem.data(), dwk.data(), nullptr, scratch.data());
      if (wq.empty()) std::copy(dq.begin(), dq.end(), ds.begin());
      else linear_backward(si, dq.data(), 1, D, K, wq.data(), ds.data(), dwq.data(), nullptr, scratch.data());
      got_dmem.insert(got_dmem.end(), dmem.begin(), dmem.end());
      got_ds.insert(got_ds.end(), ds.begin(), ds.end());
    }
    check_rel(got_ctx, flat(fx["ctx"]), "context");
    check_rel(got_alpha, flat(fx["alpha"]), "weights");
    check_rel(got_dmem, flat(fx["dmemory"]), "d memory");
    check_rel(got_ds, flat(fx["ds"]), "d s");
    if (score == AttentionScore::Multiplicative) check_rel(dwk, flat(fx["grads"]["W.weight"]), "d W");
    if (score == AttentionScore::ReducedRank) {
      check_rel(dwk, flat(fx["grads"]["V.weight"]), "d V");
      check_rel(dwq, flat(fx["grads"]["U.weight"]), "d U");
    }
    if (score == AttentionScore::Additive) {
      check_rel(dwk, flat(fx["grads"]["W1.weight"]), "d W1");
      check_rel(dwq, flat(fx["grads"]["W2.weight"]), "d W2");
      check_rel(dv, flat(fx["grads"]["v.weight"]), "d v");
    }
  }
}

TEST_CASE("output layer on [a ; s]: logits and every gradient equal PyTorch's", "[train][rnn][layers]") {
  const auto& fx = layers_fixture()["output"];
  const int n = fx["rows"], in = fx["in"], out = fx["out"];
  const auto w = flat(fx["params"]["weight"]), bias = flat(fx["params"]["bias"]), x = flat(fx["x"]), dy = flat(fx["dy"]);
  std::vector<float> scratch(gemm_scratch_floats(64, 64, 64)), y(static_cast<size_t>(n) * out);
  linear_forward(x.data(), n, in, w.data(), bias.data(), out, y.data(), scratch.data());
  check_rel(y, flat(fx["y"]), "logits");
  std::vector<float> dx(x.size(), 0.0f), dw(w.size(), 0.0f), db(bias.size(), 0.0f);
  linear_backward(x.data(), dy.data(), n, in, out, w.data(), dx.data(), dw.data(), db.data(), scratch.data());
  check_rel(dx, flat(fx["dx"]), "d [a ; s]");
  check_rel(dw, flat(fx["grads"]["weight"]), "d out.weight");
  check_rel(db, flat(fx["grads"]["bias"]), "d out.bias");
}

// ---------------------------------------------------------------------------
// Whole steps

namespace {

const char* const kStepCases[] = {"dot",    "multiplicative",    "reduced_rank",    "additive",    "none",
                                  "dot_ss", "multiplicative_ss", "reduced_rank_ss", "additive_ss", "none_ss"};

TrainingOptions options_of(const nlohmann::json& fx) {
  const auto& o = fx["options"];
  TrainingOptions t;
  t.arch = TrainArch::Rnn;
  seq2seq_test::read_optimizer_options(o, t);
  REQUIRE(from_string(o["lr_decay"].get<std::string>(), t.lr_decay));
  t.label_smoothing = o["label_smoothing"].get<float>();
  t.batch_size = o["batch_size"];
  REQUIRE(from_string(o["scheduled_sampling"].get<std::string>(), t.scheduled_sampling));
  REQUIRE(from_string(o["sampling_token"].get<std::string>(), t.sampling_token));
  t.sampling_midpoint = o["sampling_midpoint"];
  t.sampling_min = o["sampling_min"].get<float>();
  return t;
}

void fill_batch(const nlohmann::json& examples, Batch& b) {
  b.clear();
  for (const auto& e : examples)
    b.add(e[0].get<std::vector<int>>(), e[1].get<std::vector<int>>(), e[2].get<std::vector<int>>());
}

void* volatile allocation_escape = nullptr;

const GraphLimits kStepLimits{4, 6, 7};  // the fixtures' batches: 4 examples, sources of 2 to 6 letters

}  // namespace

TEST_CASE("one RNN training step equals PyTorch: loss, inputs read, every gradient, the AdamW update", "[train][rnn][step][parity]") {
  for (const char* name : kStepCases) {
    INFO(name);
    const std::string base = seq2seq_test::fixture_path(std::string("train_rnn_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const auto batches = seq2seq_test::load_json(seq2seq_test::fixture_path(fx["batches"].get<std::string>()));
    const FileBytes model(base + ".safetensors"), grads(base + ".grads.safetensors"), updated(base + ".updated.safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    Trainer t(cfg, options_of(fx), kStepLimits);
    t.load_parameters(model.file);
    Batch b;
    fill_batch(batches[0], b);
    t.sampling_rng() = seq2seq::Random(fx["draw_seed"].get<uint64_t>());
    const auto& st = fx["step"];
    const LossSums s = t.compute_gradients(b, true, st["epsilon"].get<double>());
    CHECK(s.loss / s.tokens == Approx(st["loss"].get<double>()).epsilon(1e-5));
    CHECK(s.tokens == st["tokens"].get<int>());
    CHECK(s.correct == st["correct"].get<int>());
    // What the decoder read, row for row: under scheduled sampling, some of its own tokens.
    int own = 0;
    for (int e = 0; e < b.size; ++e) {
      const size_t off = static_cast<size_t>(b.dec_off[static_cast<size_t>(e)]), n = static_cast<size_t>(b.dec_len[static_cast<size_t>(e)]);
      const std::vector<int> got(t.decoder_inputs() + off, t.decoder_inputs() + off + n);
      CHECK(got == st["fed"][static_cast<size_t>(e)].get<std::vector<int>>());
      for (size_t k = 0; k < n; ++k) own += got[k] != b.dec_in[off + k];
    }
    const ParamStore& p = t.params();
    REQUIRE(static_cast<size_t>(p.count()) == grads.file.tensors.size());
    for (const ParamTensor& pt : p.tensors()) check_rel(p.grad(p.index(pt.name)), tensor(grads.file, pt.name), "gradient of " + pt.name);
    const StepStats up = t.update(s);
    CHECK((own > 0) == (options_of(fx).scheduled_sampling != SamplingSchedule::Off));
    CHECK(up.own_tokens == own);
    CHECK(up.true_token_probability == st["epsilon"].get<double>());
    CHECK(up.grad_norm == Approx(st["grad_norm"].get<double>()).epsilon(1e-5));
    CHECK(up.learning_rate == Approx(st["lr"].get<double>()).epsilon(1e-6));
    for (const ParamTensor& pt : p.tensors())
      check_rel(p.value(p.index(pt.name)), tensor(updated.file, pt.name), "after AdamW: " + pt.name);
  }
}

TEST_CASE("100 RNN training steps from the same start and batches: the loss curve within 1e-3 of PyTorch's", "[train][rnn][step][parity]") {
  for (const char* name : kStepCases) {
    INFO(name);
    const std::string base = seq2seq_test::fixture_path(std::string("train_rnn_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const auto batches = seq2seq_test::load_json(seq2seq_test::fixture_path(fx["batches"].get<std::string>()));
    const FileBytes model(base + ".safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    Trainer t(cfg, options_of(fx), kStepLimits);
    t.load_parameters(model.file);
    t.sampling_rng() = seq2seq::Random(fx["draw_seed"].get<uint64_t>());
    Batch b;
    const auto& curve = fx["curve"];
    REQUIRE(curve.size() == 100);
    double worst = 0;
    int own = 0;
    for (size_t k = 0; k < curve.size(); ++k) {
      fill_batch(batches[k], b);
      const StepStats st = t.step(b);
      CHECK(std::fabs(st.true_token_probability - fx["epsilons"][k].get<double>()) <= 1e-12);
      own += st.own_tokens;
      const double want = curve[k].get<double>();
      worst = std::max(worst, std::fabs(st.loss - want) / want);
    }
    INFO("largest relative difference of the loss over 100 steps: " << worst);
    CHECK(worst <= 1e-3);
    CHECK(own == fx["own_tokens"].get<int>());  // the same own tokens read, step by step
    CHECK((own > 0) == (t.options().scheduled_sampling != SamplingSchedule::Off));
    // Learning happened: the last step's loss is well under the first's.
    CHECK(curve[99].get<double>() < 0.85 * curve[0].get<double>());
    WARN(name << ": 100 steps, the loss within " << worst << " (relative) of PyTorch's; own tokens read: " << own);
  }
}

TEST_CASE("an RNN training step allocates nothing: teacher forcing, scheduled sampling, dropout", "[train][rnn][step]") {
  for (const char* name : {"additive", "multiplicative_ss", "none_ss"}) {
    INFO(name);
    const std::string base = seq2seq_test::fixture_path(std::string("train_rnn_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const auto batches = seq2seq_test::load_json(seq2seq_test::fixture_path(fx["batches"].get<std::string>()));
    const FileBytes model(base + ".safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    TrainingOptions o = options_of(fx);
    o.dropout = 0.2f;
    Trainer t(cfg, o, kStepLimits);
    t.load_parameters(model.file);
    std::vector<Batch> bs(3);
    for (size_t k = 0; k < bs.size(); ++k) fill_batch(batches[k], bs[k]);
    t.update(t.compute_gradients(bs[0], true, 0.5));  // a first step, as any run has
    {  // the count sees an allocation (one that escapes, so that no compiler elides it)
      seq2seq_test::AllocationCount probe;
      std::vector<float> one(3);
      allocation_escape = one.data();
      CHECK(probe.count() == 1);
    }
    seq2seq_test::AllocationCount count;
    for (size_t k = 1; k < bs.size(); ++k) t.update(t.compute_gradients(bs[k], true, 0.5));
    CHECK(count.count() == 0);
  }
}

TEST_CASE("RNN dropout: the backward pass uses the forward's masks (finite differences), and a seed repeats them",
          "[train][rnn][step][dropout]") {
  for (const char* name : {"additive", "multiplicative"}) {  // one encoder layer; two, with dropout between them
    INFO(name);
    const std::string base = seq2seq_test::fixture_path(std::string("train_rnn_") + name);
    const auto fx = seq2seq_test::load_json(base + ".json");
    const auto batches = seq2seq_test::load_json(seq2seq_test::fixture_path(fx["batches"].get<std::string>()));
    const FileBytes model(base + ".safetensors");
    const seq2seq::ModelConfig cfg = seq2seq::parse_model_config(model.file.metadata.at("config"));
    TrainingOptions o = options_of(fx);
    o.dropout = 0.3f;
    Trainer t(cfg, o, kStepLimits);
    t.load_parameters(model.file);
    Batch b;
    fill_batch(batches[0], b);
    auto loss_with = [&](uint64_t seed) {
      t.dropout_rng() = seq2seq::Random(seed);
      const LossSums s = t.compute_gradients(b, true);
      return s.loss / s.tokens;
    };
    const double base_loss = loss_with(99);
    const std::vector<float> grads = t.params().grads();
    CHECK(loss_with(100) != Approx(base_loss).epsilon(1e-6));  // other masks, another loss
    CHECK(loss_with(99) == base_loss);                         // the seed repeats the masks exactly
    ParamStore& s = t.params();
    int checked = 0;
    for (const ParamTensor& p : s.tensors()) {
      if (p.name.find("bias") != std::string::npos) continue;
      const int i = s.index(p.name);
      size_t best = 0;  // the entry with the largest gradient: its difference stands far above f32 noise
      for (size_t k = 0; k < p.size; ++k)
        if (std::fabs(grads[p.offset + k]) > std::fabs(grads[p.offset + best])) best = k;
      float& w = s.value(i)[best];
      const float keep = w, h = 1e-2f;
      w = keep + h;
      const double up = loss_with(99);
      w = keep - h;
      const double down = loss_with(99);
      w = keep;
      const double numeric = (up - down) / (2.0 * h), analytic = grads[p.offset + best];
      INFO(p.name << "[" << best << "]: analytic " << analytic << ", finite difference " << numeric);
      CHECK(std::fabs(numeric - analytic) <= 0.02 * std::fabs(analytic) + 1e-4);
      ++checked;
    }
    CHECK(checked >= 9);
  }
}

// ---------------------------------------------------------------------------
// A trained model is a model

namespace {

// A reverse-task example over the letters a-f of the fixtures' vocabularies
// (source ids 2.., target ids 4..): a source of 2 to 5 letters, its target backwards.
void reverse_example(seq2seq::Random& rng, std::string& text, std::vector<int>& src, std::vector<int>& tgt) {
  const int n = 2 + static_cast<int>(rng.next_u64() % 4);
  text.clear();
  src.clear();
  tgt.clear();
  for (int i = 0; i < n; ++i) {
    const int k = static_cast<int>(rng.next_u64() % 6);
    text.push_back(static_cast<char>('a' + k));
    src.push_back(2 + k);
  }
  for (int i = n; i-- > 0;) tgt.push_back(src[static_cast<size_t>(i)] + 2);
}

}  // namespace

TEST_CASE("a trained RNN exports to the model format, loads with Model, and decodes greedy and beam", "[train][rnn][export]") {
  // The additive fixture's vocabularies and score, wide enough to learn the reverse task in a few hundred steps.
  const FileBytes start(seq2seq_test::fixture_path("train_rnn_additive.safetensors"));
  auto cfg_json = nlohmann::json::parse(start.file.metadata.at("config"));
  cfg_json["emb_dim"] = 16;
  cfg_json["enc_hidden"] = 24;
  cfg_json["dec_hidden"] = 48;
  cfg_json["attn_dim"] = 16;
  cfg_json["name"] = "reverse, trained in a test";
  const seq2seq::ModelConfig cfg = config_of(cfg_json);
  TrainingOptions o;
  o.arch = TrainArch::Rnn;
  o.steps = 300;
  o.warmup_steps = 20;
  o.learning_rate = 0.01f;
  o.batch_size = 16;
  o.seed = 7;
  Trainer t(cfg, o, GraphLimits{16, 5, 6});
  t.init_parameters();
  seq2seq::Random data(11);
  Batch b;
  std::string text;
  std::vector<int> src, tgt, in, out;
  StepStats last;
  for (int step = 0; step < o.steps; ++step) {
    b.clear();
    for (int e = 0; e < o.batch_size; ++e) {
      reverse_example(data, text, src, tgt);
      in.assign(1, cfg.tgt_specials.bos);
      in.insert(in.end(), tgt.begin(), tgt.end());
      out = tgt;
      out.push_back(cfg.tgt_specials.eos);
      b.add(src, in, out);
    }
    last = t.step(b);
  }
  INFO("last step: loss " << last.loss << ", teacher-forced accuracy " << static_cast<double>(last.correct) / last.tokens);
  CHECK(last.loss < 0.3);

  const std::vector<uint8_t> bytes = t.export_model(ExportStorage::F32);
  const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
  REQUIRE(model->config().arch == seq2seq::Arch::Rnn);
  CHECK(model->config().attention == AttentionScore::Additive);
  CHECK(model->config().name == "reverse, trained in a test");

  // The loaded model computes what the trainer computed: its logits on a batch the
  // trainer passes forward (no dropout, teacher forcing), step by step.
  b.clear();
  std::vector<std::vector<int>> sources, targets;
  seq2seq::Random held_out(12345);
  for (int e = 0; e < 4; ++e) {
    reverse_example(held_out, text, src, tgt);
    in.assign(1, cfg.tgt_specials.bos);
    in.insert(in.end(), tgt.begin(), tgt.end());
    out = tgt;
    out.push_back(cfg.tgt_specials.eos);
    b.add(src, in, out);
    sources.push_back(src);
    targets.push_back(in);
  }
  t.compute_gradients(b, false);
  const seq2seq::Rnn& rnn = seq2seq::ModelAccess::rnn(*model);
  const int V = static_cast<int>(cfg.tgt_vocab.size());
  double worst = 0;
  for (int e = 0; e < b.size; ++e) {
    seq2seq::RnnState st = rnn.encode(sources[static_cast<size_t>(e)]);
    for (size_t k = 0; k < targets[static_cast<size_t>(e)].size(); ++k) {
      seq2seq::RowMatrix logits;
      rnn.step(st, {targets[static_cast<size_t>(e)][k]}, logits, nullptr);
      const float* mine = t.rnn_graph().logits() + (static_cast<size_t>(b.dec_off[static_cast<size_t>(e)]) + k) * V;
      for (int v = 0; v < V; ++v) worst = std::max(worst, std::fabs(static_cast<double>(logits(0, v)) - mine[v]));
    }
  }
  CHECK(worst <= 1e-4);

  // It reverses strings it never saw, greedy and with beam search, from f32 and int8 files.
  const std::vector<uint8_t> i8 = t.export_model(ExportStorage::Int8);
  const auto model_i8 = seq2seq::Model::from_buffer(i8.data(), i8.size());
  for (const auto& m : {model, model_i8}) {
    for (seq2seq::Strategy how : {seq2seq::Strategy::Greedy, seq2seq::Strategy::Beam}) {
      seq2seq::DecodingOptions d;
      d.strategy = how;
      d.beam_size = 4;
      seq2seq::Session session(m, d);
      seq2seq::Random words(99);
      int right = 0, total = 0;
      for (int w = 0; w < 50; ++w) {
        reverse_example(words, text, src, tgt);
        session.start(text);
        const auto results = session.run();
        REQUIRE(!results.empty());
        right += results[0].tokens == tgt;
        ++total;
      }
      INFO((m == model ? "f32, " : "int8, ") << (how == seq2seq::Strategy::Beam ? "beam" : "greedy") << ": " << right << " of " << total);
      CHECK(right >= 45);
    }
  }
}

TEST_CASE("a training run of an RNN: the model from the options, scheduled sampling's records, a resumed run continues exactly",
          "[train][rnn][run]") {
  TrainingOptions o = task_defaults(Task::Reverse);
  o.arch = TrainArch::Rnn;
  o.attention = TrainAttention::Dot;
  o.emb_dim = 8;
  o.enc_hidden = 8;
  o.dec_hidden = 16;
  o.batch_size = 8;
  o.max_length = 6;
  o.steps = 30;
  o.warmup_steps = 5;
  o.eval_every = 15;
  o.eval_size = 10;
  o.scheduled_sampling = SamplingSchedule::Linear;
  o.sampling_midpoint = 10;
  o.dropout = 0.1f;

  TrainingRun straight(o, nullptr);
  const seq2seq::ModelConfig& c = straight.model_config();
  CHECK(c.arch == seq2seq::Arch::Rnn);
  CHECK(c.attention == AttentionScore::Dot);
  CHECK(c.attn_dim == 0);
  CHECK(c.enc_layers == 1);
  CHECK(c.dec_hidden == 16);
  CHECK(c.name == "reverse-rnn-dot");
  CHECK(c.description.find("scheduled sampling linear") != std::string::npos);
  // The memory bound is checked against the plan of the very graph the run builds.
  const GraphLimits lim{o.batch_size, straight.task().max_source_len(), straight.task().max_target_len() + 1};
  CHECK(Trainer::estimate_memory_bytes(c, o, lim) == straight.trainer().memory_bytes());
  std::vector<ProgressRecord> records;
  while (!straight.done()) records.push_back(straight.step(o.steps));
  REQUIRE(records.size() == 2);  // stopped at each evaluation
  for (const ProgressRecord& r : records) {
    CHECK(r.evaluated);
    CHECK(r.sampling);
    CHECK(r.true_token_probability == true_token_probability(o, r.step));
    CHECK(r.own_token_share > 0.0);
    CHECK(r.own_token_share < 1.0);
  }
  CHECK(records[1].own_token_share > records[0].own_token_share);  // epsilon fell from 1 to 0.05

  // Half the run, a checkpoint, the other half: the same parameters to the bit
  // (the data, dropout and scheduled sampling's generators all continue).
  TrainingRun first(o, nullptr);
  first.step(15);
  const std::vector<uint8_t> cp = first.checkpoint();
  auto resumed = TrainingRun::resume(cp, o, nullptr);
  while (!resumed->done()) resumed->step(o.steps);
  CHECK(resumed->trainer().params().values() == straight.trainer().params().values());

  // The exported model is an RNN the engine decodes.
  const std::vector<uint8_t> bytes = resumed->export_model(ExportStorage::F32);
  const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
  seq2seq::Session session(model, seq2seq::DecodingOptions{});
  session.start("abc");
  CHECK_FALSE(session.run().empty());
}
