// The linear-layer kernels: each instruction set's SIMD copy (kernel_sets.h)
// against the scalar twin, and all against a double-precision reference, for f32 and int8 weights, over every remainder of
// rows (panels of 8, groups of 4 columns) and of x rows (tiles of 1-4, 1-4 panels).
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_sets.h"
#include "linear_kernel.h"

using namespace seq2seq;
using seq2seq::testing::all_linear_kernels;
using seq2seq::testing::simd_linear_kernels;

namespace {

struct Case {
  int out, in, m;
  bool relu;
};

// Runs both twins on one case against the reference.
void check_case(const Case& c, WeightType type, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> byte(-127, 127);
  const int ldx = c.in + 3, ldy = c.out + 5;
  std::vector<float> x(static_cast<size_t>(c.m) * ldx), bias(static_cast<size_t>(c.out));
  for (auto& v : x) v = normal(rng);
  for (auto& v : bias) v = normal(rng);
  std::vector<float> wf(static_cast<size_t>(c.out) * c.in), scale(static_cast<size_t>(c.out));
  std::vector<int8_t> wq(wf.size());
  for (int o = 0; o < c.out; ++o) {
    scale[static_cast<size_t>(o)] = 0.01f + 0.02f * std::fabs(normal(rng));
    for (int k = 0; k < c.in; ++k) {
      const size_t i = static_cast<size_t>(o) * c.in + k;
      wq[i] = static_cast<int8_t>(byte(rng));
      wf[i] = type == WeightType::I8 ? wq[i] * scale[static_cast<size_t>(o)] : normal(rng);
    }
  }
  const Linear w = type == WeightType::I8 ? pack_linear_i8(wq.data(), scale.data(), c.out, c.in, bias.data())
                                          : pack_linear_f32(wf.data(), c.out, c.in, bias.data());
  std::vector<float> ys(static_cast<size_t>(c.m) * ldy, -7.0f);
  LinearArgs a;
  a.x = x.data(); a.m = c.m; a.ldx = ldx; a.ldy = ldy; a.relu = c.relu;
  a.y = ys.data();
  linear_kernel_scalar(w, a);
  for (const auto& kernel : simd_linear_kernels()) {
    std::vector<float> yv(ys.size(), -7.0f);
    a.y = yv.data();
    kernel.run(w, a);
    for (int r = 0; r < c.m; ++r) {
      const float* xr = x.data() + static_cast<size_t>(r) * ldx;
      double amax = 0;
      for (int k = 0; k < c.in; ++k) amax = std::max(amax, std::fabs(static_cast<double>(xr[k])));
      for (int o = 0; o < ldy; ++o) {
        const size_t at = static_cast<size_t>(r) * ldy + o;
        INFO(kernel.isa << ": out " << c.out << " in " << c.in << " m " << c.m << " relu " << c.relu << " int8 "
                        << (type == WeightType::I8) << " row " << r << " output " << o);
        if (o >= c.out) {  // the padding between rows of y is not written
          CHECK(ys[at] == -7.0f);
          CHECK(yv[at] == -7.0f);
          continue;
        }
        double ref = bias[static_cast<size_t>(o)], abs_w = 0;
        for (int k = 0; k < c.in; ++k) {
          const double p = static_cast<double>(wf[static_cast<size_t>(o) * c.in + k]) * xr[k];
          ref += p;
          abs_w += std::fabs(static_cast<double>(wf[static_cast<size_t>(o) * c.in + k]));
        }
        if (c.relu) ref = std::max(ref, 0.0);
        // f32 rounding, plus for int8 each x value's rounding to a step of amax/qmax (half a step at most).
        double tol = 1e-5 * (1 + std::sqrt(static_cast<double>(c.in))) * (1 + std::fabs(ref));
        if (type == WeightType::I8) tol += abs_w * 0.5 * amax / int16_quant_max(w.in4());
        CHECK(std::fabs(ys[at] - ref) <= tol);
        CHECK(std::fabs(yv[at] - ref) <= tol);
        // The twins quantise alike and add in the same order, unfused: the same bits.
        CHECK(yv[at] == ys[at]);
      }
    }
  }
}

}  // namespace

TEST_CASE("linear kernel: SIMD equals the scalar twin and a double reference", "[kernel][linear]") {
  std::mt19937 rng(42);
  for (WeightType type : {WeightType::F32, WeightType::I8})
    for (int out : {1, 3, 4, 7, 8, 9, 15, 16, 17, 24, 33, 75})
      for (int in : {1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 130})
        for (int m : {1, 2, 3, 4, 5, 6, 7, 9})
          check_case({out, in, m, (out + in + m) % 2 == 0}, type, rng);
  // The shapes of the shipped models: d_model 256, d_ff 512, 3*256 stacked projections.
  for (WeightType type : {WeightType::F32, WeightType::I8})
    for (int m : {1, 5, 16, 27}) {
      check_case({768, 256, m, false}, type, rng);
      check_case({512, 256, m, true}, type, rng);
      check_case({256, 512, m, false}, type, rng);
    }
}

TEST_CASE("linear kernel: a non-finite row of x gives non-finite outputs, other rows are exact", "[kernel][linear]") {
  const int out = 9, in = 10, m = 3;
  std::vector<float> w(static_cast<size_t>(out) * in, 0.5f), scale(static_cast<size_t>(out), 0.01f), x(static_cast<size_t>(m) * in, 1.0f);
  std::vector<int8_t> q(w.size(), 50);
  x[static_cast<size_t>(in) + 4] = std::numeric_limits<float>::infinity();
  for (const Linear& l : {pack_linear_f32(w.data(), out, in, nullptr), pack_linear_i8(q.data(), scale.data(), out, in, nullptr)}) {
    for (const auto& kernel : all_linear_kernels()) {
      INFO(kernel.isa);
      std::vector<float> y(static_cast<size_t>(m) * out);
      LinearArgs a;
      a.x = x.data(); a.m = m; a.ldx = in; a.y = y.data(); a.ldy = out; a.relu = true;
      kernel.run(l, a);
      for (int o = 0; o < out; ++o) {
        CHECK(y[static_cast<size_t>(o)] == Approx(5.0f));
        CHECK_FALSE(std::isfinite(y[static_cast<size_t>(out + o)]));
        CHECK(y[static_cast<size_t>(2 * out + o)] == Approx(5.0f));
      }
    }
  }
}

TEST_CASE("linear kernel: int16 quantisation of a row", "[kernel][linear]") {
  std::vector<int16_t> q(8, 99);
  const float x[5] = {1.0f, -2.0f, 0.5f, 0.0f, 2.0f};
  const float s = quantize_row_int16(x, 5, 8, q.data());
  CHECK(s == Approx(2.0f / 32767));
  CHECK(q[0] == 16384);  // 16383.5 rounds to even
  CHECK(q[1] == -32767);
  CHECK(q[4] == 32767);
  CHECK(q[5] == 0);
  CHECK(q[7] == 0);
  const float zeros[3] = {0, 0, 0};
  CHECK(quantize_row_int16(zeros, 3, 4, q.data()) == 0.0f);
  const float nan[2] = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  CHECK(std::isnan(quantize_row_int16(nan, 2, 4, q.data())));
  // Wide rows lower qmax so that int32 sums of in4 products cannot overflow.
  std::vector<float> wide(4096, 1.0f);
  std::vector<int16_t> qw(4096);
  quantize_row_int16(wide.data(), 4096, 4096, qw.data());
  CHECK(static_cast<int64_t>(qw[0]) * 128 * 4096 <= std::numeric_limits<int32_t>::max());
}
