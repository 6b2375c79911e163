// The Transformer encoder-decoder of docs/model-format.md as a training graph:
// its parameters declared in a ParamStore under the format's names, a forward
// pass over a packed batch that keeps every activation the backward pass reads,
// and the backward pass, layer by layer in reverse (layers.h). The same
// computation as models/train/seq2seq_torch.py's Seq2SeqTransformer ("arch":
// "transformer"): token embeddings (tied to the output or not, scaled or not),
// sinusoidal or learned positions, pre-LN or post-LN Add & Norm, encoder
// self-attention, masked decoder self-attention and cross-attention with
// 1/sqrt(d/h), the ReLU or GELU FFN, dropout where the reference has it.
//
// Every buffer is sized when the graph is built, from the largest batch and the
// longest source and decoder input it will see; a pass allocates nothing.
#pragma once
#include <cstddef>
#include <vector>

#include "model_config.h"
#include "random.h"
#include "train/graph.h"
#include "train/layers.h"
#include "train/param_store.h"

namespace seq2seq {
namespace train {

class TransformerGraph {
 public:
  // Declares the parameters of `cfg` (arch transformer) in `store`, which must not
  // be allocated yet. The dropout rates fix which masks get buffers. With
  // plan_only, nothing is allocated: the graph only counts what it would hold
  // (activation_floats(), and the parameters in `store`), for a memory bound
  // checked before anything is allocated.
  TransformerGraph(const ModelConfig& cfg, const GraphLimits& limits, const DropoutRates& rates, ParamStore& store,
                   bool plan_only = false);

  // After store.allocate(): the initialisation of the reference (embeddings
  // N(0, 1/d_model), learned positions N(0, 0.02^2), projections Xavier-uniform,
  // biases 0, LayerNorm gain 1 and bias 0), drawn from `rng`.
  void init_parameters(Random& rng);

  // The forward pass over `b` (within the limits): logits for every decoder row,
  // [b.dec_rows() x Vt]. With `rng`, dropout masks are drawn from it at the
  // construction's rates; without, no dropout.
  void forward(const Batch& b, Random* rng);
  // Scheduled sampling's second pass (the two-pass form, scheduled_sampling.h): the
  // decoder once more over the same batch, reading `dec_inputs` (row for row of
  // b's decoder rows) instead of b.dec_in, with the encoder's output and every
  // dropout mask of the last forward(b, ...), whose decoder activations and logits
  // it replaces; backward() then follows this pass. The encoder does not run again:
  // it reads no decoder input, so its output (and its masks) are the same.
  void decode_again(const Batch& b, const int* dec_inputs);
  const float* logits() const { return logits_.data(); }
  // The token each decoder row read in the last pass (b.dec_in, or decode_again's).
  const int* inputs() const { return fed_.data(); }
  // Where the caller writes d loss / d logits before backward(), the logits' layout.
  float* dlogits() { return dlogits_.data(); }

  // Gradients a copy model's mix (train/copy_mix.h) sends back into the graph, each
  // in the layout of the activation it is with respect to: the decoder's output
  // (decoder_output()), its input (decoder_input()) and the encoder's output (memory()).
  struct ExtraGrads {
    const float* d_output = nullptr;
    const float* d_input = nullptr;
    const float* d_memory = nullptr;
  };

  // The backward pass of the last forward(): adds every parameter's gradient to
  // the store's gradient buffer. extra_cross_dprobs: per decoder layer, null or
  // a gradient with respect to its cross-attention probabilities (the layout of
  // cross_attention()), added where they enter the loss (guided attention; the copy
  // attention's, on the last layer). extra: gradients on the activations, added
  // where they enter the loss (the copy gate's).
  void backward(const Batch& b, const std::vector<const float*>* extra_cross_dprobs = nullptr,
                const ExtraGrads* extra = nullptr);

  // What a copy model's mix reads of the last pass, row for row of the batch:
  // the encoder's output [src rows x L] (after the final LayerNorm for pre-LN), the
  // decoder's output [dec rows x L] (what the output projection reads) and its input
  // [dec rows x L] (the first layer's: the scaled embedding plus position, after dropout).
  const float* memory() const { return memory_; }
  const float* decoder_output() const;
  const float* decoder_input() const { return tgt_emb_.x; }
  // A copy model's gate (copy_gate.weight [1 x 3L], copy_gate.bias [1]): their store indices.
  int copy_gate_weight() const { return copy_gate_.w; }
  int copy_gate_bias() const { return copy_gate_.b; }

  // The cross-attention probabilities of decoder layer `layer` in the last pass:
  // example b's [heads][dec_len[b]][src_len[b]] at cross_spans()[b].p0.
  const float* cross_attention(int layer) const { return dec_[static_cast<size_t>(layer)].cross.probs; }
  const std::vector<AttentionSpan>& cross_spans() const { return cross_spans_; }

  // Floats held for activations, their gradients and scratch (for the memory bound;
  // the decoder's input ids, as many 4-byte ints as it has rows, counted with them).
  size_t activation_floats() const { return arena_floats_ + logits_floats_ * 2 + input_ids_; }
  const ModelConfig& config() const { return cfg_; }

