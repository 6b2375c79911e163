// The plain twin of linear_kernel_simd.cpp: the same packed layouts, the same
// quantisation and, per output, the same order of additions, so that the two
// agree to the last bit where no fused multiply-add is involved.
#include "linear_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace seq2seq {

namespace {

void f32_rows(const Linear& w, const LinearArgs& a) {
  const int K = w.n_in;
  for (int r = 0; r < a.m; ++r) {
    const float* x = a.x + static_cast<size_t>(r) * a.ldx;
    for (int o = 0; o < w.n_out; ++o) {
      const int p = o / kPanelRows, j = o % kPanelRows;
      const float* col = w.f32.data() + static_cast<size_t>(p) * K * kPanelRows + j;
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += x[k] * col[static_cast<size_t>(k) * kPanelRows];
      float v = acc + w.bias[static_cast<size_t>(o)];
      a.y[static_cast<size_t>(r) * a.ldy + o] = a.relu ? std::max(v, 0.0f) : v;
    }
  }
}

void i8_rows(const Linear& w, const LinearArgs& a) {
  const int K4 = w.in4();
  std::vector<int16_t> q(static_cast<size_t>(K4));
  for (int r = 0; r < a.m; ++r) {
    const float s = quantize_row_int16(a.x + static_cast<size_t>(r) * a.ldx, w.n_in, K4, q.data());
    float* y = a.y + static_cast<size_t>(r) * a.ldy;
    for (int o = 0; o < w.n_out; ++o) {
      const int p = o / kPanelRows, j = o % kPanelRows;
      // The SIMD lanes sum in another order; integer addition is exact, so the
      // sums are the same number.
      int32_t acc = 0;
      for (int g = 0; g < K4 / 4; ++g) {
        const int8_t* blk = w.i8.data() + (static_cast<size_t>(p) * (K4 / 4) + g) * 32;
        acc += blk[2 * j] * q[4 * g] + blk[2 * j + 1] * q[4 * g + 1];
        acc += blk[16 + 2 * j] * q[4 * g + 2] + blk[16 + 2 * j + 1] * q[4 * g + 3];
      }
      // A non-finite row has s = NaN and q = 0, so every output is NaN.
      const float v = static_cast<float>(acc) * (s * w.scale[static_cast<size_t>(o)]) + w.bias[static_cast<size_t>(o)];
      y[o] = a.relu ? std::max(v, 0.0f) : v;
    }
  }
}

}  // namespace

int int16_quant_max(int in4) {
  // The loader caps dimensions far below where this bound would reach 1.
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(32767, std::numeric_limits<int32_t>::max() / (128 * int64_t{in4}))));
}

float quantize_row_int16(const float* x, int n, int in4, int16_t* q) {
  float amax = 0.0f;
  bool finite = true;
  for (int k = 0; k < n; ++k) {
    finite = finite && std::isfinite(x[k]);
    amax = std::max(amax, std::fabs(x[k]));
  }
  std::fill(q, q + in4, int16_t{0});
  if (!finite) return std::numeric_limits<float>::quiet_NaN();
  if (amax == 0.0f) return 0.0f;
  const int qmax = int16_quant_max(in4);
  const float inv = static_cast<float>(qmax) / amax;
  for (int k = 0; k < n; ++k) {
    const float v = std::nearbyint(x[k] * inv);
    q[k] = static_cast<int16_t>(std::max(-static_cast<float>(qmax), std::min(static_cast<float>(qmax), v)));
  }
  return amax / static_cast<float>(qmax);
}

void linear_kernel_scalar(const Linear& w, const LinearArgs& a) {
  if (w.type == WeightType::F32)
    f32_rows(w, a);
  else
    i8_rows(w, a);
}

}  // namespace seq2seq
