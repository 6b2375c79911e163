#include "transformer.h"

#include <cmath>
#include <string>

#include "attention_kernel.h"
#include "copy.h"
#include "errors.h"
#include "weight_loader.h"

namespace seq2seq {

namespace {

// Where a head's probabilities go: `maps` (if any) holds one matrix per head.
struct HeadSinks {
  std::vector<RowMatrix>* maps = nullptr;
  size_t first = 0;  // index of head 0
};

// Multi-head attention of n_q query rows against n_k key/value rows; the heads
// sit side by side in the columns of q, k, v and out.
void multi_head(const float* q, int ldq, const float* k, int ldk, const float* v, int ldv, float* out, int ldo,
                int n_q, int n_k, int n_k_valid, int causal_offset, int n_heads, int dh, HeadSinks sinks,
                std::vector<float>& scratch) {
  scratch.resize(static_cast<size_t>(n_k));
  AttentionHeadArgs a;
  a.ldq = ldq; a.ldk = ldk; a.ldv = ldv; a.ldo = ldo;
  a.n_q = n_q; a.n_k = n_k; a.dh = dh;
  a.scale = 1.0f / std::sqrt(static_cast<float>(dh));
  a.n_k_valid = n_k_valid;
  a.causal_offset = causal_offset;
  a.scratch = scratch.data();
  for (int h = 0; h < n_heads; ++h) {
    a.q = q + h * dh; a.k = k + h * dh; a.v = v + h * dh; a.out = out + h * dh;
    if (sinks.maps) {
      RowMatrix& m = (*sinks.maps)[sinks.first + static_cast<size_t>(h)];
      a.probs = m.data();
      a.ldp = static_cast<int>(m.cols());
    }
    attention_head(a);
  }
}

void prepare_maps(AttentionMaps* maps, int rows, int layers, int heads, int n_q, int n_k) {
  if (!maps) return;
  maps->layers = layers;
  maps->heads = heads;
  maps->maps.assign(static_cast<size_t>(rows * layers * heads), RowMatrix::Zero(n_q, n_k));
}

HeadSinks sinks_for(AttentionMaps* maps, int row, int layer) {
  if (!maps) return {};
  return {&maps->maps, static_cast<size_t>((row * maps->layers + layer) * maps->heads)};
}

}  // namespace

Transformer::Transformer(const ModelConfig& config, const SafetensorsFile& file, Compute compute) : cfg_(config) {
  WeightLoader w(file, compute);
  const int L = cfg_.d_model, F = cfg_.d_ff;
  const int Vs = static_cast<int>(cfg_.src_vocab.size()), Vt = static_cast<int>(cfg_.tgt_vocab.size());
  src_embed_ = w.matrix("src_embed.weight", Vs, L);
  tgt_embed_ = w.matrix("tgt_embed.weight", Vt, L);
  if (cfg_.pos == PosEncoding::Learned) {
    src_pos_ = w.matrix("src_pos.weight", cfg_.max_pos, L);
    tgt_pos_ = w.matrix("tgt_pos.weight", cfg_.max_pos, L);
  }
  auto self_attention = [&](const std::string& p) {
    return SelfAttentionWeights{w.stacked_linear({p + ".q_proj", p + ".k_proj", p + ".v_proj"}, L, L), w.linear(p + ".o_proj", L, L)};
  };
  auto ffn = [&](const std::string& p) { return FeedForward{w.linear(p + ".fc1", F, L), w.linear(p + ".fc2", L, F)}; };
  for (int i = 0; i < cfg_.enc_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    enc_.push_back({self_attention(p + ".self_attn"), ffn(p + ".ffn"), w.layer_norm(p + ".ln1", L), w.layer_norm(p + ".ln2", L)});
  }
  for (int i = 0; i < cfg_.dec_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    DecoderLayer d;
    d.self_attn = self_attention(p + ".self_attn");
    d.cross_attn = {w.linear(p + ".cross_attn.q_proj", L, L),
                    w.stacked_linear({p + ".cross_attn.k_proj", p + ".cross_attn.v_proj"}, L, L),
                    w.linear(p + ".cross_attn.o_proj", L, L)};
    d.ffn = ffn(p + ".ffn");
    d.ln1 = w.layer_norm(p + ".ln1", L);
    d.ln2 = w.layer_norm(p + ".ln2", L);
    d.ln3 = w.layer_norm(p + ".ln3", L);
    dec_.push_back(std::move(d));
  }
  if (cfg_.norm == NormPlacement::Pre) {
    if (cfg_.enc_layers > 0) enc_final_ = w.layer_norm("encoder.final_ln", L);
    dec_final_ = w.layer_norm("decoder.final_ln", L);
  }
  out_proj_ = w.linear_from(cfg_.tie_output ? "tgt_embed.weight" : "out_proj.weight", "out_proj.bias", Vt, L);
  if (cfg_.arch == Arch::Cmlm) length_head_ = w.linear("length_head", cfg_.max_target_len + 1, L);
  if (cfg_.copy) copy_gate_ = w.linear("copy_gate", 1, 3 * L);
  w.check_all_used();
  // Only now, with every tensor present and of its shape: this table's size comes from
  // the config alone, and a small file must not make it large before that is known.
  if (cfg_.pos == PosEncoding::Sinusoidal) {
    src_pos_ = sinusoidal_positions(cfg_.max_pos, L);
    tgt_pos_ = src_pos_;
  }
  n_params_ = WeightLoader::parameter_count(file);
}

void Transformer::check_ids(const std::vector<int>& ids, int vocab, const char* what) const {
  if (ids.empty()) throw InputError(std::string("the ") + what + " is empty");
  if (static_cast<int>(ids.size()) > cfg_.max_pos)
    throw InputError(std::string("the ") + what + " has " + std::to_string(ids.size()) + " tokens; this model has " +
                     std::to_string(cfg_.max_pos) + " positions");
  for (int id : ids)
    if (id < 0 || id >= vocab)
      throw InputError(std::string("token id ") + std::to_string(id) + " in the " + what + " is outside the vocabulary of " +
                       std::to_string(vocab));
}

void Transformer::embed(const std::vector<const std::vector<int>*>& seqs, int padded_len, const RowMatrix& table,
                        const RowMatrix& positions, RowMatrix& x) const {
  const float scale = cfg_.scale_embedding ? std::sqrt(static_cast<float>(cfg_.d_model)) : 1.0f;
  x.setZero(static_cast<Eigen::Index>(seqs.size()) * padded_len, cfg_.d_model);
  for (size_t b = 0; b < seqs.size(); ++b)
    for (size_t t = 0; t < seqs[b]->size(); ++t)
      x.row(static_cast<Eigen::Index>(b * padded_len + t)) =
          table.row((*seqs[b])[t]) * scale + positions.row(static_cast<Eigen::Index>(t));
}

void Transformer::feed_forward(const FeedForward& f, const RowMatrix& x, RowMatrix& y) const {
  RowMatrix hidden;
  linear(x, f.fc1, cfg_.activation, hidden);
  linear(hidden, f.fc2, y);
}

template <typename F>
void Transformer::residual(RowMatrix& x, const LayerNormParams& ln, F&& f) const {
  RowMatrix normed, delta;
  if (cfg_.norm == NormPlacement::Pre) {
    layer_norm(x, ln, cfg_.ln_eps, normed);
    f(normed, delta);
    x += delta;
  } else {
    f(x, delta);
    delta += x;
    layer_norm(delta, ln, cfg_.ln_eps, x);
  }
}

void Transformer::final_norm(RowMatrix& x, const LayerNormParams& ln) const {
  if (cfg_.norm != NormPlacement::Pre) return;  // post-LN stacks end normalised already
  RowMatrix normed;
  layer_norm(x, ln, cfg_.ln_eps, normed);
  x.swap(normed);
}

void Transformer::output_logits(const RowMatrix& h, RowMatrix& logits) const { linear(h, out_proj_, logits); }

void Transformer::self_attention(const SelfAttentionWeights& w, const RowMatrix& in, int padded_len,
                                 const std::vector<int>& lengths, int causal_offset, AttentionMaps* maps, int layer,
                                 RowMatrix& out) const {
  const int L = cfg_.d_model;
  RowMatrix qkv, ctx = RowMatrix::Zero(in.rows(), L);
  linear(in, w.qkv, qkv);
  std::vector<float> scratch;
  for (size_t b = 0; b < lengths.size(); ++b) {
    const float* base = qkv.data() + b * padded_len * 3 * L;
    // Padded query rows are computed too: they stay finite and are never read as keys.
    multi_head(base, 3 * L, base + L, 3 * L, base + 2 * L, 3 * L, ctx.data() + b * padded_len * L, L, padded_len,
               padded_len, lengths[b], causal_offset, cfg_.n_heads, cfg_.head_dim(),
               sinks_for(maps, static_cast<int>(b), layer), scratch);
  }
  linear(ctx, w.out, out);
}

EncoderOutput Transformer::encode(const std::vector<std::vector<int>>& sources, AttentionMaps* self_attn) const {
  if (sources.empty()) throw InputError("no source to encode");
  EncoderOutput enc;
  enc.batch = static_cast<int>(sources.size());
  std::vector<const std::vector<int>*> seqs;
  for (const auto& s : sources) {
    check_ids(s, static_cast<int>(cfg_.src_vocab.size()), "source");
    enc.lengths.push_back(static_cast<int>(s.size()));
    enc.max_len = std::max(enc.max_len, static_cast<int>(s.size()));
    seqs.push_back(&s);
  }
  const int B = enc.batch, S = enc.max_len, H = cfg_.n_heads;
  prepare_maps(self_attn, B, cfg_.enc_layers, H, S, S);

  RowMatrix& x = enc.memory;
  embed(seqs, S, src_embed_, src_pos_, x);
  for (int l = 0; l < cfg_.enc_layers; ++l) {
    const EncoderLayer& layer = enc_[static_cast<size_t>(l)];
    residual(x, layer.ln1, [&](const RowMatrix& in, RowMatrix& out) {
      self_attention(layer.attn, in, S, enc.lengths, -1, self_attn, l, out);
    });
    residual(x, layer.ln2, [&](const RowMatrix& in, RowMatrix& out) { feed_forward(layer.ffn, in, out); });
  }
  if (cfg_.enc_layers > 0) final_norm(x, enc_final_);
  enc.cross_kv.resize(dec_.size());
  for (size_t l = 0; l < dec_.size(); ++l) linear(x, dec_[l].cross_attn.kv, enc.cross_kv[l]);
  return enc;
}

RowMatrix Transformer::decode_full(const EncoderOutput& enc, const std::vector<int>& src_index,
                                   const std::vector<std::vector<int>>& targets, AttentionMaps* self_attn,
                                   AttentionMaps* cross_attn) const {
  if (targets.empty() || src_index.size() != targets.size())
    throw UsageError("decode_full needs one source index per target");
  const int R = static_cast<int>(targets.size()), L = cfg_.d_model, H = cfg_.n_heads, dh = cfg_.head_dim();
  const int S = enc.max_len;
  int T = 0;
  std::vector<const std::vector<int>*> seqs;
  std::vector<int> target_lengths;
  for (int r = 0; r < R; ++r) {
    check_ids(targets[static_cast<size_t>(r)], static_cast<int>(cfg_.tgt_vocab.size()), "target");
    if (src_index[static_cast<size_t>(r)] < 0 || src_index[static_cast<size_t>(r)] >= enc.batch)
      throw UsageError("decode_full: source index out of range");
    T = std::max(T, static_cast<int>(targets[static_cast<size_t>(r)].size()));
    target_lengths.push_back(static_cast<int>(targets[static_cast<size_t>(r)].size()));
    seqs.push_back(&targets[static_cast<size_t>(r)]);
  }
  const int causal = cfg_.autoregressive() ? 0 : -1;
  prepare_maps(self_attn, R, cfg_.dec_layers, H, T, T);
  prepare_maps(cross_attn, R, cfg_.dec_layers, H, T, S);

  RowMatrix x;
  embed(seqs, T, tgt_embed_, tgt_pos_, x);
  std::vector<float> scratch;
  for (int l = 0; l < cfg_.dec_layers; ++l) {
    const DecoderLayer& layer = dec_[static_cast<size_t>(l)];
    residual(x, layer.ln1, [&](const RowMatrix& in, RowMatrix& out) {
      self_attention(layer.self_attn, in, T, target_lengths, causal, self_attn, l, out);
    });
    residual(x, layer.ln2, [&](const RowMatrix& in, RowMatrix& out) {
      RowMatrix q, ctx = RowMatrix::Zero(in.rows(), L);
      linear(in, layer.cross_attn.q, q);
      const RowMatrix& kv = enc.cross_kv[static_cast<size_t>(l)];
      for (int r = 0; r < R; ++r) {
        const int s = src_index[static_cast<size_t>(r)];
        const float* kbase = kv.data() + static_cast<size_t>(s) * S * 2 * L;
        multi_head(q.data() + static_cast<size_t>(r) * T * L, L, kbase, 2 * L, kbase + L, 2 * L,
                   ctx.data() + static_cast<size_t>(r) * T * L, L, T, S, enc.lengths[static_cast<size_t>(s)], -1, H, dh,
                   sinks_for(cross_attn, r, l), scratch);
      }
      linear(ctx, layer.cross_attn.out, out);
    });
    residual(x, layer.ln3, [&](const RowMatrix& in, RowMatrix& out) { feed_forward(layer.ffn, in, out); });
  }
  final_norm(x, dec_final_);
  RowMatrix logits;
  output_logits(x, logits);
  return logits;
}

RowMatrix Transformer::length_logits(const EncoderOutput& enc) const {
  if (cfg_.arch != Arch::Cmlm) throw UsageError("this model has no length head (it is not a cmlm model)");
  RowMatrix pooled = RowMatrix::Zero(enc.batch, cfg_.d_model);
  for (int b = 0; b < enc.batch; ++b) {
    const int n = enc.lengths[static_cast<size_t>(b)];
    pooled.row(b) = enc.memory.middleRows(static_cast<Eigen::Index>(b) * enc.max_len, n).colwise().sum() / static_cast<float>(n);
  }
  RowMatrix head;
  linear(pooled, length_head_, head);
  if (cfg_.length_offset == 0) return head;
  // Offset head: class k means length n + k - C. Remap to absolute lengths 0..max_target_len;
  // lengths no class reaches get kLengthUnreachable (finite: snapshots are JSON).
  const int C = cfg_.length_offset, K = static_cast<int>(head.cols());
  RowMatrix logits = RowMatrix::Constant(enc.batch, K, kLengthUnreachable);
  for (int b = 0; b < enc.batch; ++b) {
    const int n = enc.lengths[static_cast<size_t>(b)];
    for (int len = 0; len < K; ++len) {
      const int k = len - n + C;
      if (k >= 0 && k < K) logits(b, len) = head(b, k);
    }
  }
  return logits;
}

DecoderCache Transformer::start_cache(const EncoderOutput& enc, int src_index, int n_hyps, int capacity) const {
  if (!cfg_.autoregressive()) throw UsageError("incremental decoding needs an autoregressive model");
  if (src_index < 0 || src_index >= enc.batch) throw UsageError("start_cache: source index out of range");
  if (n_hyps < 1) throw UsageError("start_cache: at least one hypothesis is needed");
  if (capacity < 1 || capacity > cfg_.max_pos)
    throw UsageError("start_cache: capacity must be in [1, " + std::to_string(cfg_.max_pos) + "]");
  DecoderCache c;
  c.n_hyps = n_hyps;
  c.capacity = capacity;
  c.src_len = enc.lengths[static_cast<size_t>(src_index)];
  const int L = cfg_.d_model;
  for (int l = 0; l < cfg_.dec_layers; ++l) {
    c.self_kv.emplace_back(static_cast<Eigen::Index>(n_hyps) * capacity, 2 * L);
    c.cross_kv.push_back(enc.cross_kv[static_cast<size_t>(l)].middleRows(
        static_cast<Eigen::Index>(src_index) * enc.max_len, c.src_len));
  }
  if (cfg_.copy) c.memory = enc.memory.middleRows(static_cast<Eigen::Index>(src_index) * enc.max_len, c.src_len);
  return c;
}

void Transformer::decode_step(DecoderCache& c, const std::vector<int>& tokens, RowMatrix& logits,
                              StepAttention* attn, CopyFeatures* copy) const {
  decode_steps({{&c, &tokens, &logits, attn, copy}});
}

void Transformer::decode_steps(const std::vector<CacheStep>& steps) const {
  const int Vt = static_cast<int>(cfg_.tgt_vocab.size());
  const int L = cfg_.d_model, H = cfg_.n_heads, dh = cfg_.head_dim();
  // Rows [first[i], first[i] + n_i) of every product are cache i's hypotheses.
  std::vector<Eigen::Index> first;
  Eigen::Index rows = 0;
  for (const CacheStep& s : steps) {
    const DecoderCache& c = *s.cache;
    if (static_cast<int>(s.tokens->size()) != c.n_hyps)
      throw UsageError("decode_step: " + std::to_string(s.tokens->size()) + " tokens for " + std::to_string(c.n_hyps) + " hypotheses");
    if (c.length >= c.capacity)
      throw UsageError("decode_step: the cache is full (" + std::to_string(c.capacity) + " positions)");
    for (int id : *s.tokens)
      if (id < 0 || id >= Vt) throw InputError("token id " + std::to_string(id) + " is outside the target vocabulary");
    if (s.copy && !cfg_.copy) throw UsageError("decode_step: copy features asked of a model without the copy mechanism");
    if (s.attn) {
      s.attn->layers = cfg_.dec_layers;
      s.attn->heads = H;
      s.attn->self.assign(static_cast<size_t>(cfg_.dec_layers * H), RowMatrix(c.n_hyps, c.length + 1));
      s.attn->cross.assign(static_cast<size_t>(cfg_.dec_layers * H), RowMatrix(c.n_hyps, c.src_len));
    }
    first.push_back(rows);
    rows += c.n_hyps;
  }
  const float scale = cfg_.scale_embedding ? std::sqrt(static_cast<float>(L)) : 1.0f;
  RowMatrix x(rows, L);
  for (size_t i = 0; i < steps.size(); ++i)
    for (int j = 0; j < steps[i].cache->n_hyps; ++j)
      x.row(first[i] + j) = tgt_embed_.row((*steps[i].tokens)[static_cast<size_t>(j)]) * scale + tgt_pos_.row(steps[i].cache->length);
  // The copy gate reads the decoder's input, and the last layer's cross-attention of every head.
  bool any_copy = false;
  for (const CacheStep& s : steps) any_copy = any_copy || s.copy;
  RowMatrix input;
  if (any_copy) input = x;
  std::vector<std::vector<RowMatrix>> last_cross(steps.size());

  std::vector<float> scratch;
  for (int l = 0; l < cfg_.dec_layers; ++l) {
    const DecoderLayer& layer = dec_[static_cast<size_t>(l)];
    residual(x, layer.ln1, [&](const RowMatrix& in, RowMatrix& out) {
      RowMatrix qkv, ctx(rows, L);
      linear(in, layer.self_attn.qkv, qkv);
      for (size_t s = 0; s < steps.size(); ++s) {
        DecoderCache& c = *steps[s].cache;
        RowMatrix& cache = c.self_kv[static_cast<size_t>(l)];
        const int t = c.length;
        scratch.resize(static_cast<size_t>(t + 1));
        AttentionHeadArgs a;
        a.ldq = 3 * L; a.ldk = 2 * L; a.ldv = 2 * L; a.ldo = L;
        a.n_q = 1; a.n_k = t + 1; a.dh = dh;
        a.scale = 1.0f / std::sqrt(static_cast<float>(dh));
        a.scratch = scratch.data();
        for (int i = 0; i < c.n_hyps; ++i) {
          const Eigen::Index r = first[s] + i;  // this hypothesis's row of the products
          const Eigen::Index row = static_cast<Eigen::Index>(i) * c.capacity;
          cache.row(row + t) = qkv.row(r).segment(L, 2 * L);
          const float* kbase = cache.data() + static_cast<size_t>(row) * 2 * L;
          for (int h = 0; h < H; ++h) {
            a.q = qkv.data() + static_cast<size_t>(r) * 3 * L + h * dh;
            a.k = kbase + h * dh;
            a.v = kbase + L + h * dh;
            a.out = ctx.data() + static_cast<size_t>(r) * L + h * dh;
            if (steps[s].attn) {  // this hypothesis's row of the head's [n x t+1] matrix
              RowMatrix& m = steps[s].attn->self[static_cast<size_t>(l * H + h)];
              a.probs = m.data() + static_cast<size_t>(i) * m.cols();
              a.ldp = static_cast<int>(m.cols());
            }
            attention_head(a);
          }
        }
      }
      linear(ctx, layer.self_attn.out, out);
    });
    residual(x, layer.ln2, [&](const RowMatrix& in, RowMatrix& out) {
      RowMatrix q, ctx(rows, L);
      linear(in, layer.cross_attn.q, q);
      for (size_t s = 0; s < steps.size(); ++s) {
        const DecoderCache& c = *steps[s].cache;
        const RowMatrix& kv = c.cross_kv[static_cast<size_t>(l)];
        // A cache's hypotheses share its source: one kernel call per head covers them all.
        HeadSinks sinks;
        if (steps[s].attn) {
          sinks = {&steps[s].attn->cross, static_cast<size_t>(l * H)};
        } else if (steps[s].copy && l + 1 == cfg_.dec_layers) {
          last_cross[s].assign(static_cast<size_t>(H), RowMatrix(c.n_hyps, c.src_len));
          sinks = {&last_cross[s], 0};
        }
        const size_t at = static_cast<size_t>(first[s]) * L;
        multi_head(q.data() + at, L, kv.data(), 2 * L, kv.data() + L, 2 * L, ctx.data() + at, L, c.n_hyps, c.src_len,
                   c.src_len, -1, H, dh, sinks, scratch);
      }
      linear(ctx, layer.cross_attn.out, out);
    });
    residual(x, layer.ln3, [&](const RowMatrix& in, RowMatrix& out) { feed_forward(layer.ffn, in, out); });
  }
  final_norm(x, dec_final_);
  if (any_copy) {
    // Each copy step's rows: the copy attention a (the last layer's heads averaged), the
    // context a · memory, and the gate's logit from [context ; output ; input] in one product.
    RowMatrix features(rows, 3 * L), gate;
    features.setZero();
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!steps[s].copy) continue;
      const DecoderCache& c = *steps[s].cache;
      const std::vector<RowMatrix>& heads = steps[s].attn ? steps[s].attn->cross : last_cross[s];
      const size_t at = steps[s].attn ? static_cast<size_t>((cfg_.dec_layers - 1) * H) : 0;
      RowMatrix& a = steps[s].copy->attention;
      a = RowMatrix::Zero(c.n_hyps, c.src_len);
      for (int h = 0; h < H; ++h) a += heads[at + static_cast<size_t>(h)];
      a /= static_cast<float>(H);
      features.block(first[s], 0, c.n_hyps, L).noalias() = a * c.memory;
      features.block(first[s], L, c.n_hyps, L) = x.middleRows(first[s], c.n_hyps);
      features.block(first[s], 2 * L, c.n_hyps, L) = input.middleRows(first[s], c.n_hyps);
    }
    linear(features, copy_gate_, gate);
    for (size_t s = 0; s < steps.size(); ++s)
      if (steps[s].copy) {
        const int n = steps[s].cache->n_hyps;
        steps[s].copy->gate.assign(gate.data() + first[s], gate.data() + first[s] + n);
      }
  }
  if (steps.size() == 1) {
    output_logits(x, *steps[0].logits);
  } else {
    RowMatrix all;
    output_logits(x, all);
    for (size_t s = 0; s < steps.size(); ++s) *steps[s].logits = all.middleRows(first[s], steps[s].cache->n_hyps);
  }
  for (const CacheStep& s : steps) s.cache->length += 1;
}

