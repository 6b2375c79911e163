// The products of every linear layer, y = x Wᵀ + b, for the shapes this engine
// runs: a few to a few dozen rows of x (beam hypotheses, NAR positions, source
// positions) against one weight matrix. W is laid out once, at load time, in
// panels of kPanelRows output rows, so that the kernel streams it once for all
// rows of x and never re-packs it (a GEMM library re-packs W on every call,
// which at these sizes costs more than the product: docs/performance.md).
//
// Two weight types:
//   F32  W widened to f32 (f32/f16 files, or int8 files when f32 compute is asked for).
//   I8   W kept as the file's int8 values with their per-row scales; each row of
//        x is quantised on the fly to int16 with its own scale, and the products
//        are integer dot products (wasm simd128's i32x4.dot_i16x8_s, SSE2's pmaddwd),
//        accumulated exactly in int32. Its only error beyond the file's own int8
//        rounding is that of x's int16 rounding (relative 2^-15 of a row's max).
//
// Written once over SIMDe's wasm simd128 API (linear_kernel_simd.cpp): native
// simd128 in the browser, SSE2, SSE4.1 or AVX2 natively, chosen at run time
// (kernel_set.h). linear_kernel_scalar.cpp is its plain twin, summing in the
// same order, which the tests hold every instruction set's copy to.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace seq2seq {

constexpr int kPanelRows = 8;  // output rows per panel: two 4-lane vectors

enum class WeightType { F32, I8 };

// A linear layer, packed. Panel p holds output rows [8p, 8p + 8); rows past
// `out` and columns past `in` are zero-padded, as is `bias`.
//   F32: f32[(p * in + k) * 8 + j] = W[8p + j][k]
//   I8:  columns in groups of four, `in4` = in rounded up to 4; for group g the
//        32 bytes at i8[(p * in4 / 4 + g) * 32] hold the panel's eight rows' k0,k1
//        pairs, then their k2,k3 pairs, as the pairwise dot product reads them:
//        r0k0 r0k1 r1k0 r1k1 ... r7k0 r7k1 | r0k2 r0k3 r1k2 r1k3 ... r7k2 r7k3
struct Linear {
  WeightType type = WeightType::F32;
  int n_out = 0, n_in = 0;
  std::vector<float> f32;
  std::vector<int8_t> i8;
  std::vector<float> scale;  // I8: W[o][k] = i8 value * scale[o]
  std::vector<float> bias;   // padded to whole panels

  int in() const { return n_in; }
  int out() const { return n_out; }
  int panels() const { return (n_out + kPanelRows - 1) / kPanelRows; }
  int in4() const { return (n_in + 3) & ~3; }
  size_t bytes() const { return f32.size() * 4 + i8.size() + scale.size() * 4 + bias.size() * 4; }
};

// From a row-major [out x in] matrix (PyTorch's layout); bias may be null (zero).
Linear pack_linear_f32(const float* w, int out, int in, const float* bias);
// From int8 rows and their scales (scales must be finite and >= 0: the loader checks).
Linear pack_linear_i8(const int8_t* q, const float* scale, int out, int in, const float* bias);

// y[r * ldy + o] = x[r] · W[o] + bias[o] for r < m, o < out; with relu, max(0, ·).
// x rows are `ldx` floats apart and hold `in` values. A row of x with a
// non-finite value gives non-finite outputs (NaN on the int8 path, which cannot
// quantise it), never finite garbage.
struct LinearArgs {
  const float* x = nullptr;
  int m = 0, ldx = 0;
  float* y = nullptr;
  int ldy = 0;
  bool relu = false;
};
void linear_kernel_scalar(const Linear& w, const LinearArgs& a);
void linear_kernel_simd(const Linear& w, const LinearArgs& a);  // the engine's kernel set's (kernel_set.h)

// The int16 quantisation of one row of x for the I8 kernels, shared by both twins
// so that they quantise alike: q[k] = nearbyint(x[k] * qmax / max|x|) for k < n,
// 0 up to in4; qmax = 32767, or less where an int32 sum of in4 products with
// |w| <= 128 could otherwise overflow. Returns the scale max|x| / qmax (0 for an
// all-zero row, NaN for a row holding a non-finite value, whose q is all 0).
float quantize_row_int16(const float* x, int n, int in4, int16_t* q);
int int16_quant_max(int in4);

}  // namespace seq2seq
