// Scalar vs SIMD attention kernel, one head, the same source natively and in
// wasm (node). Two shapes per (dh, L): a full self-attention block
// (n_q = n_k = L) and one decoding step (n_q = 1, n_k = L).
//
// Machines here are shared and noisy: the whole box slows down by 2-3x for
// tens of milliseconds at a time. So samples are short (about 1 ms), the two
// kernels are timed in alternation (S V V S S V ...), GFLOP/s is the median
// over each kernel's samples, and the speed-up is the median of the ratios of
// neighbouring samples, which share whatever slowdown was going on. Nothing is
// asserted about time.
//
// Usage: bench_attention [samples per kernel, default 41]
#include "attention_kernel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using seq2seq::AttentionHeadArgs;

namespace {

using Clock = std::chrono::steady_clock;
using Kernel = void (*)(const AttentionHeadArgs&);

// Heads are column slices of [T x d_model] projections, as in the engine.
constexpr int kModelDim = 512;

struct Buffers {
  std::vector<float> q, k, v, out, probs, scratch;
};

double seconds(Kernel kernel, const AttentionHeadArgs& a, int iters) {
  const auto t0 = Clock::now();
  for (int it = 0; it < iters; ++it) kernel(a);
  return std::chrono::duration<double>(Clock::now() - t0).count() / iters;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  double scalar_gflops, simd_gflops, speedup, max_diff;
};

Row measure(int n_q, int n_k, int dh, int samples) {
  Buffers b;
  std::uint32_t seed = 12345u + static_cast<std::uint32_t>(n_q * 7 + n_k * 13 + dh);
  auto rnd = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  };
  b.q.resize(static_cast<std::size_t>(n_q) * kModelDim);
  b.k.resize(static_cast<std::size_t>(n_k) * kModelDim);
  b.v.resize(static_cast<std::size_t>(n_k) * kModelDim);
  for (auto* m : {&b.q, &b.k, &b.v})
    for (float& x : *m) x = rnd();
  b.out.assign(static_cast<std::size_t>(n_q) * kModelDim, 0.0f);
  b.probs.assign(static_cast<std::size_t>(n_q) * n_k, 0.0f);
  b.scratch.assign(n_k, 0.0f);

  AttentionHeadArgs a;
  a.q = b.q.data(); a.ldq = kModelDim;
  a.k = b.k.data(); a.ldk = kModelDim;
  a.v = b.v.data(); a.ldv = kModelDim;
  a.out = b.out.data(); a.ldo = kModelDim;
  a.scratch = b.scratch.data();
  a.n_q = n_q; a.n_k = n_k; a.dh = dh;
  a.scale = 1.0f / std::sqrt(static_cast<float>(dh));

  // Sanity check (not a test): the two kernels agree on this input.
  seq2seq::attention_head_scalar(a);
  const std::vector<float> ref = b.out;
  seq2seq::attention_head_simd(a);
  double max_diff = 0.0;
  for (int i = 0; i < n_q; ++i)
    for (int d = 0; d < dh; ++d) {
      const std::size_t at = static_cast<std::size_t>(i) * kModelDim + d;
      max_diff = std::max(max_diff, static_cast<double>(std::abs(ref[at] - b.out[at])));
    }

  // Calibrate on the scalar kernel so that one sample takes about 1 ms.
  int iters = 1;
  while (seconds(seq2seq::attention_head_scalar, a, iters) * iters < 1e-3 && iters < (1 << 24)) iters *= 2;

  std::vector<double> t_scalar, t_simd, ratio;
  for (int s = 0; s < samples; ++s) {
    // Alternate which kernel goes first so neither always follows the other.
    if (s % 2 == 0) {
      t_scalar.push_back(seconds(seq2seq::attention_head_scalar, a, iters));
      t_simd.push_back(seconds(seq2seq::attention_head_simd, a, iters));
    } else {
      t_simd.push_back(seconds(seq2seq::attention_head_simd, a, iters));
      t_scalar.push_back(seconds(seq2seq::attention_head_scalar, a, iters));
    }
    ratio.push_back(t_scalar.back() / t_simd.back());
  }
  // Q·Kᵀ and P·V: 2 flops per multiply-add each, softmax not counted.
  const double flops = 4.0 * n_q * n_k * dh;
  return {flops / median(t_scalar) * 1e-9, flops / median(t_simd) * 1e-9, median(ratio), max_diff};
}

void warm_up() {
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < 0.5)
    for (const int dh : {32, 64, 128}) measure(4, 64, dh, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::max(1, std::atoi(argv[1])) : 41;
#if defined(__EMSCRIPTEN__)
  const char* target = "wasm (Emscripten, simd128)";
#elif defined(__AVX2__)
  const char* target = "native x86-64 with AVX2";
#else
  const char* target = "native";
#endif
  std::printf("attention kernel, one head: %s; median of %d interleaved samples per kernel\n", target, samples);
  std::printf("GFLOP/s counts 4*n_q*n_k*dh (Q.K^T and P.V multiply-adds); speed-up is the median of\n"
              "scalar/SIMD time ratios of neighbouring samples, so it need not equal the ratio of the columns\n\n");
  // V8 first runs wasm from its baseline compiler and swaps in optimised code
  // later; without this the first rows measure the baseline tier.
  warm_up();

  std::printf("| shape        |  dh |   L | scalar GFLOP/s | SIMD GFLOP/s | speed-up |\n");
  std::printf("|--------------|----:|----:|---------------:|-------------:|---------:|\n");
  double worst_diff = 0.0;
  for (const bool decode : {false, true}) {
    for (const int dh : {32, 64, 128}) {
      for (const int L : {8, 16, 32, 64, 128, 256}) {
        const Row r = measure(decode ? 1 : L, L, dh, samples);
        worst_diff = std::max(worst_diff, r.max_diff);
        std::printf("| %-12s | %3d | %3d | %14.2f | %12.2f | %7.2fx |\n", decode ? "decode n_q=1" : "n_q=n_k=L", dh, L,
                    r.scalar_gflops, r.simd_gflops, r.speedup);
        std::fflush(stdout);
      }
    }
  }
  std::printf("\nlargest |scalar - SIMD| over all outputs: %.3g\n", worst_diff);
  return 0;
}
