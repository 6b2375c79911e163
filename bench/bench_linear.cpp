// The linear-layer products of one Transformer layer of the shipped models
// (d_model 256, d_ff 512: q|k|v [768 x 256], o [256 x 256], fc1 [512 x 256],
// fc2 [256 x 512]) for m rows of x: m = 1 is a greedy step, 5 a beam-5 step,
// 8 a NAR pass over one length, 27 a NAR pass over three lengths. Five ways:
//
//   eigen        y = x Wᵀ + b with Eigen (W row-major, as PyTorch stores it):
//                what the engine did before its own kernels. Eigen's GEMM
//                re-packs W on every call.
//   f32          linear_kernel_simd on W packed once, f32.
//   int8         linear_kernel_simd on the int8 weights: x quantised per row to
//                int16, integer dot products (the engine's default for int8 files).
//   int8→f32     the alternative for int8 weights: widen each panel of int8
//                weights to f32 in the kernel and multiply in f32 (a kernel of
//                this file only, to measure it; same accuracy as f32 compute).
//   scalar       the scalar twins (f32 and int8), for scale.
//
//   bench_linear [rounds, default 5]
// Variants run interleaved, `rounds` times; the table has each one's median
// µs per call of the whole layer and GMAC/s, and the ratios to eigen.
#include <simde/wasm/simd128.h>

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "linear_kernel.h"

using namespace seq2seq;

