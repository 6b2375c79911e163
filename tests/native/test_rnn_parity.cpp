// The RNN encoder-decoder against PyTorch (tests/tools/make_fixtures.py, rnn_* fixtures):
// logits and attention weights for each of the four scores, step by step; several
// hypotheses in one step equal each alone; a reordered state equals recomputation.
#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "model_access.h"
#include "rnn.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

const std::vector<std::string> kRnnFixtures = {"rnn_dot", "rnn_multiplicative", "rnn_reduced_rank", "rnn_additive", "rnn_none"};

std::vector<std::vector<int>> rows_of(const nlohmann::json& j) {
  std::vector<std::vector<int>> out;
  for (const auto& r : j) out.push_back(r.get<std::vector<int>>());
  return out;
}

// Teacher-forced logits [T x V] and attention [T x S] for one example.
void teacher_force(const Rnn& rnn, const std::vector<int>& src, const std::vector<int>& tgt, RowMatrix& logits, RowMatrix& attn) {
  RnnState st = rnn.encode(src);
  logits.resize(static_cast<long>(tgt.size()), static_cast<long>(rnn.config().tgt_vocab.size()));
  const bool none = rnn.config().attention == AttentionScore::None;  // no weights at all
  attn.resize(static_cast<long>(tgt.size()), none ? 0 : static_cast<long>(src.size()));
  for (size_t t = 0; t < tgt.size(); ++t) {
    RowMatrix l, a;
    rnn.step(st, {tgt[t]}, l, &a);
    logits.row(static_cast<long>(t)) = l.row(0);
    REQUIRE(a.cols() == attn.cols());
    if (!none) attn.row(static_cast<long>(t)) = a.row(0);
  }
}

}  // namespace

TEST_CASE("RNN logits and attention match PyTorch for all four scores and for none", "[parity][rnn]") {
  for (const auto& name : kRnnFixtures) {
    SECTION(name) {
      const auto fx = load_json(fixture_path(name + ".json"));
      const auto model = Model::from_file(fixture_path(fx["model"].get<std::string>()));
      REQUIRE(model->config().arch == Arch::Rnn);
      CHECK(std::string(to_string(model->config().attention)) == name.substr(4));
      const double tol = fx["tolerance"].get<double>();
      const auto sources = rows_of(fx["sources"]), targets = rows_of(fx["targets"]);
      for (size_t b = 0; b < sources.size(); ++b) {
        INFO("example " << b);
        RowMatrix logits, attn;
        teacher_force(ModelAccess::rnn(*model), sources[b], targets[b], logits, attn);
        CHECK(max_abs_diff(fx["logits"][b], logits) <= tol);
        if (name == "rnn_none") {  // the fixed context vector: nothing attended, no weights
          CHECK_FALSE(fx.contains("cross_attn"));
          CHECK(attn.cols() == 0);
          continue;
        }
        CHECK(max_abs_diff(fx["cross_attn"][b], attn) <= tol);
        for (long t = 0; t < attn.rows(); ++t) CHECK(attn.row(t).sum() == Approx(1.0).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("RNN: batched hypotheses and reordered states equal one-by-one", "[parity][rnn]") {
  const auto fx = load_json(fixture_path("rnn_additive.json"));
  const auto model = Model::from_file(fixture_path(fx["model"].get<std::string>()));
  const Rnn& rnn = ModelAccess::rnn(*model);
  const auto sources = rows_of(fx["sources"]), targets = rows_of(fx["targets"]);
  size_t len = targets[0].size();
  for (const auto& t : targets) len = std::min(len, t.size());

  RnnState together = rnn.encode(sources[0]);
  rnn.reorder(together, {0, 0, 0});  // three hypotheses from s_0
  std::vector<RowMatrix> alone_logits(3), alone_attn(3);
  for (size_t i = 0; i < 3; ++i) teacher_force(rnn, sources[0], targets[i], alone_logits[i], alone_attn[i]);
  for (size_t t = 0; t < len; ++t) {
    RowMatrix l, a;
    rnn.step(together, {targets[0][t], targets[1][t], targets[2][t]}, l, &a);
    for (long i = 0; i < 3; ++i) {
      CHECK((l.row(i) - alone_logits[static_cast<size_t>(i)].row(static_cast<long>(t))).cwiseAbs().maxCoeff() <= 1e-5);
      CHECK((a.row(i) - alone_attn[static_cast<size_t>(i)].row(static_cast<long>(t))).cwiseAbs().maxCoeff() <= 1e-5);
    }
  }
  // Reorder: hypothesis 2 twice and hypothesis 0, then one more shared token.
  rnn.reorder(together, {2, 2, 0});
  RowMatrix l;
  const int next = targets[1][1];
  rnn.step(together, {next, next, next}, l, nullptr);
  for (auto [row, parent] : {std::pair<long, size_t>{0, 2}, {1, 2}, {2, 0}}) {
    std::vector<int> seq(targets[parent].begin(), targets[parent].begin() + static_cast<long>(len));
    seq.push_back(next);
    RowMatrix full, attn;
    teacher_force(rnn, sources[0], seq, full, attn);
    CHECK((l.row(row) - full.row(full.rows() - 1)).cwiseAbs().maxCoeff() <= 1e-5);
  }
  CHECK_THROWS_AS(rnn.reorder(together, {3}), UsageError);
  RowMatrix bad;
  CHECK_THROWS_AS(rnn.step(together, {1}, bad, nullptr), UsageError);
  CHECK_THROWS_AS(rnn.encode({}), InputError);
  CHECK_THROWS_AS(ModelAccess::transformer(*model), UsageError);
}

TEST_CASE("RNN models decode through the same Session and snapshots", "[rnn][session]") {
  const auto model = Model::from_file(fixture_path("rnn_reduced_rank.safetensors"));
  DecodingOptions o;
  o.strategy = Strategy::Beam;
  o.beam_size = 3;
  o.n_best = 2;
  Session s(model, o);
  s.start("ABC");
  const Snapshot first = s.step();
  CHECK(first.layers == 1);
  CHECK(first.heads == 1);
  REQUIRE_FALSE(first.live.empty());
  CHECK(first.live[0].attention.size() == 3);
  CHECK(first.live[0].attention_heads.size() == 3);
  double sum = 0;
  for (float a : first.live[0].attention) sum += a;
  CHECK(sum == Approx(1.0).epsilon(1e-5));
  Session again(model, o);
  again.start("ABC");
  Snapshot last = first;
  while (!s.done()) last = s.step();
  const auto results = again.run();
  REQUIRE(results.size() == 2);
  CHECK(last.results.at(0).tokens == results.at(0).tokens);
  CHECK_THROWS_WITH(Session(model, [] { DecodingOptions n; n.strategy = Strategy::Nar; return n; }()),
                    Catch::Contains("non-autoregressive"));
}
