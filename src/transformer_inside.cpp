// Transformer::inspect: one encoder pass and one decoder pass over a single
// source, keeping every intermediate (snapshot.h, StepInside). It uses the same
// weights and the same products, norms and activations as decoding, but computes
// attention in plain Eigen with each stage (raw scores, scaling, mask, softmax)
// kept apart, so the numbers equal a decode's to float rounding. Decoding never
// runs this file: with nothing asked, nothing is kept.
#include <cmath>
#include <limits>

#include "copy.h"
#include "errors.h"
#include "transformer.h"

namespace seq2seq {

namespace {

std::vector<float> flat(const RowMatrix& m) { return std::vector<float>(m.data(), m.data() + m.size()); }

NormInside norm_inside(const RowMatrix& x, const LayerNormParams& ln, float eps, RowMatrix& y) {
  layer_norm(x, ln, eps, y);
  NormInside n;
  n.input = flat(x);
  n.output = flat(y);
  const float inv_n = 1.0f / static_cast<float>(x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {  // as layer_norm computes them
    const float mean = x.row(r).sum() * inv_n;
    const float var = (x.row(r).array() - mean).square().sum() * inv_n;
    n.mean.push_back(mean);
    n.std.push_back(std::sqrt(var + eps));
  }
  return n;
}

// Multi-head attention of the rows of q over the rows of k and v (heads side by
// side in the columns), every stage kept; `causal`: query i sees keys 0..i only.
AttentionInside attention_inside(const RowMatrix& q, const RowMatrix& k, const RowMatrix& v, int heads, bool causal,
                                 RowMatrix& head_outputs) {
  const auto nq = q.rows(), nk = k.rows();
  const int dh = static_cast<int>(q.cols()) / heads;
  AttentionInside a;
  a.queries = static_cast<int>(nq);
  a.keys = static_cast<int>(nk);
  a.q = flat(q);
  a.k = flat(k);
  a.v = flat(v);
  a.scale = 1.0f / std::sqrt(static_cast<float>(dh));
  a.mask.assign(static_cast<size_t>(nq * nk), 0);
  if (causal)
    for (Eigen::Index i = 0; i < nq; ++i)
      for (Eigen::Index j = i + 1; j < nk; ++j) a.mask[static_cast<size_t>(i * nk + j)] = 1;
  head_outputs = RowMatrix::Zero(nq, q.cols());
  for (int h = 0; h < heads; ++h) {
    const RowMatrix scores = q.middleCols(h * dh, dh) * k.middleCols(h * dh, dh).transpose();
    RowMatrix weights = scores * a.scale;
    a.scores.insert(a.scores.end(), scores.data(), scores.data() + scores.size());
    a.scaled.insert(a.scaled.end(), weights.data(), weights.data() + weights.size());
    for (Eigen::Index i = 0; i < nq; ++i) {
      float m = -std::numeric_limits<float>::infinity();
      for (Eigen::Index j = 0; j < nk; ++j)
        if (!a.mask[static_cast<size_t>(i * nk + j)]) m = std::max(m, weights(i, j));
      float sum = 0.0f;
      for (Eigen::Index j = 0; j < nk; ++j) {
        const float e = a.mask[static_cast<size_t>(i * nk + j)] ? 0.0f : std::exp(weights(i, j) - m);
        weights(i, j) = e;
        sum += e;
      }
      weights.row(i) /= sum;
    }
    a.weights.insert(a.weights.end(), weights.data(), weights.data() + weights.size());
    head_outputs.middleCols(h * dh, dh) = weights * v.middleCols(h * dh, dh);
  }
  a.head_outputs = flat(head_outputs);
  return a;
}

}  // namespace

// What inspect() below keeps, array by array, in its order.
uint64_t Transformer::inside_values(int source_length, int target_length, int extra) const {
  const uint64_t S = static_cast<uint64_t>(source_length), T = static_cast<uint64_t>(target_length);
  const uint64_t d = static_cast<uint64_t>(cfg_.d_model), H = static_cast<uint64_t>(cfg_.n_heads);
  const uint64_t ff = static_cast<uint64_t>(cfg_.d_ff), V = cfg_.tgt_vocab.size();
  const bool pre = cfg_.norm == NormPlacement::Pre;
  auto norm = [&](uint64_t n) { return 2 * n * d + 2 * n; };            // input, output; mean, std
  auto sublayer = [&](uint64_t n) { return 4 * n * d + norm(n); };      // input, delta, sum, output; its norm
  auto attention = [&](uint64_t nq, uint64_t nk) {                      // q, k, v, head outputs; mask, scores, scaled, weights
    return 2 * nq * d + 2 * nk * d + nq * nk + 3 * H * nq * nk;
  };
  auto stack = [&](uint64_t n, bool final_norm) { return 3 * n * d + (final_norm ? norm(n) : 0); };  // embeddings, positions, input
  uint64_t total = stack(S, pre && cfg_.enc_layers > 0) + stack(T, pre) + T * V;
  total += static_cast<uint64_t>(enc_.size()) * (2 * sublayer(S) + attention(S, S) + S * ff);
  total += static_cast<uint64_t>(dec_.size()) * (3 * sublayer(T) + attention(T, T) + attention(T, S) + T * ff);
  // a copy model's, per position: the copy attention, its context, p_gen, the mixed distribution
  if (cfg_.copy) total += T * (S + d + 1 + V + static_cast<uint64_t>(extra));
  return total;
}

StepInside Transformer::inspect(const SourceInput& source_input, const std::vector<int>& target_ids) const {
  const std::vector<int>& source = source_input.ids;
  check_ids(source, static_cast<int>(cfg_.src_vocab.size()), "source");
  CopyMap copy;
  std::vector<int> target = target_ids;  // what the decoder embeds: a copy model reads a copy-only token as unk
  if (cfg_.copy) {
    copy = copy_map_for(source_input, cfg_);
    check_ids(target_ids, static_cast<int>(cfg_.tgt_vocab.size() + copy.extra.size()), "target");
    target = decoder_inputs(target_ids, static_cast<int>(cfg_.tgt_vocab.size()), cfg_.tgt_specials.unk);
  }
  check_ids(target, static_cast<int>(cfg_.tgt_vocab.size()), "target");
  const int L = cfg_.d_model, H = cfg_.n_heads;
  const bool pre = cfg_.norm == NormPlacement::Pre;

  StepInside out;
  out.rnn = false;
  out.arch = to_string(cfg_.arch);
  out.source_length = static_cast<int>(source.size());
  out.target = target_ids;
  out.vocab_size = static_cast<int>(cfg_.tgt_vocab.size());
  out.d_model = L;
  out.heads = H;
  out.head_dim = cfg_.head_dim();
  out.ffn_dim = cfg_.d_ff;
  out.norm = to_string(cfg_.norm);
  out.positional_kind = to_string(cfg_.pos);
  out.activation = to_string(cfg_.activation);
  out.causal = cfg_.autoregressive();

  // One residual branch, in the model's order (Transformer::residual).
  auto sublayer = [&](RowMatrix& x, const LayerNormParams& ln, bool is_attention, auto&& branch) {
    SublayerInside s;
    s.input = flat(x);
    s.pre_norm = pre;
    s.is_attention = is_attention;
    RowMatrix normed, delta;
    if (pre) {
      s.norm = norm_inside(x, ln, cfg_.ln_eps, normed);
      branch(normed, delta, s);
      x += delta;
      s.sum = flat(x);
    } else {
      branch(x, delta, s);
      RowMatrix sum = x + delta;
      s.sum = flat(sum);
      s.norm = norm_inside(sum, ln, cfg_.ln_eps, x);
    }
    s.delta = flat(delta);
    s.output = flat(x);
    return s;
  };
  auto self_attention_branch = [&](const SelfAttentionWeights& w, bool causal) {
    return [&w, causal, L, H](const RowMatrix& in, RowMatrix& delta, SublayerInside& s) {
      RowMatrix qkv, ctx;
      linear(in, w.qkv, qkv);
      s.attention = attention_inside(qkv.leftCols(L), qkv.middleCols(L, L), qkv.rightCols(L), H, causal, ctx);
      linear(ctx, w.out, delta);
    };
  };
  auto ffn_branch = [&](const FeedForward& f) {
    return [&f, this](const RowMatrix& in, RowMatrix& delta, SublayerInside& s) {
      RowMatrix hidden;
      linear(in, f.fc1, cfg_.activation, hidden);
      s.ffn_hidden = flat(hidden);
      linear(hidden, f.fc2, delta);
    };
  };
  auto embed_stack = [&](const std::vector<int>& ids, const RowMatrix& table, const RowMatrix& positions, StackInside& st) {
    const float scale = cfg_.scale_embedding ? std::sqrt(static_cast<float>(L)) : 1.0f;
    const auto n = static_cast<Eigen::Index>(ids.size());
    RowMatrix tok(n, L), pos(n, L);
    for (Eigen::Index t = 0; t < n; ++t) {
      tok.row(t) = table.row(ids[static_cast<size_t>(t)]) * scale;
      pos.row(t) = positions.row(t);
    }
    st.length = static_cast<int>(n);
    st.token_embedding = flat(tok);
    st.positional = flat(pos);
    RowMatrix x = tok + pos;
    st.input = flat(x);
    return x;
  };
  auto finish_stack = [&](RowMatrix& x, const LayerNormParams& ln, StackInside& st) {
    st.has_final_norm = pre;
    if (!pre) return;
    RowMatrix normed;
    st.final_norm = norm_inside(x, ln, cfg_.ln_eps, normed);
    x.swap(normed);
  };

  RowMatrix memory = embed_stack(source, src_embed_, src_pos_, out.encoder);
  for (const EncoderLayer& layer : enc_) {
    BlockInside b;
    b.self_attention = sublayer(memory, layer.ln1, true, self_attention_branch(layer.attn, false));
    b.ffn = sublayer(memory, layer.ln2, false, ffn_branch(layer.ffn));
    out.encoder.layers.push_back(std::move(b));
  }
  if (cfg_.enc_layers > 0) finish_stack(memory, enc_final_, out.encoder);

  RowMatrix x = embed_stack(target, tgt_embed_, tgt_pos_, out.decoder);
  const RowMatrix input = x;  // the copy gate reads the decoder's input
  for (const DecoderLayer& layer : dec_) {
    BlockInside b;
    b.has_cross = true;
    b.self_attention = sublayer(x, layer.ln1, true, self_attention_branch(layer.self_attn, out.causal));
    b.cross_attention = sublayer(x, layer.ln2, true, [&](const RowMatrix& in, RowMatrix& delta, SublayerInside& s) {
      RowMatrix q, kv, ctx;
      linear(in, layer.cross_attn.q, q);
      linear(memory, layer.cross_attn.kv, kv);
      s.attention = attention_inside(q, kv.leftCols(L), kv.rightCols(L), H, false, ctx);
      linear(ctx, layer.cross_attn.out, delta);
    });
    b.ffn = sublayer(x, layer.ln3, false, ffn_branch(layer.ffn));
    out.decoder.layers.push_back(std::move(b));
  }
  finish_stack(x, dec_final_, out.decoder);
  RowMatrix logits;
  output_logits(x, logits);
  out.logits = flat(logits);
  out.copy = cfg_.copy;
  if (!cfg_.copy) return out;
  // The pointer-generator's mix (copy.h): the last layer's cross-attention averaged over
  // its heads, the context it reads of the encoder output, the gate, the distribution.
  const auto T = x.rows(), S = memory.rows();
  const std::vector<float>& w = out.decoder.layers.back().cross_attention.attention.weights;  // [heads * T * S]
  RowMatrix a = RowMatrix::Zero(T, S);
  for (int h = 0; h < H; ++h) a += Eigen::Map<const RowMatrix>(w.data() + static_cast<size_t>(h) * T * S, T, S);
  a /= static_cast<float>(H);
  RowMatrix features(T, 3 * L), gate;
  features << a * memory, x, input;
  linear(features, copy_gate_, gate);
  RowMatrix lp = logits, mixed;
  log_softmax_rows(lp);
  mix_copy(lp, gate.data(), a, copy.ids, static_cast<int>(copy.extra.size()), mixed);
  out.copy_ids = copy.ids;
  out.output_vocab_size = static_cast<int>(mixed.cols());
  out.copy_attention = flat(a);
  out.copy_context = flat(features.leftCols(L));
  for (Eigen::Index t = 0; t < T; ++t) out.p_gen.push_back(std::exp(log_sigmoid(gate(t, 0))));
  out.log_probs = flat(mixed);
  return out;
}

}  // namespace seq2seq
