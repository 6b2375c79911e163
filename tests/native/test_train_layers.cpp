// Each of the trainer's layers (src/train/layers.h) against PyTorch autograd on
// the project's reference modules (tests/fixtures/train_layers.json): its output,
// its input gradient and every parameter gradient, within 1e-5 relative.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.h"
#include "train/gemm_kernel.h"
#include "train/layers.h"
#include "tensor.h"
#include "train_fixtures.h"

using namespace seq2seq::train;
using seq2seq_test::check_rel;
using seq2seq_test::flat;

namespace {

const nlohmann::json& layers_fixture() {
  static const nlohmann::json fx = seq2seq_test::load_json(seq2seq_test::fixture_path("train_layers.json"));
  return fx;
}

std::vector<float> cat(std::initializer_list<std::vector<float>> parts) {
  std::vector<float> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<float> slice(const std::vector<float>& v, size_t from, size_t n) {
  return std::vector<float>(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(from + n));
}

}  // namespace

TEST_CASE("trainer layers: linear forward and backward equal autograd", "[train][layers]") {
  const auto& fx = layers_fixture()["linear"];
  const int in = fx["in"], out = fx["out"], rows = fx["rows"];
  const auto w = flat(fx["weight"]), b = flat(fx["bias"]), x = flat(fx["x"]), dy = flat(fx["dy"]);
  std::vector<float> scratch(4096), y(static_cast<size_t>(rows) * out), dx(x.size(), 0.0f), dw(w.size(), 0.0f), db(b.size(), 0.0f);
  linear_forward(x.data(), rows, in, w.data(), b.data(), out, y.data(), scratch.data());
  check_rel(y, flat(fx["y"]), "y");
  linear_backward(x.data(), dy.data(), rows, in, out, w.data(), dx.data(), dw.data(), db.data(), scratch.data());
  check_rel(dx, flat(fx["dx"]), "dx");
  check_rel(dw, flat(fx["grads"]["weight"]), "dW");
  check_rel(db, flat(fx["grads"]["bias"]), "db");
  // Backward adds: a second pass doubles every gradient.
  linear_backward(x.data(), dy.data(), rows, in, out, w.data(), dx.data(), dw.data(), db.data(), scratch.data());
  for (float& v : dw) v *= 0.5f;
  check_rel(dw, flat(fx["grads"]["weight"]), "dW accumulated twice, halved");
}

TEST_CASE("trainer layers: LayerNorm forward and backward equal autograd", "[train][layers]") {
  const auto& fx = layers_fixture()["layer_norm"];
  const int d = fx["d"], rows = fx["rows"];
  const auto g = flat(fx["weight"]), b = flat(fx["bias"]), x = flat(fx["x"]), dy = flat(fx["dy"]);
  std::vector<float> y(x.size()), mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows)), dx(x.size(), 0.0f),
      dg(g.size(), 0.0f), db(b.size(), 0.0f);
  layer_norm_forward(x.data(), rows, d, g.data(), b.data(), fx["eps"].get<float>(), y.data(), mean.data(), rstd.data());
  check_rel(y, flat(fx["y"]), "y");
  layer_norm_backward(x.data(), dy.data(), rows, d, g.data(), mean.data(), rstd.data(), dx.data(), dg.data(), db.data());
  check_rel(dx, flat(fx["dx"]), "dx");
  check_rel(dg, flat(fx["grads"]["weight"]), "dgain");
  check_rel(db, flat(fx["grads"]["bias"]), "dbias");
}

TEST_CASE("trainer layers: the FFN (ReLU, exact GELU) equals autograd", "[train][layers]") {
  for (const auto& fx : layers_fixture()["ffn"]) {
    const std::string act_name = fx["activation"];
    INFO(act_name);
    const seq2seq::Activation act = act_name == "relu" ? seq2seq::Activation::Relu : seq2seq::Activation::Gelu;
    const int d = fx["d"], F = fx["d_ff"], rows = fx["rows"];
    const auto& p = fx["params"];
    const auto w1 = flat(p["fc1.weight"]), b1 = flat(p["fc1.bias"]), w2 = flat(p["fc2.weight"]), b2 = flat(p["fc2.bias"]);
    const auto x = flat(fx["x"]), dy = flat(fx["dy"]);
    std::vector<float> scratch(4096), h(static_cast<size_t>(rows) * F), g(h.size()), y(x.size());
    linear_forward(x.data(), rows, d, w1.data(), b1.data(), F, h.data(), scratch.data());
    activation_forward(act, h.data(), h.size(), g.data());
    linear_forward(g.data(), rows, F, w2.data(), b2.data(), d, y.data(), scratch.data());
    check_rel(y, flat(fx["y"]), "y");
    std::vector<float> dg(g.size(), 0.0f), dh(h.size(), 0.0f), dx(x.size(), 0.0f), dw1(w1.size(), 0.0f), db1(b1.size(), 0.0f),
        dw2(w2.size(), 0.0f), db2(b2.size(), 0.0f);
    linear_backward(g.data(), dy.data(), rows, F, d, w2.data(), dg.data(), dw2.data(), db2.data(), scratch.data());
    activation_backward(act, h.data(), dg.data(), h.size(), dh.data());
    linear_backward(x.data(), dh.data(), rows, d, F, w1.data(), dx.data(), dw1.data(), db1.data(), scratch.data());
    check_rel(dx, flat(fx["dx"]), "dx");
    check_rel(dw1, flat(fx["grads"]["fc1.weight"]), "dW1");
    check_rel(db1, flat(fx["grads"]["fc1.bias"]), "db1");
    check_rel(dw2, flat(fx["grads"]["fc2.weight"]), "dW2");
    check_rel(db2, flat(fx["grads"]["fc2.bias"]), "db2");
  }
}

