// Helpers of the trainer's parity tests (tests/fixtures/train_*, written by
// tests/tools/make_train_fixtures.py from PyTorch autograd in float64).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "safetensors.h"
#include "train/training_options.h"

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

// A fixture's .safetensors file, its bytes kept alive beside the parsed tensors that point into them.
struct FileBytes {
  std::vector<uint8_t> bytes;
  seq2seq::SafetensorsFile file;
  explicit FileBytes(const std::string& path) : bytes(read_bytes(path)), file(seq2seq::parse_safetensors(bytes.data(), bytes.size())) {}
};

// The optimiser's and schedule's settings as every trainer fixture's "options" holds
// them; the decay, the smoothing and the architecture's own settings each caller reads,
// as the fixtures keep them differently.
inline void read_optimizer_options(const nlohmann::json& o, seq2seq::train::TrainingOptions& t) {
  t.learning_rate = o["learning_rate"].get<float>();
  t.warmup_steps = o["warmup_steps"];
  t.steps = o["steps"];
  t.final_lr_ratio = o["final_lr_ratio"].get<float>();
  t.beta1 = o["beta1"].get<float>();
  t.beta2 = o["beta2"].get<float>();
  t.adam_eps = o["adam_eps"].get<float>();
  t.weight_decay = o["weight_decay"].get<float>();
  t.clip_norm = o["clip_norm"].get<float>();
}

// The options of a Transformer step fixture (train_step_*, train_copy_*): cosine decay,
// the label smoothing beside "options", no dropout.
inline seq2seq::train::TrainingOptions step_fixture_options(const nlohmann::json& fx) {
  seq2seq::train::TrainingOptions t;
  read_optimizer_options(fx["options"], t);
  t.lr_decay = seq2seq::train::LrDecay::Cosine;
  t.label_smoothing = fx["smoothing"].get<float>();
  t.dropout = 0.0f;
  return t;
}

// The small models of the trainer's short end-to-end runs: a one-layer Transformer with
// 2 heads, or a GRU encoder-decoder of the same scale, in batches of 16.
inline void use_small_model(seq2seq::train::TrainingOptions& o) {
  o.layers = 1;
  o.heads = 2;
  o.d_model = 32;
  o.d_ff = 64;
  o.emb_dim = 16;
  o.enc_hidden = 16;
  o.dec_hidden = 32;
  o.attn_dim = 16;
  o.batch_size = 16;
}

}  // namespace seq2seq_test
