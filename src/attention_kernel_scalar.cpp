// The reference attention kernel: plain loops, one query row at a time, in the
// order the maths is written. It is deliberately unclever so that the SIMD
// kernel can be held to it; speed is not a goal here.
#include "attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace seq2seq {

namespace {

// Both masks leave a prefix of the keys visible (padding removes a suffix,
// causality removes everything after i + offset), so one bound describes a row.
int visible_keys(const AttentionHeadArgs& a, int i) {
  long long lim = a.n_k;
  if (a.n_k_valid >= 0) lim = std::min<long long>(lim, a.n_k_valid);
  // In 64 bits because i + causal_offset + 1 may exceed INT_MAX.
  if (a.causal_offset >= 0) lim = std::min<long long>(lim, static_cast<long long>(i) + a.causal_offset + 1);
  return static_cast<int>(std::max<long long>(lim, 0));
}

}  // namespace

void attention_head_scalar(const AttentionHeadArgs& a) {
  float* p = a.scratch;
  for (int i = 0; i < a.n_q; ++i) {
    const float* q = a.q + static_cast<std::ptrdiff_t>(i) * a.ldq;
    float* out = a.out + static_cast<std::ptrdiff_t>(i) * a.ldo;
    float* probs = a.probs ? a.probs + static_cast<std::ptrdiff_t>(i) * a.ldp : nullptr;
    const int lim = visible_keys(a, i);

    if (lim == 0) {
      for (int d = 0; d < a.dh; ++d) out[d] = 0.0f;
      if (probs) for (int j = 0; j < a.n_k; ++j) probs[j] = 0.0f;
      continue;
    }

    float max_score = -INFINITY;
    for (int j = 0; j < lim; ++j) {
      const float* k = a.k + static_cast<std::ptrdiff_t>(j) * a.ldk;
      float dot = 0.0f;
      for (int d = 0; d < a.dh; ++d) dot += q[d] * k[d];
      p[j] = a.scale * dot;
      max_score = std::max(max_score, p[j]);
    }

    // The row maximum contributes exp(0) = 1, so sum >= 1.
    float sum = 0.0f;
    for (int j = 0; j < lim; ++j) {
      p[j] = std::exp(p[j] - max_score);
      sum += p[j];
    }
    for (int j = 0; j < lim; ++j) p[j] /= sum;

    for (int d = 0; d < a.dh; ++d) out[d] = 0.0f;
    for (int j = 0; j < lim; ++j) {
      const float* v = a.v + static_cast<std::ptrdiff_t>(j) * a.ldv;
      for (int d = 0; d < a.dh; ++d) out[d] += p[j] * v[d];
    }

    if (probs) {
      for (int j = 0; j < lim; ++j) probs[j] = p[j];
      for (int j = lim; j < a.n_k; ++j) probs[j] = 0.0f;
    }
  }
}

}  // namespace seq2seq
