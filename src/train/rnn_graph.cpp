#include "train/rnn_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "errors.h"
#include "train/dropout.h"
#include "train/gemm_kernel.h"
#include "train/layers.h"
#include "train/rnn_layers.h"
#include "train/train_math.h"

namespace seq2seq {
namespace train {

namespace {

void copy_floats(const float* from, size_t n, float* to) { std::memcpy(to, from, n * sizeof(float)); }
void zero_floats(float* p, size_t n) { std::memset(p, 0, n * sizeof(float)); }

// dx [rows x in] += dy [rows x out] W [out x in]: the input's share of a linear
// layer's backward pass alone (a recurrence needs it at every step; the weight's
// share is summed over all steps at the end, in one product).
void input_grad(const float* dy, int rows, int in, int out, const float* w, float* dx, float* scratch) {
  if (rows == 0) return;
  GemmArgs g;
  g.m = rows; g.n = in; g.k = out;
  g.a = dy; g.lda = out;
  g.b = w; g.ldb = in;
  g.c = dx; g.ldc = in; g.accumulate = true;
  g.scratch = scratch;
  gemm(g);
}

}  // namespace

RnnGraph::GruIdx RnnGraph::declare_gru(const std::string& w_ih, const std::string& w_hh, const std::string& b_ih,
                                       const std::string& b_hh, int in, int hidden) {
  GruIdx g;
  g.w_ih = store_.add(w_ih, {3 * hidden, in}, true);
  g.w_hh = store_.add(w_hh, {3 * hidden, hidden}, true);
  g.b_ih = store_.add(b_ih, {3 * hidden}, false);
  g.b_hh = store_.add(b_hh, {3 * hidden}, false);
  return g;
}

RnnGraph::RnnGraph(const ModelConfig& cfg, const GraphLimits& limits, const DropoutRates& rates, ParamStore& store,
                   bool plan_only)
    : cfg_(cfg), lim_(limits), rates_(rates), store_(store) {
  if (cfg.arch != Arch::Rnn) throw UsageError("the RNN training graph builds arch rnn models only");
  if (cfg.cell != RnnCell::Gru) throw UsageError("the RNN training graph builds GRU cells only");
  if (limits.batch < 1 || limits.src_len < 1 || limits.dec_len < 1)
    throw UsageError("training graph: limits must be at least 1");
  if (limits.src_len > cfg.max_pos || limits.dec_len > cfg.max_pos)
    throw UsageError("training graph: sequences of " + std::to_string(std::max(limits.src_len, limits.dec_len)) +
                     " positions, more than max_pos " + std::to_string(cfg.max_pos));
  E_ = cfg.emb_dim;
  H_ = cfg.enc_hidden;
  D_ = cfg.dec_hidden;
  M_ = 2 * H_;
  F_ = M_ + D_;
  Vs_ = static_cast<int>(cfg.src_vocab.size());
  Vt_ = static_cast<int>(cfg.tgt_vocab.size());
  switch (cfg.attention) {
    case AttentionScore::Dot:
      if (D_ != M_) throw UsageError("dot attention needs dec_hidden = 2 * enc_hidden");
      K_ = M_;
      break;
    case AttentionScore::Multiplicative: K_ = D_; break;
    case AttentionScore::ReducedRank:
    case AttentionScore::Additive: K_ = cfg.attn_dim; break;
    case AttentionScore::None: K_ = 0; break;
  }

  // The parameters, under the model format's names, in the reference's state_dict order.
  src_emb_ = store_.add("src_embed.weight", {Vs_, E_}, true);
  tgt_emb_ = store_.add("tgt_embed.weight", {Vt_, E_}, true);
  enc_.resize(static_cast<size_t>(cfg.enc_layers));
  for (int l = 0; l < cfg.enc_layers; ++l) {
    const std::string k = "_l" + std::to_string(l);
    for (int d = 0; d < 2; ++d) {
      const std::string sfx = k + (d == 0 ? "" : "_reverse");
      enc_[static_cast<size_t>(l)].dir[d].p =
          declare_gru("encoder.rnn.weight_ih" + sfx, "encoder.rnn.weight_hh" + sfx, "encoder.rnn.bias_ih" + sfx,
                      "encoder.rnn.bias_hh" + sfx, l == 0 ? E_ : M_, H_);
    }
  }
  bridge_.w = store_.add("bridge.weight", {D_, M_}, true);
  bridge_.b = store_.add("bridge.bias", {D_}, false);
  dec_ = declare_gru("decoder.cell.weight_ih", "decoder.cell.weight_hh", "decoder.cell.bias_ih", "decoder.cell.bias_hh",
                     E_, D_);
  switch (cfg.attention) {
    case AttentionScore::Multiplicative: attn_w_ = store_.add("attn.W.weight", {D_, M_}, true); break;
    case AttentionScore::ReducedRank:
      attn_u_ = store_.add("attn.U.weight", {K_, D_}, true);
      attn_v_ = store_.add("attn.V.weight", {K_, M_}, true);
      break;
    case AttentionScore::Additive:
      attn_w1_ = store_.add("attn.W1.weight", {K_, M_}, true);
      attn_w2_ = store_.add("attn.W2.weight", {K_, D_}, true);
      attn_vec_ = store_.add("attn.v.weight", {1, K_}, true);
      break;
    case AttentionScore::Dot:
    case AttentionScore::None: break;
  }
  out_.w = store_.add("out.weight", {Vt_, F_}, true);
  out_.b = store_.add("out.bias", {Vt_}, false);
  if (cfg.copy) {  // the pointer-generator's gate over [a_t ; s_t ; x_t]
    if (cfg.attention == AttentionScore::None)
      throw UsageError("the copy mechanism copies through the attention, and attention 'none' has none");
    copy_gate_.w = store_.add("copy_gate.weight", {1, F_ + E_}, true);
    copy_gate_.b = store_.add("copy_gate.bias", {1}, false);
  }

  // The activations and the backward pass's buffers, one arena.
  const size_t B = static_cast<size_t>(limits.batch), S = static_cast<size_t>(limits.src_len),
               T = static_cast<size_t>(limits.dec_len), E = static_cast<size_t>(E_), H = static_cast<size_t>(H_),
               D = static_cast<size_t>(D_), M = static_cast<size_t>(M_), F = static_cast<size_t>(F_),
               K = static_cast<size_t>(K_), Vt = static_cast<size_t>(Vt_);
  const size_t Rs = B * S, Rt = B * T;
  const bool drop = rates.dropout > 0;
  const bool scored = cfg.attention != AttentionScore::None;
  const bool own_keys = cfg.attention != AttentionScore::Dot && scored;
  const bool own_query = cfg.attention == AttentionScore::ReducedRank || cfg.attention == AttentionScore::Additive;
  std::vector<std::pair<float**, size_t>> wants;
  for (size_t l = 0; l < enc_.size(); ++l) {
    EncLayer& layer = enc_[l];
    const size_t in = l == 0 ? E : M;
    wants.push_back({&layer.in, Rs * in});
    wants.push_back({&layer.out, Rs * M});
    if (drop) wants.push_back({&layer.mask, Rs * in});
    for (EncDir& dir : layer.dir) {
      wants.push_back({&dir.xp, Rs * 3 * H});
      wants.push_back({&dir.gates, Rs * 3 * H});
      wants.push_back({&dir.gh, Rs * 3 * H});
      wants.push_back({&dir.hprev, Rs * H});
    }
  }
  if (own_keys) wants.push_back({&keys_, Rs * K});
  wants.push_back({&ctx0_, B * M});
  wants.push_back({&s0_, B * D});
  wants.push_back({&x_, Rt * E});
  wants.push_back({&dec_gates_, Rt * 3 * D});
  wants.push_back({&dec_gh_, Rt * 3 * D});
  wants.push_back({&sprev_, Rt * D});
  wants.push_back({&s_, Rt * D});
  if (own_query) wants.push_back({&q_, Rt * K});
  wants.push_back({&feat_, Rt * F});
  wants.push_back({&slot_logits_, Rt * Vt});
  if (scored) wants.push_back({&probs_, Rt * S});
  if (cfg.attention == AttentionScore::Additive) wants.push_back({&act_, Rt * S * K});
  wants.push_back({&logits_, Rt * Vt});
  if (cfg.copy) {
    wants.push_back({&gate_ctx_, Rt * M});
    wants.push_back({&gate_s_, Rt * D});
    wants.push_back({&gate_x_, Rt * E});
  }
  wants.push_back({&dlogits_, Rt * Vt});
  if (drop) {
    wants.push_back({&tgt_mask_, Rt * E});
    wants.push_back({&feat_mask_, Rt * F});
  }
  wants.push_back({&d_slot_logits_, Rt * Vt});
  wants.push_back({&d_feat_, Rt * F});
  wants.push_back({&d_s_, Rt * D});
  if (scored) wants.push_back({&d_q_, Rt * K});
  wants.push_back({&d_xp_, std::max(Rt * 3 * D, Rs * 3 * H)});
  wants.push_back({&d_gh_, std::max(Rt * 3 * D, Rs * 3 * H)});
  wants.push_back({&d_x_, Rt * E});
  wants.push_back({&d_state_, B * std::max(D, H)});
  wants.push_back({&state_, B * std::max(D, H)});
  if (own_keys) wants.push_back({&d_keys_, Rs * K});
  wants.push_back({&d_memory_, Rs * M});
  wants.push_back({&d_ctx0_, B * M});
  wants.push_back({&d_in_, Rs * std::max(E, M)});
  wants.push_back({&d_out_, Rs * M});
  wants.push_back({&d_pre_, B * D});
  wants.push_back({&xp_step_, B * 3 * D});
  wants.push_back({&attn_scratch_, S});
  // The products' packing: the largest any product of a pass asks for. Each
  // dimension of every product is a row count (at most max(Rs, Rt)) or a width.
  const int R = static_cast<int>(std::max(Rs, Rt));
  const int widest = std::max({E_, M_, 3 * H_, 3 * D_, F_, Vt_, K_, D_});
  size_t gemm = 0;
  for (int m : {R, widest})
    for (int n : {R, widest})
      for (int k : {R, widest}) gemm = std::max(gemm, gemm_scratch_floats(m, n, k));
  wants.push_back({&gemm_, gemm});
  size_t total = 0;
  for (const auto& w : wants) total += w.second;
  arena_floats_ = total + 3 * Rt;  // and the decoder rows' three token lists, an int a float's size
  if (plan_only) return;
  arena_.assign(total, 0.0f);
  size_t at = 0;
  for (const auto& w : wants) {
    *w.first = arena_.data() + at;
    at += w.second;
  }
  memory_ = enc_.back().out;
  if (cfg.attention == AttentionScore::Dot) {
    keys_ = memory_;        // e_j = s · h_j: the keys are the memory itself
    d_keys_ = d_memory_;    // and their gradient is the memory's
  }
  fed_.assign(Rt, 0);
  slot_row_.assign(Rt, 0);
  slot_token_.assign(Rt, 0);
  enc_order_.reserve(B);
  dec_order_.reserve(B);
  enc_off_.reserve(S);
  enc_run_.reserve(S);
  dec_off_.reserve(T);
  dec_run_.reserve(T);
}

void RnnGraph::init_parameters(Random& rng) {
  auto uniform = [&](int idx, double bound) {
    float* p = store_.value(idx);
    for (size_t i = 0; i < store_.tensor(idx).size; ++i)
      p[i] = static_cast<float>(-bound + 2.0 * bound * rng.uniform());
  };
  auto normal = [&](int idx) {
    float* p = store_.value(idx);
    for (size_t i = 0; i < store_.tensor(idx).size; ++i) p[i] = normal_draw(rng);
  };
  auto gru = [&](const GruIdx& g, int hidden) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
    for (int idx : {g.w_ih, g.w_hh, g.b_ih, g.b_hh}) uniform(idx, bound);
  };
  auto linear = [&](int w, int b, int in) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    uniform(w, bound);
    if (b >= 0) uniform(b, bound);
  };
  normal(src_emb_);
  normal(tgt_emb_);
  for (EncLayer& layer : enc_)
    for (EncDir& dir : layer.dir) gru(dir.p, H_);
  linear(bridge_.w, bridge_.b, M_);
  gru(dec_, D_);
  if (attn_w_ >= 0) linear(attn_w_, -1, M_);
  if (attn_u_ >= 0) linear(attn_u_, -1, D_);
  if (attn_v_ >= 0) linear(attn_v_, -1, M_);
  if (attn_w1_ >= 0) linear(attn_w1_, -1, M_);
  if (attn_w2_ >= 0) linear(attn_w2_, -1, D_);
  if (attn_vec_ >= 0) linear(attn_vec_, -1, K_);
  linear(out_.w, out_.b, F_);
  if (copy_gate_.w >= 0) {  // the reference's CopyGate: Xavier-uniform weight, bias 0
    uniform(copy_gate_.w, std::sqrt(6.0 / static_cast<double>(1 + F_ + E_)));
    store_.value(copy_gate_.b)[0] = 0.0f;
  }
}