void Transformer::reorder_cache(DecoderCache& c, const std::vector<int>& parents) const {
  if (parents.empty()) throw UsageError("reorder_cache: no hypotheses left");
  for (int p : parents)
    if (p < 0 || p >= c.n_hyps) throw UsageError("reorder_cache: parent index " + std::to_string(p) + " out of range");
  const int n_new = static_cast<int>(parents.size());
  for (auto& cache : c.self_kv) {
    c.spare.resize(static_cast<Eigen::Index>(n_new) * c.capacity, cache.cols());
    for (int i = 0; i < n_new; ++i)
      c.spare.middleRows(static_cast<Eigen::Index>(i) * c.capacity, c.length) =
          cache.middleRows(static_cast<Eigen::Index>(parents[static_cast<size_t>(i)]) * c.capacity, c.length);
    cache.swap(c.spare);
  }
  c.n_hyps = n_new;
}

// --- The scorer adapters: what search sees of a Transformer (scorer.h) ---------

namespace {

// The encoder's self-attention of one source: a second encoder pass, run only
// when asked, so that decoding without attention records nothing.
HeadMaps encoder_attention_of(const Transformer& m, const std::vector<int>& source) {
  AttentionMaps maps;
  m.encode({source}, &maps);
  HeadMaps out;
  out.layers = maps.layers;
  out.heads = maps.heads;
  out.maps = std::move(maps.maps);  // one source: index layer*heads + head
  return out;
}

class TransformerStepScorer final : public StepScorer {
 public:
  // Source `index` of `enc`, which may hold several (encoded in one pass).
  TransformerStepScorer(const Transformer& m, const SourceInput& source, const EncoderOutput& enc, int index,
                        int capacity)
      : m_(m), source_(source.ids), cache_(m.start_cache(enc, index, 1, capacity)) {
    if (m.config().copy) {
      CopyMap map = copy_map_for(source, m.config());
      copy_.ids = std::move(map.ids);
      extra_ = static_cast<int>(map.extra.size());
    }
  }

