// The RNN encoder-decoder of docs/model-format.md ("arch": "rnn") as a training
// graph: its parameters declared in a ParamStore under the format's names, a
// forward pass over a packed batch that keeps what the backward pass reads, and
// the backward pass through time (BPTT), written by hand. The same computation as
// models/train/seq2seq_torch.py's RnnSeq2Seq: a bidirectional GRU encoder (each
// direction over the example's own positions, as the reference's packed
// sequences), the bridge s_0 = tanh(bridge([h→_last ; h←_first])), the GRU
// decoder cell, one of the four attention scores or `none` (the fixed context
// vector c at every step), the output layer on [a_t ; s_t], dropout where the
// reference has it (the embeddings, between encoder layers, [a_t ; s_t]).
//
// A recurrence runs one time step at a time over the examples still running: the
// examples are ordered by length, longest first (as PyTorch packs them), so at
// step t the running ones are the first n_t, and a step's rows are one contiguous
// block of the step-major buffers ("slots": step t's rows start at the sum of the
// n_t' before it). What is not recurrent (the input projections, the output layer's
// weight gradient) runs over all rows in one product.
//
// The decoder reads its inputs token by token, so scheduled sampling (its own
// previous token instead of the true one, scheduled_sampling.h) is decided inside
// the forward pass, from the logits of the step before.
//
// Every buffer is sized when the graph is built, from the largest batch and the
// longest source and decoder input it will see; a pass allocates nothing.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "model_config.h"
#include "random.h"
#include "train/param_store.h"
#include "train/scheduled_sampling.h"
#include "train/graph.h"  // Batch, GraphLimits, DropoutRates

namespace seq2seq {
namespace train {

class RnnGraph {
 public:
  // Declares the parameters of `cfg` (arch rnn) in `store`, which must not be
  // allocated yet; sizes every buffer for `limits`. With plan_only, nothing is
  // allocated: the graph only counts what it would hold (activation_floats(), and
  // the parameters in `store`), for a memory bound checked before anything is.
  RnnGraph(const ModelConfig& cfg, const GraphLimits& limits, const DropoutRates& rates, ParamStore& store,
           bool plan_only = false);

  // After store.allocate(): the reference's initialisation (PyTorch's defaults:
  // embeddings N(0, 1); GRU weights and biases U(-1/sqrt(hidden), 1/sqrt(hidden));
  // every Linear's weight and bias U(-1/sqrt(in), 1/sqrt(in))), drawn from `rng`.
  void init_parameters(Random& rng);

  // The forward pass over `b` (within the limits): logits for every decoder row,
  // [b.dec_rows() x Vt] in the batch's row order. With `rng`, dropout masks are
  // drawn from it at the construction's rates; without, no dropout. With
  // `sampling` (drawn for b's decoder rows), each decoder row after the first reads
  // the true token b.dec_in[row] when its coin says so, else the model's own token
  // from the previous row's logits; without, teacher forcing.
  void forward(const Batch& b, Random* rng, const SamplingDraws* sampling = nullptr);
  const float* logits() const { return logits_; }
  // Where the caller writes d loss / d logits before backward(), the logits' layout.
  float* dlogits() { return dlogits_; }
  // The token each decoder row read in the last pass (b.dec_in's, where it read the true one).
  const int* inputs() const { return fed_.data(); }

  // A copy model's gate (train/copy_mix.h) reads [a_t ; s_t ; x_t], as the reference's
  // CopyGate: the context and the state before the output layer's dropout, the input's
  // embedding as the cell read it (after its dropout). The last pass's, in the batch's
  // row order: gate_context() [rows x 2H], gate_state() [rows x D], gate_input() [rows
  // x E]; null for a model without the copy mechanism.
  const float* gate_context() const { return gate_ctx_; }
  const float* gate_state() const { return gate_s_; }
  const float* gate_input() const { return gate_x_; }
  // Gradients with respect to those three, in their layouts, from the copy loss.
  struct GateGrads {
    const float *d_context = nullptr, *d_state = nullptr, *d_input = nullptr;
  };
  // A copy model's gate (copy_gate.weight [1 x 2H + D + E], copy_gate.bias [1]): their store indices.
  int copy_gate_weight() const { return copy_gate_.w; }
  int copy_gate_bias() const { return copy_gate_.b; }

  // The backward pass of the last forward(): adds every parameter's gradient to the
  // store's gradient buffer. extra_dprobs: null, or a gradient with respect to the
  // attention weights (the layout of attention()), added where they enter the loss
  // (the copy attention's); gate: null, or the gradients the copy gate sends back to
  // what it read, added where each was computed.
  void backward(const Batch& b, const float* extra_dprobs = nullptr, const GateGrads* gate = nullptr);

