// The SIMD matrix-vector kernel against its scalar twin and a double-precision
// reference, over shapes with every remainder of rows and columns mod 4.
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "gemv_kernel.h"

using namespace seq2seq;

TEST_CASE("gemv: SIMD equals the scalar twin and a double reference", "[kernel][gemv]") {
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int rows : {1, 2, 3, 4, 5, 7, 8, 13, 64, 129, 384}) {
    for (int cols : {1, 2, 3, 4, 5, 6, 7, 8, 17, 31, 128, 130, 256}) {
      for (int pad : {0, 3}) {
        const int ldw = cols + pad;
        std::vector<float> w(static_cast<size_t>(rows) * ldw), x(static_cast<size_t>(cols));
        for (auto& v : w) v = normal(rng);
        for (auto& v : x) v = normal(rng);
        std::vector<float> ys(static_cast<size_t>(rows)), yv(static_cast<size_t>(rows), -1e30f);
        gemv_rowmajor_scalar(w.data(), rows, cols, ldw, x.data(), ys.data());
        gemv_rowmajor_simd(w.data(), rows, cols, ldw, x.data(), yv.data());
        for (int o = 0; o < rows; ++o) {
          double ref = 0;
          for (int i = 0; i < cols; ++i) ref += static_cast<double>(w[static_cast<size_t>(o) * ldw + i]) * x[static_cast<size_t>(i)];
          INFO("rows " << rows << " cols " << cols << " ldw " << ldw << " row " << o);
          const double tol = 1e-5 * (1 + std::sqrt(static_cast<double>(cols)));
          CHECK(std::abs(ys[static_cast<size_t>(o)] - ref) <= tol);
          CHECK(std::abs(yv[static_cast<size_t>(o)] - ref) <= tol);
          CHECK(std::abs(yv[static_cast<size_t>(o)] - ys[static_cast<size_t>(o)]) <= tol);
        }
      }
    }
  }
}