  int vocab_size() const override { return static_cast<int>(m_.config().tgt_vocab.size()) + extra_; }
  int source_length() const override { return cache_.src_len; }
  int capacity() const override { return cache_.capacity; }
  int num_hypotheses() const override { return cache_.n_hyps; }

  void score(const std::vector<int>& tokens, RowMatrix& logprobs, CrossAndSelfAttention* attention) override {
    StepAttention step;
    if (m_.config().copy) {
      CopyFeatures features;
      m_.decode_step(cache_, fed(tokens), vocab_lp_, attention ? &step : nullptr, &features);
      mix(features, logprobs);
    } else {
      m_.decode_step(cache_, tokens, logprobs, attention ? &step : nullptr);
      log_softmax_rows(logprobs);
    }
    if (attention) {
      attention->layers = step.layers;
      attention->heads = step.heads;
      attention->maps = std::move(step.cross);
      attention->self.layers = step.layers;
      attention->self.heads = step.heads;
      attention->self.maps = std::move(step.self);
    }
  }
  void reorder(const std::vector<int>& parents) override { m_.reorder_cache(cache_, parents); }
  HeadMaps encoder_attention() override { return encoder_attention_of(m_, source_); }
  const CopyStep* copy_step() const override { return m_.config().copy ? &copy_ : nullptr; }

