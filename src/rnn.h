// The RNN encoder-decoder of the course notes (docs/model-format.md, "The RNN
// encoder-decoder"): a bidirectional GRU encoder, a GRU decoder, and one of four
// attention scores — dot sᵀh, multiplicative sᵀWh, reduced rank (Us)ᵀ(Vh),
// additive vᵀtanh(W1 h + W2 s) — whose output [a; s] feeds the output layer. With
// attention "none", a is the fixed context vector c = [h→_last; h←_first] at every
// step: the notes' encoder-decoder without attention, whose one vector is the bottleneck.
// A copy model (copy.h) copies through its attention, and its gate reads
// [a_t ; s_t ; the input's embedding].
#pragma once
#include <vector>

#include "model_config.h"
#include "network.h"
#include "safetensors.h"
#include "tensor.h"
#include "weight_loader.h"

namespace seq2seq {

// Per-source state: what the encoder computed once, and the decoder state of
// every hypothesis.
struct RnnState {
  RowMatrix values;   // [S x 2H] encoder states h_j
  RowMatrix keys;     // [S x K] what the score compares against (see rnn.cpp); attention none: [1 x 2H] c
  RowMatrix dec;      // [n_hyps x D] decoder state s of each hypothesis
  int steps = 0;      // tokens fed so far
};

class Rnn final : public Network {
 public:
  Rnn(const ModelConfig& config, const SafetensorsFile& file, Compute compute);

  const ModelConfig& config() const { return cfg_; }
  int64_t parameter_count() const override { return n_params_; }
  std::unique_ptr<StepScorer> step_scorer(const SourceInput& source, int capacity) const override;
  std::unique_ptr<ParallelScorer> parallel_scorer(const std::vector<int>& source) const override;

  // Encodes one source; the state starts with one hypothesis at s_0.
  RnnState encode(const std::vector<int>& source) const;
  // Feeds tokens[i] to hypothesis i: logits [n x Vt], attention [n x S] if asked
  // (left empty by attention none); a copy model's copy gate logits [n] if asked
  // (copy.h: the copy attention is `attention`).
  void step(RnnState& state, const std::vector<int>& tokens, RowMatrix& logits, RowMatrix* attention,
            std::vector<float>* copy_gate = nullptr) const;
  void reorder(RnnState& state, const std::vector<int>& parents) const;
  // Every intermediate of one pass (rnn_inside.cpp): states, scores, weights, contexts.
  StepInside inspect(const SourceInput& source, const std::vector<int>& target) const override;
  uint64_t inside_values(int source_length, int target_length, int extra = 0) const override;

 private:
  struct Gru { Linear ih, hh; };  // gates r, z, n stacked as PyTorch stores them
  struct BiLayer { Gru fwd, bwd; };

  // One GRU update for every row: h <- GRU(x_proj, h), with x_proj = x W_ihᵀ + b_ih precomputed.
  static void gru_update(const Gru& g, const Eigen::Ref<const RowMatrix>& x_proj, RowMatrix& h);
  // What each hypothesis reads of the source: the raw scores e (if asked), their
  // softmax, and (if asked) the context a = weights · h. Attention none: no scores, a = c.
  void read_source(const RnnState& st, RowMatrix* raw, RowMatrix& weights, RowMatrix* context) const;

  ModelConfig cfg_;
  RowMatrix src_embed_, tgt_embed_;
  std::vector<BiLayer> enc_;
  Linear bridge_;
  Gru dec_;
  Linear attn_w_, attn_u_, attn_v_, attn_w1_, attn_w2_;  // whichever the score uses (no bias)
  RowVector attn_vec_;                                       // additive v
  Linear out_;
  Linear copy_gate_;  // copy models: p_gen's logit from [a_t ; s_t ; the input's embedding]
  int64_t n_params_ = 0;
};

}  // namespace seq2seq
