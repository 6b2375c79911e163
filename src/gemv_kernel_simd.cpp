// Four output rows at a time, each with its own 128-bit accumulator over the
// columns, so x is loaded once per four rows; the four accumulators are folded
// into one vector of four results with a transpose instead of four horizontal
// sums. 128-bit SIMDe maps 1:1 to wasm simd128, SSE and NEON.
#include "gemv_kernel.h"

#include <simde/x86/sse.h>

namespace seq2seq {

namespace {

using f4 = simde__m128;

inline f4 madd(f4 a, f4 b, f4 c) { return simde_mm_add_ps(simde_mm_mul_ps(a, b), c); }

// Lane j of the result is the sum of the lanes of xj.
inline f4 sum_lanes(f4 x0, f4 x1, f4 x2, f4 x3) {
  const f4 t0 = simde_mm_add_ps(simde_mm_unpacklo_ps(x0, x1), simde_mm_unpackhi_ps(x0, x1));
  const f4 t1 = simde_mm_add_ps(simde_mm_unpacklo_ps(x2, x3), simde_mm_unpackhi_ps(x2, x3));
  return simde_mm_add_ps(simde_mm_movelh_ps(t0, t1), simde_mm_movehl_ps(t1, t0));
}

inline float hsum(f4 x) {
  x = simde_mm_add_ps(x, simde_mm_movehl_ps(x, x));
  x = simde_mm_add_ss(x, simde_mm_shuffle_ps(x, x, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
  return simde_mm_cvtss_f32(x);
}

}  // namespace

void gemv_rowmajor_simd(const float* w, int rows, int cols, int ldw, const float* x, float* y) {
  const int cols4 = cols & ~3;
  int o = 0;
  for (; o + 4 <= rows; o += 4) {
    const float* r0 = w + static_cast<long>(o) * ldw;
    const float* r1 = r0 + ldw;
    const float* r2 = r1 + ldw;
    const float* r3 = r2 + ldw;
    f4 a0 = simde_mm_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int i = 0; i < cols4; i += 4) {
      const f4 xv = simde_mm_loadu_ps(x + i);
      a0 = madd(simde_mm_loadu_ps(r0 + i), xv, a0);
      a1 = madd(simde_mm_loadu_ps(r1 + i), xv, a1);
      a2 = madd(simde_mm_loadu_ps(r2 + i), xv, a2);
      a3 = madd(simde_mm_loadu_ps(r3 + i), xv, a3);
    }
    f4 sums = sum_lanes(a0, a1, a2, a3);
    if (cols4 < cols) {  // the last cols % 4 columns
      float tail[4] = {0, 0, 0, 0};
      for (int i = cols4; i < cols; ++i) {
        tail[0] += r0[i] * x[i];
        tail[1] += r1[i] * x[i];
        tail[2] += r2[i] * x[i];
        tail[3] += r3[i] * x[i];
      }
      sums = simde_mm_add_ps(sums, simde_mm_loadu_ps(tail));
    }
    simde_mm_storeu_ps(y + o, sums);
  }
  for (; o < rows; ++o) {  // the last rows % 4 rows
    const float* r = w + static_cast<long>(o) * ldw;
    f4 a = simde_mm_setzero_ps();
    for (int i = 0; i < cols4; i += 4) a = madd(simde_mm_loadu_ps(r + i), simde_mm_loadu_ps(x + i), a);
    float s = hsum(a);
    for (int i = cols4; i < cols; ++i) s += r[i] * x[i];
    y[o] = s;
  }
}

}  // namespace seq2seq
