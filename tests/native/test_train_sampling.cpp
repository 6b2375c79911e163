// Scheduled sampling's pieces against the reference (tests/fixtures/train_rnn_layers.json,
// tests/tools/train_rnn_fixtures.py): each schedule's epsilon, the model's own
// token (argmax or inverse CDF), the fixed draw sequence, and the generator the
// fixtures replay the draws from; the two-pass form's mix of true and own tokens.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.h"
#include "random.h"
#include "train/scheduled_sampling.h"
#include "train/training_options.h"

using namespace seq2seq::train;

namespace {

const nlohmann::json& layers_fixture() {
  static const nlohmann::json fx = seq2seq_test::load_json(seq2seq_test::fixture_path("train_rnn_layers.json"));
  return fx;
}

}  // namespace

TEST_CASE("the fixtures' draws are the engine's generator's (SplitMix64 from seed 1)", "[train][sampling]") {
  seq2seq::Random rng(1);
  for (const auto& v : layers_fixture()["splitmix64_seed1"]) CHECK(std::to_string(rng.next_u64()) == v.get<std::string>());
}

TEST_CASE("scheduled sampling: each schedule's epsilon equals the reference's", "[train][sampling]") {
  const auto& sc = layers_fixture()["schedule"];
  int rows = 0;
  for (const auto& row : sc["rows"]) {
    TrainingOptions o;
    REQUIRE(from_string(row["schedule"].get<std::string>(), o.scheduled_sampling));
    o.sampling_midpoint = row["midpoint"];
    o.sampling_min = row["min"].get<float>();
    const int step = row["step"];
    const double want = row["epsilon"];
    INFO(row.dump());
    CHECK(std::fabs(true_token_probability(o, step) - want) <= 1e-12);
    ++rows;
  }
  CHECK(rows == 96);
  for (const auto& [n, k] : sc["inverse_sigmoid_k"].items()) {
    const int mid = std::stoi(n);
    CHECK(std::fabs(inverse_sigmoid_k(mid) - k.get<double>()) <= 1e-12 * k.get<double>());
    // k / (k + exp(N / k)) = 1/2 at the midpoint.
    CHECK(k.get<double>() / (k.get<double>() + std::exp(mid / k.get<double>())) == Approx(0.5).epsilon(1e-9));
  }
  // Teacher forcing reads the true token always; the floor holds every schedule up.
  TrainingOptions o;
  CHECK(true_token_probability(o, 100000) == 1.0);
  o.scheduled_sampling = SamplingSchedule::Linear;
  o.sampling_midpoint = 10;
  CHECK(true_token_probability(o, 1) == 1.0);
  CHECK(true_token_probability(o, 11) == 0.5);
  CHECK(true_token_probability(o, 21) == 0.0);
  o.sampling_min = 0.2f;
  CHECK(true_token_probability(o, 21) == Approx(0.2));
}

TEST_CASE("scheduled sampling: the model's own token is the argmax or the inverse CDF at the draw", "[train][sampling]") {
  const float logits[3] = {std::log(0.2f), std::log(0.5f), std::log(0.3f)};
  CHECK(own_token(logits, 3, SampledToken::Argmax, 0.0) == 1);
  CHECK(own_token(logits, 3, SampledToken::Sample, 0.0) == 0);
  CHECK(own_token(logits, 3, SampledToken::Sample, 0.19) == 0);
  CHECK(own_token(logits, 3, SampledToken::Sample, 0.21) == 1);
  CHECK(own_token(logits, 3, SampledToken::Sample, 0.69) == 1);
  CHECK(own_token(logits, 3, SampledToken::Sample, 0.71) == 2);
  CHECK(own_token(logits, 3, SampledToken::Sample, 0.999999) == 2);
  // A fixed draw sequence: two draws a row, whatever the outcome.
  seq2seq::Random a(5), b(5);
  SamplingDraws d(8);
  d.draw(a, 3, 0.5, SampledToken::Sample);
  REQUIRE(d.rows() == 3);
  for (int r = 0; r < 3; ++r) {
    CHECK(d.coins()[static_cast<size_t>(r)] == b.uniform());
    CHECK(d.picks()[static_cast<size_t>(r)] == b.uniform());
    CHECK(d.reads_true_token(r) == (d.coins()[static_cast<size_t>(r)] < 0.5));
  }
}


