// gemm_kernel.h's product over SIMDe's wasm simd128 API, one copy per instruction
// set (kernel_set.h). Both operands are packed into the scratch first: A into
// blocks of 4 rows ([block][p][4]), B into panels of 8 columns ([panel][p][8]),
// zero-padded at the edges, so the inner loop reads both with unit stride
// whatever their transposition. A tile is 4 rows by 8 columns: eight accumulator
// vectors, each B vector loaded once and used four times. Panels are taken in
// groups small enough to stay in cache while every block of A passes over them.
// Nothing here calls the standard library's out-of-line code (kernel_set.h).
#include <simde/wasm/simd128.h>

#include "kernel_set.h"
#include "train/gemm_kernel.h"

namespace seq2seq {
namespace SEQ2SEQ_KERNEL_NS {

namespace {

using v128 = simde_v128_t;
using train::GemmArgs;
using train::kGemmCols;
using train::kGemmRows;

void pack_a(const GemmArgs& g, float* out) {
  const int blocks = (g.m + kGemmRows - 1) / kGemmRows;
  for (int ib = 0; ib < blocks; ++ib)
    for (int p = 0; p < g.k; ++p)
      for (int ii = 0; ii < kGemmRows; ++ii) {
        const int i = ib * kGemmRows + ii;
        float v = 0.0f;
        if (i < g.m) v = g.trans_a ? g.a[static_cast<size_t>(p) * g.lda + i] : g.a[static_cast<size_t>(i) * g.lda + p];
        out[(static_cast<size_t>(ib) * g.k + p) * kGemmRows + ii] = v;
      }
}

void pack_b(const GemmArgs& g, float* out) {
  const int panels = (g.n + kGemmCols - 1) / kGemmCols;
  for (int jb = 0; jb < panels; ++jb)
    for (int p = 0; p < g.k; ++p)
      for (int jj = 0; jj < kGemmCols; ++jj) {
        const int j = jb * kGemmCols + jj;
        float v = 0.0f;
        if (j < g.n) v = g.trans_b ? g.b[static_cast<size_t>(j) * g.ldb + p] : g.b[static_cast<size_t>(p) * g.ldb + j];
        out[(static_cast<size_t>(jb) * g.k + p) * kGemmCols + jj] = v;
      }
}

// One 4 x 8 tile: rows [i0, i0 + 4) (those below m), columns [j0, j0 + 8) (those below n).
void tile(const GemmArgs& g, const float* pa, const float* pb, int i0, int j0) {
  v128 acc[kGemmRows][2];
  for (int r = 0; r < kGemmRows; ++r) acc[r][0] = acc[r][1] = simde_wasm_f32x4_splat(0.0f);
  for (int p = 0; p < g.k; ++p) {
    const v128 b0 = simde_wasm_v128_load(pb + static_cast<size_t>(p) * kGemmCols);
    const v128 b1 = simde_wasm_v128_load(pb + static_cast<size_t>(p) * kGemmCols + 4);
    for (int r = 0; r < kGemmRows; ++r) {
      const v128 a = simde_wasm_v128_load32_splat(pa + static_cast<size_t>(p) * kGemmRows + r);
      acc[r][0] = simde_wasm_f32x4_add(acc[r][0], simde_wasm_f32x4_mul(a, b0));
      acc[r][1] = simde_wasm_f32x4_add(acc[r][1], simde_wasm_f32x4_mul(a, b1));
    }
  }
  const int rows = g.m - i0 < kGemmRows ? g.m - i0 : kGemmRows;
  const int cols = g.n - j0 < kGemmCols ? g.n - j0 : kGemmCols;
  for (int r = 0; r < rows; ++r) {
    float* c = g.c + static_cast<size_t>(i0 + r) * g.ldc + j0;
    if (cols == kGemmCols) {
      v128 lo = acc[r][0], hi = acc[r][1];
      if (g.accumulate) {
        lo = simde_wasm_f32x4_add(simde_wasm_v128_load(c), lo);
        hi = simde_wasm_f32x4_add(simde_wasm_v128_load(c + 4), hi);
      }
      simde_wasm_v128_store(c, lo);
      simde_wasm_v128_store(c + 4, hi);
    } else {
      float buf[kGemmCols];
      simde_wasm_v128_store(buf, acc[r][0]);
      simde_wasm_v128_store(buf + 4, acc[r][1]);
      for (int j = 0; j < cols; ++j) c[j] = g.accumulate ? c[j] + buf[j] : buf[j];
    }
  }
}

}  // namespace

void gemm(const GemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.k <= 0) {  // an empty sum: C = 0, or C unchanged
    if (!g.accumulate)
      for (int i = 0; i < g.m; ++i)
        for (int j = 0; j < g.n; ++j) g.c[static_cast<size_t>(i) * g.ldc + j] = 0.0f;
    return;
  }
  const int blocks = (g.m + kGemmRows - 1) / kGemmRows;
  const int panels = (g.n + kGemmCols - 1) / kGemmCols;
  float* pa = g.scratch;
  float* pb = g.scratch + static_cast<size_t>(blocks) * kGemmRows * g.k;
  pack_a(g, pa);
  pack_b(g, pb);
  // Panels per group: about 64 KB of packed B.
  const int group = 2048 / g.k > 1 ? 2048 / g.k : 1;
  for (int j0 = 0; j0 < panels; j0 += group) {
    const int j1 = j0 + group < panels ? j0 + group : panels;
    for (int ib = 0; ib < blocks; ++ib) {
      const float* a = pa + static_cast<size_t>(ib) * g.k * kGemmRows;
      for (int jb = j0; jb < j1; ++jb) tile(g, a, pb + static_cast<size_t>(jb) * g.k * kGemmCols, ib * kGemmRows, jb * kGemmCols);
    }
  }
}

}  // namespace SEQ2SEQ_KERNEL_NS
}  // namespace seq2seq