TEST_CASE("trainer layers: multi-head attention (self, causal, cross; padded examples packed) equals autograd",
          "[train][layers][attention]") {
  for (const auto& fx : layers_fixture()["attention"]) {
    const std::string kind = fx["kind"];
    INFO(kind);
    const bool cross = kind == "cross", causal = kind == "causal";
    const int L = fx["d"], H = fx["heads"];
    const auto q_lens = fx["q_lens"].get<std::vector<int>>(), k_lens = fx["k_lens"].get<std::vector<int>>();
    const auto& p = fx["params"];
    // As the training graph holds them: q, k and v stacked for self-attention, k and v for cross.
    const auto wq = flat(p["q_proj.weight"]), wk = flat(p["k_proj.weight"]), wv = flat(p["v_proj.weight"]), wo = flat(p["o_proj.weight"]);
    const auto bq = flat(p["q_proj.bias"]), bk = flat(p["k_proj.bias"]), bv = flat(p["v_proj.bias"]), bo = flat(p["o_proj.bias"]);
    const auto xq = flat(fx["xq"]), dy = flat(fx["dy"]);
    const auto xkv = cross ? flat(fx["xkv"]) : xq;
    int rq = 0, rk = 0;
    std::vector<AttentionSpan> spans;
    size_t p0 = 0;
    for (size_t b = 0; b < q_lens.size(); ++b) {
      spans.push_back({rq, q_lens[b], rk, k_lens[b], p0});
      p0 += static_cast<size_t>(H) * q_lens[b] * k_lens[b];
      rq += q_lens[b];
      rk += k_lens[b];
    }
    std::vector<float> scratch(8192), probs(p0), ctx(static_cast<size_t>(rq) * L), y(ctx.size());
    std::vector<float> q(static_cast<size_t>(rq) * L), kv(static_cast<size_t>(rk) * 2 * L), qkv(static_cast<size_t>(rq) * 3 * L);
    const auto wkv = cat({wk, wv}), bkv = cat({bk, bv}), wqkv = cat({wq, wk, wv}), bqkv = cat({bq, bk, bv});
    AttentionArgs a;
    a.spans = spans.data();
    a.batch = static_cast<int>(spans.size());
    a.heads = H;
    a.dh = L / H;
    a.causal = causal;
    if (cross) {
      linear_forward(xq.data(), rq, L, wq.data(), bq.data(), L, q.data(), scratch.data());
      linear_forward(xkv.data(), rk, L, wkv.data(), bkv.data(), 2 * L, kv.data(), scratch.data());
      a.q = q.data(); a.ldq = L;
      a.k = kv.data(); a.v = kv.data() + L; a.ldk = a.ldv = 2 * L;
    } else {
      linear_forward(xq.data(), rq, L, wqkv.data(), bqkv.data(), 3 * L, qkv.data(), scratch.data());
      a.q = qkv.data(); a.k = qkv.data() + L; a.v = qkv.data() + 2 * L;
      a.ldq = a.ldk = a.ldv = 3 * L;
    }
    a.probs = probs.data();
    a.ctx = ctx.data();
    a.ldc = L;
    attention_forward(a);
    linear_forward(ctx.data(), rq, L, wo.data(), bo.data(), L, y.data(), scratch.data());
    check_rel(y, flat(fx["y"]), "y");
    check_rel(probs, flat(fx["probs"]), "probabilities");

    std::vector<float> dctx(ctx.size(), 0.0f), dwo(wo.size(), 0.0f), dbo(bo.size(), 0.0f), dxq(xq.size(), 0.0f), dxkv(xkv.size(), 0.0f);
    linear_backward(ctx.data(), dy.data(), rq, L, L, wo.data(), dctx.data(), dwo.data(), dbo.data(), scratch.data());
    AttentionGrads g;
    g.dctx = dctx.data();
    g.lddc = L;
    std::vector<float> dq(q.size(), 0.0f), dkv(kv.size(), 0.0f), dqkv(qkv.size(), 0.0f);
    std::vector<float> dwq(wq.size(), 0.0f), dbq(bq.size(), 0.0f), dwkv(wkv.size(), 0.0f), dbkv(bkv.size(), 0.0f),
        dwqkv(wqkv.size(), 0.0f), dbqkv(bqkv.size(), 0.0f);
    if (cross) {
      g.dq = dq.data(); g.lddq = L;
      g.dk = dkv.data(); g.dv = dkv.data() + L; g.lddk = g.lddv = 2 * L;
      attention_backward(a, g, scratch.data());
      linear_backward(xq.data(), dq.data(), rq, L, L, wq.data(), dxq.data(), dwq.data(), dbq.data(), scratch.data());
      linear_backward(xkv.data(), dkv.data(), rk, L, 2 * L, wkv.data(), dxkv.data(), dwkv.data(), dbkv.data(), scratch.data());
      check_rel(dxkv, flat(fx["dxkv"]), "d x_kv");
      check_rel(dwq, flat(fx["grads"]["q_proj.weight"]), "dWq");
      check_rel(slice(dwkv, 0, wk.size()), flat(fx["grads"]["k_proj.weight"]), "dWk");
      check_rel(slice(dwkv, wk.size(), wv.size()), flat(fx["grads"]["v_proj.weight"]), "dWv");
      check_rel(dbq, flat(fx["grads"]["q_proj.bias"]), "dbq");
      // The key bias shifts every score of a query alike, which the softmax undoes: its
      // gradient is 0, held to the scale of the value bias's.
      check_rel(slice(dbkv, 0, bk.size()), flat(fx["grads"]["k_proj.bias"]), "dbk", seq2seq_test::kTrainTol,
                seq2seq_test::max_abs(flat(fx["grads"]["v_proj.bias"])));
      check_rel(slice(dbkv, bk.size(), bv.size()), flat(fx["grads"]["v_proj.bias"]), "dbv");
    } else {
      g.dq = dqkv.data(); g.dk = dqkv.data() + L; g.dv = dqkv.data() + 2 * L;
      g.lddq = g.lddk = g.lddv = 3 * L;
      attention_backward(a, g, scratch.data());
      linear_backward(xq.data(), dqkv.data(), rq, L, 3 * L, wqkv.data(), dxq.data(), dwqkv.data(), dbqkv.data(), scratch.data());
      const size_t n = wq.size(), m = bq.size();
      check_rel(slice(dwqkv, 0, n), flat(fx["grads"]["q_proj.weight"]), "dWq");
      check_rel(slice(dwqkv, n, n), flat(fx["grads"]["k_proj.weight"]), "dWk");
      check_rel(slice(dwqkv, 2 * n, n), flat(fx["grads"]["v_proj.weight"]), "dWv");
      check_rel(slice(dbqkv, 0, m), flat(fx["grads"]["q_proj.bias"]), "dbq");
      check_rel(slice(dbqkv, m, m), flat(fx["grads"]["k_proj.bias"]), "dbk", seq2seq_test::kTrainTol,
                seq2seq_test::max_abs(flat(fx["grads"]["v_proj.bias"])));
      check_rel(slice(dbqkv, 2 * m, m), flat(fx["grads"]["v_proj.bias"]), "dbv");
    }
    check_rel(dxq, flat(fx["dxq"]), "d x_q");
    check_rel(dwo, flat(fx["grads"]["o_proj.weight"]), "dWo");
    check_rel(dbo, flat(fx["grads"]["o_proj.bias"]), "dbo");
  }
}