TEST_CASE("training options: scheduled sampling's names, and the RNN refuses attention dropout", "[train][sampling][options]") {
  SamplingSchedule s = SamplingSchedule::Off;
  CHECK(from_string("inverse_sigmoid", s));
  CHECK(s == SamplingSchedule::InverseSigmoid);
  CHECK_FALSE(from_string("sigmoid", s));
  CHECK(std::string(to_string(SampledToken::Argmax)) == "argmax");
  TrainingOptions o;
  o.attention_dropout = 0.1f;
  CHECK_NOTHROW(validate(o));  // the Transformer's
  o.arch = TrainArch::Rnn;
  try {
    validate(o);
    FAIL("no error");
  } catch (const OptionError& e) {
    CHECK(e.option == "attention_dropout");
    CHECK(std::string(e.what()).find("the RNN has no dropout on its attention weights") != std::string::npos);
  }
}

TEST_CASE("training options: scheduled sampling for either family (the Transformer's in two passes)", "[train][sampling][options]") {
  TrainingOptions o;
  o.scheduled_sampling = SamplingSchedule::Exponential;
  CHECK_NOTHROW(validate(o));
  o.arch = TrainArch::Rnn;
  CHECK_NOTHROW(validate(o));
}

TEST_CASE("scheduled sampling, two passes: the mix reads the true token where the coin says so, else the first pass's "
          "prediction at the row before; BOS always",
          "[train][sampling]") {
  // Two examples of 3 and 4 decoder rows over a vocabulary of 5; the logits of row r
  // favour token (r + 1) % 5 over the true next token, so an own token is visible.
  Batch b;
  b.add({1}, {2, 3, 4}, {3, 4, 1});
  b.add({1, 2}, {2, 0, 1, 3}, {0, 1, 3, 1});
  const int V = 5, rows = b.dec_rows();
  std::vector<float> logits(static_cast<size_t>(rows) * V, 0.0f);
  for (int r = 0; r < rows; ++r) logits[static_cast<size_t>(r) * V + static_cast<size_t>((r + 1) % V)] = 3.0f;
  seq2seq::Random rng(11), replay(11);
  SamplingDraws d(16);
  d.draw(rng, rows, 0.5, SampledToken::Argmax);
  std::vector<int> mixed(static_cast<size_t>(rows), -1);
  const int own = mix_inputs(b, logits.data(), V, d, mixed.data());
  int want_own = 0, true_read = 0, own_read = 0;
  for (int r = 0; r < rows; ++r) {
    const double coin = replay.uniform();
    replay.uniform();  // the pick
    const bool first = r == 0 || r == 3;
    const int want = first || coin < 0.5 ? b.dec_in[static_cast<size_t>(r)] : r % V;  // argmax of row r - 1
    INFO("row " << r << ", coin " << coin);
    CHECK(mixed[static_cast<size_t>(r)] == want);
    want_own += want != b.dec_in[static_cast<size_t>(r)];
    if (!first) (coin < 0.5 ? true_read : own_read)++;
  }
  CHECK(own == want_own);
  CHECK(true_read > 0);  // seed 11 gives both kinds of row
  CHECK(own_read > 0);
  // Epsilon 1 reads the true tokens, epsilon 0 every own one (BOS kept).
  d.draw(rng, rows, 1.0, SampledToken::Argmax);
  CHECK(mix_inputs(b, logits.data(), V, d, mixed.data()) == 0);
  CHECK(mixed == b.dec_in);
  d.draw(rng, rows, 0.0, SampledToken::Argmax);
  mix_inputs(b, logits.data(), V, d, mixed.data());
  CHECK(mixed == std::vector<int>{2, 1, 2, 2, 4, 0, 1});
  // Draws for another batch are refused.
  d.draw(rng, rows - 1, 0.5, SampledToken::Argmax);
  CHECK_THROWS_WITH(mix_inputs(b, logits.data(), V, d, mixed.data()), "scheduled sampling: draws for 6 rows, the batch has 7");
}
