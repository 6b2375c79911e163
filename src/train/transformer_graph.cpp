#include "train/transformer_graph.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "errors.h"
#include "tensor.h"
#include "train/dropout.h"
#include "train/gemm_kernel.h"
#include "train/train_math.h"

namespace seq2seq {
namespace train {

namespace {
// A sublayer's output: pre-LN the residual sum, post-LN its norm.
const float* sub_out(bool pre, const float* sum, const float* ln_y) { return pre ? sum : ln_y; }
}  // namespace

void Batch::clear() {
  size = 0;
  src.clear(); src_off.clear(); src_len.clear();
  dec_in.clear(); target.clear(); dec_off.clear(); dec_len.clear();
  copy_ids.clear(); copy_extra.clear();
}

void Batch::add(const std::vector<int>& source, const std::vector<int>& decoder_input, const std::vector<int>& targets,
                const std::vector<int>* copy, int extra) {
  if (decoder_input.size() != targets.size()) throw UsageError("batch: decoder inputs and targets differ in length");
  if (copy && copy->size() != source.size()) throw UsageError("batch: the copy ids and the source differ in length");
  if (size > 0 && (copy != nullptr) != !copy_extra.empty())
    throw UsageError("batch: every example of a copy model's batch has its copy ids, and no other's has");
  if (copy) {
    copy_ids.insert(copy_ids.end(), copy->begin(), copy->end());
    copy_extra.push_back(extra);
  }
  src_off.push_back(src_rows());
  src_len.push_back(static_cast<int>(source.size()));
  src.insert(src.end(), source.begin(), source.end());
  dec_off.push_back(dec_rows());
  dec_len.push_back(static_cast<int>(decoder_input.size()));
  dec_in.insert(dec_in.end(), decoder_input.begin(), decoder_input.end());
  target.insert(target.end(), targets.begin(), targets.end());
  ++size;
}

TransformerGraph::LinearIdx TransformerGraph::declare_linear(const std::string& prefix, int out, int in) {
  LinearIdx l;
  l.w = store_.add(prefix + ".weight", {out, in}, true);
  l.b = store_.add(prefix + ".bias", {out}, false);
  return l;
}

TransformerGraph::Norm TransformerGraph::declare_norm(const std::string& prefix) {
  Norm n;
  n.gain = store_.add(prefix + ".weight", {L_}, false);
  n.bias = store_.add(prefix + ".bias", {L_}, false);
  return n;
}

TransformerGraph::TransformerGraph(const ModelConfig& cfg, const GraphLimits& limits, const DropoutRates& rates, ParamStore& store,
                                   bool plan_only)
    : cfg_(cfg), lim_(limits), rates_(rates), store_(store) {
  if (cfg.arch != Arch::Transformer) throw UsageError("the training graph builds autoregressive Transformers only");
  L_ = cfg.d_model;
  H_ = cfg.n_heads;
  F_ = cfg.d_ff;
  Vs_ = static_cast<int>(cfg.src_vocab.size());
  Vt_ = static_cast<int>(cfg.tgt_vocab.size());
  emb_scale_ = cfg.scale_embedding ? std::sqrt(static_cast<float>(L_)) : 1.0f;
  pre_ = cfg.norm == NormPlacement::Pre;
  if (limits.src_len > cfg.max_pos || limits.dec_len > cfg.max_pos)
    throw UsageError("training graph: sequences of " + std::to_string(std::max(limits.src_len, limits.dec_len)) +
                     " positions, more than max_pos " + std::to_string(cfg.max_pos));

  // The parameters, under the model format's names. A layer's q, k and v weights
  // are declared one after the other, and so are their biases, so that the store
  // holds them as one stacked [3L x L] weight and one [3L] bias (cross-attention:
  // k and v as [2L x L]), multiplied in one product.
  src_emb_.table = store_.add("src_embed.weight", {Vs_, L_}, true);
  tgt_emb_.table = store_.add("tgt_embed.weight", {Vt_, L_}, true);
  if (cfg.pos == PosEncoding::Learned) {
    src_emb_.pos = store_.add("src_pos.weight", {cfg.max_pos, L_}, true);
    tgt_emb_.pos = store_.add("tgt_pos.weight", {cfg.max_pos, L_}, true);
  } else {
    const RowMatrix table = sinusoidal_positions(cfg.max_pos, L_);
    sin_table_.assign(table.data(), table.data() + table.size());
  }
  auto stacked = [&](const std::string& prefix, std::initializer_list<const char*> names) {
    LinearIdx l;
    for (const char* n : names) {
      const int w = store_.add(prefix + "." + n + "_proj.weight", {L_, L_}, true);
      if (l.w < 0) l.w = w;
    }
    for (const char* n : names) {
      const int b = store_.add(prefix + "." + n + "_proj.bias", {L_}, false);
      if (l.b < 0) l.b = b;
    }
    return l;
  };
  enc_.resize(static_cast<size_t>(cfg.enc_layers));
  for (int i = 0; i < cfg.enc_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    EncLayer& l = enc_[static_cast<size_t>(i)];
    l.self.qkv = stacked(p + ".self_attn", {"q", "k", "v"});
    l.self.o = declare_linear(p + ".self_attn.o_proj", L_, L_);
    l.ffn.fc1 = declare_linear(p + ".ffn.fc1", F_, L_);
    l.ffn.fc2 = declare_linear(p + ".ffn.fc2", L_, F_);
    l.s1.ln = declare_norm(p + ".ln1");
    l.s2.ln = declare_norm(p + ".ln2");
  }
  if (pre_ && cfg.enc_layers > 0) enc_final_ = declare_norm("encoder.final_ln");
  dec_.resize(static_cast<size_t>(cfg.dec_layers));
  for (int i = 0; i < cfg.dec_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    DecLayer& l = dec_[static_cast<size_t>(i)];
    l.self.qkv = stacked(p + ".self_attn", {"q", "k", "v"});
    l.self.o = declare_linear(p + ".self_attn.o_proj", L_, L_);
    l.cross.q = declare_linear(p + ".cross_attn.q_proj", L_, L_);
    l.cross.kv = stacked(p + ".cross_attn", {"k", "v"});
    l.cross.o = declare_linear(p + ".cross_attn.o_proj", L_, L_);
    l.ffn.fc1 = declare_linear(p + ".ffn.fc1", F_, L_);
    l.ffn.fc2 = declare_linear(p + ".ffn.fc2", L_, F_);
    l.s1.ln = declare_norm(p + ".ln1");
    l.s2.ln = declare_norm(p + ".ln2");
    l.s3.ln = declare_norm(p + ".ln3");
  }
  if (pre_) dec_final_ = declare_norm("decoder.final_ln");
  if (cfg.tie_output) {
    out_.w = tgt_emb_.table;
    out_.b = store_.add("out_proj.bias", {Vt_}, false);
  } else {
    out_.b = store_.add("out_proj.bias", {Vt_}, false);
    out_.w = store_.add("out_proj.weight", {Vt_, L_}, true);
  }
  if (cfg.copy) copy_gate_ = declare_linear("copy_gate", 1, 3 * L_);

  // The activations and the backward pass's buffers, one arena.
  const size_t B = static_cast<size_t>(limits.batch), S = static_cast<size_t>(limits.src_len),
               T = static_cast<size_t>(limits.dec_len), L = static_cast<size_t>(L_), F = static_cast<size_t>(F_),
               Hh = static_cast<size_t>(H_);
  const size_t Rs = B * S, Rt = B * T, R = std::max(Rs, Rt);
  const size_t Pe = B * Hh * S * S, Pd = B * Hh * T * T, Pc = B * Hh * T * S;
  const bool drop = rates.dropout > 0, adrop = rates.attention > 0;
  std::vector<std::pair<float**, size_t>> wants;
  auto want = [&](float*& p, size_t n) { wants.push_back({&p, n}); };
  auto want_sub = [&](Sub& s, size_t rows) {
    want(s.ln_y, rows * L);
    want(s.mean, rows);
    want(s.rstd, rows);
    want(s.sum, rows * L);
    if (drop) want(s.mask, rows * L);
  };
  want(src_emb_.x, Rs * L);
  want(tgt_emb_.x, Rt * L);
  if (drop) {
    want(src_emb_.mask, Rs * L);
    want(tgt_emb_.mask, Rt * L);
  }
  for (EncLayer& l : enc_) {
    want_sub(l.s1, Rs);
    want_sub(l.s2, Rs);
    want(l.self.qkv_out, Rs * 3 * L);
    want(l.self.probs, Pe);
    if (adrop) want(l.self.drop, Pe);
    want(l.self.ctx, Rs * L);
    want(l.ffn.f1, Rs * F);
    want(l.ffn.g, Rs * F);
  }
  for (DecLayer& l : dec_) {
    want_sub(l.s1, Rt);
    want_sub(l.s2, Rt);
    want_sub(l.s3, Rt);
    want(l.self.qkv_out, Rt * 3 * L);
    want(l.self.probs, Pd);
    if (adrop) want(l.self.drop, Pd);
    want(l.self.ctx, Rt * L);
    want(l.cross.qkv_out, Rt * L);
    want(l.cross.kv_out, Rs * 2 * L);
    want(l.cross.probs, Pc);
    if (adrop) want(l.cross.drop, Pc);
    want(l.cross.ctx, Rt * L);
    want(l.ffn.f1, Rt * F);
    want(l.ffn.g, Rt * F);
  }
  if (pre_) {
    want(enc_final_y_, Rs * L);
    want(enc_final_mean_, Rs);
    want(enc_final_rstd_, Rs);
    want(dec_final_y_, Rt * L);
    want(dec_final_mean_, Rt);
    want(dec_final_rstd_, Rt);
  }
  const size_t wide = std::max(3 * L, F);
  want(y_tmp_, R * L);
  for (float** p : {&d_a_, &d_b_, &d_sum_, &d_n_, &d_ctx_}) want(*p, R * L);
  want(d_big1_, R * wide);
  want(d_big2_, R * wide);
  want(d_mem_, Rs * L);
  want(d_kv_, Rs * 2 * L);
  // The largest product: rows and columns up to D, summed over up to max(D, R).
  const size_t D = std::max({3 * L, F, static_cast<size_t>(Vt_)});
  want(gemm_, (R + D + 16) * std::max(D, R));
  want(attn_scratch_, std::max(S, T) * std::max(S, T));
  size_t total = 0;
  for (const auto& w : wants) total += w.second;
  arena_floats_ = total;
  logits_floats_ = Rt * static_cast<size_t>(Vt_);
  input_ids_ = Rt;
  static_assert(sizeof(int) == sizeof(float), "the memory bound counts an input id as a float");
  if (plan_only) return;
  arena_.assign(total, 0.0f);
  size_t at = 0;
  for (const auto& w : wants) {
    *w.first = arena_.data() + at;
    at += w.second;
  }
  logits_.assign(logits_floats_, 0.0f);
  dlogits_.assign(logits_floats_, 0.0f);
  for (std::vector<AttentionSpan>* v : {&enc_spans_, &dec_spans_, &cross_spans_}) v->reserve(B);
  src_pos_.reserve(Rs);
  dec_pos_.reserve(Rt);
  fed_.reserve(Rt);
}

void TransformerGraph::init_parameters(Random& rng) {
  auto normal = [&](int i, float std) {
    float* p = store_.value(i);
    for (size_t k = 0; k < store_.tensor(i).size; ++k) p[k] = normal_draw(rng) * std;
  };
  auto xavier = [&](int first, int count) {  // `count` [L x L]-shaped (or [out x in]) tensors from `first`
    for (int i = first; i < first + count; ++i) {
      const auto& t = store_.tensor(i);
      const double bound = std::sqrt(6.0 / static_cast<double>(t.shape[0] + t.shape[1]));
      float* p = store_.value(i);
      for (size_t k = 0; k < t.size; ++k) p[k] = static_cast<float>((2.0 * rng.uniform() - 1.0) * bound);
    }
  };
  auto fill = [&](int i, float v) { std::fill(store_.value(i), store_.value(i) + store_.tensor(i).size, v); };
  auto norm = [&](const Norm& n) {
    if (n.gain < 0) return;
    fill(n.gain, 1.0f);
    fill(n.bias, 0.0f);
  };
  auto linear = [&](const LinearIdx& l, int count) {
    xavier(l.w, count);
    for (int i = l.b; i < l.b + count; ++i) fill(i, 0.0f);
  };
  const float emb_std = 1.0f / std::sqrt(static_cast<float>(L_));
  normal(src_emb_.table, emb_std);
  normal(tgt_emb_.table, emb_std);
  if (src_emb_.pos >= 0) {
    normal(src_emb_.pos, 0.02f);
    normal(tgt_emb_.pos, 0.02f);
  }
  for (EncLayer& l : enc_) {
    linear(l.self.qkv, 3);
    linear(l.self.o, 1);
    linear(l.ffn.fc1, 1);
    linear(l.ffn.fc2, 1);
    norm(l.s1.ln);
    norm(l.s2.ln);
  }
  norm(enc_final_);
  for (DecLayer& l : dec_) {
    linear(l.self.qkv, 3);
    linear(l.self.o, 1);
    linear(l.cross.q, 1);
    linear(l.cross.kv, 2);
    linear(l.cross.o, 1);
    linear(l.ffn.fc1, 1);
    linear(l.ffn.fc2, 1);
    norm(l.s1.ln);
    norm(l.s2.ln);
    norm(l.s3.ln);
  }
  norm(dec_final_);
  fill(out_.b, 0.0f);
  if (!cfg_.tie_output) xavier(out_.w, 1);
  if (copy_gate_.w >= 0) linear(copy_gate_, 1);  // the reference's CopyGate: Xavier-uniform, bias 0
}

const float* TransformerGraph::decoder_output() const {
  if (pre_) return dec_final_y_;
  if (dec_.empty()) return tgt_emb_.x;
  return sub_out(pre_, dec_.back().s3.sum, dec_.back().s3.ln_y);
}

void TransformerGraph::spans_for(const Batch& b) {
  if (b.size > lim_.batch) throw UsageError("training graph: a batch of " + std::to_string(b.size) + " examples, built for " + std::to_string(lim_.batch));
  enc_spans_.clear();
  dec_spans_.clear();
  cross_spans_.clear();
  src_pos_.clear();
  dec_pos_.clear();
  size_t pe = 0, pd = 0, pc = 0;
  for (int i = 0; i < b.size; ++i) {
    const int S = b.src_len[static_cast<size_t>(i)], T = b.dec_len[static_cast<size_t>(i)];
    if (S < 1 || T < 1 || S > lim_.src_len || T > lim_.dec_len)
      throw UsageError("training graph: an example of " + std::to_string(S) + " source and " + std::to_string(T) +
                       " decoder positions, outside what it was built for (1.." + std::to_string(lim_.src_len) + ", 1.." +
                       std::to_string(lim_.dec_len) + ")");
    const int s0 = b.src_off[static_cast<size_t>(i)], t0 = b.dec_off[static_cast<size_t>(i)];
    enc_spans_.push_back({s0, S, s0, S, pe});
    dec_spans_.push_back({t0, T, t0, T, pd});
    cross_spans_.push_back({t0, T, s0, S, pc});
    pe += static_cast<size_t>(H_) * S * S;
    pd += static_cast<size_t>(H_) * T * T;
    pc += static_cast<size_t>(H_) * T * S;
    for (int t = 0; t < S; ++t) src_pos_.push_back(t);
    for (int t = 0; t < T; ++t) dec_pos_.push_back(t);
  }
  for (int id : b.src)
    if (id < 0 || id >= Vs_) throw UsageError("training graph: source id " + std::to_string(id) + " outside the vocabulary");
  for (int id : b.dec_in)
    if (id < 0 || id >= Vt_) throw UsageError("training graph: decoder input id " + std::to_string(id) + " outside the vocabulary");
}

template <typename F>
const float* TransformerGraph::sub_forward(Sub& s, const float* x, int rows, F&& f, Random* rng) {
  const size_t n = static_cast<size_t>(rows) * L_;
  if (pre_) {
    layer_norm_forward(x, rows, L_, W(s.ln.gain), W(s.ln.bias), cfg_.ln_eps, s.ln_y, s.mean, s.rstd);
    f(s.ln_y, y_tmp_);
  } else {
    f(x, y_tmp_);
  }
  if (masks_on_ && s.mask) {
    if (rng) draw_dropout_mask(*rng, rates_.dropout, s.mask, n);
    mul_mask(y_tmp_, s.mask, n, y_tmp_);
  }
  add(x, y_tmp_, n, s.sum);
  if (pre_) return s.sum;
  layer_norm_forward(s.sum, rows, L_, W(s.ln.gain), W(s.ln.bias), cfg_.ln_eps, s.ln_y, s.mean, s.rstd);
  return s.ln_y;
}

template <typename B>
void TransformerGraph::sub_backward(Sub& s, const float* x, const float* dout, float* dx, int rows, B&& f_back) {
  const size_t n = static_cast<size_t>(rows) * L_;
  const bool masked = s.mask && masks_on_;
  if (pre_) {  // out = x + drop(f(LN(x)))
    accumulate(dout, n, dx);
    const float* dy = dout;
    if (masked) {
      mul_mask(dout, s.mask, n, d_sum_);
      dy = d_sum_;
    }
    std::fill(d_n_, d_n_ + n, 0.0f);
    f_back(dy, d_n_);
    layer_norm_backward(x, d_n_, rows, L_, W(s.ln.gain), s.mean, s.rstd, dx, G(s.ln.gain), G(s.ln.bias));
  } else {  // out = LN(x + drop(f(x)))
    std::fill(d_sum_, d_sum_ + n, 0.0f);
    layer_norm_backward(s.sum, dout, rows, L_, W(s.ln.gain), s.mean, s.rstd, d_sum_, G(s.ln.gain), G(s.ln.bias));
    accumulate(d_sum_, n, dx);
    if (masked) mul_mask(d_sum_, s.mask, n, d_sum_);
    f_back(d_sum_, dx);
  }
}

void TransformerGraph::attn_forward(Attn& a, const float* in, const float* memory, int rows, int mem_rows, bool self,
                                    bool causal, const std::vector<AttentionSpan>& spans, float* y, Random* rng) {
  AttentionArgs args;
  args.spans = spans.data();
  args.batch = static_cast<int>(spans.size());
  args.heads = H_;
  args.dh = L_ / H_;
  args.causal = causal;
  if (self) {
    linear_forward(in, rows, L_, W(a.qkv.w), W(a.qkv.b), 3 * L_, a.qkv_out, gemm_);
    args.q = a.qkv_out;
    args.k = a.qkv_out + L_;
    args.v = a.qkv_out + 2 * L_;
    args.ldq = args.ldk = args.ldv = 3 * L_;
  } else {
    linear_forward(in, rows, L_, W(a.q.w), W(a.q.b), L_, a.qkv_out, gemm_);
    linear_forward(memory, mem_rows, L_, W(a.kv.w), W(a.kv.b), 2 * L_, a.kv_out, gemm_);
    args.q = a.qkv_out;
    args.ldq = L_;
    args.k = a.kv_out;
    args.v = a.kv_out + L_;
    args.ldk = args.ldv = 2 * L_;
  }
  args.probs = a.probs;
  if (attn_masks_on_ && a.drop) {
    const AttentionSpan& last = spans.back();
    if (rng) draw_dropout_mask(*rng, rates_.attention, a.drop, last.p0 + static_cast<size_t>(H_) * last.nq * last.nk);
    args.drop = a.drop;
  }
  args.ctx = a.ctx;
  args.ldc = L_;
  attention_forward(args);
  linear_forward(a.ctx, rows, L_, W(a.o.w), W(a.o.b), L_, y, gemm_);
}

void TransformerGraph::attn_backward(Attn& a, const float* in, const float* memory, int rows, int mem_rows, bool self,
                                     bool causal, const std::vector<AttentionSpan>& spans, const float* dy, float* din,
                                     float* dmemory, const float* extra_dprobs) {
  const size_t n = static_cast<size_t>(rows) * L_;
  std::fill(d_ctx_, d_ctx_ + n, 0.0f);
  linear_backward(a.ctx, dy, rows, L_, L_, W(a.o.w), d_ctx_, G(a.o.w), G(a.o.b), gemm_);
  AttentionArgs args;
  args.spans = spans.data();
  args.batch = static_cast<int>(spans.size());
  args.heads = H_;
  args.dh = L_ / H_;
  args.causal = causal;
  args.probs = a.probs;
  args.drop = a.drop && attn_masks_on_ ? a.drop : nullptr;
  AttentionGrads g;
  g.dctx = d_ctx_;
  g.lddc = L_;
  g.extra_dprobs = extra_dprobs;
  if (self) {
    args.q = a.qkv_out;
    args.k = a.qkv_out + L_;
    args.v = a.qkv_out + 2 * L_;
    args.ldq = args.ldk = args.ldv = 3 * L_;
    std::fill(d_big1_, d_big1_ + 3 * n, 0.0f);
    g.dq = d_big1_;
    g.dk = d_big1_ + L_;
    g.dv = d_big1_ + 2 * L_;
    g.lddq = g.lddk = g.lddv = 3 * L_;
    attention_backward(args, g, attn_scratch_);
    linear_backward(in, d_big1_, rows, L_, 3 * L_, W(a.qkv.w), din, G(a.qkv.w), G(a.qkv.b), gemm_);
  } else {
    args.q = a.qkv_out;
    args.ldq = L_;
    args.k = a.kv_out;
    args.v = a.kv_out + L_;
    args.ldk = args.ldv = 2 * L_;
    const size_t m = static_cast<size_t>(mem_rows) * L_;
    std::fill(d_big1_, d_big1_ + n, 0.0f);
    std::fill(d_kv_, d_kv_ + 2 * m, 0.0f);
    g.dq = d_big1_;
    g.lddq = L_;
    g.dk = d_kv_;
    g.dv = d_kv_ + L_;
    g.lddk = g.lddv = 2 * L_;
    attention_backward(args, g, attn_scratch_);
    linear_backward(in, d_big1_, rows, L_, L_, W(a.q.w), din, G(a.q.w), G(a.q.b), gemm_);
    linear_backward(memory, d_kv_, mem_rows, L_, 2 * L_, W(a.kv.w), dmemory, G(a.kv.w), G(a.kv.b), gemm_);
  }
}

void TransformerGraph::ffn_forward(Ffn& f, const float* in, int rows, float* y) {
  linear_forward(in, rows, L_, W(f.fc1.w), W(f.fc1.b), F_, f.f1, gemm_);
  activation_forward(cfg_.activation, f.f1, static_cast<size_t>(rows) * F_, f.g);
  linear_forward(f.g, rows, F_, W(f.fc2.w), W(f.fc2.b), L_, y, gemm_);
}

void TransformerGraph::ffn_backward(Ffn& f, const float* in, int rows, const float* dy, float* din) {
  const size_t n = static_cast<size_t>(rows) * F_;
  std::fill(d_big1_, d_big1_ + n, 0.0f);
  linear_backward(f.g, dy, rows, F_, L_, W(f.fc2.w), d_big1_, G(f.fc2.w), G(f.fc2.b), gemm_);
  std::fill(d_big2_, d_big2_ + n, 0.0f);
  activation_backward(cfg_.activation, f.f1, d_big1_, n, d_big2_);
  linear_backward(in, d_big2_, rows, L_, F_, W(f.fc1.w), din, G(f.fc1.w), G(f.fc1.b), gemm_);
}

void TransformerGraph::forward(const Batch& b, Random* rng) {
  spans_for(b);
  masks_on_ = rng != nullptr && rates_.dropout > 0;
  attn_masks_on_ = rng != nullptr && rates_.attention > 0;
  const int Rs = b.src_rows();
  embedding_forward(b.src.data(), src_pos_.data(), Rs, W(src_emb_.table), L_, emb_scale_,
                    src_emb_.pos >= 0 ? W(src_emb_.pos) : sin_table_.data(), src_emb_.x);
  if (masks_on_) {
    draw_dropout_mask(*rng, rates_.dropout, src_emb_.mask, static_cast<size_t>(Rs) * L_);
    mul_mask(src_emb_.x, src_emb_.mask, static_cast<size_t>(Rs) * L_, src_emb_.x);
  }
  const float* x = src_emb_.x;
  for (EncLayer& l : enc_) {
    x = sub_forward(l.s1, x, Rs, [&](const float* in, float* y) {
      attn_forward(l.self, in, nullptr, Rs, 0, true, false, enc_spans_, y, rng);
    }, rng);
    x = sub_forward(l.s2, x, Rs, [&](const float* in, float* y) { ffn_forward(l.ffn, in, Rs, y); }, rng);
  }
  if (pre_ && !enc_.empty()) {
    layer_norm_forward(x, Rs, L_, W(enc_final_.gain), W(enc_final_.bias), cfg_.ln_eps, enc_final_y_, enc_final_mean_, enc_final_rstd_);
    x = enc_final_y_;
  }
  memory_ = x;
  fed_.assign(b.dec_in.begin(), b.dec_in.end());
  last_src_rows_ = Rs;
  last_dec_rows_ = b.dec_rows();
  decoder_forward(b, rng);
}

void TransformerGraph::decode_again(const Batch& b, const int* dec_inputs) {
  if (last_dec_rows_ != b.dec_rows() || last_src_rows_ != b.src_rows())
    throw UsageError("training graph: decode_again() follows a forward() over the same batch");
  const int Rt = b.dec_rows();
  for (int r = 0; r < Rt; ++r)
    if (dec_inputs[r] < 0 || dec_inputs[r] >= Vt_)
      throw UsageError("training graph: decoder input id " + std::to_string(dec_inputs[r]) + " outside the vocabulary");
  fed_.assign(dec_inputs, dec_inputs + Rt);
  decoder_forward(b, nullptr);  // the masks the forward pass drew, as they are
}

void TransformerGraph::decoder_forward(const Batch& b, Random* draw) {
  const int Rs = b.src_rows(), Rt = b.dec_rows();
  const size_t nt = static_cast<size_t>(Rt) * L_;
  embedding_forward(fed_.data(), dec_pos_.data(), Rt, W(tgt_emb_.table), L_, emb_scale_,
                    tgt_emb_.pos >= 0 ? W(tgt_emb_.pos) : sin_table_.data(), tgt_emb_.x);
  if (masks_on_) {
    if (draw) draw_dropout_mask(*draw, rates_.dropout, tgt_emb_.mask, nt);
    mul_mask(tgt_emb_.x, tgt_emb_.mask, nt, tgt_emb_.x);
  }
  const float* y = tgt_emb_.x;
  for (DecLayer& l : dec_) {
    y = sub_forward(l.s1, y, Rt, [&](const float* in, float* out) {
      attn_forward(l.self, in, nullptr, Rt, 0, true, true, dec_spans_, out, draw);
    }, draw);
    y = sub_forward(l.s2, y, Rt, [&](const float* in, float* out) {
      attn_forward(l.cross, in, memory_, Rt, Rs, false, false, cross_spans_, out, draw);
    }, draw);
    y = sub_forward(l.s3, y, Rt, [&](const float* in, float* out) { ffn_forward(l.ffn, in, Rt, out); }, draw);
  }
  if (pre_) {
    layer_norm_forward(y, Rt, L_, W(dec_final_.gain), W(dec_final_.bias), cfg_.ln_eps, dec_final_y_, dec_final_mean_, dec_final_rstd_);
    y = dec_final_y_;
  }
  linear_forward(y, Rt, L_, W(out_.w), W(out_.b), Vt_, logits_.data(), gemm_);
}

void TransformerGraph::backward(const Batch& b, const std::vector<const float*>* extra_cross_dprobs, const ExtraGrads* extra) {
  const int Rs = b.src_rows(), Rt = b.dec_rows();
  const size_t ns = static_cast<size_t>(Rs) * L_, nt = static_cast<size_t>(Rt) * L_;
  float* dout = d_a_;
  float* dx = d_b_;
  auto zero = [](float* p, size_t n) { std::fill(p, p + n, 0.0f); };
  auto swap_streams = [&](size_t n) {
    std::swap(dout, dx);
    zero(dx, n);
  };
  // The stream before each sublayer, as forward() left it.
  auto dec_in_of = [&](size_t i) -> const float* {
    if (i == 0) return tgt_emb_.x;
    const DecLayer& p = dec_[i - 1];
    return sub_out(pre_, p.s3.sum, p.s3.ln_y);
  };
  auto enc_in_of = [&](size_t i) -> const float* {
    if (i == 0) return src_emb_.x;
    const EncLayer& p = enc_[i - 1];
    return sub_out(pre_, p.s2.sum, p.s2.ln_y);
  };

  // The output projection (and the tied embedding's share of its gradient).
  const float* top = pre_ ? dec_final_y_ : dec_in_of(dec_.size());
  zero(dout, nt);
  linear_backward(top, dlogits_.data(), Rt, L_, Vt_, W(out_.w), dout, G(out_.w), G(out_.b), gemm_);
  if (extra && extra->d_output) accumulate(extra->d_output, nt, dout);  // the copy gate read the output too
  if (pre_) {
    zero(dx, nt);
    layer_norm_backward(dec_in_of(dec_.size()), dout, Rt, L_, W(dec_final_.gain), dec_final_mean_, dec_final_rstd_, dx,
                        G(dec_final_.gain), G(dec_final_.bias));
    swap_streams(nt);
  } else {
    zero(dx, nt);
  }
  zero(d_mem_, ns);
  for (size_t i = dec_.size(); i-- > 0;) {
    DecLayer& l = dec_[i];
    const float* in1 = dec_in_of(i);
    const float* in2 = sub_out(pre_, l.s1.sum, l.s1.ln_y);
    const float* in3 = sub_out(pre_, l.s2.sum, l.s2.ln_y);
    sub_backward(l.s3, in3, dout, dx, Rt, [&](const float* dy, float* din) {
      ffn_backward(l.ffn, pre_ ? l.s3.ln_y : in3, Rt, dy, din);
    });
    swap_streams(nt);
    const float* extra = extra_cross_dprobs ? (*extra_cross_dprobs)[i] : nullptr;
    sub_backward(l.s2, in2, dout, dx, Rt, [&](const float* dy, float* din) {
      attn_backward(l.cross, pre_ ? l.s2.ln_y : in2, memory_, Rt, Rs, false, false, cross_spans_, dy, din, d_mem_, extra);
    });
    swap_streams(nt);
    sub_backward(l.s1, in1, dout, dx, Rt, [&](const float* dy, float* din) {
      attn_backward(l.self, pre_ ? l.s1.ln_y : in1, nullptr, Rt, 0, true, true, dec_spans_, dy, din, nullptr, nullptr);
    });
    swap_streams(nt);
  }
  if (extra && extra->d_input) accumulate(extra->d_input, nt, dout);  // and the decoder's input
  if (tgt_emb_.mask && masks_on_) mul_mask(dout, tgt_emb_.mask, nt, dout);
  embedding_backward(fed_.data(), dec_pos_.data(), Rt, dout, L_, emb_scale_, G(tgt_emb_.table),
                     tgt_emb_.pos >= 0 ? G(tgt_emb_.pos) : nullptr);
  if (extra && extra->d_memory) accumulate(extra->d_memory, ns, d_mem_);  // and the encoder's output

  // The encoder, from the memory's gradient summed over the decoder layers.
  zero(dout, ns);
  zero(dx, ns);
  if (pre_ && !enc_.empty()) {
    layer_norm_backward(enc_in_of(enc_.size()), d_mem_, Rs, L_, W(enc_final_.gain), enc_final_mean_, enc_final_rstd_, dout,
                        G(enc_final_.gain), G(enc_final_.bias));
  } else {
    accumulate(d_mem_, ns, dout);
  }
  for (size_t i = enc_.size(); i-- > 0;) {
    EncLayer& l = enc_[i];
    const float* in1 = enc_in_of(i);
    const float* in2 = sub_out(pre_, l.s1.sum, l.s1.ln_y);
    sub_backward(l.s2, in2, dout, dx, Rs, [&](const float* dy, float* din) {
      ffn_backward(l.ffn, pre_ ? l.s2.ln_y : in2, Rs, dy, din);
    });
    swap_streams(ns);
    sub_backward(l.s1, in1, dout, dx, Rs, [&](const float* dy, float* din) {
      attn_backward(l.self, pre_ ? l.s1.ln_y : in1, nullptr, Rs, 0, true, false, enc_spans_, dy, din, nullptr, nullptr);
    });
    swap_streams(ns);
  }
  if (src_emb_.mask && masks_on_) mul_mask(dout, src_emb_.mask, ns, dout);
  embedding_backward(b.src.data(), src_pos_.data(), Rs, dout, L_, emb_scale_, G(src_emb_.table),
                     src_emb_.pos >= 0 ? G(src_emb_.pos) : nullptr);
}

}  // namespace train
}  // namespace seq2seq
