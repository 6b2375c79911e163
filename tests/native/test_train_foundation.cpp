// The trainer's foundations (src/train/): the options' ranges and rules, the
// parameter store, AdamW with its schedule and clipping against
// torch.optim.AdamW, the label-smoothed cross-entropy against PyTorch autograd,
// and dropout's masks (tests/fixtures/train_*.json, tests/tools/make_train_fixtures.py).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.h"
#include "random.h"
#include "train/dropout.h"
#include "train/loss.h"
#include "train/optimizer.h"
#include "train/param_store.h"
#include "train/training_options.h"

using namespace seq2seq::train;
using seq2seq_test::fixture_path;
using seq2seq_test::load_json;

namespace {

// |a - b| <= tol * max(1, |b|) for every element.
void check_close(const std::vector<float>& got, const nlohmann::json& ref, double tol, const std::string& what) {
  REQUIRE(got.size() == ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = ref[i].get<double>();
    INFO(what << " element " << i << ": got " << got[i] << ", want " << want);
    REQUIRE(std::fabs(got[i] - want) <= tol * std::max(1.0, std::fabs(want)));
  }
}

// The error validate() throws for `o`, or "" if it throws none.
std::string option_error(const TrainingOptions& o, std::string* option = nullptr, std::string* range = nullptr) {
  try {
    validate(o);
  } catch (const OptionError& e) {
    if (option) *option = e.option;
    if (range) *range = e.range;
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("training options: every numeric option is held to its range at both ends", "[train][options]") {
  REQUIRE(option_error(TrainingOptions{}).empty());
  int checked = 0;
  for_each_numeric_training_option([&](const seq2seq::NumericOption& opt, auto field, const auto& range) {
    using T = std::decay_t<decltype(TrainingOptions{}.*field)>;
    TrainingOptions o;
    // A value at either end is in range; it may break a rule between options
    // (max_length 1 under min_length 3), which is another error, with no range.
    std::string name, shown_range;
    o.*field = range.lo;
    if (!range.open_lo) {
      INFO(opt.name << " at its bottom: " << option_error(o));
      CHECK((option_error(o, &name, &shown_range).empty() || shown_range.empty()));
    }
    o.*field = range.hi;
    shown_range.clear();
    INFO(opt.name << " at its top: " << option_error(o));
    CHECK((option_error(o, &name, &shown_range).empty() || shown_range.empty()));
    if constexpr (std::is_floating_point<T>::value) {
      o.*field = std::nextafter(range.hi, std::numeric_limits<T>::infinity());
    } else if (range.hi < std::numeric_limits<T>::max()) {
      o.*field = range.hi + 1;
    } else {
      o.*field = range.lo;  // uint64 with the whole range: nothing is outside
    }
    const std::string over = option_error(o, &name, &shown_range);
    if (range.contains(o.*field)) {
      CHECK(over.empty());
    } else {
      INFO(opt.name << ": " << over);
      CHECK(name == opt.name);
      CHECK(shown_range == seq2seq::to_string(range));
      CHECK(over.find(std::string(opt.name)) != std::string::npos);
      CHECK(over.find(shown_range) != std::string::npos);
    }
    if constexpr (std::is_floating_point<T>::value) {
      o.*field = std::numeric_limits<T>::quiet_NaN();
      CHECK(option_error(o, &name) != "");
      CHECK(name == opt.name);
    }
    ++checked;
  });
  CHECK(checked >= 25);
}

TEST_CASE("training options: rules between options name the option", "[train][options]") {
  std::string name;
  TrainingOptions o;
  o.d_model = 66;  // 4 heads do not divide it
  CHECK(option_error(o, &name).find("does not divide d_model = 66") != std::string::npos);
  CHECK(name == "heads");
  o = TrainingOptions{};
  o.min_length = 9;
  o.max_length = 5;
  CHECK(option_error(o, &name).find("min_length = 9 is more than max_length = 5") != std::string::npos);
  o = TrainingOptions{};
  o.arch = TrainArch::Rnn;
  o.attention = TrainAttention::Dot;
  o.enc_hidden = 32;
  o.dec_hidden = 48;
  CHECK(option_error(o, &name).find("dot attention needs dec_hidden = 2 * enc_hidden = 64") != std::string::npos);
  CHECK(name == "dec_hidden");
}

TEST_CASE("training options: a task's own defaults, the rest the struct's", "[train][options]") {
  const TrainingOptions base, g2p = task_defaults(Task::G2p), rev = task_defaults(Task::Reverse);
  CHECK(g2p.task == Task::G2p);
  CHECK(g2p.d_model == 128);
  CHECK(g2p.steps == 12000);
  CHECK(g2p.heads == base.heads);
  CHECK(rev.d_model == base.d_model);
  CHECK(rev.steps == base.steps);
  CHECK(task_defaults(Task::Names).max_length == 8);
  Task t;
  CHECK(from_string("g2p", t));
  CHECK(t == Task::G2p);
  CHECK_FALSE(from_string("translate", t));
  CHECK(std::string(to_string(Task::Sort)) == "sort");
}

TEST_CASE("parameter store: one buffer in declaration order, names unique", "[train][params]") {
  ParamStore s;
  CHECK(s.add("a.weight", {3, 4}, true) == 0);
  CHECK(s.add("a.bias", {3}, false) == 1);
  CHECK_THROWS_WITH(s.add("a.bias", {2}, false), Catch::Contains("'a.bias' declared twice"));
  CHECK_THROWS_WITH(s.add("b", {2, 0}, false), Catch::Contains("a dimension of 0"));
  s.allocate();
  CHECK(s.size() == 15);
  CHECK(s.tensor(1).offset == 12);
  CHECK(s.index("a.bias") == 1);
  CHECK(s.index("nothing") == -1);
  CHECK(s.value(1) == s.values().data() + 12);
  CHECK(s.grad(1) == s.grads().data() + 12);
  CHECK_THROWS_WITH(s.add("late", {1}, false), Catch::Contains("after the store was allocated"));
}

TEST_CASE("AdamW, warm-up and cosine decay, clipping: five steps equal torch.optim.AdamW", "[train][adamw]") {
  const auto fx = load_json(fixture_path("train_adamw.json"));
  const auto& fo = fx["options"];
  TrainingOptions o;
  o.learning_rate = fo["learning_rate"].get<float>();
  o.warmup_steps = fo["warmup_steps"];
  o.steps = fo["steps"];
  o.lr_decay = LrDecay::Cosine;
  o.final_lr_ratio = fo["final_lr_ratio"].get<float>();
  ParamStore s;
  for (const char* n : {"w", "b", "g"}) {
    std::vector<int64_t> shape = fx["shapes"][n].get<std::vector<int64_t>>();
    s.add(n, shape, std::string(n) == "w");
  }
  s.allocate();
  for (const char* n : {"w", "b", "g"}) {
    const auto init = fx["init"][n].get<std::vector<float>>();
    std::copy(init.begin(), init.end(), s.value(s.index(n)));
  }
  AdamW adam(s.size());
  AdamWSettings set;
  set.beta1 = fo["beta1"].get<float>();
  set.beta2 = fo["beta2"].get<float>();
  set.eps = fo["adam_eps"].get<float>();
  set.weight_decay = fo["weight_decay"].get<float>();
  int step = 0;
  for (const auto& st : fx["steps"]) {
    ++step;
    for (const char* n : {"w", "b", "g"}) {
      const auto g = st["grads"][n].get<std::vector<float>>();
      std::copy(g.begin(), g.end(), s.grad(s.index(n)));
    }
    const double norm = clip_gradients(s, fo["clip_norm"].get<float>());
    CHECK(norm == Approx(st["norm"].get<double>()).epsilon(1e-6));
    set.lr = learning_rate_at(o, step);
    CHECK(set.lr == Approx(st["lr"].get<double>()).epsilon(1e-6));
    adam.step(s, set);
    for (const char* n : {"w", "b", "g"}) {
      const int i = s.index(n);
      check_close(std::vector<float>(s.value(i), s.value(i) + s.tensor(i).size), st["params"][n], 1e-5,
                  "step " + std::to_string(step) + " " + n);
    }
  }
  CHECK(adam.steps_taken() == 5);
}

TEST_CASE("learning-rate schedule: warm-up, then none, linear or cosine to the floor", "[train][adamw]") {
  TrainingOptions o;
  o.learning_rate = 0.01f;
  o.warmup_steps = 10;
  o.steps = 110;
  o.final_lr_ratio = 0.2f;
  CHECK(learning_rate_at(o, 1) == Approx(0.001));
  CHECK(learning_rate_at(o, 10) == Approx(0.01));
  o.lr_decay = LrDecay::None;
  CHECK(learning_rate_at(o, 60) == Approx(0.01));
  o.lr_decay = LrDecay::Linear;
  CHECK(learning_rate_at(o, 60) == Approx(0.006));
  CHECK(learning_rate_at(o, 110) == Approx(0.002));
  o.lr_decay = LrDecay::Cosine;
  CHECK(learning_rate_at(o, 60) == Approx(0.006));
  CHECK(learning_rate_at(o, 110) == Approx(0.002));
  CHECK(learning_rate_at(o, 500) == Approx(0.002));  // past the end: the floor
  o.warmup_steps = 0;
  CHECK(learning_rate_at(o, 1) == Approx(0.01).epsilon(1e-3));
}

TEST_CASE("gradient clipping: below the bound nothing moves; a NaN gradient is reported, not spread", "[train][adamw]") {
  ParamStore s;
  s.add("x", {2}, false);
  s.allocate();
  s.grad(0)[0] = 3.0f;
  s.grad(0)[1] = 4.0f;
  CHECK(clip_gradients(s, 10.0f) == Approx(5.0));
  CHECK(s.grad(0)[0] == 3.0f);
  CHECK(clip_gradients(s, 1.0f) == Approx(5.0));
  CHECK(s.grad(0)[1] == Approx(0.8).epsilon(1e-5));
  s.grad(0)[0] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(std::isfinite(clip_gradients(s, 1.0f)));
  CHECK(s.grad(0)[1] == Approx(0.8).epsilon(1e-5));
}

TEST_CASE("label-smoothed cross-entropy equals PyTorch's, padding ignored", "[train][loss]") {
  const auto fx = load_json(fixture_path("train_layers.json"))["loss"];
  const int rows = fx["rows"], V = fx["V"], ignore = fx["ignore"];
  const auto logits = fx["logits"].get<std::vector<std::vector<float>>>();
  std::vector<float> flat;
  for (const auto& row : logits) flat.insert(flat.end(), row.begin(), row.end());
  const auto targets = fx["targets"].get<std::vector<int>>();
  int counted = 0;
  for (int t : targets) counted += t != ignore;
  for (const auto& c : fx["cases"]) {
    const float eps = c["smoothing"].get<float>();
    std::vector<float> logp(flat.size()), dlogp(flat.size()), dlogits(flat.size());
    log_softmax_rows(flat.data(), rows, V, logp.data());
    const LossSums s = smoothed_nll(logp.data(), rows, V, targets.data(), ignore, eps, 1.0f / counted, dlogp.data());
    log_softmax_backward(logp.data(), dlogp.data(), rows, V, dlogits.data());
    INFO("smoothing " << eps);
    CHECK(s.tokens == counted);
    CHECK(s.loss / s.tokens == Approx(c["loss"].get<double>()).epsilon(1e-6));
    std::vector<float> want;
    for (const auto& row : c["dlogits"]) for (const auto& v : row) want.push_back(v.get<float>());
    for (size_t i = 0; i < want.size(); ++i) CHECK(dlogits[i] == Approx(want[i]).margin(1e-6));
  }
}

TEST_CASE("dropout: masks from the seed, about p dropped, kept values scaled by 1/(1-p)", "[train][dropout]") {
  std::vector<float> a(20000), b(20000);
  seq2seq::Random r1(42), r2(42);
  draw_dropout_mask(r1, 0.25f, a.data(), a.size());
  draw_dropout_mask(r2, 0.25f, b.data(), b.size());
  CHECK(a == b);
  size_t dropped = 0;
  for (float v : a) {
    CHECK((v == 0.0f || v == Approx(1.0f / 0.75f)));
    dropped += v == 0.0f;
  }
  CHECK(dropped > 4700);
  CHECK(dropped < 5300);
  seq2seq::Random r3(42), r4(42);
  draw_dropout_mask(r3, 0.0f, a.data(), a.size());
  for (float v : a) CHECK(v == 1.0f);
  CHECK(r3.next_u64() == r4.next_u64());  // p = 0 draws nothing
}
