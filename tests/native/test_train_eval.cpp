// The held-out evaluation and the probe's readings (src/train/run.h Evaluation,
// probe.h): each measure recomputed here from what the engine gives for the
// exported model — greedy outputs through a Session, the teacher-forced
// distributions and a copy model's gate and copy attention through Model::inspect —
// so that the trainer's forward pass, the probe and the aggregation are each held to
// a computation of their own; the evaluation leaves a run as it was; the loss floor
// against the smoothed loss itself.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "model.h"
#include "session.h"
#include "train/loss.h"
#include "train/probe.h"
#include "train/run.h"
#include "train_fixtures.h"
#include "vocabulary.h"

using namespace seq2seq::train;

namespace {

TrainingOptions small(Task task, TrainArch arch) {
  TrainingOptions o = task_defaults(task);
  o.arch = arch;
  if (task != Task::Names) {
    o.min_length = 2;
    o.max_length = 5;
  }
  seq2seq_test::use_small_model(o);
  o.steps = 60;
  o.warmup_steps = 10;
  o.eval_every = 0;
  o.eval_size = 24;
  return o;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> w;
  std::istringstream in(s);
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

// The engine's reading of `source` teacher-forced on `reference`: at each position the
// argmax token's text and its probability, and a copy model's p_gen and copy attention.
struct EngineReading {
  std::vector<std::string> top;
  std::vector<float> top_p, p_gen, copy_attention;
};

EngineReading engine_reading(const seq2seq::Model& model, const std::string& source, const std::string& reference) {
  const seq2seq::ModelConfig& cfg = model.config();
  const seq2seq::Vocabulary tgt(cfg.tgt_vocab);
  // A first look for the copy ids of the source's tokens the vocabulary lacks (a
  // word-level source here: its words are its tokens).
  const seq2seq::StepInside bare = model.inspect(source, {});
  const std::vector<std::string> src = words(source);
  auto text_of = [&](int id) {
    if (id < tgt.size()) return tgt.token(id);
    for (size_t k = 0; k < bare.copy_ids.size(); ++k)
      if (bare.copy_ids[k] == id) return src.at(k);
    FAIL("no source position copies id " << id);
    return std::string();
  };
  std::vector<int> ids;
  for (const std::string& w : words(reference)) {
    int id = tgt.id(w);
    for (size_t k = 0; id < 0 && cfg.copy && k < bare.copy_ids.size(); ++k)
      if (src.at(k) == w) id = bare.copy_ids[k];
    ids.push_back(id < 0 ? cfg.tgt_specials.unk : id);
  }
  const seq2seq::StepInside in = model.inspect(source, ids);
  const int W = cfg.copy ? in.output_vocab_size : tgt.size();
  const std::vector<float>& rows = cfg.copy ? in.log_probs : in.logits;
  EngineReading r;
  const size_t T = ids.size() + 1;
  REQUIRE(rows.size() == T * static_cast<size_t>(W));
  for (size_t t = 0; t < T; ++t) {
    const float* row = rows.data() + t * static_cast<size_t>(W);
    int best = 0;
    for (int k = 1; k < W; ++k)
      if (row[k] > row[best]) best = k;
    double z = 0;  // logits need a softmax; a copy model's log-probabilities sum to 1 already
    for (int k = 0; k < W; ++k) z += std::exp(static_cast<double>(row[k]) - row[best]);
    r.top.push_back(text_of(best));
    r.top_p.push_back(static_cast<float>(1.0 / z));
  }
  r.p_gen = in.p_gen;
  r.copy_attention = in.copy_attention;
  return r;
}

}  // namespace

TEST_CASE("held-out evaluation: each measure recomputed from the engine's greedy outputs and teacher-forced readings",
          "[train][run][evaluation]") {
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    INFO(to_string(arch));
    TrainingOptions o = small(Task::Reverse, arch);
    TrainingRun run(o, nullptr);
    while (!run.done()) run.step(100);
    const Evaluation e = run.evaluate();
    const auto bytes = run.export_model(ExportStorage::F32);
    const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
    seq2seq::DecodingOptions d;
    seq2seq::Session greedy(model, d);
    long positions = 0, forced_right = 0, free_right = 0, after = 0, after_free = 0, after_forced = 0;
    int exact = 0, going_wrong = 0;
    double band = 0;
    for (size_t i = 0; i < run.task().held_out().size(); ++i) {
      const HeldOut& h = run.task().held_out()[i];
      const Probe p = probe(run, static_cast<int>(i));
      // The probe's argmax and its probability are the engine's, to float precision.
      const EngineReading eng = engine_reading(*model, h.source, h.target);
      REQUIRE(eng.top.size() == p.top_tokens.size());
      for (size_t t = 0; t < eng.top.size(); ++t) {
        CHECK(p.top_tokens[t] == eng.top[t]);
        CHECK(p.top_probability[t] == Approx(eng.top_p[t]).margin(1e-4));
        CHECK(p.top_probability[t] >= std::exp(-p.token_nll[t]) - 1e-6);
      }
      std::vector<std::string> ref = words(h.target), out;
      ref.push_back("</s>");
      greedy.start(h.source);
      const std::vector<seq2seq::Result> res = greedy.run();
      out = words(res[0].text);
      if (res[0].length > static_cast<int>(res[0].tokens.size())) out.push_back("</s>");
      exact += res[0].text == h.target;
      // The first position the output leaves the reference, and what follows it.
      size_t first = ref.size();
      for (size_t t = 0; t < ref.size() && first == ref.size(); ++t)
        if (t >= out.size() || out[t] != ref[t]) first = t;
      going_wrong += first < ref.size();
      for (size_t t = 0; t < ref.size(); ++t) {
        const bool f = t < out.size() && out[t] == ref[t], tf = eng.top[t] == ref[t];
        free_right += f;
        forced_right += tf;
        if (t > first) {
          ++after;
          after_free += !f;
          after_forced += !tf;
        }
      }
      positions += static_cast<long>(ref.size());
      // The band |n/N - t/T| <= g, counted here from the probe's maps (every layer and head).
      const std::vector<int>& s = p.attention_shape;
      const int T = s[s.size() - 2], N = s.back(), maps = static_cast<int>(p.cross_attention.size()) / (T * N);
      double inside = 0;
      for (int m = 0; m < maps; ++m)
        for (int t = 0; t < T; ++t)
          for (int n = 0; n < N; ++n)
            if (std::abs(static_cast<double>(n) / N - static_cast<double>(t) / T) <= o.guided_attention_width)
              inside += p.cross_attention[(static_cast<size_t>(m) * T + t) * N + n];
      band += inside / (maps * T);
    }
    const double held = static_cast<double>(run.task().held_out().size());
    CHECK(e.word_accuracy == Approx(exact / held));
    CHECK(e.held_out_token_accuracy == Approx(static_cast<double>(forced_right) / positions));
    CHECK(e.free_token_accuracy == Approx(static_cast<double>(free_right) / positions));
    CHECK(e.first_error_count == going_wrong);
    REQUIRE(after > 0);  // the short run leaves mistakes to follow
    CHECK(e.wrong_after_first_error == Approx(static_cast<double>(after_free) / after));
    CHECK(e.forced_wrong_after_first_error == Approx(static_cast<double>(after_forced) / after));
    CHECK(e.has_attention);
    CHECK(e.attention_diagonal == Approx(band / held));
    // Greedy exact is teacher-forced exact: the token measures are what tell them apart.
    CHECK(e.free_token_accuracy <= e.held_out_token_accuracy + 1e-12);
  }
}