  // Every step scorer of this model is of this class: one pass steps them all.
  const void* group() const override { return &m_; }
  void score_group(const std::vector<StepRequest*>& requests) override {
    const bool copy = m_.config().copy;
    std::vector<Transformer::CacheStep> steps;
    std::vector<std::vector<int>> inputs(requests.size());
    std::vector<CopyFeatures> features(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      auto* scorer = static_cast<TransformerStepScorer*>(requests[i]->scorer);
      inputs[i] = copy ? scorer->fed(requests[i]->tokens) : requests[i]->tokens;
      steps.push_back({&scorer->cache_, &inputs[i], copy ? &scorer->vocab_lp_ : &requests[i]->logprobs, nullptr,
                       copy ? &features[i] : nullptr});
    }
    m_.decode_steps(steps);
    for (size_t i = 0; i < requests.size(); ++i) {
      if (copy) static_cast<TransformerStepScorer*>(requests[i]->scorer)->mix(features[i], requests[i]->logprobs);
      else log_softmax_rows(requests[i]->logprobs);
    }
  }

 private:
  // A copy model's decoder input: ids checked against the extended vocabulary, a copy-only one read as unk.
  std::vector<int> fed(const std::vector<int>& tokens) const {
    for (int id : tokens)
      if (id < 0 || id >= vocab_size())
        throw InputError("token id " + std::to_string(id) + " is outside the output vocabulary of " +
                         std::to_string(vocab_size()));
    return decoder_inputs(tokens, static_cast<int>(m_.config().tgt_vocab.size()), m_.config().tgt_specials.unk);
  }
  // vocab_lp_ holds the step's logits: the pointer-generator's log-probabilities into `logprobs`.
  void mix(CopyFeatures& features, RowMatrix& logprobs) {
    log_softmax_rows(vocab_lp_);
    mix_copy(vocab_lp_, features.gate.data(), features.attention, copy_.ids, extra_, logprobs);
    copy_.p_gen.resize(features.gate.size());
    for (size_t i = 0; i < features.gate.size(); ++i) copy_.p_gen[i] = std::exp(log_sigmoid(features.gate[i]));
    copy_.attention = std::move(features.attention);
  }

