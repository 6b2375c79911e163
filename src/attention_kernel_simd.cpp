// The attention kernel over SIMDe: one source for wasm simd128 (Emscripten,
// -msimd128), SSE/AVX (native x86) and NEON. attention_kernel_scalar.cpp is the
// reference it is tested against.
//
// Per query row: scores for the visible keys into scratch, row max, exp and sum
// in one pass, then the weighted sum of V scaled by 1/sum at the end (dh
// multiplies instead of n_k divides). Probabilities are only normalised when
// the caller asks for them.
//
// One copy per instruction set natively (kernel_set.h), and so, as in
// linear_kernel_simd.cpp, no out-of-line standard-library code.
//
// Vector width: 128 bits by default, because SSE, simd128 and NEON all have it
// and SIMDe maps it 1:1. Where the compiler may use AVX2 and FMA (native x86
// with -march=native) the same code is instantiated over 256-bit vectors,
// which measured 1.1x (dh 32) to 1.45x (dh 128) faster than the 128-bit
// instantiation on the same machine. -DSEQ2SEQ_ATTN_VEC_BITS=128 forces the
// narrow version everywhere.
//
// The exponential is vectorised rather than left to std::exp: a scalar exp
// loop made the whole kernel 1.1-1.3x slower in wasm and 1.2-1.6x slower
// natively.
#include "kernel_set.h"

#include <simde/x86/sse2.h>
#include <simde/x86/fma.h>

#include <cmath>
#include <cstddef>

#if !defined(SEQ2SEQ_ATTN_VEC_BITS)
#  if defined(SIMDE_X86_AVX2_NATIVE) && defined(SIMDE_X86_FMA_NATIVE)
#    define SEQ2SEQ_ATTN_VEC_BITS 256
#  else
#    define SEQ2SEQ_ATTN_VEC_BITS 128
#  endif
#endif
#if SEQ2SEQ_ATTN_VEC_BITS == 256
#  include <simde/x86/avx2.h>
#elif SEQ2SEQ_ATTN_VEC_BITS != 128
#  error "SEQ2SEQ_ATTN_VEC_BITS must be 128 or 256"
#endif

