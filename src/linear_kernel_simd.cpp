// linear_kernel.h's products over SIMDe's wasm simd128 API: the browser gets
// simd128 as written, native x86 gets SSE2, SSE4.1 or AVX encodings of the same
// 128-bit operations (i32x4.dot_i16x8_s is pmaddwd, i16x8.extend_*_i8x16_s is
// pmovsxbw), one copy per instruction set (kernel_set.h). Nothing here calls the
// standard library's out-of-line code: a copy compiled for AVX2 must not give the
// linker an AVX2 instance of a function the rest of the program shares.
//
// A tile is MR rows of x (1..4) against NP panels of 8 outputs, with one
// accumulator vector per (row, 4 outputs): each weight vector loaded is used
// MR times, each x value is splatted once per tile and used 2*NP times. Panels
// are the outer loop, so a panel's weights (8 x in values) are read from memory
// once and stay in L1 while every row block of x passes over them. NP grows when
// there are few rows, to keep enough independent accumulators in flight: one
// row (greedy) takes 4 panels at a time, two rows 2, more rows 1. The exception,
// measured with bench/bench_linear.cpp: V8 compiles the int8 tile of one row and
// four panels about half as fast as that of two panels (it runs out of
// registers), so in wasm one row of int8 takes two panels.
#include <simde/wasm/simd128.h>
#if defined(SIMDE_X86_AVX2_NATIVE)
#  include <simde/x86/avx2.h>
#endif

#include <cmath>
#include <cstring>

#include "kernel_set.h"

