// Takes tensors out of a parsed model file by name and expected shape, and
// remembers which were taken so that a tensor nobody asked for is reported (an
// exporter typo must not leave a weight silently unused).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "safetensors.h"
#include "tensor.h"

namespace seq2seq {

class WeightLoader {
 public:
  explicit WeightLoader(const SafetensorsFile& file) : file_(file) {}

  bool has(const std::string& name) const { return file_.tensors.count(name) != 0; }
  RowMatrix matrix(const std::string& name, int rows, int cols);
  RowVector vector(const std::string& name, int n);
  Linear linear(const std::string& prefix, int out, int in);  // prefix.weight, prefix.bias
  LayerNormParams layer_norm(const std::string& prefix, int n);
  // Throws ModelError naming the first tensor that was never taken.
  void check_all_used() const;

 private:
  std::vector<float> take(const std::string& name, const std::vector<int64_t>& shape);
  const SafetensorsFile& file_;
  std::set<std::string> used_;
};

// Stacks linears that read the same input into one, so one GEMM computes them all
// (q, k and v of self-attention; k and v of cross-attention).
Linear stack_linears(const std::vector<const Linear*>& parts);

}  // namespace seq2seq