namespace {

using Clock = std::chrono::steady_clock;
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

struct Shape {
  int out, in;
};
const Shape kLayer[] = {{768, 256}, {256, 256}, {512, 256}, {256, 512}};

// The int8→f32 alternative: panels of 8 outputs, k-major, one int8 per weight.
struct WidenPanels {
  int out, in;
  std::vector<int8_t> q;  // [panel][k][8]
  std::vector<float> scale, bias;
};

WidenPanels pack_widen(const std::vector<int8_t>& w, const std::vector<float>& scale, const std::vector<float>& bias, int out, int in) {
  const int panels = (out + 7) / 8;
  WidenPanels p{out, in, std::vector<int8_t>(static_cast<size_t>(panels) * in * 8, 0), std::vector<float>(static_cast<size_t>(panels) * 8, 0.0f),
                std::vector<float>(static_cast<size_t>(panels) * 8, 0.0f)};
  for (int o = 0; o < out; ++o) {
    p.scale[static_cast<size_t>(o)] = scale[static_cast<size_t>(o)];
    p.bias[static_cast<size_t>(o)] = bias[static_cast<size_t>(o)];
    for (int k = 0; k < in; ++k) p.q[(static_cast<size_t>(o / 8) * in + k) * 8 + o % 8] = w[static_cast<size_t>(o) * in + k];
  }
  return p;
}

// One row of x at a time against two panels (8 accumulator vectors would need
// more rows; this is the shape of the engine's one-row case).
void widen_kernel(const WidenPanels& p, const float* x, int m, float* y) {
  const int panels = (p.out + 7) / 8;
  for (int r = 0; r < m; ++r) {
    const float* xr = x + static_cast<size_t>(r) * p.in;
    for (int pn = 0; pn < panels; ++pn) {
      simde_v128_t a0 = simde_wasm_f32x4_splat(0.0f), a1 = a0;
      const int8_t* w = p.q.data() + static_cast<size_t>(pn) * p.in * 8;
      for (int k = 0; k < p.in; ++k) {
        const simde_v128_t b = simde_wasm_i16x8_extend_low_i8x16(simde_wasm_v128_load64_zero(w + static_cast<size_t>(k) * 8));
        const simde_v128_t w0 = simde_wasm_f32x4_convert_i32x4(simde_wasm_i32x4_extend_low_i16x8(b));
        const simde_v128_t w1 = simde_wasm_f32x4_convert_i32x4(simde_wasm_i32x4_extend_high_i16x8(b));
        const simde_v128_t xs = simde_wasm_v128_load32_splat(xr + k);
        a0 = simde_wasm_f32x4_add(a0, simde_wasm_f32x4_mul(xs, w0));
        a1 = simde_wasm_f32x4_add(a1, simde_wasm_f32x4_mul(xs, w1));
      }
      float out[8];
      simde_wasm_v128_store(out, a0);
      simde_wasm_v128_store(out + 4, a1);
      for (int j = 0; j < 8 && pn * 8 + j < p.out; ++j)
        y[static_cast<size_t>(r) * p.out + pn * 8 + j] = out[j] * p.scale[static_cast<size_t>(pn * 8 + j)] + p.bias[static_cast<size_t>(pn * 8 + j)];
    }
  }
}

// Seconds per call: the best of a few ~2 ms batches (the minimum resists a
// shared machine better than the mean).
double time_op(const std::function<void()>& op) {
  auto run = [&op](int iters) {
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) op();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  int iters = 1;
  while (run(iters) < 2e-3 && iters < (1 << 20)) iters *= 2;
  double best = 1e30;
  for (int s = 0; s < 3; ++s) best = std::min(best, run(iters) / iters);
  return best;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
#if defined(__EMSCRIPTEN__)
  std::printf("target: wasm (Emscripten)\n");
#else
  std::printf("target: native\n");
#endif
  // Deterministic weights with the spread of a trained model's int8 rows.
  struct Layer {
    Shape s;
    RowMatrix w;
    RowVector b;
    Linear f32, i8;
    WidenPanels widen;
  };
  std::vector<Layer> layer;
  uint32_t seed = 12345;
  auto rnd = [&seed]() { return static_cast<int>(((seed = seed * 1103515245u + 12345u) >> 16) % 255) - 127; };
  long macs_per_row = 0;
  for (const Shape& s : kLayer) {
    std::vector<int8_t> q(static_cast<size_t>(s.out) * s.in);
    std::vector<float> scale(static_cast<size_t>(s.out), 0.002f), bias(static_cast<size_t>(s.out), 0.1f), wf(q.size());
    for (size_t i = 0; i < q.size(); ++i) {
      q[i] = static_cast<int8_t>(rnd());
      wf[i] = q[i] * 0.002f;
    }
    Layer l{s, Eigen::Map<RowMatrix>(wf.data(), s.out, s.in), Eigen::Map<RowVector>(bias.data(), s.out),
            pack_linear_f32(wf.data(), s.out, s.in, bias.data()), pack_linear_i8(q.data(), scale.data(), s.out, s.in, bias.data()),
            pack_widen(q, scale, bias, s.out, s.in)};
    layer.push_back(std::move(l));
    macs_per_row += static_cast<long>(s.out) * s.in;
  }

  const char* names[] = {"eigen", "f32", "int8", "int8→f32", "f32 scalar", "int8 scalar"};
  constexpr int kVariants = 6;
  std::printf("\n| m | %s | %s | %s | %s | %s | %s | f32 / eigen | int8 / eigen | int8→f32 / int8 |\n", names[0], names[1], names[2],
              names[3], names[4], names[5]);
  std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (int m : {1, 2, 5, 8, 16, 27}) {
    RowMatrix x(m, 512), y(m, 768);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rnd()) / 64.0f;
    auto run = [&](int v) {
      for (const Layer& l : layer) {
        const Eigen::Map<const RowMatrix> xs(x.data(), m, l.s.in);
        if (v == 0) {
          Eigen::Map<RowMatrix> ys(y.data(), m, l.s.out);
          ys.noalias() = xs * l.w.transpose();
          ys.rowwise() += l.b;
        } else if (v == 3) {
          widen_kernel(l.widen, x.data(), m, y.data());
        } else {
          LinearArgs a;
          a.x = x.data(); a.m = m; a.ldx = l.s.in; a.y = y.data(); a.ldy = l.s.out;
          if (v == 1) linear_kernel_simd(l.f32, a);
          if (v == 2) linear_kernel_simd(l.i8, a);
          if (v == 4) linear_kernel_scalar(l.f32, a);
          if (v == 5) linear_kernel_scalar(l.i8, a);
        }
      }
    };
    std::vector<double> t[kVariants];
    for (int r = 0; r < rounds; ++r)
      for (int v = 0; v < kVariants; ++v) t[v].push_back(time_op([&] { run(v); }));
    double med[kVariants];
    std::printf("| %d |", m);
    for (int v = 0; v < kVariants; ++v) {
      med[v] = median(t[v]);
      std::printf(" %.1f µs, %.1f GMAC/s |", med[v] * 1e6, static_cast<double>(macs_per_row) * m / med[v] * 1e-9);
    }
    std::printf(" %.2fx | %.2fx | %.2fx |\n", med[0] / med[1], med[0] / med[2], med[3] / med[2]);
  }
  return 0;
}