namespace seq2seq {
namespace SEQ2SEQ_KERNEL_NS {

namespace {

constexpr int min_int(int a, int b) { return a < b ? a : b; }

using v128 = simde_v128_t;

#if defined(__wasm__)
constexpr bool kWasm = true;
#else
constexpr bool kWasm = false;
#endif
#if defined(SIMDE_X86_AVX2_NATIVE)
constexpr bool kWideI8 = true;  // the 256-bit int8 tile below
#else
constexpr bool kWideI8 = false;
#endif

// The bias (and ReLU) epilogue, and the store: whole panels straight into y,
// the last partial panel through a buffer.
inline void store_panel(const Linear& w, int p, v128 lo, v128 hi, bool relu, float* y) {
  const float* b = w.bias.data() + static_cast<size_t>(p) * kPanelRows;
  lo = simde_wasm_f32x4_add(lo, simde_wasm_v128_load(b));
  hi = simde_wasm_f32x4_add(hi, simde_wasm_v128_load(b + 4));
  if (relu) {  // pmax(v, 0) = v < 0 ? 0 : v keeps NaN, as the scalar twin's std::max(v, 0) does
    const v128 zero = simde_wasm_f32x4_splat(0.0f);
    lo = simde_wasm_f32x4_pmax(lo, zero);
    hi = simde_wasm_f32x4_pmax(hi, zero);
  }
  const int first = p * kPanelRows, valid = min_int(kPanelRows, w.n_out - first);
  if (valid == kPanelRows) {
    simde_wasm_v128_store(y + first, lo);
    simde_wasm_v128_store(y + first + 4, hi);
  } else {
    float buf[kPanelRows];
    simde_wasm_v128_store(buf, lo);
    simde_wasm_v128_store(buf + 4, hi);
    std::memcpy(y + first, buf, static_cast<size_t>(valid) * sizeof(float));
  }
}

template <int MR, int NP>
void f32_tile(const Linear& w, int p0, const LinearArgs& a, int r0) {
  const int K = w.n_in;
  const float* wp[NP];
  for (int n = 0; n < NP; ++n) wp[n] = w.f32.data() + static_cast<size_t>(p0 + n) * K * kPanelRows;
  const float* x[MR];
  for (int r = 0; r < MR; ++r) x[r] = a.x + static_cast<size_t>(r0 + r) * a.ldx;
  v128 acc[MR][2 * NP];
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < 2 * NP; ++c) acc[r][c] = simde_wasm_f32x4_splat(0.0f);
  for (int k = 0; k < K; ++k) {
    v128 wv[2 * NP];
    for (int n = 0; n < NP; ++n) {
      wv[2 * n] = simde_wasm_v128_load(wp[n] + static_cast<size_t>(k) * kPanelRows);
      wv[2 * n + 1] = simde_wasm_v128_load(wp[n] + static_cast<size_t>(k) * kPanelRows + 4);
    }
    for (int r = 0; r < MR; ++r) {
      const v128 xs = simde_wasm_v128_load32_splat(x[r] + k);
      for (int c = 0; c < 2 * NP; ++c) acc[r][c] = simde_wasm_f32x4_add(acc[r][c], simde_wasm_f32x4_mul(xs, wv[c]));
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int n = 0; n < NP; ++n)
      store_panel(w, p0 + n, acc[r][2 * n], acc[r][2 * n + 1], a.relu, a.y + static_cast<size_t>(r0 + r) * a.ldy);
}

// The int8 tiles. q: the quantised rows of x, in4 int16 each; s: their scales.
// Per column group, 16 bytes hold the k0,k1 pairs of a panel's 8 outputs and 16
// the k2,k3 pairs; a pairwise int16 dot product against (x[k0], x[k1]) splatted
// gives each output's partial sum over k0,k1.
// Where a tile's operands start: its NP panels of weights and its MR rows of quantised x.
template <int MR, int NP>
struct I8Operands {
  int groups;
  const int8_t* wp[NP];
  const int16_t* x[MR];
  I8Operands(const Linear& w, int p0, const int16_t* q, int r0) : groups(w.in4() / 4) {
    for (int n = 0; n < NP; ++n) wp[n] = w.i8.data() + static_cast<size_t>(p0 + n) * groups * 32;
    for (int r = 0; r < MR; ++r) x[r] = q + static_cast<size_t>(r0 + r) * w.in4();
  }
};

// The int8 epilogue of one row and panel p: the int32 sums of outputs 0-3 (lo) and
// 4-7 (hi) to float, times the row's scale and the outputs' scales, then store_panel.
inline void i8_store_panel(const Linear& w, int p, v128 lo, v128 hi, float row_scale, const LinearArgs& a, float* y) {
  const v128 xs = simde_wasm_f32x4_splat(row_scale);
  const float* sc = w.scale.data() + static_cast<size_t>(p) * kPanelRows;
  lo = simde_wasm_f32x4_mul(simde_wasm_f32x4_convert_i32x4(lo), simde_wasm_f32x4_mul(xs, simde_wasm_v128_load(sc)));
  hi = simde_wasm_f32x4_mul(simde_wasm_f32x4_convert_i32x4(hi), simde_wasm_f32x4_mul(xs, simde_wasm_v128_load(sc + 4)));
  store_panel(w, p, lo, hi, a.relu, y);
}

#if defined(SIMDE_X86_AVX2_NATIVE)
// Native x86 with AVX2: a panel's 8 outputs fit one 256-bit accumulator, and
// each 16 bytes widen in one instruction (vpmovsxbw) to all 8 outputs' pairs.
// The same arithmetic as the 128-bit tile below, twice as wide, and the same
// epilogue operations, so both give the same bits.
template <int MR, int NP>
void i8_tile(const Linear& w, int p0, const int16_t* q, const float* s, const LinearArgs& a, int r0) {
  const I8Operands<MR, NP> op(w, p0, q, r0);
  const auto& wp = op.wp;
  const auto& x = op.x;
  const int groups = op.groups;
  simde__m256i acc[MR][NP];
  for (int r = 0; r < MR; ++r)
    for (int n = 0; n < NP; ++n) acc[r][n] = simde_mm256_setzero_si256();
  for (int g = 0; g < groups; ++g) {
    for (int n = 0; n < NP; ++n) {
      const int8_t* b = wp[n] + static_cast<size_t>(g) * 32;
      const simde__m256i w01 = simde_mm256_cvtepi8_epi16(simde_mm_loadu_si128(b));
      const simde__m256i w23 = simde_mm256_cvtepi8_epi16(simde_mm_loadu_si128(b + 16));
      for (int r = 0; r < MR; ++r) {
        int32_t p01, p23;
        std::memcpy(&p01, x[r] + 4 * g, 4);
        std::memcpy(&p23, x[r] + 4 * g + 2, 4);
        acc[r][n] = simde_mm256_add_epi32(acc[r][n], simde_mm256_add_epi32(simde_mm256_madd_epi16(w01, simde_mm256_set1_epi32(p01)),
                                                                           simde_mm256_madd_epi16(w23, simde_mm256_set1_epi32(p23))));
      }
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int n = 0; n < NP; ++n) {
      alignas(32) int32_t sums[kPanelRows];
      simde_mm256_store_si256(reinterpret_cast<simde__m256i*>(sums), acc[r][n]);
      i8_store_panel(w, p0 + n, simde_wasm_v128_load(sums), simde_wasm_v128_load(sums + 4), s[r0 + r], a,
                     a.y + static_cast<size_t>(r0 + r) * a.ldy);
    }
}
#else
template <int MR, int NP>
void i8_tile(const Linear& w, int p0, const int16_t* q, const float* s, const LinearArgs& a, int r0) {
  const I8Operands<MR, NP> op(w, p0, q, r0);
  const auto& wp = op.wp;
  const auto& x = op.x;
  const int groups = op.groups;
  v128 acc[MR][2 * NP];  // [row][panel n: outputs 0-3 at 2n, 4-7 at 2n+1]
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < 2 * NP; ++c) acc[r][c] = simde_wasm_i32x4_splat(0);
  for (int g = 0; g < groups; ++g) {
    // With one panel, widen its four vectors first and splat each row's x once;
    // with more panels, use each panel's vectors as they are widened and splat
    // again per panel, so that fewer vectors are live (x86 and V8: 16 registers).
    if (NP == 1) {
      const int8_t* b = wp[0] + static_cast<size_t>(g) * 32;
      const v128 lo01 = simde_wasm_i16x8_load8x8(b), hi01 = simde_wasm_i16x8_load8x8(b + 8);
      const v128 lo23 = simde_wasm_i16x8_load8x8(b + 16), hi23 = simde_wasm_i16x8_load8x8(b + 24);
      for (int r = 0; r < MR; ++r) {
        const v128 x01 = simde_wasm_v128_load32_splat(x[r] + 4 * g);
        const v128 x23 = simde_wasm_v128_load32_splat(x[r] + 4 * g + 2);
        acc[r][0] = simde_wasm_i32x4_add(
            acc[r][0], simde_wasm_i32x4_add(simde_wasm_i32x4_dot_i16x8(lo01, x01), simde_wasm_i32x4_dot_i16x8(lo23, x23)));
        acc[r][1] = simde_wasm_i32x4_add(
            acc[r][1], simde_wasm_i32x4_add(simde_wasm_i32x4_dot_i16x8(hi01, x01), simde_wasm_i32x4_dot_i16x8(hi23, x23)));
      }
      continue;
    }
    for (int n = 0; n < NP; ++n) {
      const int8_t* b = wp[n] + static_cast<size_t>(g) * 32;
      for (int half = 0; half < 2; ++half) {
        const v128 w01 = simde_wasm_i16x8_load8x8(b + 8 * half);
        const v128 w23 = simde_wasm_i16x8_load8x8(b + 16 + 8 * half);
        for (int r = 0; r < MR; ++r) {
          const v128 x01 = simde_wasm_v128_load32_splat(x[r] + 4 * g);
          const v128 x23 = simde_wasm_v128_load32_splat(x[r] + 4 * g + 2);
          acc[r][2 * n + half] = simde_wasm_i32x4_add(
              acc[r][2 * n + half], simde_wasm_i32x4_add(simde_wasm_i32x4_dot_i16x8(w01, x01), simde_wasm_i32x4_dot_i16x8(w23, x23)));
        }
      }
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int n = 0; n < NP; ++n)
      i8_store_panel(w, p0 + n, acc[r][2 * n], acc[r][2 * n + 1], s[r0 + r], a, a.y + static_cast<size_t>(r0 + r) * a.ldy);
}
#endif

// quantize_row_int16 (linear_kernel.h), vectorised: the same float operations
// per value, so the same int16 values as the scalar twin's. (The scalar twin's
// clamp to ±qmax never binds: |x| * (qmax / max|x|) rounds to qmax at most.)
float quantize_row_simd(const float* x, int n, int in4, int16_t* q) {
  const int n4 = n & ~3;
  v128 vmax = simde_wasm_f32x4_splat(0.0f);
  for (int k = 0; k < n4; k += 4) vmax = simde_wasm_f32x4_max(vmax, simde_wasm_f32x4_abs(simde_wasm_v128_load(x + k)));
  float lanes[4];
  simde_wasm_v128_store(lanes, vmax);
  float amax = 0.0f;
  bool finite = true;
  for (float v : lanes) {  // f32x4.max propagates NaN, abs turns -inf into inf: both reach isfinite
    finite = finite && std::isfinite(v);
    amax = v > amax ? v : amax;
  }
  for (int k = n4; k < n; ++k) {
    finite = finite && std::isfinite(x[k]);
    amax = std::fabs(x[k]) > amax ? std::fabs(x[k]) : amax;
  }
  if (!finite || amax == 0.0f) return quantize_row_int16(x, n, in4, q);  // the rare rows: the shared code
  const int qmax = int16_quant_max(in4);
  const float inv = static_cast<float>(qmax) / amax;
  const v128 vinv = simde_wasm_f32x4_splat(inv);
  int k = 0;
  for (; k + 8 <= n; k += 8) {
    const v128 a = simde_wasm_i32x4_trunc_sat_f32x4(simde_wasm_f32x4_nearest(simde_wasm_f32x4_mul(simde_wasm_v128_load(x + k), vinv)));
    const v128 b = simde_wasm_i32x4_trunc_sat_f32x4(simde_wasm_f32x4_nearest(simde_wasm_f32x4_mul(simde_wasm_v128_load(x + k + 4), vinv)));
    simde_wasm_v128_store(q + k, simde_wasm_i16x8_narrow_i32x4(a, b));
  }
  for (; k < n; ++k) q[k] = static_cast<int16_t>(std::nearbyint(x[k] * inv));
  for (; k < in4; ++k) q[k] = 0;
  return amax / static_cast<float>(qmax);
}

// Panels per tile for a tile of MR rows: enough accumulators in flight to hide
// the latency of the adds, few enough to stay in 16 registers. Measured with
// bench/bench_linear.cpp on the shapes of the shipped models.
template <int MR>
constexpr int panels_per_tile(WeightType type) {
  if (type == WeightType::I8 && kWideI8) return MR == 1 ? 8 : MR == 2 ? 4 : 2;  // one 256-bit accumulator per panel
  if (type == WeightType::I8 && kWasm) return MR <= 2 ? 2 : 1;  // V8 spills a one-row tile of four panels
  return MR == 1 ? 4 : MR == 2 ? 2 : 1;
}
constexpr int kPanelBlock = 8;  // panels the row tiles share while they are in L1

// Tiles of MR rows against panels [p0, p1): whole tiles of panels_per_tile, then single panels.
template <int MR>
void tile_rows(const Linear& w, int p0, int p1, int r0, const LinearArgs& a, const int16_t* q, const float* s) {
  constexpr int kF32 = panels_per_tile<MR>(WeightType::F32), kI8 = panels_per_tile<MR>(WeightType::I8);
  int p = p0;
  if (w.type == WeightType::F32) {
    for (; p + kF32 <= p1; p += kF32) f32_tile<MR, kF32>(w, p, a, r0);
    for (; p < p1; ++p) f32_tile<MR, 1>(w, p, a, r0);
  } else {
    for (; p + kI8 <= p1; p += kI8) i8_tile<MR, kI8>(w, p, q, s, a, r0);
    for (; p < p1; ++p) i8_tile<MR, 1>(w, p, q, s, a, r0);
  }
}

}  // namespace

void linear(const Linear& w, const LinearArgs& a, int16_t* q, float* s) {
  if (a.m <= 0) return;
  if (w.type == WeightType::I8) {
    const int K4 = w.in4();
    for (int r = 0; r < a.m; ++r)
      s[r] = quantize_row_simd(a.x + static_cast<size_t>(r) * a.ldx, w.n_in, K4, q + static_cast<size_t>(r) * K4);
  }
  // Rows in tiles of 4, 3 and 2 (a lone row only when m is 1: it has the fewest
  // accumulators), against blocks of panels small enough to stay in L1.
  const int P = w.panels();
  for (int p0 = 0; p0 < P; p0 += kPanelBlock) {
    const int p1 = min_int(P, p0 + kPanelBlock);
    for (int r = 0; r < a.m;) {
      const int left = a.m - r;
      const int mr = left == 5 ? 3 : min_int(left, 4);
      switch (mr) {
        case 4: tile_rows<4>(w, p0, p1, r, a, q, s); break;
        case 3: tile_rows<3>(w, p0, p1, r, a, q, s); break;
        case 2: tile_rows<2>(w, p0, p1, r, a, q, s); break;
        default: tile_rows<1>(w, p0, p1, r, a, q, s); break;
      }
      r += mr;
    }
  }
}

}  // namespace SEQ2SEQ_KERNEL_NS
}  // namespace seq2seq