  // The attention weights of the last pass: decoder row r's weights over its
  // example's source positions start at attention() + r * attention_stride()
  // (attention none: no weights, null).
  const float* attention() const { return cfg_.attention == AttentionScore::None ? nullptr : probs_; }
  int attention_stride() const { return lim_.src_len; }

  // The encoder alone (a layer of its own in the parity tests): the memory h_j =
  // [h→_j ; h←_j] of every source row, [b.src_rows() x 2H] in the batch's order,
  // and its backward pass from a gradient of that layout.
  void encoder_forward(const Batch& b, Random* rng);
  const float* memory() const { return memory_; }
  void encoder_backward(const Batch& b, const float* dmemory);

  // Floats held for activations, their gradients and scratch (for the memory bound).
  size_t activation_floats() const { return arena_floats_; }
  const ModelConfig& config() const { return cfg_; }

 private:
  struct LinearIdx { int w = -1, b = -1; };
  struct GruIdx { int w_ih = -1, w_hh = -1, b_ih = -1, b_hh = -1; };
  // One direction of one encoder layer: what its backward pass reads.
  struct EncDir {
    GruIdx p;
    float *xp = nullptr, *gates = nullptr, *gh = nullptr, *hprev = nullptr;
  };
  struct EncLayer {
    EncDir dir[2];
    float *in = nullptr;    // the layer's input after dropout (layer 0: the embeddings)
    float *out = nullptr;   // [h→ ; h←] of every source row
    float *mask = nullptr;  // the dropout mask of `in`
  };

  const float* W(int i) const { return store_.value(i); }
  float* G(int i) { return store_.grad(i); }
  GruIdx declare_gru(const std::string& w_ih, const std::string& w_hh, const std::string& b_ih, const std::string& b_hh,
                     int in, int hidden);
  void check_batch(const Batch& b) const;
  void order_by_length(const std::vector<int>& len, int size, std::vector<int>& order, std::vector<int>& step_off,
                       std::vector<int>& running) const;
  void draw_masks(const Batch& b, Random* rng);
  void decoder_forward(const Batch& b, const SamplingDraws* sampling);
  void decoder_backward(const Batch& b, const float* extra_dprobs, const GateGrads* gate);

  ModelConfig cfg_;
  GraphLimits lim_;
  DropoutRates rates_;
  ParamStore& store_;
  int E_, H_, D_, K_, Vs_, Vt_, M_, F_;  // K: the keys' width; M = 2H; F = 2H + D, the output layer's input

  int src_emb_ = -1, tgt_emb_ = -1;
  std::vector<EncLayer> enc_;
  LinearIdx bridge_, out_, copy_gate_;
  GruIdx dec_;
  int attn_w_ = -1, attn_u_ = -1, attn_v_ = -1, attn_w1_ = -1, attn_w2_ = -1, attn_vec_ = -1;

  std::vector<float> arena_;
  size_t arena_floats_ = 0;
  // Encoder and bridge.
  float *memory_ = nullptr, *keys_ = nullptr, *ctx0_ = nullptr, *s0_ = nullptr;
  // Decoder, step-major ("slots").
  float *x_ = nullptr, *dec_gates_ = nullptr, *dec_gh_ = nullptr, *sprev_ = nullptr, *s_ = nullptr, *q_ = nullptr,
        *feat_ = nullptr, *slot_logits_ = nullptr;
  // Decoder, in the batch's row order.
  float *probs_ = nullptr, *act_ = nullptr, *logits_ = nullptr, *dlogits_ = nullptr, *tgt_mask_ = nullptr,
        *feat_mask_ = nullptr, *gate_ctx_ = nullptr, *gate_s_ = nullptr, *gate_x_ = nullptr;
  // Backward and scratch.
  float *d_slot_logits_ = nullptr, *d_feat_ = nullptr, *d_s_ = nullptr, *d_q_ = nullptr, *d_xp_ = nullptr,
        *d_gh_ = nullptr, *d_x_ = nullptr, *d_state_ = nullptr, *d_keys_ = nullptr, *d_memory_ = nullptr,
        *d_ctx0_ = nullptr, *d_in_ = nullptr, *d_out_ = nullptr, *d_pre_ = nullptr, *state_ = nullptr, *xp_step_ = nullptr,
        *gemm_ = nullptr, *attn_scratch_ = nullptr;
  bool masks_on_ = false;

  std::vector<int> enc_order_, enc_off_, enc_run_;  // examples by source length; slots of step t; n_t
  std::vector<int> dec_order_, dec_off_, dec_run_;  // examples by decoder length
  std::vector<int> fed_;                            // the token each decoder row read
  std::vector<int> slot_row_;                       // decoder slot -> batch row
  std::vector<int> slot_token_;                     // decoder slot -> the token it read
};

}  // namespace train
}  // namespace seq2seq
