#include "weight_loader.h"

#include "errors.h"

namespace seq2seq {

namespace {
std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}
}  // namespace

std::vector<float> WeightLoader::take(const std::string& name, const std::vector<int64_t>& shape) {
  auto it = file_.tensors.find(name);
  if (it == file_.tensors.end()) throw ModelError("missing tensor '" + name + "' " + shape_str(shape));
  if (it->second.shape != shape)
    throw ModelError("tensor '" + name + "' has shape " + shape_str(it->second.shape) + ", expected " + shape_str(shape));
  used_.insert(name);
  if (it->second.dtype != DType::I8) return tensor_to_f32(it->second, name);
  if (shape.size() != 2) throw ModelError("tensor '" + name + "' is stored as I8, which only 2-D weights may be");
  const std::string scale_name = name + ".scale";
  auto s = file_.tensors.find(scale_name);
  if (s == file_.tensors.end()) throw ModelError("tensor '" + name + "' is stored as I8 but '" + scale_name + "' is missing");
  if (s->second.shape != std::vector<int64_t>{shape[0]})
    throw ModelError("tensor '" + scale_name + "' has shape " + shape_str(s->second.shape) + ", expected [" +
                     std::to_string(shape[0]) + "]");
  used_.insert(scale_name);
  return dequantize_i8(it->second, tensor_to_f32(s->second, scale_name), name);
}

RowMatrix WeightLoader::matrix(const std::string& name, int rows, int cols) {
  const auto v = take(name, {rows, cols});
  return Eigen::Map<const RowMatrix>(v.data(), rows, cols);
}

RowVector WeightLoader::vector(const std::string& name, int n) {
  const auto v = take(name, {n});
  return Eigen::Map<const RowVector>(v.data(), n);
}

Linear WeightLoader::linear(const std::string& prefix, int out, int in) {
  return Linear{matrix(prefix + ".weight", out, in), vector(prefix + ".bias", out)};
}

LayerNormParams WeightLoader::layer_norm(const std::string& prefix, int n) {
  return LayerNormParams{vector(prefix + ".weight", n), vector(prefix + ".bias", n)};
}

void WeightLoader::check_all_used() const {
  for (const auto& kv : file_.tensors)
    if (!used_.count(kv.first)) throw ModelError("unexpected tensor '" + kv.first + "' (not part of this architecture)");
}

Linear stack_linears(const std::vector<const Linear*>& parts) {
  Eigen::Index rows = 0;
  for (const auto* p : parts) rows += p->w.rows();
  Linear out;
  out.w.resize(rows, parts.front()->w.cols());
  out.b.resize(rows);
  Eigen::Index r = 0;
  for (const auto* p : parts) {
    out.w.middleRows(r, p->w.rows()) = p->w;
    out.b.segment(r, p->w.rows()) = p->b;
    r += p->w.rows();
  }
  return out;
}

}  // namespace seq2seq