void RnnGraph::check_batch(const Batch& b) const {
  if (b.size < 1 || b.size > lim_.batch)
    throw UsageError("training graph: a batch of " + std::to_string(b.size) + " examples; it holds 1 to " +
                     std::to_string(lim_.batch));
  for (int e = 0; e < b.size; ++e) {
    const int ns = b.src_len[static_cast<size_t>(e)], nt = b.dec_len[static_cast<size_t>(e)];
    if (ns < 1 || ns > lim_.src_len)
      throw UsageError("training graph: a source of " + std::to_string(ns) + " tokens; it holds 1 to " +
                       std::to_string(lim_.src_len));
    if (nt < 1 || nt > lim_.dec_len)
      throw UsageError("training graph: a decoder input of " + std::to_string(nt) + " tokens; it holds 1 to " +
                       std::to_string(lim_.dec_len));
  }
  for (int id : b.src)
    if (id < 0 || id >= Vs_) throw InputError("token id " + std::to_string(id) + " in a source is outside the vocabulary");
  for (int id : b.dec_in)
    if (id < 0 || id >= Vt_)
      throw InputError("token id " + std::to_string(id) + " in a decoder input is outside the target vocabulary");
}

void RnnGraph::order_by_length(const std::vector<int>& len, int size, std::vector<int>& order, std::vector<int>& step_off,
                               std::vector<int>& running) const {
  order.clear();
  for (int e = 0; e < size; ++e) order.push_back(e);
  // Longest first, ties in batch order (insertion sort: a batch is small, and
  // std::stable_sort may allocate).
  for (size_t i = 1; i < order.size(); ++i)
    for (size_t j = i; j > 0 && len[static_cast<size_t>(order[j - 1])] < len[static_cast<size_t>(order[j])]; --j)
      std::swap(order[j - 1], order[j]);
  step_off.clear();
  running.clear();
  const int longest = len[static_cast<size_t>(order[0])];
  int off = 0;
  for (int t = 0; t < longest; ++t) {
    int n = 0;
    while (n < size && len[static_cast<size_t>(order[static_cast<size_t>(n)])] > t) ++n;
    step_off.push_back(off);
    running.push_back(n);
    off += n;
  }
}