namespace seq2seq {
namespace SEQ2SEQ_KERNEL_NS {

namespace {

constexpr int min_int(int a, int b) { return a < b ? a : b; }

// ---- 128-bit helpers, used by both widths for the final reductions ----------

using f4 = simde__m128;

// SIMDe's fmadd falls back to a per-lane loop where there is no fused
// instruction (wasm simd128 has none in this Emscripten), so outside x86 FMA
// and AArch64 an explicit multiply and add is the reliable spelling.
inline f4 madd4(f4 a, f4 b, f4 c) {
#if defined(SIMDE_X86_FMA_NATIVE) || defined(SIMDE_ARM_NEON_A64V8_NATIVE)
  return simde_mm_fmadd_ps(a, b, c);
#else
  return simde_mm_add_ps(simde_mm_mul_ps(a, b), c);
#endif
}

// Lane j of the result is the sum of the lanes of xj: one transpose instead of
// four separate horizontal sums.
inline f4 sum_lanes4(f4 x0, f4 x1, f4 x2, f4 x3) {
  const f4 t0 = simde_mm_add_ps(simde_mm_unpacklo_ps(x0, x1), simde_mm_unpackhi_ps(x0, x1));  // x0 x1 x0 x1
  const f4 t1 = simde_mm_add_ps(simde_mm_unpacklo_ps(x2, x3), simde_mm_unpackhi_ps(x2, x3));  // x2 x3 x2 x3
  return simde_mm_add_ps(simde_mm_movelh_ps(t0, t1), simde_mm_movehl_ps(t1, t0));
}

inline float hsum4(f4 x) {
  x = simde_mm_add_ps(x, simde_mm_movehl_ps(x, x));
  x = simde_mm_add_ss(x, simde_mm_shuffle_ps(x, x, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
  return simde_mm_cvtss_f32(x);
}

inline float hmax4(f4 x) {
  x = simde_mm_max_ps(x, simde_mm_movehl_ps(x, x));
  x = simde_mm_max_ss(x, simde_mm_shuffle_ps(x, x, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
  return simde_mm_cvtss_f32(x);
}

// ---- The working vector type ------------------------------------------------

#if SEQ2SEQ_ATTN_VEC_BITS == 256
using vf = simde__m256;
constexpr int W = 8;
inline vf vload(const float* p) { return simde_mm256_loadu_ps(p); }
inline void vstore(float* p, vf x) { simde_mm256_storeu_ps(p, x); }
inline vf vset1(float x) { return simde_mm256_set1_ps(x); }
inline vf vzero() { return simde_mm256_setzero_ps(); }
inline vf vadd(vf a, vf b) { return simde_mm256_add_ps(a, b); }
inline vf vsub(vf a, vf b) { return simde_mm256_sub_ps(a, b); }
inline vf vmul(vf a, vf b) { return simde_mm256_mul_ps(a, b); }
inline vf vmax(vf a, vf b) { return simde_mm256_max_ps(a, b); }
inline vf vmadd(vf a, vf b, vf c) { return simde_mm256_fmadd_ps(a, b, c); }
inline vf vand(vf a, vf b) { return simde_mm256_and_ps(a, b); }
inline vf vcmpge(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ); }
inline vf vshl_exponent(vf t, int bias) {
  const simde__m256i i = simde_mm256_add_epi32(simde_mm256_castps_si256(t), simde_mm256_set1_epi32(bias));
  return simde_mm256_castsi256_ps(simde_mm256_slli_epi32(i, 23));
}
inline f4 vfold(vf x) { return simde_mm_add_ps(simde_mm256_castps256_ps128(x), simde_mm256_extractf128_ps(x, 1)); }
#else
using vf = simde__m128;
constexpr int W = 4;
inline vf vload(const float* p) { return simde_mm_loadu_ps(p); }
inline void vstore(float* p, vf x) { simde_mm_storeu_ps(p, x); }
inline vf vset1(float x) { return simde_mm_set1_ps(x); }
inline vf vzero() { return simde_mm_setzero_ps(); }
inline vf vadd(vf a, vf b) { return simde_mm_add_ps(a, b); }
inline vf vsub(vf a, vf b) { return simde_mm_sub_ps(a, b); }
inline vf vmul(vf a, vf b) { return simde_mm_mul_ps(a, b); }
inline vf vmax(vf a, vf b) { return simde_mm_max_ps(a, b); }
inline vf vmadd(vf a, vf b, vf c) { return madd4(a, b, c); }
inline vf vand(vf a, vf b) { return simde_mm_and_ps(a, b); }
inline vf vcmpge(vf a, vf b) { return simde_mm_cmpge_ps(a, b); }
inline vf vshl_exponent(vf t, int bias) {
  const simde__m128i i = simde_mm_add_epi32(simde_mm_castps_si128(t), simde_mm_set1_epi32(bias));
  return simde_mm_castsi128_ps(simde_mm_slli_epi32(i, 23));
}
inline f4 vfold(vf x) { return x; }
#endif

// exp(x) for x <= 0 (softmax arguments after subtracting the row max).
// Cephes-style: x = n ln2 + r with |r| <= ln2/2, a degree-6 polynomial for
// exp(r), then 2^n built directly in the exponent bits. Measured against
// double-precision exp over every float in [ln(FLT_MIN), 0]: max relative
// error 1.2e-7 (1 ulp), both natively (8 lanes, FMA) and in wasm (4 lanes,
// separate multiply and add). Below ln(FLT_MIN) the result is flushed to 0
// (std::exp would give a subnormal there, < 1.2e-38 anyway).
inline vf vexp_nonpositive(vf x) {
  const vf lo = vset1(-87.33654475f);  // ln(FLT_MIN): keeps n >= -126 below
  const vf keep = vcmpge(x, lo);       // also false for NaN
  x = vmax(x, lo);

  // Adding 1.5*2^23 rounds x*log2(e) to the nearest integer n and leaves n in
  // the low mantissa bits, so no float->int conversion is needed (simd128 only
  // has a truncating one; rounding to nearest would take extra instructions).
  const vf magic = vset1(12582912.0f);
  const vf t = vmadd(x, vset1(1.44269504088896341f), magic);
  const vf n = vsub(t, magic);

  // Two-part ln2 (Cody-Waite) so r is accurate: n*C1 is exact for |n| <= 126.
  vf r = vsub(x, vmul(n, vset1(0.693359375f)));
  r = vsub(r, vmul(n, vset1(-2.12194440e-4f)));

  vf p = vset1(1.9875691500e-4f);
  p = vmadd(p, r, vset1(1.3981999507e-3f));
  p = vmadd(p, r, vset1(8.3334519073e-3f));
  p = vmadd(p, r, vset1(4.1665795894e-2f));
  p = vmadd(p, r, vset1(1.6666665459e-1f));
  p = vmadd(p, r, vset1(5.0000001201e-1f));
  p = vmadd(vmul(p, r), r, vadd(r, vset1(1.0f)));

  // The low 9 bits of t's pattern hold n + 0x400000's low bits, i.e. n mod 512;
  // +127 and <<23 turn that into the float 2^n (n in [-126, 0]).
  const vf pow2n = vshl_exponent(t, 127);
  return vand(vmul(p, pow2n), keep);
}

// ---- Q·Kᵀ for one query row ---------------------------------------------------

// NK keys at a time so each query chunk is loaded once per NK keys and there are
// NK independent accumulation chains. Returns the NK scaled scores in sc.
template <int NK>
inline void dot_keys(const float* q, const float* const* k, int dh, float scale, float* sc) {
  vf acc[NK];
  for (int t = 0; t < NK; ++t) acc[t] = vzero();
  int d = 0;
  for (; d + W <= dh; d += W) {
    const vf qv = vload(q + d);
    for (int t = 0; t < NK; ++t) acc[t] = vmadd(qv, vload(k[t] + d), acc[t]);
  }
  float tail[NK] = {};
  for (; d < dh; ++d)
    for (int t = 0; t < NK; ++t) tail[t] += q[d] * k[t][d];
  for (int g = 0; g < NK; g += 4) {
    f4 sums = sum_lanes4(vfold(acc[g]), vfold(acc[g + 1]), vfold(acc[g + 2]), vfold(acc[g + 3]));
    sums = simde_mm_add_ps(sums, simde_mm_loadu_ps(tail + g));
    simde_mm_storeu_ps(sc + g, simde_mm_mul_ps(sums, simde_mm_set1_ps(scale)));
  }
}

// Scores of keys [0, lim) into s; returns their maximum.
float scores_row(const AttentionHeadArgs& a, const float* q, int lim, float* s) {
  f4 vmax_acc = simde_mm_set1_ps(-INFINITY);
  const float* k[8];
  int j = 0;
  for (; j + 8 <= lim; j += 8) {
    for (int t = 0; t < 8; ++t) k[t] = a.k + static_cast<std::ptrdiff_t>(j + t) * a.ldk;
    dot_keys<8>(q, k, a.dh, a.scale, s + j);
    vmax_acc = simde_mm_max_ps(vmax_acc, simde_mm_max_ps(simde_mm_loadu_ps(s + j), simde_mm_loadu_ps(s + j + 4)));
  }
  // 1..7 keys left: blocks of 4, the last one padded by repeating its final key
  // (cheaper than a second code path; the extra scores are discarded).
  for (; j < lim; j += 4) {
    const int r = min_int(4, lim - j);
    for (int t = 0; t < 4; ++t) k[t] = a.k + static_cast<std::ptrdiff_t>(j + std::min(t, r - 1)) * a.ldk;
    float sc[4];
    dot_keys<4>(q, k, a.dh, a.scale, sc);
    for (int t = 0; t < r; ++t) s[j + t] = sc[t];
    vmax_acc = simde_mm_max_ps(vmax_acc, simde_mm_loadu_ps(sc));  // padded lanes repeat a real score
  }
  return hmax4(vmax_acc);
}

// s[j] = exp(s[j] - m) for j < lim; returns the sum.
float exp_row(float* s, int lim, float m) {
  const vf vm = vset1(m);
  vf vsum = vzero();
  int j = 0;
  for (; j + W <= lim; j += W) {
    const vf e = vexp_nonpositive(vsub(vload(s + j), vm));
    vstore(s + j, e);
    vsum = vadd(vsum, e);
  }
  if (j < lim) {
    // Padding with -inf makes the unused lanes exp to exactly 0.
    float buf[W];
    const int r = lim - j;
    for (int t = 0; t < W; ++t) buf[t] = t < r ? s[j + t] : -INFINITY;
    const vf e = vexp_nonpositive(vsub(vload(buf), vm));
    vstore(buf, e);
    vsum = vadd(vsum, e);
    for (int t = 0; t < r; ++t) s[j + t] = buf[t];
  }
  return hsum4(vfold(vsum));
}

// out[d0, d0 + NV*W) = scale * sum_j w[j] v_j[d0, ...). The j loop is innermost
// so the NV accumulators stay in registers across all keys. With few
// accumulators the add latency would dominate, so those blocks also split the
// keys over two accumulator sets.
template <int NV>
inline void weighted_sum_block(const AttentionHeadArgs& a, const float* w, int lim, float scale, int d0, float* out) {
  constexpr int kSets = NV <= 4 ? 2 : 1;
  vf acc[kSets][NV];
  for (int u = 0; u < kSets; ++u)
    for (int t = 0; t < NV; ++t) acc[u][t] = vzero();
  const float* v = a.v + d0;
  int j = 0;
  for (; j + kSets <= lim; j += kSets) {
    for (int u = 0; u < kSets; ++u) {
      const vf wj = vset1(w[j + u]);
      const float* vj = v + static_cast<std::ptrdiff_t>(j + u) * a.ldv;
      for (int t = 0; t < NV; ++t) acc[u][t] = vmadd(wj, vload(vj + t * W), acc[u][t]);
    }
  }
  for (; j < lim; ++j) {
    const vf wj = vset1(w[j]);
    const float* vj = v + static_cast<std::ptrdiff_t>(j) * a.ldv;
    for (int t = 0; t < NV; ++t) acc[0][t] = vmadd(wj, vload(vj + t * W), acc[0][t]);
  }
  const vf vs = vset1(scale);
  for (int t = 0; t < NV; ++t) {
    vf sum = acc[0][t];
    for (int u = 1; u < kSets; ++u) sum = vadd(sum, acc[u][t]);
    vstore(out + d0 + t * W, vmul(sum, vs));
  }
}

void weighted_sum_row(const AttentionHeadArgs& a, const float* w, int lim, float scale, float* out) {
  int d = 0;
  for (; d + 8 * W <= a.dh; d += 8 * W) weighted_sum_block<8>(a, w, lim, scale, d, out);
  for (; d + 4 * W <= a.dh; d += 4 * W) weighted_sum_block<4>(a, w, lim, scale, d, out);
  for (; d + W <= a.dh; d += W) weighted_sum_block<1>(a, w, lim, scale, d, out);
  for (; d < a.dh; ++d) {
    float acc = 0.0f;
    for (int j = 0; j < lim; ++j) acc += w[j] * a.v[static_cast<std::ptrdiff_t>(j) * a.ldv + d];
    out[d] = acc * scale;
  }
}

void zero(float* p, int n) {
  int j = 0;
  for (; j + W <= n; j += W) vstore(p + j, vzero());
  for (; j < n; ++j) p[j] = 0.0f;
}

}  // namespace

void attention_head(const AttentionHeadArgs& a) {
  const int valid = a.n_k_valid >= 0 ? min_int(a.n_k_valid, a.n_k) : a.n_k;
  float* s = a.scratch;
  for (int i = 0; i < a.n_q; ++i) {
    const float* q = a.q + static_cast<std::ptrdiff_t>(i) * a.ldq;
    float* out = a.out + static_cast<std::ptrdiff_t>(i) * a.ldo;
    float* probs = a.probs ? a.probs + static_cast<std::ptrdiff_t>(i) * a.ldp : nullptr;

    // Both masks leave a prefix of the keys visible, so masked keys are never
    // scored at all; in 64 bits because i + causal_offset + 1 may overflow.
    long long lim64 = valid;
    if (a.causal_offset >= 0 && static_cast<long long>(i) + a.causal_offset + 1 < lim64)
      lim64 = static_cast<long long>(i) + a.causal_offset + 1;
    const int lim = lim64 > 0 ? static_cast<int>(lim64) : 0;

    if (lim == 0) {
      zero(out, a.dh);
      if (probs) zero(probs, a.n_k);
      continue;
    }

    const float m = scores_row(a, q, lim, s);
    // sum >= 1 because the maximum contributes exp(0) = 1.
    const float inv_sum = 1.0f / exp_row(s, lim, m);
    weighted_sum_row(a, s, lim, inv_sum, out);

    if (probs) {
      const vf vinv = vset1(inv_sum);
      int j = 0;
      for (; j + W <= lim; j += W) vstore(probs + j, vmul(vload(s + j), vinv));
      for (; j < lim; ++j) probs[j] = s[j] * inv_sum;
      zero(probs + lim, a.n_k - lim);
    }
  }
}

}  // namespace SEQ2SEQ_KERNEL_NS
}  // namespace seq2seq
