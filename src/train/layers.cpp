#include "train/layers.h"

#include <cmath>

#include "train/gemm_kernel.h"
#include "train/train_math.h"

namespace seq2seq {
namespace train {

void linear_forward(const float* x, int rows, int in, const float* w, const float* b, int out, float* y, float* scratch) {
  GemmArgs g;
  g.m = rows; g.n = out; g.k = in;
  g.a = x; g.lda = in;
  g.b = w; g.ldb = in; g.trans_b = true;
  g.c = y; g.ldc = out;
  g.scratch = scratch;
  gemm(g);
  if (b == nullptr) return;
  for (int r = 0; r < rows; ++r) {
    float* yr = y + static_cast<size_t>(r) * out;
    for (int o = 0; o < out; ++o) yr[o] += b[o];
  }
}

void linear_backward(const float* x, const float* dy, int rows, int in, int out, const float* w, float* dx, float* dw,
                     float* db, float* scratch) {
  if (dx != nullptr) {  // dx [rows x in] += dy [rows x out] W [out x in]
    GemmArgs g;
    g.m = rows; g.n = in; g.k = out;
    g.a = dy; g.lda = out;
    g.b = w; g.ldb = in;
    g.c = dx; g.ldc = in; g.accumulate = true;
    g.scratch = scratch;
    gemm(g);
  }
  {  // dW [out x in] += dyᵀ [out x rows] x [rows x in]
    GemmArgs g;
    g.m = out; g.n = in; g.k = rows;
    g.a = dy; g.lda = out; g.trans_a = true;
    g.b = x; g.ldb = in;
    g.c = dw; g.ldc = in; g.accumulate = true;
    g.scratch = scratch;
    gemm(g);
  }
  if (db != nullptr)
    for (int r = 0; r < rows; ++r) {
      const float* d = dy + static_cast<size_t>(r) * out;
      for (int o = 0; o < out; ++o) db[o] += d[o];
    }
}

void layer_norm_forward(const float* x, int rows, int d, const float* gain, const float* bias, float eps, float* y,
                        float* mean, float* rstd) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * d;
    float* yr = y + static_cast<size_t>(r) * d;
    double sum = 0;
    for (int i = 0; i < d; ++i) sum += xr[i];
    const double mu = sum / d;
    double var = 0;
    for (int i = 0; i < d; ++i) var += (xr[i] - mu) * (xr[i] - mu);
    const float m = static_cast<float>(mu);
    const float s = static_cast<float>(1.0 / std::sqrt(var / d + eps));
    for (int i = 0; i < d; ++i) yr[i] = (xr[i] - m) * s * gain[i] + bias[i];
    mean[r] = m;
    rstd[r] = s;
  }
}

void layer_norm_backward(const float* x, const float* dy, int rows, int d, const float* gain, const float* mean,
                         const float* rstd, float* dx, float* dgain, float* dbias) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * d;
    const float* dyr = dy + static_cast<size_t>(r) * d;
    float* dxr = dx + static_cast<size_t>(r) * d;
    const float m = mean[r], s = rstd[r];
    // dxhat = dy * gain; dx = s (dxhat - mean(dxhat) - xhat mean(dxhat xhat)).
    double sum_d = 0, sum_dx = 0;
    for (int i = 0; i < d; ++i) {
      const float xhat = (xr[i] - m) * s;
      const float dxhat = dyr[i] * gain[i];
      sum_d += dxhat;
      sum_dx += static_cast<double>(dxhat) * xhat;
      dgain[i] += dyr[i] * xhat;
      dbias[i] += dyr[i];
    }
    const float mean_d = static_cast<float>(sum_d / d), mean_dx = static_cast<float>(sum_dx / d);
    for (int i = 0; i < d; ++i) {
      const float xhat = (xr[i] - m) * s;
      dxr[i] += s * (dyr[i] * gain[i] - mean_d - xhat * mean_dx);
    }
  }
}

