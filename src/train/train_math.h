// Constants the trainer's layers share (one place, so that a unity build of the
// library sees each once).
#pragma once
#include <cmath>

#include "random.h"

namespace seq2seq {
namespace train {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInvSqrt2 = 0.70710678118654752440;      // GELU: erf(x / sqrt 2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;    // GELU's derivative: the normal density

// A standard normal draw (Box-Muller) from the trainer's generator: two uniform
// draws a value, the same stream natively and in wasm.
inline float normal_draw(Random& rng) {
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();  // u1 in (0, 1]
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2));
}

}  // namespace train
}  // namespace seq2seq