TEST_CASE("held-out evaluation: an RNN without attention has no attention measure; one layer and head chosen",
          "[train][run][evaluation]") {
  TrainingOptions o = small(Task::Reverse, TrainArch::Rnn);
  o.attention = TrainAttention::None;
  o.steps = 5;
  TrainingRun none(o, nullptr);
  none.step(5);
  CHECK_FALSE(none.evaluate().has_attention);
  ProgressRecord r = none.step(1);
  (void)r;
  // A Transformer with guided attention's choice of one layer and head measures that map only.
  TrainingOptions t = small(Task::Reverse, TrainArch::Transformer);
  t.steps = 5;
  t.layers = 2;
  t.guided_attention_layer = 1;
  t.guided_attention_head = 0;
  TrainingRun run(t, nullptr);
  run.step(5);
  const Evaluation e = run.evaluate();
  double band = 0;
  for (size_t i = 0; i < run.task().held_out().size(); ++i) {
    const Probe p = probe(run, static_cast<int>(i));
    const int T = p.attention_shape[2], N = p.attention_shape[3];
    const float* a = p.cross_attention.data() + (static_cast<size_t>(1) * p.attention_shape[1] + 0) * T * N;
    double inside = 0;
    for (int tt = 0; tt < T; ++tt)
      for (int n = 0; n < N; ++n)
        if (std::abs(static_cast<double>(n) / N - static_cast<double>(tt) / T) <= t.guided_attention_width) inside += a[tt * N + n];
    band += inside / T;
  }
  CHECK(e.attention_diagonal == Approx(band / static_cast<double>(run.task().held_out().size())));
}