void RnnGraph::encoder_forward(const Batch& b, Random* rng) {
  check_batch(b);
  order_by_length(b.src_len, b.size, enc_order_, enc_off_, enc_run_);
  const int rows = b.src_rows();
  masks_on_ = rng != nullptr && rates_.dropout > 0;
  // The source embeddings (dropout on them, as the reference's emb_drop).
  {
    EncLayer& first = enc_[0];
    const float* table = W(src_emb_);
    for (int r = 0; r < rows; ++r)
      copy_floats(table + static_cast<size_t>(b.src[static_cast<size_t>(r)]) * E_, static_cast<size_t>(E_),
                  first.in + static_cast<size_t>(r) * E_);
    if (masks_on_) {
      draw_dropout_mask(*rng, rates_.dropout, first.mask, static_cast<size_t>(rows) * E_);
      mul_mask(first.in, first.mask, static_cast<size_t>(rows) * E_, first.in);
    }
  }
  for (size_t l = 0; l < enc_.size(); ++l) {
    EncLayer& layer = enc_[l];
    const int in_dim = l == 0 ? E_ : M_;
    if (l > 0) {  // the layer below's output, with dropout between layers (nn.GRU's)
      const size_t n = static_cast<size_t>(rows) * M_;
      copy_floats(enc_[l - 1].out, n, layer.in);
      if (masks_on_) {
        draw_dropout_mask(*rng, rates_.dropout, layer.mask, n);
        mul_mask(layer.in, layer.mask, n, layer.in);
      }
    }
    for (int d = 0; d < 2; ++d) {
      EncDir& dir = layer.dir[d];
      linear_forward(layer.in, rows, in_dim, W(dir.p.w_ih), W(dir.p.b_ih), 3 * H_, dir.xp, gemm_);
      zero_floats(state_, static_cast<size_t>(b.size) * H_);  // every direction starts from a zero state
      for (size_t t = 0; t < enc_run_.size(); ++t) {
        const int n = enc_run_[t], off = enc_off_[t];
        float* hprev = dir.hprev + static_cast<size_t>(off) * H_;
        float* gh = dir.gh + static_cast<size_t>(off) * 3 * H_;
        copy_floats(state_, static_cast<size_t>(n) * H_, hprev);
        linear_forward(hprev, n, H_, W(dir.p.w_hh), W(dir.p.b_hh), 3 * H_, gh, gemm_);
        for (int i = 0; i < n; ++i) {
          const int e = enc_order_[static_cast<size_t>(i)];
          const int len = b.src_len[static_cast<size_t>(e)];
          const int j = d == 0 ? static_cast<int>(t) : len - 1 - static_cast<int>(t);
          const size_t row = static_cast<size_t>(b.src_off[static_cast<size_t>(e)] + j);
          float* h = state_ + static_cast<size_t>(i) * H_;
          gru_forward(dir.xp + row * 3 * H_, 3 * H_, gh + static_cast<size_t>(i) * 3 * H_,
                      hprev + static_cast<size_t>(i) * H_, 1, H_, dir.gates + (static_cast<size_t>(off) + i) * 3 * H_, h);
          copy_floats(h, static_cast<size_t>(H_), layer.out + row * M_ + static_cast<size_t>(d) * H_);
        }
      }
    }
  }
}

