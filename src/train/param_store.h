// Every trainable tensor of a model in one contiguous f32 buffer, and every
// gradient in another of the same layout (as llm.c keeps GPT-2's): the optimizer
// and gradient clipping walk one array, a checkpoint is two blocks of bytes, and
// export walks the tensors in order under the names the model format gives them
// (docs/model-format.md), so a trained model is written as PyTorch's state_dict
// would be.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace seq2seq {
namespace train {

struct ParamTensor {
  std::string name;            // the model format's tensor name
  std::vector<int64_t> shape;  // as the format stores it ([out, in] for a linear weight)
  size_t offset = 0;           // where it starts in values() and grads(), in floats
  size_t size = 0;             // its number of floats
  bool decay = false;          // AdamW's weight decay applies (weight matrices and embeddings)
};

class ParamStore {
 public:
  // Declares a tensor (before allocate()); returns its index. Throws UsageError for
  // a name given twice or an empty shape.
  int add(const std::string& name, std::vector<int64_t> shape, bool decay);
  // Sizes both buffers to hold every tensor declared, zeroed. After this, no tensor
  // is added and neither buffer is reallocated.
  void allocate();

  int count() const { return static_cast<int>(tensors_.size()); }
  size_t size() const { return total_; }  // floats in each buffer
  const ParamTensor& tensor(int i) const { return tensors_.at(static_cast<size_t>(i)); }
  const std::vector<ParamTensor>& tensors() const { return tensors_; }
  int index(const std::string& name) const;  // -1 when absent

  float* value(int i) { return values_.data() + tensor(i).offset; }
  const float* value(int i) const { return values_.data() + tensor(i).offset; }
  float* grad(int i) { return grads_.data() + tensor(i).offset; }
  const float* grad(int i) const { return grads_.data() + tensor(i).offset; }
  std::vector<float>& values() { return values_; }
  const std::vector<float>& values() const { return values_; }
  std::vector<float>& grads() { return grads_; }
  const std::vector<float>& grads() const { return grads_; }
  void zero_grads();

 private:
  std::vector<ParamTensor> tensors_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<float> values_, grads_;
  size_t total_ = 0;
  bool allocated_ = false;
};

}  // namespace train
}  // namespace seq2seq
