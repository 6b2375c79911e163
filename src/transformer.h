// The Transformer encoder-decoder (autoregressive, and the CMLM variant with a
// length head): immutable weights plus pure functions over explicit state.
//
//   encode()        sources -> EncoderOutput (memory, and every decoder layer's
//                   cross-attention K/V, computed once per source)
//   decode_full()   whole targets scored in one pass: teacher forcing for the AR
//                   model (causal mask), the NAR pass for the CMLM (no mask)
//   length_logits() the CMLM length head
//   decode_step()   one autoregressive step for n hypotheses of one source, with
//                   a self-attention K/V cache in DecoderCache; reorder_cache()
//                   gathers the cache by parent index for beam search;
//                   decode_steps() steps several sources' caches in one pass.
//   inspect()       one pass with every intermediate kept (transformer_inside.cpp),
//                   for showing it; decoding never calls it.
//
// A copy model (copy.h) also gives, per step, the copy attention (the last decoder
// layer's cross-attention averaged over its heads, as Transformer pointer-generators
// commonly take it: the layer whose attention the output reads last) and the gate's
// logit from [context ; decoder output ; decoder input], the context being the copy
// attention's weighted sum of the encoder output; its scorer mixes them in.
//
// Nothing here decides what to decode: search (ar_search, nar_search) sees this
// model only through the scorer interface (scorer.h).
#pragma once
#include <memory>
#include <vector>

#include "model_config.h"
#include "network.h"
#include "snapshot.h"
#include "safetensors.h"
#include "tensor.h"
#include "weight_loader.h"

namespace seq2seq {

struct EncoderOutput {
  int batch = 0, max_len = 0;     // B sources, padded to S = max_len
  std::vector<int> lengths;       // valid positions of each source
  RowMatrix memory;               // [B*S x d_model], row b*S + t
  std::vector<RowMatrix> cross_kv;  // per decoder layer [B*S x 2*d_model]: keys | values
};

// Attention probabilities of a full pass: one [queries x keys] matrix per
// (batch row, layer, head), padded to the batch's longest; only the leading
// valid rows and columns are meaningful.
struct AttentionMaps {
  int layers = 0, heads = 0;
  std::vector<RowMatrix> maps;
  const RowMatrix& at(int row, int layer, int head) const {
    return maps[static_cast<size_t>((row * layers + layer) * heads + head)];
  }
};

// Attention of one incremental step, per (layer, head) at index layer*heads+head:
// self [n_hyps x steps so far], cross [n_hyps x source length].
struct StepAttention {
  int layers = 0, heads = 0;
  std::vector<RowMatrix> self, cross;
};

// All mutable state of incremental decoding for one source.
struct DecoderCache {
  int n_hyps = 0;
  int capacity = 0;   // most target positions the cache can hold
  int length = 0;     // target positions consumed so far (same for every hypothesis)
  int src_len = 0;
  std::vector<RowMatrix> self_kv;   // per layer [n_hyps*capacity x 2*d_model]: keys | values
  std::vector<RowMatrix> cross_kv;  // per layer [src_len x 2*d_model], shared by all hypotheses
  RowMatrix memory;                 // copy models: the encoder output [src_len x d_model], the copy context's values
  RowMatrix spare;                  // reorder_cache's double buffer
};

// What a copy model's step computes for its mix (copy.h), per hypothesis: the last
// decoder layer's cross-attention averaged over its heads [n_hyps x src_len] (the copy
// attention), and the copy gate's logit, p_gen = sigmoid(gate).
struct CopyFeatures {
  RowMatrix attention;
  std::vector<float> gate;
};

class Transformer final : public Network {
 public:
  // Loads and shape-checks every tensor the config calls for; throws ModelError.
  Transformer(const ModelConfig& config, const SafetensorsFile& file, Compute compute);

  const ModelConfig& config() const { return cfg_; }
  int64_t parameter_count() const override { return n_params_; }
  // The scorer adapters (end of transformer.cpp); this Transformer must outlive them.
  std::unique_ptr<StepScorer> step_scorer(const SourceInput& source, int capacity) const override;
  std::vector<std::unique_ptr<StepScorer>> step_scorers(const std::vector<SourceInput>& sources,
                                                        const std::vector<int>& capacities) const override;
  std::unique_ptr<ParallelScorer> parallel_scorer(const std::vector<int>& source) const override;

  EncoderOutput encode(const std::vector<std::vector<int>>& sources, AttentionMaps* self_attn = nullptr) const;