TEST_CASE("the evaluation leaves a run as it was: evaluated every step, the same losses bit for bit", "[train][run][evaluation]") {
  TrainingOptions o = small(Task::Reverse, TrainArch::Transformer);
  o.steps = 12;
  o.dropout = 0.1f;
  o.log_every = 1;
  TrainingRun plain(o, nullptr);
  o.eval_every = 1;
  TrainingRun watched(o, nullptr);
  for (int s = 0; s < 12; ++s) {
    const ProgressRecord a = plain.step(1), b = watched.step(1);
    CHECK(b.evaluated);
    CHECK(a.loss == b.loss);
    CHECK(a.grad_norm == b.grad_norm);
  }
}

TEST_CASE("a copy model's probe: p_gen and the copy attention are the engine's", "[train][run][evaluation][copy]") {
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    INFO(to_string(arch));
    TrainingOptions o = small(Task::Names, arch);
    o.copy = true;
    o.steps = 40;
    TrainingRun run(o, nullptr);
    while (!run.done()) run.step(100);
    const auto bytes = run.export_model(ExportStorage::F32);
    const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
    for (int i = 0; i < 3; ++i) {
      const HeldOut& h = run.task().held_out()[static_cast<size_t>(i)];
      const Probe p = probe(run, i);
      const EngineReading eng = engine_reading(*model, h.source, h.target);
      REQUIRE(p.copy_gate.size() == eng.p_gen.size());
      REQUIRE(p.copy_attention.size() == eng.copy_attention.size());
      for (size_t t = 0; t < eng.p_gen.size(); ++t) CHECK(p.copy_gate[t] == Approx(eng.p_gen[t]).margin(1e-4));
      for (size_t k = 0; k < eng.copy_attention.size(); ++k) CHECK(p.copy_attention[k] == Approx(eng.copy_attention[k]).margin(1e-4));
      for (size_t t = 0; t < eng.top.size(); ++t) CHECK(p.top_tokens[t] == eng.top[t]);
    }
  }
  // Without the copy mechanism the probe carries no gate.
  TrainingRun plain(small(Task::Names, TrainArch::Transformer), nullptr);
  plain.step(2);
  CHECK(probe(plain, 0).copy_gate.empty());
}

TEST_CASE("the loss floor: the smoothed loss's least value, reached at p = q and nowhere else nearby", "[train][loss]") {
  CHECK(smoothed_nll_floor(0.0f, 40) == 0.0);
  for (int V : {2, 7, 40}) {
    for (float e : {0.05f, 0.1f, 0.3f}) {
      INFO("V " << V << " e " << e);
      // q itself as the prediction: the loss is the floor.
      std::vector<float> logq(static_cast<size_t>(V)), d(static_cast<size_t>(V));
      const double spread = static_cast<double>(e) / V;
      for (int k = 0; k < V; ++k) logq[static_cast<size_t>(k)] = static_cast<float>(std::log(k == 0 ? 1.0 - e + spread : spread));
      const int target = 0;
      const LossSums at = smoothed_nll(logq.data(), 1, V, &target, -1, e, 1.0f, d.data());
      CHECK(at.loss == Approx(smoothed_nll_floor(e, V)).epsilon(1e-5));
      // A sharper or flatter prediction costs more.
      for (double top : {0.99, 0.5}) {
        std::vector<float> lp(static_cast<size_t>(V));
        for (int k = 0; k < V; ++k) lp[static_cast<size_t>(k)] = static_cast<float>(std::log(k == 0 ? top : (1 - top) / (V - 1)));
        CHECK(smoothed_nll(lp.data(), 1, V, &target, -1, e, 1.0f, d.data()).loss > smoothed_nll_floor(e, V));
      }
    }
  }
  // The run's floor is the formula over its target vocabulary.
  TrainingOptions o = small(Task::Reverse, TrainArch::Transformer);
  o.label_smoothing = 0.1f;
  TrainingRun run(o, nullptr);
  CHECK(run.loss_floor() == Approx(smoothed_nll_floor(0.1f, static_cast<int>(run.model_config().tgt_vocab.size()))));
  CHECK(run.loss_floor() > 0);
}