void RnnGraph::decoder_forward(const Batch& b, const SamplingDraws* sampling) {
  order_by_length(b.dec_len, b.size, dec_order_, dec_off_, dec_run_);
  const int src_rows = b.src_rows();
  if (sampling && sampling->rows() != b.dec_rows())
    throw UsageError("scheduled sampling: draws for " + std::to_string(sampling->rows()) + " rows, the batch has " +
                     std::to_string(b.dec_rows()));
  // c = [h→_last ; h←_first] per example: the bridge's input, and with attention
  // none the context at every step.
  for (int e = 0; e < b.size; ++e) {
    const size_t first = static_cast<size_t>(b.src_off[static_cast<size_t>(e)]);
    const size_t last = first + static_cast<size_t>(b.src_len[static_cast<size_t>(e)]) - 1;
    float* c = ctx0_ + static_cast<size_t>(e) * M_;
    copy_floats(memory_ + last * M_, static_cast<size_t>(H_), c);
    copy_floats(memory_ + first * M_ + H_, static_cast<size_t>(H_), c + H_);
  }
  linear_forward(ctx0_, b.size, M_, W(bridge_.w), W(bridge_.b), D_, s0_, gemm_);
  for (size_t i = 0; i < static_cast<size_t>(b.size) * D_; ++i) s0_[i] = std::tanh(s0_[i]);
  for (int i = 0; i < b.size; ++i)
    copy_floats(s0_ + static_cast<size_t>(dec_order_[static_cast<size_t>(i)]) * D_, static_cast<size_t>(D_),
                state_ + static_cast<size_t>(i) * D_);
  // The keys each score compares the state with, once per source row.
  switch (cfg_.attention) {
    case AttentionScore::Multiplicative: linear_forward(memory_, src_rows, M_, W(attn_w_), nullptr, K_, keys_, gemm_); break;
    case AttentionScore::ReducedRank: linear_forward(memory_, src_rows, M_, W(attn_v_), nullptr, K_, keys_, gemm_); break;
    case AttentionScore::Additive: linear_forward(memory_, src_rows, M_, W(attn_w1_), nullptr, K_, keys_, gemm_); break;
    case AttentionScore::Dot:
    case AttentionScore::None: break;
  }
  const float* table = W(tgt_emb_);
  const size_t S = static_cast<size_t>(lim_.src_len);
  for (size_t t = 0; t < dec_run_.size(); ++t) {
    const int n = dec_run_[t], off = dec_off_[t];
    // The inputs: the true previous token, or (scheduled sampling) the model's own.
    for (int i = 0; i < n; ++i) {
      const int e = dec_order_[static_cast<size_t>(i)];
      const int row = b.dec_off[static_cast<size_t>(e)] + static_cast<int>(t);
      const size_t slot = static_cast<size_t>(off + i);
      slot_row_[slot] = row;
      int token = b.dec_in[static_cast<size_t>(row)];
      if (sampling && t > 0 && !sampling->reads_true_token(row)) {
        const size_t before = static_cast<size_t>(dec_off_[t - 1] + i);  // this example's previous step
        token = own_token(slot_logits_ + before * Vt_, Vt_, sampling->how(), sampling->pick(row));
      }
      fed_[static_cast<size_t>(row)] = token;
      slot_token_[slot] = token;
      float* x = x_ + slot * E_;
      copy_floats(table + static_cast<size_t>(token) * E_, static_cast<size_t>(E_), x);
      if (masks_on_) mul_mask(x, tgt_mask_ + static_cast<size_t>(row) * E_, static_cast<size_t>(E_), x);
    }
    // s_t = GRUCell(x_t, s_{t-1}).
    float* sprev = sprev_ + static_cast<size_t>(off) * D_;
    float* s = s_ + static_cast<size_t>(off) * D_;
    float* gh = dec_gh_ + static_cast<size_t>(off) * 3 * D_;
    copy_floats(state_, static_cast<size_t>(n) * D_, sprev);
    linear_forward(x_ + static_cast<size_t>(off) * E_, n, E_, W(dec_.w_ih), W(dec_.b_ih), 3 * D_, xp_step_, gemm_);
    linear_forward(sprev, n, D_, W(dec_.w_hh), W(dec_.b_hh), 3 * D_, gh, gemm_);
    gru_forward(xp_step_, 3 * D_, gh, sprev, n, D_, dec_gates_ + static_cast<size_t>(off) * 3 * D_, s);
    copy_floats(s, static_cast<size_t>(n) * D_, state_);
    // The query: s itself (dot, multiplicative), U s or W2 s.
    const float* q = s;
    int ldq = D_;
    if (cfg_.attention == AttentionScore::ReducedRank || cfg_.attention == AttentionScore::Additive) {
      float* qs = q_ + static_cast<size_t>(off) * K_;
      linear_forward(s, n, D_, W(cfg_.attention == AttentionScore::ReducedRank ? attn_u_ : attn_w2_), nullptr, K_, qs, gemm_);
      q = qs;
      ldq = K_;
    }
    // [a_t ; s_t], then the output layer.
    for (int i = 0; i < n; ++i) {
      const int e = dec_order_[static_cast<size_t>(i)];
      const size_t slot = static_cast<size_t>(off + i), row = static_cast<size_t>(slot_row_[slot]);
      float* f = feat_ + slot * F_;
      if (cfg_.attention == AttentionScore::None) {
        copy_floats(ctx0_ + static_cast<size_t>(e) * M_, static_cast<size_t>(M_), f);
      } else {
        const size_t first = static_cast<size_t>(b.src_off[static_cast<size_t>(e)]);
        rnn_attention_forward(cfg_.attention, b.src_len[static_cast<size_t>(e)], K_, keys_ + first * K_,
                          q + static_cast<size_t>(i) * ldq, attn_vec_ >= 0 ? W(attn_vec_) : nullptr, memory_ + first * M_,
                          M_, act_ ? act_ + row * S * K_ : nullptr, probs_ + row * S, f);
      }
      copy_floats(s + static_cast<size_t>(i) * D_, static_cast<size_t>(D_), f + M_);
      if (gate_ctx_) {  // what the copy gate reads, before the output layer's dropout
        copy_floats(f, static_cast<size_t>(M_), gate_ctx_ + row * M_);
        copy_floats(f + M_, static_cast<size_t>(D_), gate_s_ + row * D_);
        copy_floats(x_ + slot * E_, static_cast<size_t>(E_), gate_x_ + row * E_);
      }
      if (masks_on_) mul_mask(f, feat_mask_ + row * F_, static_cast<size_t>(F_), f);
    }
    linear_forward(feat_ + static_cast<size_t>(off) * F_, n, F_, W(out_.w), W(out_.b), Vt_,
                   slot_logits_ + static_cast<size_t>(off) * Vt_, gemm_);
  }
  const int slots = b.dec_rows();
  for (int slot = 0; slot < slots; ++slot)
    copy_floats(slot_logits_ + static_cast<size_t>(slot) * Vt_, static_cast<size_t>(Vt_),
                logits_ + static_cast<size_t>(slot_row_[static_cast<size_t>(slot)]) * Vt_);
}

