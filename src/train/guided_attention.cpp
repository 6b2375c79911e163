#include "train/guided_attention.h"

#include <algorithm>
#include <cmath>

#include "errors.h"
#include "train/rnn_graph.h"
#include "train/transformer_graph.h"

namespace seq2seq {
namespace train {

namespace {

// How far source position n of N lies from the diagonal at decoder position t of T:
// the coordinates of the penalty and of the band measure alike.
double diagonal_offset(int n, int N, int t, int T) { return static_cast<double>(n) / N - static_cast<double>(t) / T; }

}  // namespace

void guided_attention_weights(int T, int N, float width, float* w) {
  const double two_g2 = 2.0 * static_cast<double>(width) * width;
  for (int t = 0; t < T; ++t)
    for (int n = 0; n < N; ++n) {
      const double d = diagonal_offset(n, N, t, T);
      w[static_cast<size_t>(t) * N + n] = static_cast<float>(1.0 - std::exp(-d * d / two_g2));
    }
}

double diagonal_band_mass(const float* A, int T, int N, size_t ld, float width) {
  if (T <= 0) return 0.0;
  double sum = 0;
  for (int t = 0; t < T; ++t)
    for (int n = 0; n < N; ++n)
      if (std::abs(diagonal_offset(n, N, t, T)) <= width) sum += A[static_cast<size_t>(t) * ld + static_cast<size_t>(n)];
  return sum / T;
}

double guided_attention_matrix(const float* A, int T, int N, size_t ld, const float* w, float coef, float* dA) {
  double sum = 0;
  for (int t = 0; t < T; ++t) {
    const float* a = A + static_cast<size_t>(t) * ld;
    const float* wt = w + static_cast<size_t>(t) * N;
    for (int n = 0; n < N; ++n) sum += static_cast<double>(wt[n]) * a[n];
    if (dA) {
      float* d = dA + static_cast<size_t>(t) * ld;
      for (int n = 0; n < N; ++n) d[n] += coef * wt[n];
    }
  }
  return sum / T;
}

void check_guided_attention(const ModelConfig& cfg, const GuidedAttention& ga) {
  if (cfg.arch == Arch::Rnn) {
    if (cfg.attention == AttentionScore::None)
      throw UsageError("guided attention: an RNN with attention none has no attention weights to guide");
    if (ga.layer != -1 || ga.head != -1) throw UsageError("guided attention: the RNN's attention has no layers or heads to choose (-1)");
    return;
  }
  if (ga.layer >= cfg.dec_layers || ga.head >= cfg.n_heads)
    throw UsageError("guided attention: layer " + std::to_string(ga.layer) + ", head " + std::to_string(ga.head) + " of a model of " +
                     std::to_string(cfg.dec_layers) + " decoder layers and " + std::to_string(cfg.n_heads) + " heads");
}

double transformer_guided_attention(const TransformerGraph& g, const Batch& b, const GuidedAttention& ga,
                                    const std::vector<float*>* dprobs, float* w) {
  const ModelConfig& cfg = g.config();
  check_guided_attention(cfg, ga);
  const int layers = cfg.dec_layers, heads = cfg.n_heads;
  const int l0 = ga.layer < 0 ? 0 : ga.layer, l1 = ga.layer < 0 ? layers : ga.layer + 1;
  const int h0 = ga.head < 0 ? 0 : ga.head, h1 = ga.head < 0 ? heads : ga.head + 1;
  const int chosen = (l1 - l0) * (h1 - h0);
  const std::vector<AttentionSpan>& spans = g.cross_spans();
  if (dprobs && !spans.empty()) {
    const AttentionSpan& last = spans.back();
    const size_t used = last.p0 + static_cast<size_t>(heads) * last.nq * last.nk;
    for (int l = l0; l < l1; ++l) std::fill((*dprobs)[static_cast<size_t>(l)], (*dprobs)[static_cast<size_t>(l)] + used, 0.0f);
  }
  double total = 0;
  for (int e = 0; e < b.size; ++e) {
    const AttentionSpan& s = spans[static_cast<size_t>(e)];
    const int T = s.nq, N = s.nk;
    guided_attention_weights(T, N, ga.width, w);
    // d(λ P)/dA = λ W / (B K T): P averages over examples, chosen pairs and decoder positions.
    const float coef = static_cast<float>(ga.weight / (static_cast<double>(b.size) * chosen * T));
    double example = 0;
    for (int l = l0; l < l1; ++l)
      for (int h = h0; h < h1; ++h) {
        const size_t at = s.p0 + static_cast<size_t>(h) * T * N;
        float* d = dprobs ? (*dprobs)[static_cast<size_t>(l)] + at : nullptr;
        example += guided_attention_matrix(g.cross_attention(l) + at, T, N, static_cast<size_t>(N), w, coef, d);
      }
    total += example / chosen;
  }
  return b.size ? total / b.size : 0.0;
}

double rnn_guided_attention(const RnnGraph& g, const Batch& b, const GuidedAttention& ga, float* dprobs, float* w) {
  check_guided_attention(g.config(), ga);
  const float* A = g.attention();
  const size_t ld = static_cast<size_t>(g.attention_stride());
  if (dprobs) std::fill(dprobs, dprobs + static_cast<size_t>(b.dec_rows()) * ld, 0.0f);
  double total = 0;
  for (int e = 0; e < b.size; ++e) {
    const int T = b.dec_len[static_cast<size_t>(e)], N = b.src_len[static_cast<size_t>(e)];
    const size_t at = static_cast<size_t>(b.dec_off[static_cast<size_t>(e)]) * ld;
    guided_attention_weights(T, N, ga.width, w);
    const float coef = static_cast<float>(ga.weight / (static_cast<double>(b.size) * T));
    total += guided_attention_matrix(A + at, T, N, ld, w, coef, dprobs ? dprobs + at : nullptr);
  }
  return b.size ? total / b.size : 0.0;
}

}  // namespace train
}  // namespace seq2seq