TEST_CASE("trainer layers: the token embedding with sinusoidal or learned positions equals autograd", "[train][layers]") {
  for (const auto& fx : layers_fixture()["embedding"]) {
    const std::string pos_kind = fx["pos"];
    INFO(pos_kind);
    const int d = fx["d"];
    const float scale = fx["scale"].get<float>();
    const auto table = flat(fx["table"]), dy = flat(fx["dy"]);
    std::vector<int> ids, pos;
    for (const auto& seq : fx["ids"]) {
      int t = 0;
      for (const auto& id : seq) {
        ids.push_back(id.get<int>());
        pos.push_back(t++);
      }
    }
    const int rows = static_cast<int>(ids.size());
    std::vector<float> pos_table;
    if (pos_kind == "learned") {
      pos_table = flat(fx["pos_table"]);
    } else {
      const seq2seq::RowMatrix s = seq2seq::sinusoidal_positions(8, d);
      pos_table.assign(s.data(), s.data() + s.size());
    }
    std::vector<float> x(static_cast<size_t>(rows) * d), dtable(table.size(), 0.0f), dpos(pos_table.size(), 0.0f);
    embedding_forward(ids.data(), pos.data(), rows, table.data(), d, scale, pos_table.data(), x.data());
    check_rel(x, flat(fx["x"]), "x");
    embedding_backward(ids.data(), pos.data(), rows, dy.data(), d, scale, dtable.data(), pos_kind == "learned" ? dpos.data() : nullptr);
    check_rel(dtable, flat(fx["dtable"]), "d table");
    if (pos_kind == "learned") check_rel(dpos, flat(fx["dpos"]), "d positions");
  }
}
