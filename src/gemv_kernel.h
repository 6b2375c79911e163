// y = W x for a row-major W: the product of one decoding step (linear() with
// a single row). Eigen computes this as a row-major matrix-vector product, a
// chain of sums that LLVM will not vectorise in wasm, where it runs 3x slower
// than Eigen's SSE path would (docs/eigen-wasm.md). This kernel, written once
// over SIMDe, vectorises it; gemv_kernel_scalar.cpp is its plain twin.
#pragma once

namespace seq2seq {

// y[o] = sum_i w[o * ldw + i] * x[i] for o < rows, i < cols.
void gemv_rowmajor_scalar(const float* w, int rows, int cols, int ldw, const float* x, float* y);
void gemv_rowmajor_simd(const float* w, int rows, int cols, int ldw, const float* x, float* y);

}  // namespace seq2seq