  const Transformer& m_;
  std::vector<int> source_;
  DecoderCache cache_;
  CopyStep copy_;      // copy models: the last step's mix
  int extra_ = 0;      // copy models: the source's copy-only tokens
  RowMatrix vocab_lp_;  // copy models: the vocabulary's distribution before the mix
};

class TransformerParallelScorer final : public ParallelScorer {
 public:
  TransformerParallelScorer(const Transformer& m, const std::vector<int>& source)
      : m_(m), source_(source), enc_(m.encode({source})) {
    if (m.config().arch != Arch::Cmlm) throw UsageError("non-autoregressive decoding needs a cmlm model");
  }
  int vocab_size() const override { return static_cast<int>(m_.config().tgt_vocab.size()); }
  int source_length() const override { return enc_.lengths[0]; }
  int max_target_length() const override { return m_.config().max_target_len; }

  std::vector<float> length_logprobs() override {
    RowMatrix l = m_.length_logits(enc_);
    log_softmax_rows(l);
    return std::vector<float>(l.data(), l.data() + l.cols());
  }

  void score(const std::vector<std::vector<int>>& drafts, std::vector<RowMatrix>& logprobs,
             std::vector<RowMatrix>* attention, std::vector<HeadMaps>* self_attention) override {
    AttentionMaps cross, self;
    const RowMatrix all = m_.decode_full(enc_, std::vector<int>(drafts.size(), 0), drafts,
                                         self_attention ? &self : nullptr, attention ? &cross : nullptr);
    Eigen::Index T = 0;
    for (const auto& d : drafts) T = std::max<Eigen::Index>(T, static_cast<Eigen::Index>(d.size()));
    logprobs.resize(drafts.size());
    if (attention) attention->resize(drafts.size());
    if (self_attention) self_attention->assign(drafts.size(), HeadMaps{});
    const int S = enc_.lengths[0];
    for (size_t r = 0; r < drafts.size(); ++r) {
      const auto n = static_cast<Eigen::Index>(drafts[r].size());
      logprobs[r] = all.middleRows(static_cast<Eigen::Index>(r) * T, n);
      log_softmax_rows(logprobs[r]);
      if (attention) {
        RowMatrix avg = RowMatrix::Zero(n, S);
        for (int l = 0; l < cross.layers; ++l)
          for (int h = 0; h < cross.heads; ++h) avg += cross.at(static_cast<int>(r), l, h).topLeftCorner(n, S);
        (*attention)[r] = avg / static_cast<float>(cross.layers * cross.heads);
      }
      if (self_attention) {  // the draft's own block of the batch's padded maps
        HeadMaps& mine = (*self_attention)[r];
        mine.layers = self.layers;
        mine.heads = self.heads;
        for (int l = 0; l < self.layers; ++l)
          for (int h = 0; h < self.heads; ++h) mine.maps.push_back(self.at(static_cast<int>(r), l, h).topLeftCorner(n, n));
      }
    }
  }
  HeadMaps encoder_attention() override { return encoder_attention_of(m_, source_); }

 private:
  const Transformer& m_;
  std::vector<int> source_;
  EncoderOutput enc_;
};

}  // namespace

std::unique_ptr<StepScorer> Transformer::step_scorer(const SourceInput& source, int capacity) const {
  return std::make_unique<TransformerStepScorer>(*this, source, encode({source.ids}), 0, capacity);
}

std::vector<std::unique_ptr<StepScorer>> Transformer::step_scorers(const std::vector<SourceInput>& sources,
                                                                   const std::vector<int>& capacities) const {
  std::vector<std::vector<int>> ids;
  for (const SourceInput& s : sources) ids.push_back(s.ids);
  const EncoderOutput enc = encode(ids);  // one pass, padded to the longest
  std::vector<std::unique_ptr<StepScorer>> out;
  for (size_t i = 0; i < sources.size(); ++i)
    out.push_back(std::make_unique<TransformerStepScorer>(*this, sources[i], enc, static_cast<int>(i), capacities[i]));
  return out;
}

std::unique_ptr<ParallelScorer> Transformer::parallel_scorer(const std::vector<int>& source) const {
  return std::make_unique<TransformerParallelScorer>(*this, source);
}

}  // namespace seq2seq
