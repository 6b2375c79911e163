// Dropout (Srivastava et al. 2014), inverted: a kept value is scaled by 1 / (1 - p)
// while training, so nothing changes at inference. The mask is drawn from the
// trainer's own generator (random.h: the same stream natively and in wasm), so a
// seed repeats a run; the mask is kept for the backward pass, which multiplies
// the gradient by the same mask.
#pragma once
#include <cstddef>

#include "random.h"

namespace seq2seq {
namespace train {

// mask[i] = 0 with probability p, else 1 / (1 - p). p = 0 writes all ones and
// draws nothing, so a run without dropout draws the same numbers as before.
inline void draw_dropout_mask(Random& rng, float p, float* mask, size_t n) {
  if (p <= 0.0f) {
    for (size_t i = 0; i < n; ++i) mask[i] = 1.0f;
    return;
  }
  const float keep = 1.0f / (1.0f - p);
  // 24 random bits a value are plenty for a keep/drop draw.
  const uint64_t threshold = static_cast<uint64_t>(static_cast<double>(p) * 16777216.0);
  for (size_t i = 0; i < n; ++i) mask[i] = (rng.next_u64() >> 40) < threshold ? 0.0f : keep;
}

}  // namespace train
}  // namespace seq2seq
