// The held-out measures of a run's evaluation points (src/train/run.h, Evaluation),
// the probe's argmax tokens and a copy model's gate and copy attention (probe.h),
// and the loss's floor under label smoothing (loss.h), each held to a computation
// of its own: the free-running measures to the engine's greedy outputs of the
// exported model, decoded here one source at a time; the teacher-forced ones to
// each held-out example's probe; the diagonal band to the probes' cross-attention;
// the probe's numbers to the engine's inspect pass; the floor to the entropy of the
// smoothed target written out, and to a run whose loss comes down to it. An
// evaluation changes nothing of the run: a run evaluated every step has the loss
// curve of one never evaluated.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "model.h"
#include "session.h"
#include "train/probe.h"
#include "train/run.h"
#include "train_fixtures.h"

using namespace seq2seq::train;

namespace {

TrainingOptions small(Task task, TrainArch arch) {
  TrainingOptions o = task_defaults(task);
  o.arch = arch;
  seq2seq_test::use_small_model(o);
  o.min_length = 2;
  o.max_length = 5;
  o.steps = 60;
  o.warmup_steps = 10;
  o.eval_every = 30;
  o.eval_size = 20;  // a batch of 16 and one of 4
  return o;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Every measure of `e`, computed again from the engine's greedy decode of the model as
// it stands and from a probe of each held-out example.
void check_evaluation(TrainingRun& run, const Evaluation& e) {
  const TrainingOptions& o = run.options();
  const std::vector<HeldOut>& held = run.task().held_out();
  const auto bytes = run.export_model(ExportStorage::F32);
  const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
  seq2seq::DecodingOptions greedy;
  greedy.strategy = seq2seq::Strategy::Greedy;
  seq2seq::Session session(model, greedy);
  long positions = 0, forced_right = 0, free_right = 0, after = 0, after_wrong = 0, after_forced_wrong = 0;
  int first_errors = 0, exact = 0;
  double diagonal = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    const Probe p = probe(run, static_cast<int>(i));
    // The greedy output as text, and the end token the search stops at.
    session.start(held[i].source);
    const std::vector<seq2seq::Result> out = session.run();
    REQUIRE(!out.empty());
    std::vector<std::string> got = words(out[0].text);
    got.push_back("</s>");
    exact += out[0].text == held[i].target;
    const size_t T = p.target_tokens.size();
    int first = -1;
    for (size_t t = 0; t < T; ++t) {
      const bool forced = p.top_tokens[t] == p.target_tokens[t];
      const bool free = t < got.size() && got[t] == p.target_tokens[t];
      forced_right += forced;
      free_right += free;
      if (first >= 0) {
        ++after;
        after_wrong += !free;
        after_forced_wrong += !forced;
      } else if (!free) {
        first = static_cast<int>(t);
      }
    }
    positions += static_cast<long>(T);
    first_errors += first >= 0;
    if (p.cross_attention.empty()) continue;
    // The band |n/N - t/T| <= g over the probe's weights: the RNN's one [T, N], the
    // Transformer's chosen layers and heads of [layers, heads, T, N].
    const size_t N = p.source_tokens.size();
    const double g = o.guided_attention_width;
    auto band = [&](const float* a) {
      double s = 0;
      for (size_t t = 0; t < T; ++t)
        for (size_t n = 0; n < N; ++n)
          if (std::fabs(static_cast<double>(n) / N - static_cast<double>(t) / T) <= g) s += a[t * N + n];
      return s / T;
    };
    if (p.attention_shape.size() == 2) {
      diagonal += band(p.cross_attention.data());
      continue;
    }
    const int layers = p.attention_shape[0], heads = p.attention_shape[1];
    double sum = 0;
    int pairs = 0;
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < heads; ++h) {
        if ((o.guided_attention_layer >= 0 && l != o.guided_attention_layer) || (o.guided_attention_head >= 0 && h != o.guided_attention_head))
          continue;
        sum += band(p.cross_attention.data() + (static_cast<size_t>(l) * heads + h) * T * N);
        ++pairs;
      }
    diagonal += sum / pairs;
  }
  const double n = static_cast<double>(held.size());
  INFO("held-out token accuracy " << e.held_out_token_accuracy << ", free " << e.free_token_accuracy << ", first errors "
                                  << e.first_error_count << ", wrong after " << e.wrong_after_first_error << " (forced "
                                  << e.forced_wrong_after_first_error << "), diagonal " << e.attention_diagonal);
  CHECK(e.held_out == static_cast<int>(held.size()));
  CHECK(e.word_accuracy == Approx(exact / n).epsilon(1e-12));
  CHECK(e.held_out_token_accuracy == Approx(static_cast<double>(forced_right) / positions).epsilon(1e-12));
  CHECK(e.free_token_accuracy == Approx(static_cast<double>(free_right) / positions).epsilon(1e-12));
  CHECK(e.first_error_count == first_errors);
  CHECK(e.wrong_after_first_error == Approx(after ? static_cast<double>(after_wrong) / after : 0.0).epsilon(1e-12));
  CHECK(e.forced_wrong_after_first_error == Approx(after ? static_cast<double>(after_forced_wrong) / after : 0.0).epsilon(1e-12));
  CHECK(e.has_attention == (run.model_config().arch != seq2seq::Arch::Rnn || run.model_config().attention != seq2seq::AttentionScore::None));
  if (e.has_attention) CHECK(e.attention_diagonal == Approx(diagonal / n).margin(1e-6));
}

