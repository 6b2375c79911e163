// The plain twin of gemm_kernel_simd.cpp: each C[i][j] summed over p in order,
// from 0, products rounded before they are added (this file compiles with
// -ffp-contract=off), so that the two give the same bits.
#include "train/gemm_kernel.h"

namespace seq2seq {
namespace train {

void gemm_scalar(const GemmArgs& g) {
  for (int i = 0; i < g.m; ++i) {
    float* c = g.c + static_cast<size_t>(i) * g.ldc;
    for (int j = 0; j < g.n; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < g.k; ++p) {
        const float a = g.trans_a ? g.a[static_cast<size_t>(p) * g.lda + i] : g.a[static_cast<size_t>(i) * g.lda + p];
        const float b = g.trans_b ? g.b[static_cast<size_t>(j) * g.ldb + p] : g.b[static_cast<size_t>(p) * g.ldb + j];
        acc = acc + a * b;
      }
      c[j] = g.accumulate ? c[j] + acc : acc;
    }
  }
}

}  // namespace train
}  // namespace seq2seq
