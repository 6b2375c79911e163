#include "train/rnn_layers.h"

#include <cmath>
#include <cstddef>

namespace seq2seq {
namespace train {

namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void gru_forward(const float* xp, int ldxp, const float* gh, const float* h, int rows, int H, float* gates, float* h_new) {
  for (int row = 0; row < rows; ++row) {
    const float* x = xp + static_cast<size_t>(row) * ldxp;
    const float* g = gh + static_cast<size_t>(row) * 3 * H;
    const float* hp = h + static_cast<size_t>(row) * H;
    float* gt = gates + static_cast<size_t>(row) * 3 * H;
    float* out = h_new + static_cast<size_t>(row) * H;
    for (int i = 0; i < H; ++i) {
      const float r = sigmoid(x[i] + g[i]);
      const float z = sigmoid(x[H + i] + g[H + i]);
      const float n = std::tanh(x[2 * H + i] + r * g[2 * H + i]);
      gt[i] = r;
      gt[H + i] = z;
      gt[2 * H + i] = n;
      out[i] = (1.0f - z) * n + z * hp[i];
    }
  }
}

void gru_backward(const float* dh_new, const float* gates, const float* gh, const float* h, int rows, int H, float* dxp,
                  int lddxp, float* dgh, float* dh) {
  for (int row = 0; row < rows; ++row) {
    const float* d = dh_new + static_cast<size_t>(row) * H;
    const float* gt = gates + static_cast<size_t>(row) * 3 * H;
    const float* g = gh + static_cast<size_t>(row) * 3 * H;
    const float* hp = h + static_cast<size_t>(row) * H;
    float* dx = dxp + static_cast<size_t>(row) * lddxp;
    float* dg = dgh + static_cast<size_t>(row) * 3 * H;
    float* dhp = dh + static_cast<size_t>(row) * H;
    for (int i = 0; i < H; ++i) {
      const float r = gt[i], z = gt[H + i], n = gt[2 * H + i], dout = d[i];
      // h' = (1 - z) n + z h
      const float dn = dout * (1.0f - z);
      const float dz = dout * (hp[i] - n);
      // n = tanh(xp_n + r gh_n)
      const float dan = dn * (1.0f - n * n);
      const float dr = dan * g[2 * H + i];
      const float dar = dr * r * (1.0f - r);
      const float daz = dz * z * (1.0f - z);
      dx[i] = dar;
      dx[H + i] = daz;
      dx[2 * H + i] = dan;
      dg[i] = dar;
      dg[H + i] = daz;
      dg[2 * H + i] = dan * r;
      dhp[i] = dout * z;
    }
  }
}

void rnn_attention_forward(AttentionScore score, int S, int K, const float* keys, const float* q, const float* v,
                       const float* memory, int M, float* act, float* probs, float* ctx) {
  float top = -INFINITY;
  for (int j = 0; j < S; ++j) {
    const float* k = keys + static_cast<size_t>(j) * K;
    float e = 0.0f;
    if (score == AttentionScore::Additive) {
      float* a = act + static_cast<size_t>(j) * K;
      for (int c = 0; c < K; ++c) {
        a[c] = std::tanh(k[c] + q[c]);
        e += v[c] * a[c];
      }
    } else {
      for (int c = 0; c < K; ++c) e += k[c] * q[c];
    }
    probs[j] = e;
    top = e > top ? e : top;
  }
  double sum = 0;
  for (int j = 0; j < S; ++j) {
    probs[j] = std::exp(probs[j] - top);
    sum += probs[j];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int j = 0; j < S; ++j) probs[j] *= inv;
  for (int c = 0; c < M; ++c) ctx[c] = 0.0f;
  for (int j = 0; j < S; ++j) {
    const float* m = memory + static_cast<size_t>(j) * M;
    for (int c = 0; c < M; ++c) ctx[c] += probs[j] * m[c];
  }
}

void rnn_attention_backward(AttentionScore score, int S, int K, const float* keys, const float* q, const float* v,
                        const float* memory, int M, const float* act, const float* probs, const float* dctx,
                        const float* extra_dprobs, float* dq, float* dkeys, float* dmemory, float* dv, float* scratch) {
  // ctx = Σ α_j m_j: dα_j = dctx · m_j, dm_j += α_j dctx.
  float* de = scratch;
  double weighted = 0;
  for (int j = 0; j < S; ++j) {
    const float* m = memory + static_cast<size_t>(j) * M;
    float* dm = dmemory + static_cast<size_t>(j) * M;
    float da = extra_dprobs ? extra_dprobs[j] : 0.0f;
    for (int c = 0; c < M; ++c) {
      da += dctx[c] * m[c];
      dm[c] += probs[j] * dctx[c];
    }
    de[j] = da;
    weighted += static_cast<double>(probs[j]) * da;
  }
  // Softmax: de_j = α_j (dα_j - Σ_i α_i dα_i).
  const float mean = static_cast<float>(weighted);
  for (int j = 0; j < S; ++j) de[j] = probs[j] * (de[j] - mean);
  for (int c = 0; c < K; ++c) dq[c] = 0.0f;
  for (int j = 0; j < S; ++j) {
    const float* k = keys + static_cast<size_t>(j) * K;
    float* dk = dkeys + static_cast<size_t>(j) * K;
    if (score == AttentionScore::Additive) {
      // e_j = vᵀ tanh(k_j + q): dv += de_j a_j; d(k_j + q) = de_j v ⊙ (1 - a_j²).
      const float* a = act + static_cast<size_t>(j) * K;
      for (int c = 0; c < K; ++c) {
        dv[c] += de[j] * a[c];
        const float dpre = de[j] * v[c] * (1.0f - a[c] * a[c]);
        dk[c] += dpre;
        dq[c] += dpre;
      }
    } else {  // e_j = k_jᵀ q
      for (int c = 0; c < K; ++c) {
        dk[c] += de[j] * q[c];
        dq[c] += de[j] * k[c];
      }
    }
  }
}

}  // namespace train
}  // namespace seq2seq
