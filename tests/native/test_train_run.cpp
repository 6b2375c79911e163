// A training run end to end (src/train/run.h, tasks.h, model_file.h): the tasks'
// examples and held-out sets, the model a run exports loaded by the engine and
// decoded with every strategy an autoregressive Transformer allows (its numbers
// the training graph's), int8 export, checkpoints that resume to the same bits,
// and the errors: options a task cannot take, malformed data, a checkpoint of
// another run, memory over the bound, divergence.
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "model.h"
#include "safetensors.h"
#include "session.h"
#include "train/loss.h"
#include "train/probe.h"
#include "train/run.h"
#include "train/tasks.h"
#include "train_fixtures.h"

using namespace seq2seq::train;

namespace {

// A small, quick run: copying 2 to 4 letters.
TrainingOptions tiny(Task task = Task::Copy) {
  TrainingOptions o = task_defaults(task);
  o.min_length = 2;
  o.max_length = 4;
  o.layers = 1;
  o.heads = 2;
  o.d_model = 32;
  o.d_ff = 64;
  o.batch_size = 16;
  o.steps = 40;
  o.warmup_steps = 10;
  o.eval_every = 20;
  o.eval_size = 20;
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const seq2seq::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("tasks: reverse, sort and copy from the seed; held-out strings never drawn for training", "[train][tasks]") {
  for (Task task : {Task::Reverse, Task::Sort, Task::Copy}) {
    TrainingOptions o = task_defaults(task);
    o.min_length = 1;
    o.max_length = 3;
    o.eval_size = 300;
    const auto a = TaskData::create(o, nullptr), b = TaskData::create(o, nullptr);
    REQUIRE(a->held_out().size() == 300);
    std::set<std::string> held;
    for (size_t i = 0; i < a->held_out().size(); ++i) {
      CHECK(a->held_out()[i].source == b->held_out()[i].source);  // the seed fixes them
      held.insert(a->held_out()[i].source);
    }
    CHECK(held.size() == 300);
    seq2seq::Random r1(5), r2(5);
    TaskExample e, f;
    for (int k = 0; k < 3000; ++k) {
      a->draw(r1, e);
      b->draw(r2, f);
      REQUIRE(e.source == f.source);
      const std::string s = a->source_text(e), t = a->target_text(e);
      REQUIRE(held.count(s) == 0);
      REQUIRE(s.size() >= 1);
      REQUIRE(s.size() <= 3);
      std::string want;
      std::string letters = s;
      if (task == Task::Reverse) letters.assign(s.rbegin(), s.rend());
      if (task == Task::Sort) std::sort(letters.begin(), letters.end());
      for (char c : letters) want += std::string(want.empty() ? "" : " ") + c;
      REQUIRE(t == want);
    }
    const auto& h = a->held_out().front();
    CHECK(a->source_vocab().size() == 28);
    CHECK(a->target_vocab().size() == 31);
    CHECK(h.target.size() == 2 * h.source.size() - 1);
  }
  TrainingOptions other = task_defaults(Task::Reverse);
  other.seed = 2;
  CHECK(TaskData::create(other, nullptr)->held_out()[0].source != TaskData::create(task_defaults(Task::Reverse), nullptr)->held_out()[0].source);
}

TEST_CASE("tasks: names, word level; held-out names are in no vocabulary", "[train][tasks]") {
  const TrainingOptions o = task_defaults(Task::Names);
  const auto t = TaskData::create(o, nullptr);
  CHECK(t->word_level_source());
  const auto& sv = t->source_vocab();
  const auto& tv = t->target_vocab();
  for (const HeldOut& h : t->held_out()) {
    const std::string name = h.source.substr(h.source.rfind(' ') + 1);
    CHECK(h.target.substr(h.target.rfind(' ') + 1) == name);  // the reply ends with the same name
    CHECK(std::find(sv.begin(), sv.end(), name) == sv.end());
    CHECK(std::find(tv.begin(), tv.end(), name) == tv.end());
  }
  seq2seq::Random r(1);
  TaskExample e;
  for (int k = 0; k < 100; ++k) {
    t->draw(r, e);
    CHECK(sv[static_cast<size_t>(e.source.back())] == tv[static_cast<size_t>(e.target.back())]);  // a training name, in both
  }
}

TEST_CASE("tasks: g2p from WORD<TAB>PHONES lines; malformed or empty data is refused naming the line", "[train][tasks][errors]") {
  TrainingOptions o = task_defaults(Task::G2p);
  o.eval_size = 2;
  const std::string data = "CAT\tK AE T\nDOG\tD AO G\nCAB\tK AE B\nA\tAH\nA\tEY\nTAB\tT AE B\n";
  const auto t = TaskData::create(o, &data);
  CHECK(t->held_out().size() == 2);
  CHECK(t->source_case() == seq2seq::CaseFold::Upper);
  CHECK(t->max_source_len() == 3);
  const std::vector<std::string> want_tgt = {"<pad>", "<unk>", "<s>", "</s>", "<mask>", "AE", "AH", "AO", "B", "D", "EY", "G", "K", "T"};
  CHECK(t->target_vocab() == want_tgt);
  seq2seq::Random r(3);
  TaskExample e;
  std::set<std::string> trained;
  for (int k = 0; k < 50; ++k) {
    t->draw(r, e);
    trained.insert(t->source_text(e));
  }
  for (const HeldOut& h : t->held_out()) CHECK(trained.count(h.source) == 0);
  CHECK(trained.size() == 5 - 2);  // five words (A has two pronunciations), two held out
  auto err = [&](const std::string& text) { return error_of([&] { TaskData::create(o, &text); }); };
  CHECK(err("CAT\tK AE T\nDOG D AO G\n") == "data: line 2: no TAB between the word and its phonemes (WORD<TAB>PH ON ES)");
  CHECK(err("CAT\tK AE T\n\tD AO G\n") == "data: line 2: an empty word");
  CHECK(err("CAT\t\n") == "data: line 1: the word 'CAT' has no phonemes");
  CHECK(err("C T\tK AE T\n").find("holds white space or a control character") != std::string::npos);
  CHECK(err("") == "data: the file holds no examples (WORD<TAB>PH ON ES lines)");
  CHECK(err("\n \n") == "data: the file holds no examples (WORD<TAB>PH ON ES lines)");
  CHECK(err("CAT\tK AE T\n").find("eval_size = 2: the data has only 1 word;") != std::string::npos);
  CHECK(error_of([&] { TaskData::create(o, nullptr); }).find("task g2p reads the training recipe's train.tsv") != std::string::npos);
  CHECK(error_of([&] { TaskData::create(task_defaults(Task::Reverse), &data); }) == "task reverse is generated from the seed; --data is for task g2p");
}

TEST_CASE("tasks: a held-out set larger than half of what the task can generate is refused", "[train][tasks][errors]") {
  TrainingOptions o = task_defaults(Task::Copy);
  o.min_length = 1;
  o.max_length = 1;
  o.eval_size = 20;
  std::string option;
  try {
    TaskData::create(o, nullptr);
  } catch (const OptionError& e) {
    option = e.option;
    CHECK(std::string(e.what()).find("only 26 distinct strings") != std::string::npos);
  }
  CHECK(option == "eval_size");
}

TEST_CASE("a trained model is a model: the engine loads it, its numbers are the training graph's, every strategy decodes",
          "[train][run][export]") {
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    INFO(to_string(arch));
    TrainingOptions o = tiny();
    o.arch = arch;
    o.emb_dim = 16;
    o.enc_hidden = 16;
    o.dec_hidden = 32;
    o.attn_dim = 16;
    TrainingRun run(o, nullptr);
    ProgressRecord last;
    while (!run.done()) last = run.step(100);
    CHECK(last.step == 40);
    CHECK(last.evaluated);
    const auto bytes = run.export_model(ExportStorage::F32);
    const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
    CHECK(model->config().name == (arch == TrainArch::Rnn ? "copy-rnn-additive" : "copy-transformer"));
    CHECK(model->parameter_count() == static_cast<int64_t>(run.trainer().params().size()));
    // The engine's teacher-forced log-probabilities of "c a b" for "cab" are the graph's.
    seq2seq::DecodingOptions d;
    const seq2seq::Session session(model, d);
    const seq2seq::ForcedScore f = session.score("cab", "c a b");
    Batch b;
    const int off = static_cast<int>(kSourceSpecials.size()) - 'a', toff = static_cast<int>(kTargetSpecials.size()) - 'a';
    b.add({'c' + off, 'a' + off, 'b' + off}, {2, 'c' + toff, 'a' + toff, 'b' + toff}, {'c' + toff, 'a' + toff, 'b' + toff, 3});
    run.trainer().compute_gradients(b, false);
    const int V = static_cast<int>(model->config().tgt_vocab.size());
    const float* logits = arch == TrainArch::Rnn ? run.trainer().rnn_graph().logits() : run.trainer().graph().logits();
    std::vector<float> logp(static_cast<size_t>(4 * V));
    log_softmax_rows(logits, 4, V, logp.data());
    REQUIRE(f.token_logprobs.size() == 4);
    for (int t = 0; t < 4; ++t)
      CHECK(f.token_logprobs[static_cast<size_t>(t)] == Approx(logp[static_cast<size_t>(t * V + b.target[static_cast<size_t>(t)])]).margin(1e-4));
    // Every strategy of an autoregressive model.
    for (seq2seq::Strategy s : {seq2seq::Strategy::Greedy, seq2seq::Strategy::Beam, seq2seq::Strategy::Sample}) {
      seq2seq::DecodingOptions so;
      so.strategy = s;
      so.beam_size = 3;
      so.n_best = s == seq2seq::Strategy::Greedy ? 1 : 2;
      so.seed = 7;
      seq2seq::Session sess(model, so);
      sess.start("dab");
      int steps = 0;
      while (!sess.done()) {
        sess.step();
        ++steps;
      }
      sess.start("dab");
      const auto results = sess.run();
      INFO(seq2seq::to_string(s));
      CHECK(steps >= 1);
      REQUIRE(!results.empty());
      for (const auto& r : results) CHECK(std::isfinite(r.logprob));
    }
    seq2seq::DecodingOptions nar;
    nar.strategy = seq2seq::Strategy::Nar;
    CHECK_THROWS_AS(seq2seq::Session(model, nar).start("ab"), seq2seq::UsageError);
    const seq2seq::StepInside inside = model->inspect("dab", {});
    CHECK(inside.logits.size() == static_cast<size_t>(V));
    // int8 export: the same model with 2-D weights in int8, loaded and decoded.
    const auto q = run.export_model(ExportStorage::Int8);
    const auto model8 = seq2seq::Model::from_buffer(q.data(), q.size());
    CHECK(model8->storage() == "int8");
    CHECK(q.size() < bytes.size() / 2);
    const seq2seq::ForcedScore f8 = seq2seq::Session(model8, d).score("cab", "c a b");
    for (size_t t = 0; t < 4; ++t) CHECK(f8.token_logprobs[t] == Approx(f.token_logprobs[t]).margin(0.05));
  }
}

TEST_CASE("a word-level model (names) reads words, an unknown name as <unk>", "[train][run][export]") {
  TrainingOptions o = tiny(Task::Names);
  o.min_length = 3;
  o.max_length = 6;
  o.steps = 5;
  o.eval_every = 0;
  TrainingRun run(o, nullptr);
  while (!run.done()) run.step(10);
  const auto bytes = run.export_model(ExportStorage::F32);
  const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
  CHECK(model->config().src_tokens == seq2seq::SourceTokens::Words);
  const std::vector<int> ids = model->tokenize("My name is qqqqqqqqqq");
  REQUIRE(ids.size() == 4);
  CHECK(model->source_vocab().token(ids[0]) == "my");
  CHECK(ids[3] == model->config().src_specials.unk);
  seq2seq::Session s(model, seq2seq::DecodingOptions{});
  CHECK_FALSE(s.run_batch({"i am zzz"})[0].results.empty());
}

TEST_CASE("names with the copy mechanism: a held-out name, in no vocabulary, is copied; without it, none is", "[train][run][copy]") {
  // Short runs of small models (a one-layer Transformer, a GRU encoder-decoder): the copy
  // model learns to point at the name; the plain one cannot write a name its target
  // vocabulary lacks.
  for (TrainArch arch : {TrainArch::Transformer, TrainArch::Rnn}) {
    TrainingOptions o = task_defaults(Task::Names);
    o.arch = arch;
    seq2seq_test::use_small_model(o);
    o.steps = arch == TrainArch::Rnn ? 200 : 100;
    o.warmup_steps = 10;
    o.eval_size = 50;
    o.eval_every = 0;
    double accuracy[2] = {0, 0};
    for (bool copy : {false, true}) {
      INFO(to_string(arch) << (copy ? ", copy" : ""));
      o.copy = copy;
      TrainingRun run(o, nullptr);
      CHECK(run.model_config().copy == copy);
      ProgressRecord last;
      while (!run.done()) last = run.step(1000);
      REQUIRE(last.evaluated);
      accuracy[copy] = last.eval.word_accuracy;
      const auto bytes = run.export_model(ExportStorage::F32);
      const auto model = seq2seq::Model::from_buffer(bytes.data(), bytes.size());
      CHECK(model->config().copy == copy);
      const std::string name = arch == TrainArch::Rnn ? "names-rnn-additive" : "names-transformer";
      CHECK(model->config().name == (copy ? name + "-copy" : name));
      const auto out = seq2seq::Session(model, seq2seq::DecodingOptions{}).run_batch({"my name is zorblat"});
      REQUIRE(!out[0].results.empty());
      CHECK((out[0].results[0].text == "hello zorblat") == copy);
      // The probe reads a held-out example as the loss does: for a copy model its name is
      // a copy-only token, and its -log p the engine's forced score's; otherwise <unk>.
      const Probe pr = probe(run, 0);
      const HeldOut& h = run.task().held_out()[0];
      const std::string held_name = h.target.substr(h.target.rfind(' ') + 1);
      REQUIRE(pr.target_tokens.size() >= 2);
      CHECK(pr.target_tokens[pr.target_tokens.size() - 2] == (copy ? held_name : "<unk>"));
      if (copy) {
        const seq2seq::ForcedScore f = seq2seq::Session(model, seq2seq::DecodingOptions{}).score(h.source, h.target);
        REQUIRE(f.token_logprobs.size() == pr.token_nll.size());
        for (size_t k = 0; k < f.token_logprobs.size(); ++k) CHECK(-pr.token_nll[k] == Approx(f.token_logprobs[k]).margin(1e-4));
      }
    }
    INFO(to_string(arch) << ": held-out exact " << accuracy[0] << " without copying, " << accuracy[1] << " with");
    CHECK(accuracy[0] == 0.0);
    CHECK(accuracy[1] >= 0.9);
  }
  // Where the copy mechanism cannot work, the option is refused, named: an RNN without
  // attention has nothing to copy through; scheduled sampling would draw from the mix.
  auto refusal = [](const TrainingOptions& o) {
    try {
      validate(o);
    } catch (const OptionError& e) {
      return e.option + ": " + e.what();
    }
    return std::string();
  };
  TrainingOptions none = task_defaults(Task::Names);
  none.copy = true;
  none.arch = TrainArch::Rnn;
  none.attention = TrainAttention::None;
  CHECK(refusal(none) == "copy: training option copy = true: the copy mechanism copies through the attention, and attention = none has none");
  TrainingOptions sampled = none;
  sampled.attention = TrainAttention::Additive;
  sampled.scheduled_sampling = SamplingSchedule::Linear;
  CHECK(refusal(sampled) == "copy: training option copy = true with scheduled_sampling = linear: the model's own token would be "
                            "drawn from the copy mix, which scheduled sampling does not draw from yet");
}

TEST_CASE("a copy run's checkpoint resumes to the same bits", "[train][run][checkpoint][copy]") {
  TrainingOptions o = tiny(Task::Names);
  o.min_length = 3;
  o.max_length = 6;
  o.copy = true;
  o.steps = 8;
  o.eval_every = 4;
  TrainingRun whole(o, nullptr);
  while (!whole.done()) whole.step(100);
  TrainingRun half(o, nullptr);
  CHECK(half.step(100).step == 4);
  auto resumed = TrainingRun::resume(half.checkpoint(), o, nullptr);
  while (!resumed->done()) resumed->step(100);
  CHECK(resumed->trainer().params().values() == whole.trainer().params().values());
  TrainingOptions plain = o;
  plain.copy = false;
  CHECK(error_of([&] { TrainingRun::resume(half.checkpoint(), plain, nullptr); }) ==
        "checkpoint: it was trained with copy = true; this run asks for false (--copy)");
}

TEST_CASE("a checkpoint resumes to the same bits; one of another run is refused naming what differs", "[train][run][checkpoint]") {
  TrainingOptions o = tiny();
  o.dropout = 0.1f;  // the dropout generator's state travels too
  o.steps = 12;
  o.eval_every = 6;
  TrainingRun whole(o, nullptr);
  while (!whole.done()) whole.step(100);
  TrainingRun half(o, nullptr);
  const ProgressRecord r = half.step(100);
  CHECK(r.step == 6);  // stopped at the evaluation point
  const std::vector<uint8_t> cp = half.checkpoint();
  auto resumed = TrainingRun::resume(cp, o, nullptr);
  CHECK(resumed->trainer().steps_taken() == 6);
  while (!resumed->done()) resumed->step(100);
  CHECK(resumed->trainer().params().values() == whole.trainer().params().values());
  CHECK(resumed->trainer().optimizer().second_moment() == whole.trainer().optimizer().second_moment());
  // More steps than the checkpoint's run: allowed.
  TrainingOptions longer = o;
  longer.steps = 20;
  CHECK(TrainingRun::resume(cp, longer, nullptr)->trainer().steps_taken() == 6);
  TrainingOptions wider = o;
  wider.d_model = 64;
  CHECK(error_of([&] { TrainingRun::resume(cp, wider, nullptr); }) ==
        "checkpoint: it was trained with d_model = 32; this run asks for 64 (--d-model)");
  TrainingOptions other_task = o;
  other_task.task = Task::Reverse;
  CHECK(error_of([&] { TrainingRun::resume(cp, other_task, nullptr); }) ==
        "checkpoint: it was trained with task = copy; this run asks for reverse (--task)");
  const std::vector<uint8_t> model = half.export_model(ExportStorage::F32);
  CHECK(error_of([&] { TrainingRun::resume(model, o, nullptr); }) ==
        "checkpoint: not a checkpoint of seq2seq train (format 'seq2seq-wasm')");
  CHECK(error_of([&] { TrainingRun::resume(std::vector<uint8_t>(5, 0), o, nullptr); }).rfind("checkpoint: not a checkpoint file", 0) == 0);
  TrainingOptions shorter = o;
  shorter.steps = 3;
  CHECK(error_of([&] { TrainingRun::resume(cp, shorter, nullptr); }) == "checkpoint: it is at step 6, past this run's 3 steps");
}

TEST_CASE("a g2p checkpoint refuses data whose symbols its model has no token for", "[train][run][checkpoint][errors]") {
  TrainingOptions o = tiny(Task::G2p);
  o.eval_size = 1;
  o.steps = 2;
  o.eval_every = 0;
  const std::string data = "CAT\tK AE T\nDOG\tD AO G\nCAB\tK AE B\n";
  TrainingRun run(o, &data);
  run.step(10);
  const auto cp = run.checkpoint();
  const std::string more = data + "ZOO\tZ UW\n";
  CHECK(error_of([&] { TrainingRun::resume(cp, o, &more); }) ==
        "checkpoint: the data holds the source symbol 'Z', which the checkpoint's model has no token for");
}

TEST_CASE("a run over its memory bound is refused before it starts, naming the option and the need", "[train][run][errors]") {
  TrainingOptions o = task_defaults(Task::Reverse);
  o.d_model = 512;
  o.d_ff = 2048;
  o.layers = 6;
  o.batch_size = 512;
  o.memory_limit_mb = 64;
  std::string option, message;
  try {
    TrainingRun run(o, nullptr);
  } catch (const OptionError& e) {
    option = e.option;
    message = e.what();
  }
  CHECK(option == "memory_limit_mb");
  CHECK(message.rfind("this run needs ", 0) == 0);
  CHECK(message.find("more than memory_limit_mb = 64") != std::string::npos);
  // The RNN's bound likewise, from its own graph's plan.
  o.arch = TrainArch::Rnn;
  o.enc_hidden = 512;
  o.dec_hidden = 1024;
  option.clear();
  try {
    TrainingRun run(o, nullptr);
  } catch (const OptionError& e) {
    option = e.option;
    message = e.what();
  }
  CHECK(option == "memory_limit_mb");
  CHECK(message.find("more than memory_limit_mb = 64") != std::string::npos);
}

TEST_CASE("divergence stops the step that met it, naming it, before any update; NaN weights are never exported",
          "[train][run][errors]") {
  TrainingRun run(tiny(), nullptr);
  run.step(3);
  ParamStore& s = run.trainer().params();
  const std::vector<float> before = s.values();
  s.value(s.index("decoder.layers.0.ffn.fc1.weight"))[0] = std::numeric_limits<float>::infinity();
  const std::vector<float> poisoned = s.values();
  int step = 0;
  std::string message;
  try {
    run.step(1);
  } catch (const DivergedError& e) {
    step = e.step;
    message = e.what();
  }
  CHECK(step == 4);
  CHECK(message == "training diverged at step 4: the loss is not finite");
  CHECK(run.trainer().steps_taken() == 3);
  const std::vector<float> after = s.values();
  CHECK(std::equal(after.begin(), after.end(), poisoned.begin(), [](float a, float b) { return a == b || (std::isinf(a) && std::isinf(b)); }));
  CHECK(error_of([&] { run.export_model(ExportStorage::F32); }) ==
        "export: parameter 'decoder.layers.0.ffn.fc1.weight' holds a value that is not finite; the model is not written");
  (void)before;
}