void activation_forward(Activation act, const float* h, size_t n, float* out) {
  if (act == Activation::Relu) {
    for (size_t i = 0; i < n; ++i) out[i] = h[i] > 0.0f ? h[i] : 0.0f;
  } else {
    const float c = static_cast<float>(kInvSqrt2);
    for (size_t i = 0; i < n; ++i) out[i] = 0.5f * h[i] * (1.0f + std::erf(h[i] * c));
  }
}

void activation_backward(Activation act, const float* h, const float* dout, size_t n, float* dh) {
  if (act == Activation::Relu) {
    for (size_t i = 0; i < n; ++i) dh[i] += h[i] > 0.0f ? dout[i] : 0.0f;
  } else {  // d/dh [h Phi(h)] = Phi(h) + h phi(h)
    for (size_t i = 0; i < n; ++i) {
      const double x = h[i];
      const double cdf = 0.5 * (1.0 + std::erf(x * kInvSqrt2));
      const double pdf = kInvSqrt2Pi * std::exp(-0.5 * x * x);
      dh[i] += static_cast<float>(dout[i] * (cdf + x * pdf));
    }
  }
}

void mul_mask(const float* x, const float* mask, size_t n, float* y) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] * mask[i];
}

void mul_mask_backward(const float* dy, const float* mask, size_t n, float* dx) {
  for (size_t i = 0; i < n; ++i) dx[i] += dy[i] * mask[i];
}

void add(const float* a, const float* b, size_t n, float* y) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void accumulate(const float* dy, size_t n, float* dx) {
  for (size_t i = 0; i < n; ++i) dx[i] += dy[i];
}

void attention_forward(const AttentionArgs& a) {
  const float root = std::sqrt(static_cast<float>(a.dh));
  for (int b = 0; b < a.batch; ++b) {
    const AttentionSpan& s = a.spans[b];
    for (int h = 0; h < a.heads; ++h) {
      const int c0 = h * a.dh;
      float* P = a.probs + s.p0 + static_cast<size_t>(h) * s.nq * s.nk;
      const float* D = a.drop ? a.drop + s.p0 + static_cast<size_t>(h) * s.nq * s.nk : nullptr;
      for (int i = 0; i < s.nq; ++i) {
        const float* qi = a.q + static_cast<size_t>(s.q0 + i) * a.ldq + c0;
        float* p = P + static_cast<size_t>(i) * s.nk;
        const int seen = a.causal ? (i + 1 < s.nk ? i + 1 : s.nk) : s.nk;
        float mx = -INFINITY;
        for (int j = 0; j < seen; ++j) {
          const float* kj = a.k + static_cast<size_t>(s.k0 + j) * a.ldk + c0;
          float dot = 0.0f;
          for (int c = 0; c < a.dh; ++c) dot += qi[c] * kj[c];
          p[j] = dot / root;
          mx = p[j] > mx ? p[j] : mx;
        }
        double sum = 0;
        for (int j = 0; j < seen; ++j) {
          p[j] = std::exp(p[j] - mx);
          sum += p[j];
        }
        const float inv = static_cast<float>(1.0 / sum);
        for (int j = 0; j < seen; ++j) p[j] *= inv;
        for (int j = seen; j < s.nk; ++j) p[j] = 0.0f;
        float* ci = a.ctx + static_cast<size_t>(s.q0 + i) * a.ldc + c0;
        for (int c = 0; c < a.dh; ++c) ci[c] = 0.0f;
        for (int j = 0; j < seen; ++j) {
          const float w = D ? p[j] * D[static_cast<size_t>(i) * s.nk + j] : p[j];
          const float* vj = a.v + static_cast<size_t>(s.k0 + j) * a.ldv + c0;
          for (int c = 0; c < a.dh; ++c) ci[c] += w * vj[c];
        }
      }
    }
  }
}

