// The trainer's f32 matrix products. Inference multiplies activations by weights
// packed once at load time (linear_kernel.h); training changes the weights every
// step and needs three shapes of product for each linear layer:
//   forward      Y  = X Wᵀ        (A = X,  B = Wᵀ)
//   input grad   dX = dY W        (A = dY, B = W)
//   weight grad  dW += dYᵀ X      (A = dYᵀ, B = X, accumulated)
// so one kernel takes either operand transposed or not, packs both into the
// layout its inner loop reads (A in blocks of 4 rows, B in panels of 8 columns,
// zero-padded), and multiplies 4 x 8 tiles. Packing costs O((m + n) k) against the
// product's O(m n k), and makes the inner loop the same for all three shapes.
//
// Written once over SIMDe's wasm simd128 API (gemm_kernel_simd.cpp), compiled for
// each instruction set like the inference kernels (kernel_set.h), with a plain
// twin (gemm_kernel_scalar.cpp) that adds in the same order, unfused: the two
// agree to the bit, which tests/native/test_train_gemm.cpp holds them to.
#pragma once
#include <cstddef>

namespace seq2seq {
namespace train {

// C[m x n] = op(A) op(B), or C += op(A) op(B) with accumulate; row-major, each
// operand with its row stride:
//   op(A) [m x k] is A[i * lda + p], or A[p * lda + i] with trans_a;
//   op(B) [k x n] is B[p * ldb + j], or B[j * ldb + p] with trans_b.
// Every C[i][j] is the sum over p = 0..k-1 in that order, from 0, each product
// rounded before it is added; then added to C when accumulating.
struct GemmArgs {
  int m = 0, n = 0, k = 0;
  const float* a = nullptr;
  int lda = 0;
  bool trans_a = false;
  const float* b = nullptr;
  int ldb = 0;
  bool trans_b = false;
  float* c = nullptr;
  int ldc = 0;
  bool accumulate = false;
  float* scratch = nullptr;  // gemm_scratch_floats(m, n, k) floats, the caller's (a step allocates nothing)
};

constexpr int kGemmRows = 4;  // rows of a tile
constexpr int kGemmCols = 8;  // columns of a tile: two 4-lane vectors

inline size_t gemm_scratch_floats(int m, int n, int k) {
  const size_t rows = static_cast<size_t>((m + kGemmRows - 1) / kGemmRows) * kGemmRows;
  const size_t cols = static_cast<size_t>((n + kGemmCols - 1) / kGemmCols) * kGemmCols;
  return (rows + cols) * static_cast<size_t>(k > 0 ? k : 0);
}

void gemm_scalar(const GemmArgs& g);
void gemm(const GemmArgs& g);  // the engine's kernel set's (kernel_set.h)

}  // namespace train
}  // namespace seq2seq
