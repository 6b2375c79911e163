#include "gemv_kernel.h"

namespace seq2seq {

void gemv_rowmajor_scalar(const float* w, int rows, int cols, int ldw, const float* x, float* y) {
  for (int o = 0; o < rows; ++o) {
    const float* row = w + static_cast<long>(o) * ldw;
    float acc = 0.0f;
    for (int i = 0; i < cols; ++i) acc += row[i] * x[i];
    y[o] = acc;
  }
}

}  // namespace seq2seq