 private:
  struct Norm { int gain = -1, bias = -1; };
  struct LinearIdx { int w = -1, b = -1; };
  // A sublayer with its Add & Norm: pre-LN  out = x + drop(f(LN(x)));
  // post-LN out = LN(x + drop(f(x))). Kept: the norm's output and statistics, the
  // sum, the dropout mask.
  struct Sub {
    Norm ln;
    float *ln_y = nullptr, *mean = nullptr, *rstd = nullptr, *sum = nullptr, *mask = nullptr;
  };
  struct Attn {
    LinearIdx q, kv, qkv, o;  // self-attention: qkv; cross-attention: q and kv
    float *qkv_out = nullptr, *kv_out = nullptr, *probs = nullptr, *drop = nullptr, *ctx = nullptr;
  };
  struct Ffn {
    LinearIdx fc1, fc2;
    float *f1 = nullptr, *g = nullptr;
  };
  struct EncLayer { Sub s1, s2; Attn self; Ffn ffn; };
  struct DecLayer { Sub s1, s2, s3; Attn self, cross; Ffn ffn; };
  struct Embed {
    int table = -1, pos = -1;  // pos: learned positions' tensor, -1 sinusoidal
    float *x = nullptr, *mask = nullptr;
  };

  const float* W(int i) const { return store_.value(i); }
  float* G(int i) { return store_.grad(i); }
  LinearIdx declare_linear(const std::string& prefix, int out, int in);
  Norm declare_norm(const std::string& prefix);

  // The generic sublayer: f(in, y) computes the sublayer's function into y;
  // f_back(dy, din) adds its input gradient to din.
  // The sublayer functions apply dropout when the pass has it on (masks_on_,
  // attn_masks_on_): masks drawn from `rng` when given, else the ones in place.
  template <typename F> const float* sub_forward(Sub& s, const float* x, int rows, F&& f, Random* rng);
  template <typename B> void sub_backward(Sub& s, const float* x, const float* dout, float* dx, int rows, B&& f_back);
  void attn_forward(Attn& a, const float* in, const float* memory, int rows, int mem_rows, bool self, bool causal,
                    const std::vector<AttentionSpan>& spans, float* y, Random* rng);
  void attn_backward(Attn& a, const float* in, const float* memory, int rows, int mem_rows, bool self, bool causal,
                     const std::vector<AttentionSpan>& spans, const float* dy, float* din, float* dmemory,
                     const float* extra_dprobs);
  void ffn_forward(Ffn& f, const float* in, int rows, float* y);
  void ffn_backward(Ffn& f, const float* in, int rows, const float* dy, float* din);
  void spans_for(const Batch& b);
  // The decoder's forward pass over fed_, the encoder's output memory_; draws its
  // dropout masks from `draw` when given, else applies the last pass's.
  void decoder_forward(const Batch& b, Random* draw);

  ModelConfig cfg_;
  GraphLimits lim_;
  DropoutRates rates_;
  ParamStore& store_;
  int L_, H_, F_, Vs_, Vt_;
  float emb_scale_;
  bool pre_;

  Embed src_emb_, tgt_emb_;
  std::vector<EncLayer> enc_;
  std::vector<DecLayer> dec_;
  Norm enc_final_, dec_final_;
  float *enc_final_y_ = nullptr, *enc_final_mean_ = nullptr, *enc_final_rstd_ = nullptr;
  float *dec_final_y_ = nullptr, *dec_final_mean_ = nullptr, *dec_final_rstd_ = nullptr;
  LinearIdx out_;  // w: out_proj.weight, or tgt_embed.weight when tied
  LinearIdx copy_gate_;  // a copy model's gate over [context ; decoder output ; decoder input]
  std::vector<float> sin_table_;

  std::vector<float> arena_;
  size_t arena_floats_ = 0, logits_floats_ = 0, input_ids_ = 0;
  std::vector<float> logits_, dlogits_;
  // Scratch of a pass: a sublayer's output before dropout, the backward pass's
  // stream gradients and temporaries, the products' packing, attention's dS.
  float *y_tmp_ = nullptr, *d_a_ = nullptr, *d_b_ = nullptr, *d_sum_ = nullptr, *d_n_ = nullptr, *d_ctx_ = nullptr;
  float *d_big1_ = nullptr, *d_big2_ = nullptr, *d_mem_ = nullptr, *d_kv_ = nullptr, *gemm_ = nullptr, *attn_scratch_ = nullptr;
  const float* memory_ = nullptr;  // the encoder's output of the last pass
  bool masks_on_ = false, attn_masks_on_ = false;  // the last pass applied dropout masks
  int last_src_rows_ = -1, last_dec_rows_ = -1;    // the batch of the last forward()

  std::vector<AttentionSpan> enc_spans_, dec_spans_, cross_spans_;
  std::vector<int> src_pos_, dec_pos_;
  std::vector<int> fed_;  // the decoder's inputs of the last pass, row for row
};

}  // namespace train
}  // namespace seq2seq
