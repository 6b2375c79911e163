// Does Eigen vectorise under Emscripten? Times the products the engine does
// with Eigen (tensor.cpp: y = x wᵀ with x [T x 256], w [1024 x 256], both
// row-major; T = 1 is a greedy decoding step, T = 4 a small beam) and two
// matrix-vector products, and prints which SIMD path Eigen
// compiled in. The same source is built several ways (docs/eigen-wasm.md has
// the commands and the results); the CMake target is just one of them.
//
// Usage: bench_eigen_gemm [samples, default 31]
// Besides the table it prints one "RESULT <op> <GFLOP/s>" line per op so that
// runs of different builds can be interleaved and compared by a script.

#if defined(__EMSCRIPTEN__) && defined(__SSE2__) && !defined(EIGEN_DONT_VECTORIZE)
// Eigen 3.4.0's SSE path does not compile under Emscripten 3.1.6 as it is:
// (1) Eigen includes <mmintrin.h>, which Emscripten does not provide, so clang's
//     x86-only header is found and #errors; MMX is never used, so its include
//     guard is set to skip it;
// (2) clang reports itself as GCC 4.2, so Eigen picks its "GCC < 6.3" branch
//     for pmin/pmax, which is x86 inline asm. Claiming 6.3 after Macros.h has
//     set up everything else selects the intrinsic branch instead (the other
//     asm in Eigen is keyed to __GNUC__ >= 6 and stays off).
// Only for this measurement; see docs/eigen-wasm.md before using it elsewhere.
#  define __MMINTRIN_H
#  include <Eigen/src/Core/util/Macros.h>
#  undef EIGEN_COMP_GNUC
#  define EIGEN_COMP_GNUC 63
#endif

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

constexpr int kIn = 256, kOut = 1024;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds per call over `samples` samples of about 2 ms each.
double time_op(const std::function<void()>& op, int samples) {
  auto run = [&op](int iters) {
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) op();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  int iters = 1;
  while (run(iters) < 2e-3 && iters < (1 << 24)) iters *= 2;
  std::vector<double> t;
  for (int s = 0; s < samples; ++s) t.push_back(run(iters) / iters);
  return median(t);
}

std::string eigen_config() {
  std::string s = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                  std::to_string(EIGEN_MINOR_VERSION) + "; EIGEN_VECTORIZE ";
#if defined(EIGEN_VECTORIZE)
  s += "on";
#else
  s += "off";
#endif
  s += ", EIGEN_VECTORIZE_SSE2 ";
#if defined(EIGEN_VECTORIZE_SSE2)
  s += "on";
#else
  s += "off";
#endif
  s += "; instruction sets: ";
  s += Eigen::SimdInstructionSetsInUse();
  s += "; float packet size " + std::to_string(Eigen::internal::packet_traits<float>::size);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::max(1, std::atoi(argv[1])) : 31;
#if defined(__EMSCRIPTEN__)
  std::printf("target: wasm (Emscripten)%s\n",
#  if defined(__wasm_simd128__)
              ", -msimd128"
#  else
              ", no simd128"
#  endif
  );
#else
  std::printf("target: native\n");
#endif
  std::printf("%s\n\n", eigen_config().c_str());

  // Deterministic, non-trivial data (denormals and zeros would distort timings).
  RowMatrix w(kOut, kIn);
  for (Eigen::Index r = 0; r < w.rows(); ++r)
    for (Eigen::Index c = 0; c < w.cols(); ++c) w(r, c) = static_cast<float>((r * 7 + c * 13) % 17) / 17.0f - 0.5f;
  const ColMatrix wc = w;
  Eigen::VectorXf v = Eigen::VectorXf::LinSpaced(kIn, -1.0f, 1.0f);
  Eigen::VectorXf yv(kOut);

  struct Op {
    std::string name;
    double flops;
    std::function<void()> run;
  };
  std::vector<Op> ops;
  std::vector<RowMatrix> xs, ys;
  const int Ts[] = {1, 4, 16, 64};
  xs.reserve(4);
  ys.reserve(4);
  for (int T : Ts) {
    xs.push_back(RowMatrix::NullaryExpr(T, kIn, [](Eigen::Index r, Eigen::Index c) {
      return static_cast<float>((r * 5 + c * 3) % 11) / 11.0f - 0.5f;
    }));
    ys.emplace_back(T, kOut);
    RowMatrix& x = xs.back();
    RowMatrix& y = ys.back();
    ops.push_back({"x[" + std::to_string(T) + "x256] * w^T[256x1024]", 2.0 * T * kIn * kOut,
                   [&x, &y, &w] { y.noalias() = x * w.transpose(); }});
  }
  ops.push_back({"w[1024x256] row-major * v", 2.0 * kIn * kOut, [&] { yv.noalias() = w * v; }});
  ops.push_back({"w[1024x256] col-major * v", 2.0 * kIn * kOut, [&] { yv.noalias() = wc * v; }});

  // V8 first runs wasm from its baseline compiler and swaps in optimised code
  // later; without this the first products measure the baseline tier.
  const auto warm_start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - warm_start).count() < 0.5)
    for (const Op& op : ops) op.run();

  std::printf("| product                      | GFLOP/s | us/call |\n");
  std::printf("|------------------------------|--------:|--------:|\n");
  std::vector<std::string> results;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const double t = time_op(ops[i].run, samples);
    const double gflops = ops[i].flops / t * 1e-9;
    std::printf("| %-28s | %7.2f | %7.2f |\n", ops[i].name.c_str(), gflops, t * 1e6);
    results.push_back("RESULT op" + std::to_string(i) + " " + std::to_string(gflops));
  }
  // Keeps the products observable.
  float check = yv.sum();
  for (const RowMatrix& y : ys) check += y.sum();
  std::printf("\n(checksum %.4f)\n", static_cast<double>(check));
  for (const std::string& r : results) std::printf("%s\n", r.c_str());
  return 0;
}