  // Logits [R*T x Vt] (row r*T + t, T the longest target) for target r read
  // against source src_index[r] of `enc`: the vocabulary's, before a copy model's
  // mix (its step scorer and inspect() mix them; targets hold vocabulary ids only).
  RowMatrix decode_full(const EncoderOutput& enc, const std::vector<int>& src_index,
                        const std::vector<std::vector<int>>& targets, AttentionMaps* self_attn = nullptr,
                        AttentionMaps* cross_attn = nullptr) const;

  // CMLM only: logits [B x max_target_len+1] over target lengths (absolute, also for an
  // offset head; lengths an offset head cannot reach get kLengthUnreachable).
  RowMatrix length_logits(const EncoderOutput& enc) const;

  // Autoregressive models only.
  DecoderCache start_cache(const EncoderOutput& enc, int src_index, int n_hyps, int capacity) const;
  // Feeds tokens[i] to hypothesis i at position cache.length; logits [n_hyps x Vt];
  // a copy model's copy features if asked.
  void decode_step(DecoderCache& cache, const std::vector<int>& tokens, RowMatrix& logits,
                   StepAttention* attn = nullptr, CopyFeatures* copy = nullptr) const;
  // decode_step for several caches (several sources, each at its own position) in
  // one pass: every linear layer is one product over all their hypotheses' rows,
  // attention stays per cache. Each cache's logits are those decode_step gives it
  // alone, bit for bit (the kernels compute each row on its own).
  struct CacheStep {
    DecoderCache* cache;
    const std::vector<int>* tokens;
    RowMatrix* logits;
    StepAttention* attn;
    CopyFeatures* copy = nullptr;  // a copy model's copy features, if asked
  };
  void decode_steps(const std::vector<CacheStep>& steps) const;
  // Hypothesis i of the new cache continues old hypothesis parents[i].
  void reorder_cache(DecoderCache& cache, const std::vector<int>& parents) const;

  // Every intermediate of one pass over `source` with the decoder input `target`
  // (BOS first for an autoregressive model; a draft for a CMLM): snapshot.h, StepInside.
  StepInside inspect(const SourceInput& source, const std::vector<int>& target) const override;
  uint64_t inside_values(int source_length, int target_length, int extra = 0) const override;

 private:
  struct SelfAttentionWeights { Linear qkv, out; };
  struct CrossAttentionWeights { Linear q, kv, out; };
  struct FeedForward { Linear fc1, fc2; };
  struct EncoderLayer { SelfAttentionWeights attn; FeedForward ffn; LayerNormParams ln1, ln2; };
  struct DecoderLayer {
    SelfAttentionWeights self_attn; CrossAttentionWeights cross_attn; FeedForward ffn;
    LayerNormParams ln1, ln2, ln3;
  };

  void embed(const std::vector<const std::vector<int>*>& seqs, int padded_len, const RowMatrix& table,
             const RowMatrix& positions, RowMatrix& x) const;
  void feed_forward(const FeedForward& f, const RowMatrix& x, RowMatrix& y) const;
  // Self-attention of a padded batch ([lengths.size() * padded_len] rows), with a
  // key-padding mask per row and, if causal_offset >= 0, a causal mask.
  void self_attention(const SelfAttentionWeights& w, const RowMatrix& in, int padded_len, const std::vector<int>& lengths,
                      int causal_offset, AttentionMaps* maps, int layer, RowMatrix& out) const;
  // x <- x + f(norm(x)) (pre-LN) or norm(x + f(x)) (post-LN).
  template <typename F> void residual(RowMatrix& x, const LayerNormParams& ln, F&& f) const;
  // The LayerNorm after a pre-LN stack (nothing for post-LN).
  void final_norm(RowMatrix& x, const LayerNormParams& ln) const;
  void output_logits(const RowMatrix& h, RowMatrix& logits) const;
  void check_ids(const std::vector<int>& ids, int vocab, const char* what) const;

  ModelConfig cfg_;
  RowMatrix src_embed_, tgt_embed_, src_pos_, tgt_pos_;
  std::vector<EncoderLayer> enc_;
  std::vector<DecoderLayer> dec_;
  LayerNormParams enc_final_, dec_final_;
  Linear out_proj_;  // packed from tgt_embed.weight when the output is tied
  Linear length_head_;
  Linear copy_gate_;  // copy models: p_gen's logit from [context ; decoder output ; decoder input]
  int64_t n_params_ = 0;
};

}  // namespace seq2seq
