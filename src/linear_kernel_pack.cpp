// Lays weights out in the panels of linear_kernel.h, once, when a model loads.
#include <cstring>

#include "linear_kernel.h"

namespace seq2seq {

namespace {

Linear shell(WeightType type, int out, int in, const float* bias) {
  Linear l;
  l.type = type;
  l.n_out = out;
  l.n_in = in;
  l.bias.assign(static_cast<size_t>(l.panels()) * kPanelRows, 0.0f);
  if (bias) std::memcpy(l.bias.data(), bias, static_cast<size_t>(out) * sizeof(float));
  return l;
}

}  // namespace

Linear pack_linear_f32(const float* w, int out, int in, const float* bias) {
  Linear l = shell(WeightType::F32, out, in, bias);
  l.f32.assign(static_cast<size_t>(l.panels()) * in * kPanelRows, 0.0f);
  for (int o = 0; o < out; ++o) {
    const int p = o / kPanelRows, j = o % kPanelRows;
    float* col = l.f32.data() + static_cast<size_t>(p) * in * kPanelRows + j;
    for (int k = 0; k < in; ++k) col[static_cast<size_t>(k) * kPanelRows] = w[static_cast<size_t>(o) * in + k];
  }
  return l;
}

Linear pack_linear_i8(const int8_t* q, const float* scale, int out, int in, const float* bias) {
  Linear l = shell(WeightType::I8, out, in, bias);
  const int groups = l.in4() / 4;
  l.i8.assign(static_cast<size_t>(l.panels()) * groups * 32, 0);
  l.scale.assign(static_cast<size_t>(l.panels()) * kPanelRows, 0.0f);
  std::memcpy(l.scale.data(), scale, static_cast<size_t>(out) * sizeof(float));
  for (int o = 0; o < out; ++o) {
    const int p = o / kPanelRows, j = o % kPanelRows;
    for (int k = 0; k < in; ++k) {
      const int g = k / 4, kk = k % 4;  // kk 0,1 in the group's first 16 bytes, 2,3 in its second
      const size_t at = (static_cast<size_t>(p) * groups + g) * 32 + (kk / 2) * 16 + 2 * j + kk % 2;
      l.i8[at] = q[static_cast<size_t>(o) * in + k];
    }
  }
  return l;
}

}  // namespace seq2seq
