// The trainer's matrix product (src/train/gemm_kernel.h): each instruction set's
// SIMD copy equals the scalar twin to the bit, and both equal a double-precision
// product within f32 rounding, for every transposition, with and without
// accumulation, over every remainder of the 4 x 8 tiles and row strides wider
// than the rows.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_sets.h"
#include "train/gemm_kernel.h"

using seq2seq::testing::simd_gemm_kernels;
using seq2seq::train::GemmArgs;

namespace {

struct GemmRng {  // splitmix64: the same cases natively and in wasm
  uint64_t state;
  float next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<float>((z >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
  }
};

void check_gemm(int m, int n, int k, bool ta, bool tb, bool acc, GemmRng& rng) {
  // Operands stored as given (transposed or not), rows 3 floats wider than they need.
  const int a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
  const int lda = a_cols + 3, ldb = b_cols + 3, ldc = n + 2;
  std::vector<float> a(static_cast<size_t>(a_rows) * lda), b(static_cast<size_t>(b_rows) * ldb), c0(static_cast<size_t>(m) * ldc);
  for (auto& v : a) v = rng.next();
  for (auto& v : b) v = rng.next();
  for (auto& v : c0) v = rng.next();
  auto A = [&](int i, int p) { return ta ? a[static_cast<size_t>(p) * lda + i] : a[static_cast<size_t>(i) * lda + p]; };
  auto B = [&](int p, int j) { return tb ? b[static_cast<size_t>(j) * ldb + p] : b[static_cast<size_t>(p) * ldb + j]; };
  std::vector<float> scratch(seq2seq::train::gemm_scratch_floats(m, n, k) + 1);
  GemmArgs g;
  g.m = m; g.n = n; g.k = k;
  g.a = a.data(); g.lda = lda; g.trans_a = ta;
  g.b = b.data(); g.ldb = ldb; g.trans_b = tb;
  g.ldc = ldc; g.accumulate = acc; g.scratch = scratch.data();
  std::vector<float> cs = c0;
  g.c = cs.data();
  seq2seq::train::gemm_scalar(g);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < ldc; ++j) {
      const size_t at = static_cast<size_t>(i) * ldc + j;
      if (j >= n) {
        REQUIRE(cs[at] == c0[at]);  // past the row's n columns: untouched
        continue;
      }
      double ref = acc ? c0[at] : 0.0, mag = acc ? std::fabs(c0[at]) : 0.0;
      for (int p = 0; p < k; ++p) {
        ref += static_cast<double>(A(i, p)) * B(p, j);
        mag += std::fabs(static_cast<double>(A(i, p)) * B(p, j));
      }
      INFO("m " << m << " n " << n << " k " << k << " ta " << ta << " tb " << tb << " acc " << acc << " at " << i << "," << j);
      REQUIRE(std::fabs(cs[at] - ref) <= 1e-6 * (mag + 1.0) * (1 + k));
    }
  for (const auto& kernel : simd_gemm_kernels()) {
    std::vector<float> cv = c0;
    g.c = cv.data();
    scratch.back() = 12345.0f;  // the kernel keeps to the scratch it was given
    kernel.run(g);
    INFO(kernel.isa << ": m " << m << " n " << n << " k " << k << " ta " << ta << " tb " << tb << " acc " << acc);
    REQUIRE(scratch.back() == 12345.0f);
    for (size_t i = 0; i < cv.size(); ++i) {
      INFO("element " << i);
      REQUIRE(cv[i] == cs[i]);
    }
  }
}

}  // namespace

TEST_CASE("trainer gemm: every SIMD copy equals the scalar twin, both a double product", "[train][kernel][gemm]") {
  GemmRng rng{7};
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool acc : {false, true})
        for (int m : {1, 3, 4, 5, 9})
          for (int n : {1, 7, 8, 9, 17})
            for (int k : {0, 1, 2, 5, 16, 33}) check_gemm(m, n, k, ta, tb, acc, rng);
  // The trainer's shapes: tokens x d_model against d_model x d_ff, and a weight
  // gradient summed over a batch's tokens; k over the panel group's bound (2048 / k).
  check_gemm(37, 64, 32, false, true, false, rng);
  check_gemm(64, 32, 300, true, false, true, rng);
  check_gemm(20, 130, 2100, false, true, false, rng);
}
