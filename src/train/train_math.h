// Constants the trainer's layers share (one place, so that a unity build of the
// library sees each once).
#pragma once

namespace seq2seq {
namespace train {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInvSqrt2 = 0.70710678118654752440;      // GELU: erf(x / sqrt 2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;    // GELU's derivative: the normal density

}  // namespace train
}  // namespace seq2seq