void RnnGraph::forward(const Batch& b, Random* rng, const SamplingDraws* sampling) {
  encoder_forward(b, rng);
  if (masks_on_) {
    draw_dropout_mask(*rng, rates_.dropout, tgt_mask_, static_cast<size_t>(b.dec_rows()) * E_);
    draw_dropout_mask(*rng, rates_.dropout, feat_mask_, static_cast<size_t>(b.dec_rows()) * F_);
  }
  decoder_forward(b, sampling);
}

void RnnGraph::backward(const Batch& b, const float* extra_dprobs, const GateGrads* gate) {
  if (gate && !gate_ctx_) throw UsageError("rnn graph: gate gradients for a model without the copy mechanism");
  decoder_backward(b, extra_dprobs, gate);
}

void RnnGraph::decoder_backward(const Batch& b, const float* extra_dprobs, const GateGrads* gate) {
  const int slots = b.dec_rows(), src_rows = b.src_rows();
  const size_t S = static_cast<size_t>(lim_.src_len);
  // The output layer, over every step's rows at once.
  for (int slot = 0; slot < slots; ++slot)
    copy_floats(dlogits_ + static_cast<size_t>(slot_row_[static_cast<size_t>(slot)]) * Vt_, static_cast<size_t>(Vt_),
                d_slot_logits_ + static_cast<size_t>(slot) * Vt_);
  zero_floats(d_feat_, static_cast<size_t>(slots) * F_);
  linear_backward(feat_, d_slot_logits_, slots, F_, Vt_, W(out_.w), d_feat_, G(out_.w), G(out_.b), gemm_);
  if (masks_on_)
    for (int slot = 0; slot < slots; ++slot)
      mul_mask(d_feat_ + static_cast<size_t>(slot) * F_,
               feat_mask_ + static_cast<size_t>(slot_row_[static_cast<size_t>(slot)]) * F_, static_cast<size_t>(F_),
               d_feat_ + static_cast<size_t>(slot) * F_);
  // The copy gate read a_t and s_t before that dropout: its gradients join theirs here.
  if (gate)
    for (int slot = 0; slot < slots; ++slot) {
      const size_t row = static_cast<size_t>(slot_row_[static_cast<size_t>(slot)]);
      float* df = d_feat_ + static_cast<size_t>(slot) * F_;
      accumulate(gate->d_context + row * M_, static_cast<size_t>(M_), df);
      accumulate(gate->d_state + row * D_, static_cast<size_t>(D_), df + M_);
    }
  // Attention: each step's context back to the state, the keys and the memory.
  zero_floats(d_memory_, static_cast<size_t>(src_rows) * M_);
  if (cfg_.attention != AttentionScore::Dot && cfg_.attention != AttentionScore::None)
    zero_floats(d_keys_, static_cast<size_t>(src_rows) * K_);
  zero_floats(d_ctx0_, static_cast<size_t>(b.size) * M_);
  const bool own_query = cfg_.attention == AttentionScore::ReducedRank || cfg_.attention == AttentionScore::Additive;
  for (size_t t = 0; t < dec_run_.size(); ++t) {
    const int n = dec_run_[t], off = dec_off_[t];
    for (int i = 0; i < n; ++i) {
      const int e = dec_order_[static_cast<size_t>(i)];
      const size_t slot = static_cast<size_t>(off + i), row = static_cast<size_t>(slot_row_[slot]);
      const float* df = d_feat_ + slot * F_;
      copy_floats(df + M_, static_cast<size_t>(D_), d_s_ + slot * D_);
      if (cfg_.attention == AttentionScore::None) {
        accumulate(df, static_cast<size_t>(M_), d_ctx0_ + static_cast<size_t>(e) * M_);
        continue;
      }
      const size_t first = static_cast<size_t>(b.src_off[static_cast<size_t>(e)]);
      const float* q = own_query ? q_ + slot * K_ : s_ + slot * D_;
      rnn_attention_backward(cfg_.attention, b.src_len[static_cast<size_t>(e)], K_, keys_ + first * K_, q,
                         attn_vec_ >= 0 ? W(attn_vec_) : nullptr, memory_ + first * M_, M_,
                         act_ ? act_ + row * S * K_ : nullptr, probs_ + row * S, df,
                         extra_dprobs ? extra_dprobs + row * S : nullptr, d_q_ + slot * K_, d_keys_ + first * K_,
                         d_memory_ + first * M_, attn_vec_ >= 0 ? G(attn_vec_) : nullptr, attn_scratch_);
    }
  }
  switch (cfg_.attention) {
    case AttentionScore::Dot:
    case AttentionScore::Multiplicative:  // q = s
      accumulate(d_q_, static_cast<size_t>(slots) * D_, d_s_);
      break;
    case AttentionScore::ReducedRank:
      linear_backward(s_, d_q_, slots, D_, K_, W(attn_u_), d_s_, G(attn_u_), nullptr, gemm_);
      break;
    case AttentionScore::Additive:
      linear_backward(s_, d_q_, slots, D_, K_, W(attn_w2_), d_s_, G(attn_w2_), nullptr, gemm_);
      break;
    case AttentionScore::None: break;
  }
  // Backpropagation through time: the state's gradient, step by step from the last.
  zero_floats(d_state_, static_cast<size_t>(b.size) * D_);
  for (size_t t = dec_run_.size(); t-- > 0;) {
    const int n = dec_run_[t], off = dec_off_[t];
    const size_t o = static_cast<size_t>(off);
    accumulate(d_s_ + o * D_, static_cast<size_t>(n) * D_, d_state_);
    float* dgh = d_gh_ + o * 3 * D_;
    gru_backward(d_state_, dec_gates_ + o * 3 * D_, dec_gh_ + o * 3 * D_, sprev_ + o * D_, n, D_, d_xp_ + o * 3 * D_,
                 3 * D_, dgh, d_state_);
    input_grad(dgh, n, D_, 3 * D_, W(dec_.w_hh), d_state_, gemm_);
  }
  linear_backward(sprev_, d_gh_, slots, D_, 3 * D_, W(dec_.w_hh), nullptr, G(dec_.w_hh), G(dec_.b_hh), gemm_);
  zero_floats(d_x_, static_cast<size_t>(slots) * E_);
  linear_backward(x_, d_xp_, slots, E_, 3 * D_, W(dec_.w_ih), d_x_, G(dec_.w_ih), G(dec_.b_ih), gemm_);
  if (gate)  // the gate read the embedding as the cell did, after its dropout
    for (int slot = 0; slot < slots; ++slot)
      accumulate(gate->d_input + static_cast<size_t>(slot_row_[static_cast<size_t>(slot)]) * E_, static_cast<size_t>(E_),
                 d_x_ + static_cast<size_t>(slot) * E_);
  // The target embeddings of the tokens the decoder read.
  if (masks_on_)
    for (int slot = 0; slot < slots; ++slot)
      mul_mask(d_x_ + static_cast<size_t>(slot) * E_,
               tgt_mask_ + static_cast<size_t>(slot_row_[static_cast<size_t>(slot)]) * E_, static_cast<size_t>(E_),
               d_x_ + static_cast<size_t>(slot) * E_);
  embedding_backward(slot_token_.data(), nullptr, slots, d_x_, E_, 1.0f, G(tgt_emb_), nullptr);
  // The bridge: s_0 = tanh(bridge(c)).
  for (int i = 0; i < b.size; ++i) {
    const size_t e = static_cast<size_t>(dec_order_[static_cast<size_t>(i)]);
    const float* ds = d_state_ + static_cast<size_t>(i) * D_;
    const float* s0 = s0_ + e * D_;
    float* dp = d_pre_ + e * D_;
    for (int c = 0; c < D_; ++c) dp[c] = ds[c] * (1.0f - s0[c] * s0[c]);
  }
  linear_backward(ctx0_, d_pre_, b.size, M_, D_, W(bridge_.w), d_ctx0_, G(bridge_.w), G(bridge_.b), gemm_);
  // The keys back to the memory (dot: the keys are the memory, their gradient already in it).
  switch (cfg_.attention) {
    case AttentionScore::Multiplicative:
      linear_backward(memory_, d_keys_, src_rows, M_, K_, W(attn_w_), d_memory_, G(attn_w_), nullptr, gemm_);
      break;
    case AttentionScore::ReducedRank:
      linear_backward(memory_, d_keys_, src_rows, M_, K_, W(attn_v_), d_memory_, G(attn_v_), nullptr, gemm_);
      break;
    case AttentionScore::Additive:
      linear_backward(memory_, d_keys_, src_rows, M_, K_, W(attn_w1_), d_memory_, G(attn_w1_), nullptr, gemm_);
      break;
    case AttentionScore::Dot:
    case AttentionScore::None: break;
  }
  // c = [h→_last ; h←_first] back to those two memory rows.
  for (int e = 0; e < b.size; ++e) {
    const size_t first = static_cast<size_t>(b.src_off[static_cast<size_t>(e)]);
    const size_t last = first + static_cast<size_t>(b.src_len[static_cast<size_t>(e)]) - 1;
    const float* dc = d_ctx0_ + static_cast<size_t>(e) * M_;
    accumulate(dc, static_cast<size_t>(H_), d_memory_ + last * M_);
    accumulate(dc + H_, static_cast<size_t>(H_), d_memory_ + first * M_ + H_);
  }
  encoder_backward(b, d_memory_);
}

