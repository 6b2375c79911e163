// Helpers of the trainer's parity tests (tests/fixtures/train_*, written by
// tests/tools/make_train_fixtures.py from PyTorch autograd in float64).
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace seq2seq_test {

// A JSON number or nested list of numbers, flattened in order.
inline void flatten_into(const nlohmann::json& j, std::vector<float>& out) {
  if (j.is_array()) {
    for (const auto& v : j) flatten_into(v, out);
  } else {
    out.push_back(j.get<float>());
  }
}
inline std::vector<float> flat(const nlohmann::json& j) {
  std::vector<float> out;
  flatten_into(j, out);
  return out;
}

// The trainer's parity tolerance: 1e-5 relative to the tensor's largest magnitude
// (float32 arithmetic against float64 references).
constexpr double kTrainTol = 1e-5;

// The largest |got - want| over the largest |want| (or `floor`, if larger: for a
// gradient that is 0 in exact arithmetic, such as the key bias's, the scale of
// its neighbours').
inline double relative_error(const float* got, const std::vector<float>& want, double floor = 1e-30) {
  double err = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(d <= err)) err = d;  // NaN sticks
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  return err / std::max(scale, floor);
}

inline void check_rel(const float* got, const std::vector<float>& want, const std::string& what, double tol = kTrainTol,
                      double floor = 1e-30) {
  const double e = relative_error(got, want, floor);
  INFO(what << ": relative error " << e << " over " << want.size() << " values");
  CHECK(e <= tol);
}
inline void check_rel(const std::vector<float>& got, const std::vector<float>& want, const std::string& what, double tol = kTrainTol,
                      double floor = 1e-30) {
  REQUIRE(got.size() == want.size());
  check_rel(got.data(), want, what, tol, floor);
}

inline double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, std::fabs(static_cast<double>(x)));
  return m;
}

}  // namespace seq2seq_test