namespace {

// An evaluation's measures computed again one example at a time: the free-running ones from
// the engine's greedy output of the exported model, the teacher-forced ones from each held-out
// example's probe, against the reference as written (an <unk> standing for a name no
// vocabulary holds matches nothing).
void check_against_probes(TrainingRun& run, const Evaluation& e) {
  const auto bytes = run.export_model(ExportStorage::F32);
  const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
  seq2seq::Session greedy(model, seq2seq::DecodingOptions{});
  const std::vector<HeldOut>& held = run.task().held_out();
  long positions = 0, forced_right = 0, free_right = 0, after = 0, after_free = 0, after_forced = 0;
  int exact = 0, going_wrong = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    const Probe p = probe(run, static_cast<int>(i));
    std::vector<std::string> ref = words(held[i].target);
    ref.push_back("</s>");
    greedy.start(held[i].source);
    const std::vector<seq2seq::Result> res = greedy.run();
    std::vector<std::string> out = words(res[0].text);
    out.push_back("</s>");
    exact += res[0].text == held[i].target;
    REQUIRE(p.top_tokens.size() == ref.size());
    int first = -1;
    for (size_t t = 0; t < ref.size(); ++t) {
      const bool f = t < out.size() && out[t] == ref[t], tf = p.top_tokens[t] == ref[t];
      free_right += f;
      forced_right += tf;
      if (first >= 0) {
        ++after;
        after_free += !f;
        after_forced += !tf;
      } else if (!f) {
        first = static_cast<int>(t);
      }
    }
    going_wrong += first >= 0;
    positions += static_cast<long>(ref.size());
  }
  const double n = static_cast<double>(held.size());
  CHECK(e.word_accuracy == Approx(exact / n));
  CHECK(e.held_out_token_accuracy == Approx(static_cast<double>(forced_right) / positions));
  CHECK(e.free_token_accuracy == Approx(static_cast<double>(free_right) / positions));
  CHECK(e.first_error_count == going_wrong);
  CHECK(e.wrong_after_first_error == Approx(after ? static_cast<double>(after_free) / after : 0.0));
  CHECK(e.forced_wrong_after_first_error == Approx(after ? static_cast<double>(after_forced) / after : 0.0));
}

}  // namespace

TEST_CASE("held-out evaluation of names, with and without the copy mechanism: batches of a copy model's extended rows, "
          "a held-out name matched only where it is copied",
          "[train][run][evaluation][copy]") {
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    for (bool copy : {true, false}) {
      INFO(to_string(arch) << (copy ? ", copy" : ""));
      TrainingOptions o = small(Task::Names, arch);
      o.copy = copy;
      o.steps = 30;
      o.eval_every = 15;
      o.eval_size = 20;  // a batch of 16 and one of 4
      TrainingRun run(o, nullptr);
      double free_tokens = 0;
      while (!run.done()) {
        run.step(100);
        const Evaluation e = run.evaluate();
        check_against_probes(run, e);
        free_tokens = std::max(free_tokens, e.free_token_accuracy);
      }
      CHECK(free_tokens > 0);  // the runs get positions right: the comparison is not of empty outputs
    }
  }
}

TEST_CASE("the evaluation leaves runs as they were under scheduled sampling, for the RNN and for a copy model",
          "[train][run][evaluation]") {
  std::vector<TrainingOptions> configs;
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    TrainingOptions o = small(Task::Reverse, arch);
    o.dropout = 0.1f;
    o.scheduled_sampling = SamplingSchedule::Linear;
    o.sampling_midpoint = 5;
    configs.push_back(o);
  }
  TrainingOptions c = small(Task::Names, TrainArch::Rnn);
  c.copy = true;
  c.dropout = 0.1f;
  configs.push_back(c);
  for (TrainingOptions o : configs) {
    INFO(to_string(o.arch) << (o.copy ? ", copy" : ", scheduled sampling"));
    o.steps = 12;
    TrainingRun plain(o, nullptr);
    o.eval_every = 1;
    TrainingRun watched(o, nullptr);
    while (!plain.done()) {
      const ProgressRecord a = plain.step(1), b = watched.step(1);
      CHECK(b.evaluated);
      CHECK(a.loss == b.loss);
      CHECK(a.own_token_share == b.own_token_share);
    }
    CHECK(plain.trainer().params().values() == watched.trainer().params().values());
  }
}
