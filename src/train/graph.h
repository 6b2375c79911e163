// What a model family gives the trainer: the forward pass over a packed batch,
// keeping what the backward pass reads, the logits, and the backward pass into
// the parameter store's gradients. The Transformer's is TransformerGraph
// (transformer_graph.h); another family (the GRU encoder-decoder) is another
// implementation of the same interface, and the trainer, the loss, the
// optimizer, the tasks, export and checkpoints serve it unchanged.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "model_config.h"
#include "random.h"
#include "train/layers.h"
#include "train/param_store.h"

namespace seq2seq {
namespace train {

// A batch, packed: example b's source tokens are rows [src_off[b], src_off[b] +
// src_len[b]) of `src`; its decoder inputs (BOS, then the target's tokens) are rows
// [dec_off[b], dec_off[b] + dec_len[b]) of `dec_in`, and `target` holds, row for
// row, the token each decoder position must predict (the target's tokens, then
// EOS). Decoder inputs and targets are apart so that a step may feed the decoder
// other tokens than the reference's (scheduled sampling mixes in the model's own).
struct Batch {
  int size = 0;
  std::vector<int> src, src_off, src_len;
  std::vector<int> dec_in, target, dec_off, dec_len;

  // Empties it, keeping the capacity (a step allocates nothing).
  void clear();
  // Appends one example; its decoder inputs and targets must be as long.
  void add(const std::vector<int>& source, const std::vector<int>& decoder_input, const std::vector<int>& targets);
  int src_rows() const { return static_cast<int>(src.size()); }
  int dec_rows() const { return static_cast<int>(dec_in.size()); }
};

// The most a pass will hold: examples, and the longest source and decoder input.
struct GraphLimits {
  int batch = 1, src_len = 1, dec_len = 1;
};

struct DropoutRates {
  float dropout = 0.0f, attention = 0.0f;
};

class TrainGraph {
 public:
  virtual ~TrainGraph() = default;
  // After the store is allocated: the family's initialisation, drawn from `rng`.
  virtual void init_parameters(Random& rng) = 0;
  // The forward pass over `b`: logits for every decoder row, [b.dec_rows() x Vt].
  // With `rng`, dropout masks are drawn from it; without, no dropout.
  virtual void forward(const Batch& b, Random* rng) = 0;
  virtual const float* logits() const = 0;
  // Where the caller writes d loss / d logits before backward(), the logits' layout.
  virtual float* dlogits() = 0;
  // The backward pass of the last forward(): adds every parameter's gradient to
  // the store's. extra_cross_dprobs: per cross-attention layer, null or a gradient
  // with respect to its probabilities (the layout of cross_attention()), added
  // where they enter the loss (guided attention).
  virtual void backward(const Batch& b, const std::vector<const float*>* extra_cross_dprobs = nullptr) = 0;
  // The cross-attention of the last pass: layers, heads, and layer l's
  // probabilities, example b's [heads][dec_len[b]][src_len[b]] at cross_spans()[b].p0.
  virtual int cross_attention_layers() const = 0;
  virtual int cross_attention_heads() const = 0;
  virtual const float* cross_attention(int layer) const = 0;
  virtual const std::vector<AttentionSpan>& cross_spans() const = 0;
  // Floats held for activations, their gradients and scratch (for the memory bound).
  virtual size_t activation_floats() const = 0;
};

// The graph of `config`'s family, its parameters declared in `store` (not yet
// allocated); with plan_only it allocates nothing and only counts (the memory
// bound). Throws UsageError for a family without one.
std::unique_ptr<TrainGraph> make_graph(const ModelConfig& config, const GraphLimits& limits, const DropoutRates& rates,
                                       ParamStore& store, bool plan_only = false);

}  // namespace train
}  // namespace seq2seq
