// Takes tensors out of a parsed model file by name and expected shape, and
// remembers which were taken so that a tensor nobody asked for is reported (an
// exporter typo must not leave a weight silently unused). Linear layers come out
// packed for the kernels (linear_kernel.h): int8- and int4-stored weights are
// multiplied as int8 unless f32 compute is asked for.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "model_config.h"
#include "safetensors.h"
#include "tensor.h"

namespace seq2seq {

class WeightLoader {
 public:
  WeightLoader(const SafetensorsFile& file, Compute compute) : file_(file), compute_(compute) {}

  bool has(const std::string& name) const { return file_.tensors.count(name) != 0; }
  // Widened to f32 whatever the storage (embeddings, norms, the RNN's attention).
  RowMatrix matrix(const std::string& name, int rows, int cols);
  RowVector vector(const std::string& name, int n);
  // prefix.weight [out x in] and prefix.bias [out].
  Linear linear(const std::string& prefix, int out, int in);
  // Linears that read the same input stacked into one, so one product computes
  // them all (q, k and v of self-attention; k and v of cross-attention).
  Linear stacked_linear(const std::vector<std::string>& prefixes, int out_each, int in);
  // A weight and a bias of other names (the tied output projection reads the
  // target embedding); bias "" for a layer without one.
  Linear linear_from(const std::string& weight, const std::string& bias, int out, int in);
  LayerNormParams layer_norm(const std::string& prefix, int n);
  // Throws ModelError naming the first tensor that was never taken.
  void check_all_used() const;
  // The model's parameters: every weight's values (two a byte for 4-bit storage),
  // not the scales and multipliers that quantized storage adds.
  static int64_t parameter_count(const SafetensorsFile& file);

 private:
  // A 2-D weight as the kernels take it: int8 with per-row scales (quantized
  // storage under int8 compute), else f32.
  struct Raw {
    std::vector<float> f32;
    std::vector<int8_t> i8;
    std::vector<float> scale;
  };
  // The tensor, checked for presence and shape, and marked as used.
  const TensorView& find(const std::string& name, const std::vector<int64_t>& shape);
  // A quantized weight (I8, or U8: 4-bit with optional group multipliers) [rows, cols]
  // as int8 with its per-row scales (`name`.scale, checked finite and >= 0); the
  // tensors it came from checked for their shapes and values and marked as used.
  Raw quantized(const std::string& name, int64_t rows, int64_t cols);
  std::vector<float> take(const std::string& name, const std::vector<int64_t>& shape);
  Raw take_raw(const std::string& name, int rows, int cols);
  Linear pack(std::vector<Raw> parts, const std::vector<float>& bias, int out_each, int in);
  const SafetensorsFile& file_;
  Compute compute_;
  std::set<std::string> used_;
};

}  // namespace seq2seq