void RnnGraph::encoder_backward(const Batch& b, const float* dmemory) {
  const int rows = b.src_rows();
  for (size_t l = enc_.size(); l-- > 0;) {
    EncLayer& layer = enc_[l];
    const int in_dim = l == 0 ? E_ : M_;
    const float* dout = l + 1 == enc_.size() ? dmemory : d_out_;
    zero_floats(d_in_, static_cast<size_t>(rows) * in_dim);
    for (int d = 0; d < 2; ++d) {
      EncDir& dir = layer.dir[d];
      zero_floats(d_state_, static_cast<size_t>(b.size) * H_);
      for (size_t t = enc_run_.size(); t-- > 0;) {
        const int n = enc_run_[t], off = enc_off_[t];
        for (int i = 0; i < n; ++i) {
          const int e = enc_order_[static_cast<size_t>(i)];
          const int len = b.src_len[static_cast<size_t>(e)];
          const int j = d == 0 ? static_cast<int>(t) : len - 1 - static_cast<int>(t);
          const size_t row = static_cast<size_t>(b.src_off[static_cast<size_t>(e)] + j);
          const size_t slot = static_cast<size_t>(off + i);
          float* dh = d_state_ + static_cast<size_t>(i) * H_;
          accumulate(dout + row * M_ + static_cast<size_t>(d) * H_, static_cast<size_t>(H_), dh);
          gru_backward(dh, dir.gates + slot * 3 * H_, dir.gh + slot * 3 * H_, dir.hprev + slot * H_, 1, H_,
                       d_xp_ + row * 3 * H_, 3 * H_, d_gh_ + slot * 3 * H_, dh);
        }
        input_grad(d_gh_ + static_cast<size_t>(off) * 3 * H_, n, H_, 3 * H_, W(dir.p.w_hh), d_state_, gemm_);
      }
      linear_backward(dir.hprev, d_gh_, rows, H_, 3 * H_, W(dir.p.w_hh), nullptr, G(dir.p.w_hh), G(dir.p.b_hh), gemm_);
      linear_backward(layer.in, d_xp_, rows, in_dim, 3 * H_, W(dir.p.w_ih), d_in_, G(dir.p.w_ih), G(dir.p.b_ih), gemm_);
    }
    const size_t n = static_cast<size_t>(rows) * in_dim;
    if (masks_on_) mul_mask(d_in_, layer.mask, n, d_in_);
    if (l > 0) copy_floats(d_in_, n, d_out_);
  }
  embedding_backward(b.src.data(), nullptr, rows, d_in_, E_, 1.0f, G(src_emb_), nullptr);
}

}  // namespace train
}  // namespace seq2seq
