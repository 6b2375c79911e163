// Guided attention (Tachibana et al. 2017; the notes' 引导注意力): a loss term that
// asks the cross-attention to stay near the diagonal, as a monotonic task (speech,
// pronunciation, copying) aligns. With A(n, t) the weight of source position n at
// decoder position t of an example of N source and T decoder positions (its own,
// padding excluded; n and t count from 0),
//
//   W(n, t) = 1 − exp(−(n/N − t/T)² / (2 g²))
//   P       = (1/B) Σ_examples (1/K) Σ_(layer, head) (1/T) Σ_t Σ_n W(n, t) A(n, t)
//
// over the batch's B examples and the K chosen (layer, head) pairs (the RNN: its
// one attention, K = 1): each decoder position's attention-weighted W, averaged
// over the positions as the cross-entropy is over the target tokens, so P lies in
// [0, 1) whatever the lengths (the paper's mean over all N T pairs is P / N). The
// step minimises cross-entropy + λ P; P is reported apart from the cross-entropy
// (docs/training.md "Guided attention"). The weights are the probabilities before
// attention dropout, as the reference returns them.
#pragma once
#include <cstddef>
#include <vector>

#include "model_config.h"
#include "train/graph.h"

namespace seq2seq {
namespace train {

class TransformerGraph;
class RnnGraph;

// W(n, t) for every decoder position t < T (rows) and source position n < N
// (columns) into w [T x N].
void guided_attention_weights(int T, int N, float width, float* w);

// (1/T) Σ W A over one attention matrix A [T rows x N columns, row stride ld]
// with W from guided_attention_weights(); with dA (same layout), adds coef * W there.
double guided_attention_matrix(const float* A, int T, int N, size_t ld, const float* w, float coef, float* dA);

// The share of A's weight inside the band |n/N - t/T| <= width (the penalty's own
// coordinates), averaged over the T rows: 1 when every row attends within the band
// around the diagonal. What "the attention has become diagonal" is measured by
// (the held-out evaluation's attention_diagonal, run.h).
double diagonal_band_mass(const float* A, int T, int N, size_t ld, float width);

// Which cross-attention is guided, and how hard.
struct GuidedAttention {
  float weight = 0.0f;  // λ
  float width = 0.2f;   // g
  int layer = -1;       // Transformer: a decoder layer, or -1 for all
  int head = -1;        // Transformer: a head, or -1 for all
};

// UsageError unless `cfg` has the weights `ga` guides: the layer and head of a
// Transformer's decoder, an RNN's attention (not none, no layer or head). The
// options' validate() says the same of the options; this holds a model file's
// configuration to them.
void check_guided_attention(const ModelConfig& cfg, const GuidedAttention& ga);

// P over the last forward pass of `g` over `b`. With dprobs (one buffer per
// decoder layer, the layout of g.cross_attention(layer), null for a layer not
// guided), writes λ dP/dA there: 0 where a weight is not guided. w: scratch of
// the longest decoder input times the longest source, in floats.
double transformer_guided_attention(const TransformerGraph& g, const Batch& b, const GuidedAttention& ga,
                                    const std::vector<float*>* dprobs, float* w);

// The same over the RNN's one attention (g.attention(); attention none has none:
// UsageError). dprobs: null, or the layout of g.attention().
double rnn_guided_attention(const RnnGraph& g, const Batch& b, const GuidedAttention& ga, float* dprobs, float* w);

}  // namespace train
}  // namespace seq2seq
