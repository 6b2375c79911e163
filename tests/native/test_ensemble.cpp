// Ensembles (src/ensemble.h): the mixture of the members' next-token
// distributions, through the same StepScorer search drives, and every way of
// building one that cannot work.
#include <catch2/catch.hpp>

#include <cmath>

#include "ensemble.h"
#include "errors.h"
#include "fixtures.h"
#include "model_access.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

std::shared_ptr<const Model> fixture(const char* name) { return Model::from_file(fixture_path(name)); }

std::vector<Result> decode(std::shared_ptr<const Model> m, Strategy s, const std::string& word) {
  DecodingOptions o;
  o.strategy = s;
  o.beam_size = 4;
  o.n_best = s == Strategy::Beam ? 3 : 1;
  Session session(std::move(m), o);
  session.start(word);
  return session.run();
}

}  // namespace

TEST_CASE("mean_of_probabilities is log(mean(exp)) row by row, -inf where every member says impossible",
          "[ensemble]") {
  const float ninf = -std::numeric_limits<float>::infinity();
  RowMatrix a(2, 3), b(2, 3), out;
  a << std::log(0.5f), std::log(0.5f), ninf, std::log(0.2f), std::log(0.8f), ninf;
  b << std::log(0.1f), std::log(0.6f), std::log(0.3f), std::log(1.0f), ninf, ninf;
  mean_of_probabilities({a, b}, out);
  const float want[2][3] = {{0.3f, 0.55f, 0.15f}, {0.6f, 0.4f, 0.0f}};
  for (int r = 0; r < 2; ++r)
    for (int v = 0; v < 3; ++v) {
      if (want[r][v] == 0.0f) CHECK(std::isinf(out(r, v)));
      else CHECK(std::exp(out(r, v)) == Approx(want[r][v]).margin(1e-6));
    }
  // far below float's exp range: the max is taken out first
  RowMatrix c = RowMatrix::Constant(1, 2, -2000.0f), d = RowMatrix::Constant(1, 2, -2000.0f);
  mean_of_probabilities({c, d}, out);
  CHECK(out(0, 0) == Approx(-2000.0f));
}

TEST_CASE("an ensemble's step is the mean of its members' probabilities, across architectures", "[ensemble]") {
  const auto a = fixture("ar_post_sin_tied_relu.safetensors");
  const auto b = fixture("ar_pre_learned_untied_gelu.safetensors");
  const auto r = fixture("rnn_dot.safetensors");
  REQUIRE(a->target_vocab().tokens() == r->target_vocab().tokens());
  const auto ens = Model::ensemble({a, b, r});
  CHECK(ens->ensemble_size() == 3);
  CHECK(ens->parameter_count() == a->parameter_count() + b->parameter_count() + r->parameter_count());
  CHECK(ens->config().max_pos == std::min({a->config().max_pos, b->config().max_pos, r->config().max_pos}));
  CHECK_THROWS_AS(ModelAccess::transformer(*ens), UsageError);

  const std::vector<int> src = a->tokenize("BAD'G");
  const int cap = 6;
  auto e = ModelAccess::network(*ens).step_scorer(src, cap);
  std::vector<std::unique_ptr<StepScorer>> members;
  for (const auto& m : {a, b, r}) members.push_back(ModelAccess::network(*m).step_scorer(src, cap));
  const int bos = a->config().tgt_specials.bos;
  // one hypothesis, then three after a beam-like reorder, fed a few tokens
  const std::vector<std::vector<int>> feeds = {{bos}, {5, 6, 7}, {8, 5, 9}};
  const std::vector<std::vector<int>> parents = {{0, 0, 0}, {2, 0, 1}, {}};
  for (size_t t = 0; t < feeds.size(); ++t) {
    RowMatrix got;
    e->score(feeds[t], got, nullptr);
    std::vector<RowMatrix> lp(3);
    for (size_t m = 0; m < 3; ++m) members[m]->score(feeds[t], lp[m], nullptr);
    REQUIRE(got.rows() == static_cast<Eigen::Index>(feeds[t].size()));
    double worst = 0, total = 0;
    for (Eigen::Index i = 0; i < got.rows(); ++i)
      for (Eigen::Index v = 0; v < got.cols(); ++v) {
        double p = 0;
        for (const auto& x : lp) p += std::exp(static_cast<double>(x(i, v))) / 3.0;
        worst = std::max(worst, std::abs(std::exp(static_cast<double>(got(i, v))) - p));
        total += std::exp(static_cast<double>(got(i, v)));
      }
    CHECK(worst < 1e-6);
    CHECK(total == Approx(static_cast<double>(got.rows())).margin(1e-4));  // each row sums to 1
    if (!parents[t].empty()) {
      e->reorder(parents[t]);
      for (auto& s : members) s->reorder(parents[t]);
    }
  }
}

TEST_CASE("an ensemble of one model, or of copies of it, decodes as that model", "[ensemble]") {
  const auto a = fixture("ar_post_sin_tied_relu.safetensors");
  const auto a2 = fixture("ar_post_sin_tied_relu.safetensors");
  for (const auto& ens : {Model::ensemble({a}), Model::ensemble({a, a2, a})}) {
    for (Strategy s : {Strategy::Greedy, Strategy::Beam}) {
      for (const char* word : {"ABC", "GF'D", "FACADE"}) {
        INFO(word << " " << to_string(s) << " ensemble of " << ens->ensemble_size());
        const auto want = decode(a, s, word);
        const auto got = decode(ens, s, word);
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          CHECK(got[i].tokens == want[i].tokens);
          CHECK(got[i].logprob == Approx(want[i].logprob).margin(1e-4));
        }
      }
    }
  }
}

TEST_CASE("models that cannot be combined are refused with a message", "[ensemble][errors]") {
  const auto a = fixture("ar_post_sin_tied_relu.safetensors");
  CHECK_THROWS_AS(Model::ensemble({}), UsageError);
  CHECK_THROWS_AS(Model::ensemble({a, nullptr}), UsageError);
  CHECK_THROWS_WITH(Model::ensemble({a, fixture("cmlm_pre_sin_tied_relu.safetensors")}),
                    Catch::Contains("non-autoregressive"));
  const auto shipped = Model::from_file(std::string(SEQ2SEQ_MODEL_DIR) + "/g2p-transformer.safetensors");
  CHECK_THROWS_WITH(Model::ensemble({a, shipped}), Catch::Contains("another source vocabulary"));
  // an ensemble is autoregressive: NAR decoding is refused by the session
  DecodingOptions o;
  o.strategy = Strategy::Nar;
  CHECK_THROWS_AS(Session(Model::ensemble({a, a}), o), UsageError);
  CHECK_THROWS_AS(ModelAccess::network(*Model::ensemble({a, a})).parallel_scorer(a->tokenize("AB")), UsageError);
}