void attention_backward(const AttentionArgs& a, const AttentionGrads& g, float* scratch) {
  const float root = std::sqrt(static_cast<float>(a.dh));
  for (int b = 0; b < a.batch; ++b) {
    const AttentionSpan& s = a.spans[b];
    for (int h = 0; h < a.heads; ++h) {
      const int c0 = h * a.dh;
      const size_t at = s.p0 + static_cast<size_t>(h) * s.nq * s.nk;
      const float* P = a.probs + at;
      const float* D = a.drop ? a.drop + at : nullptr;
      const float* X = g.extra_dprobs ? g.extra_dprobs + at : nullptr;
      float* dS = scratch;  // [nq x nk]: d loss / d scores (the caller's, 2 nq nk floats)
      for (int i = 0; i < s.nq; ++i) {
        const int seen = a.causal ? (i + 1 < s.nk ? i + 1 : s.nk) : s.nk;
        const float* dci = g.dctx + static_cast<size_t>(s.q0 + i) * g.lddc + c0;
        const float* p = P + static_cast<size_t>(i) * s.nk;
        float* ds = dS + static_cast<size_t>(i) * s.nk;
        // Through ctx_i = sum_j p'_ij v_j (p' = p * mask): dp'_ij = dctx_i . v_j, dv_j += p'_ij dctx_i.
        double dot_pd = 0;
        for (int j = 0; j < seen; ++j) {
          const float m = D ? D[static_cast<size_t>(i) * s.nk + j] : 1.0f;
          const float* vj = a.v + static_cast<size_t>(s.k0 + j) * a.ldv + c0;
          float* dvj = g.dv + static_cast<size_t>(s.k0 + j) * g.lddv + c0;
          float dp = 0.0f;
          for (int c = 0; c < a.dh; ++c) dp += dci[c] * vj[c];
          const float w = p[j] * m;
          for (int c = 0; c < a.dh; ++c) dvj[c] += w * dci[c];
          dp *= m;
          if (X) dp += X[static_cast<size_t>(i) * s.nk + j];
          ds[j] = dp;
          dot_pd += static_cast<double>(p[j]) * dp;
        }
        // Through the softmax: ds_ij = p_ij (dp_ij - sum_k p_ik dp_ik); masked keys have p = 0.
        const float sub = static_cast<float>(dot_pd);
        for (int j = 0; j < seen; ++j) ds[j] = p[j] * (ds[j] - sub) / root;
      }
      // Through the scores q_i . k_j / sqrt(dh).
      for (int i = 0; i < s.nq; ++i) {
        const int seen = a.causal ? (i + 1 < s.nk ? i + 1 : s.nk) : s.nk;
        const float* ds = dS + static_cast<size_t>(i) * s.nk;
        const float* qi = a.q + static_cast<size_t>(s.q0 + i) * a.ldq + c0;
        float* dqi = g.dq + static_cast<size_t>(s.q0 + i) * g.lddq + c0;
        for (int j = 0; j < seen; ++j) {
          const float* kj = a.k + static_cast<size_t>(s.k0 + j) * a.ldk + c0;
          float* dkj = g.dk + static_cast<size_t>(s.k0 + j) * g.lddk + c0;
          const float d = ds[j];
          for (int c = 0; c < a.dh; ++c) {
            dqi[c] += d * kj[c];
            dkj[c] += d * qi[c];
          }
        }
      }
    }
  }
}

void embedding_forward(const int* ids, const int* pos, int rows, const float* table, int d, float scale,
                       const float* pos_table, float* x) {
  for (int r = 0; r < rows; ++r) {
    const float* e = table + static_cast<size_t>(ids[r]) * d;
    const float* p = pos_table + static_cast<size_t>(pos[r]) * d;
    float* xr = x + static_cast<size_t>(r) * d;
    for (int i = 0; i < d; ++i) xr[i] = e[i] * scale + p[i];
  }
}

void embedding_backward(const int* ids, const int* pos, int rows, const float* dx, int d, float scale, float* dtable,
                        float* dpos) {
  for (int r = 0; r < rows; ++r) {
    const float* g = dx + static_cast<size_t>(r) * d;
    float* e = dtable + static_cast<size_t>(ids[r]) * d;
    for (int i = 0; i < d; ++i) e[i] += g[i] * scale;
    if (dpos) {
      float* p = dpos + static_cast<size_t>(pos[r]) * d;
      for (int i = 0; i < d; ++i) p[i] += g[i];
    }
  }
}

}  // namespace train
}  // namespace seq2seq