// The record's fields on every face, by name.
std::vector<std::string> field_names(const ProgressRecord& r) {
  std::vector<std::string> names;
  visit_fields(r, [&](const char* name, const auto&) { names.push_back(name); });
  return names;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST_CASE("the held-out measures equal the engine's greedy outputs and the probes, read again one example at a time",
          "[train][eval]") {
  struct Case {
    const char* what;
    TrainingOptions o;
  };
  std::vector<Case> cases;
  TrainingOptions t = small(Task::Reverse, TrainArch::Transformer);
  t.layers = 2;
  t.guided_attention_layer = 1;  // the diagonal measured where guided attention would look: layer 1, head 0
  t.guided_attention_head = 0;
  t.guided_attention_width = 0.3f;
  cases.push_back({"Transformer, reverse, layer 1 head 0", t});
  TrainingOptions rnn = small(Task::Reverse, TrainArch::Rnn);
  rnn.steps = 200;  // the GRU learns slower: its first right tokens come later
  rnn.eval_every = 100;
  rnn.learning_rate = 0.01f;
  cases.push_back({"RNN, reverse", rnn});
  TrainingOptions names = small(Task::Names, TrainArch::Transformer);
  names.copy = true;
  names.min_length = 3;
  names.max_length = 6;
  names.steps = 30;
  names.eval_every = 15;
  cases.push_back({"Transformer, names with the copy mechanism (held-out names copy-only tokens)", names});
  for (Case& c : cases) {
    INFO(c.what);
    TrainingRun run(c.o, nullptr);
    bool some_right = false, some_wrong_after = false;
    while (!run.done()) {
      const ProgressRecord r = run.step(1000);
      REQUIRE(r.evaluated);
      const std::vector<std::string> names_seen = field_names(r);
      for (const char* f : {"heldOutTokenAccuracy", "freeTokenAccuracy", "firstErrorCount", "wrongAfterFirstError",
                            "forcedWrongAfterFirstError", "attentionDiagonal"})
        CHECK(has(names_seen, f));
      check_evaluation(run, r.evaluation);
      some_right = some_right || r.evaluation.free_token_accuracy > 0;
      some_wrong_after = some_wrong_after || r.evaluation.wrong_after_first_error > 0;
    }
    // Numbers that say something: the runs get some positions right and some wrong.
    CHECK(some_right);
    CHECK(some_wrong_after);
  }
}

TEST_CASE("an RNN without attention has no attentionDiagonal; a record between evaluation points has no held-out measure",
          "[train][eval]") {
  TrainingOptions o = small(Task::Copy, TrainArch::Rnn);
  o.attention = TrainAttention::None;
  o.steps = 4;
  o.eval_every = 2;
  o.log_every = 1;
  TrainingRun run(o, nullptr);
  const ProgressRecord between = run.step(1);
  CHECK_FALSE(has(field_names(between), "freeTokenAccuracy"));
  const ProgressRecord r = run.step(1);
  REQUIRE(r.evaluated);
  CHECK(has(field_names(r), "freeTokenAccuracy"));
  CHECK_FALSE(has(field_names(r), "attentionDiagonal"));
  check_evaluation(run, r.evaluation);
}

TEST_CASE("an evaluation changes nothing of the run: evaluated every step, the loss curve and the weights are those of a run "
          "never evaluated",
          "[train][eval]") {
  std::vector<TrainingOptions> configs;
  TrainingOptions t = small(Task::Reverse, TrainArch::Transformer);
  t.dropout = 0.1f;
  t.scheduled_sampling = SamplingSchedule::Linear;
  t.sampling_midpoint = 5;
  configs.push_back(t);
  TrainingOptions r = small(Task::Reverse, TrainArch::Rnn);
  r.dropout = 0.1f;
  r.scheduled_sampling = SamplingSchedule::Linear;
  r.sampling_midpoint = 5;
  configs.push_back(r);
  TrainingOptions c = small(Task::Names, TrainArch::Rnn);
  c.copy = true;
  c.dropout = 0.1f;
  configs.push_back(c);
  for (TrainingOptions o : configs) {
    INFO(to_string(o.arch) << (o.copy ? ", copy" : ""));
    o.steps = 12;
    o.eval_every = 1;
    TrainingRun evaluated(o, nullptr);
    o.eval_every = 0;  // the last step only
    TrainingRun plain(o, nullptr);
    int evaluations = 0;
    while (!plain.done()) {
      const ProgressRecord a = evaluated.step(1), b = plain.step(1);
      evaluations += a.evaluated;
      CHECK(a.loss == b.loss);
      CHECK(a.grad_norm == b.grad_norm);
      CHECK(a.own_token_share == b.own_token_share);
    }
    CHECK(evaluations == 12);
    CHECK(evaluated.trainer().params().values() == plain.trainer().params().values());
  }
}

TEST_CASE("the probe's argmax tokens and their probabilities, and a copy model's p_gen and copy attention, are the engine's "
          "inspect pass's",
          "[train][eval][copy]") {
  std::vector<TrainingOptions> configs;
  configs.push_back(small(Task::Reverse, TrainArch::Transformer));
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    TrainingOptions o = small(Task::Names, arch);
    o.copy = true;
    o.min_length = 3;
    o.max_length = 6;
    configs.push_back(o);
  }
  for (TrainingOptions o : configs) {
    INFO(to_string(o.task) << ", " << to_string(o.arch) << (o.copy ? ", copy" : ""));
    o.steps = 20;
    o.eval_every = 0;
    TrainingRun run(o, nullptr);
    while (!run.done()) run.step(1000);
    const auto bytes = run.export_model(ExportStorage::F32);
    const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
    seq2seq::Session session(model, seq2seq::DecodingOptions{});
    int copied_top = 0;
    for (int i = 0; i < 4; ++i) {
      const Probe p = probe(run, i);
      session.start(p.source);
      const seq2seq::Vocabulary& out = session.output_vocab();
      std::vector<int> ref;
      for (const std::string& w : words(p.reference)) ref.push_back(out.id(w));
      const seq2seq::StepInside in = model->inspect(p.source, ref);
      const size_t T = p.target_tokens.size(), N = p.source_tokens.size();
      REQUIRE(p.top_tokens.size() == T);
      REQUIRE(p.top_probability.size() == T);
      // The engine's distribution at each position: a copy model's mix over its extended
      // vocabulary, else the softmax of the logits.
      const size_t W = o.copy ? static_cast<size_t>(in.output_vocab_size) : static_cast<size_t>(in.vocab_size);
      for (size_t t = 0; t < T; ++t) {
        std::vector<double> prob(W);
        if (o.copy) {
          for (size_t k = 0; k < W; ++k) prob[k] = std::exp(static_cast<double>(in.log_probs[t * W + k]));
        } else {
          double mx = in.logits[t * W], z = 0;
          for (size_t k = 0; k < W; ++k) mx = std::max(mx, static_cast<double>(in.logits[t * W + k]));
          for (size_t k = 0; k < W; ++k) z += prob[k] = std::exp(static_cast<double>(in.logits[t * W + k]) - mx);
          for (double& x : prob) x /= z;
        }
        size_t best = 0;
        for (size_t k = 1; k < W; ++k)
          if (prob[k] > prob[best]) best = k;
        CHECK(p.top_tokens[t] == out.token(static_cast<int>(best)));
        CHECK(p.top_probability[t] == Approx(prob[best]).margin(1e-4));
        copied_top += static_cast<int>(best) >= in.vocab_size;
      }
      if (!o.copy) {
        CHECK(p.copy_gate.empty());
        CHECK(p.copy_attention.empty());
        continue;
      }
      REQUIRE(p.copy_gate.size() == T);
      REQUIRE(p.copy_attention.size() == T * N);
      REQUIRE(in.p_gen.size() == T);
      REQUIRE(in.copy_attention.size() == T * N);
      for (size_t t = 0; t < T; ++t) CHECK(p.copy_gate[t] == Approx(in.p_gen[t]).margin(1e-4));
      for (size_t k = 0; k < T * N; ++k) CHECK(p.copy_attention[k] == Approx(in.copy_attention[k]).margin(1e-4));
    }
    // A copy model's argmax is a held-out name (a copy-only token) somewhere: the check reaches the extended ids.
    if (o.copy) CHECK(copied_top > 0);
  }
}

