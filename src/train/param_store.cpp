#include "train/param_store.h"

#include <algorithm>

#include "errors.h"

namespace seq2seq {
namespace train {

int ParamStore::add(const std::string& name, std::vector<int64_t> shape, bool decay) {
  if (allocated_) throw UsageError("parameter " + quote(name) + " declared after the store was allocated");
  if (by_name_.count(name)) throw UsageError("parameter " + quote(name) + " declared twice");
  if (shape.empty()) throw UsageError("parameter " + quote(name) + " has no shape");
  size_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0) throw UsageError("parameter " + quote(name) + " has a dimension of " + std::to_string(d));
    n *= static_cast<size_t>(d);
  }
  ParamTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.offset = total_;
  t.size = n;
  t.decay = decay;
  total_ += n;
  by_name_[name] = static_cast<int>(tensors_.size());
  tensors_.push_back(std::move(t));
  return static_cast<int>(tensors_.size()) - 1;
}

void ParamStore::allocate() {
  values_.assign(total_, 0.0f);
  grads_.assign(total_, 0.0f);
  allocated_ = true;
}

int ParamStore::index(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

void ParamStore::zero_grads() { std::fill(grads_.begin(), grads_.end(), 0.0f); }

}  // namespace train
}  // namespace seq2seq