TEST_CASE("the loss's floor is the entropy of the smoothed target, and a trivially learnable run's loss comes down to it",
          "[train][eval][loss]") {
  // The smoothed target written out: (1 - e) on the right token, e / V on each of V.
  auto entropy = [](double e, int V) {
    std::vector<double> q(static_cast<size_t>(V), e / V);
    q[0] += 1 - e;
    double h = 0;
    for (double x : q)
      if (x > 0) h -= x * std::log(x);
    return h;
  };
  CHECK(loss_floor(0.0f, 31) == 0.0);
  CHECK(loss_floor(0.1f, 31) == Approx(entropy(0.1f, 31)).epsilon(1e-12));
  CHECK(loss_floor(0.5f, 7) == Approx(entropy(0.5f, 7)).epsilon(1e-12));
  // Copying one letter: learnt in a few dozen steps; the loss then sits just above the floor.
  TrainingOptions o = small(Task::Copy, TrainArch::Transformer);
  o.min_length = 1;
  o.max_length = 1;
  o.eval_size = 5;
  o.eval_every = 0;
  o.steps = 300;
  o.learning_rate = 0.01f;
  o.label_smoothing = 0.1f;
  TrainingRun run(o, nullptr);
  const double floor = run.trainer().loss_floor();
  CHECK(floor == Approx(entropy(0.1f, static_cast<int>(run.model_config().tgt_vocab.size()))).epsilon(1e-12));
  ProgressRecord r;
  while (!run.done()) {
    r = run.step(50);
    CHECK(r.loss >= floor - 1e-6);
  }
  INFO("loss " << r.loss << ", floor " << floor);
  CHECK(r.loss - floor < 0.02);
  CHECK(r.loss - floor > 0);
}
