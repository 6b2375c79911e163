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

const TensorView& WeightLoader::find(const std::string& name, const std::vector<int64_t>& shape) {
  auto it = file_.tensors.find(name);
  if (it == file_.tensors.end()) throw ModelError("missing tensor " + quote(name) + " " + shape_str(shape));
  if (it->second.shape != shape)
    throw ModelError("tensor " + quote(name) + " has shape " + shape_str(it->second.shape) + ", expected " + shape_str(shape));
  used_.insert(name);
  return it->second;
}

std::vector<float> WeightLoader::i8_scales(const std::string& name, int64_t rows) {
  const std::string scale_name = name + ".scale";
  auto s = file_.tensors.find(scale_name);
  if (s == file_.tensors.end()) throw ModelError("tensor " + quote(name) + " is stored as I8 but " + quote(scale_name) + " is missing");
  if (s->second.shape != std::vector<int64_t>{rows})
    throw ModelError("tensor " + quote(scale_name) + " has shape " + shape_str(s->second.shape) + ", expected [" +
                     std::to_string(rows) + "]");
  used_.insert(scale_name);
  std::vector<float> scale = tensor_to_f32(s->second, scale_name);
  check_i8_scales(scale, scale_name);
  return scale;
}

std::vector<float> WeightLoader::take(const std::string& name, const std::vector<int64_t>& shape) {
  const TensorView& t = find(name, shape);
  if (t.dtype != DType::I8) return tensor_to_f32(t, name);
  if (shape.size() != 2) throw ModelError("tensor " + quote(name) + " is stored as I8, which only 2-D weights may be");
  return dequantize_i8(t, i8_scales(name, shape[0]), name);
}

RowMatrix WeightLoader::matrix(const std::string& name, int rows, int cols) {
  const auto v = take(name, {rows, cols});
  return Eigen::Map<const RowMatrix>(v.data(), rows, cols);
}

RowVector WeightLoader::vector(const std::string& name, int n) {
  const auto v = take(name, {n});
  return Eigen::Map<const RowVector>(v.data(), n);
}

WeightLoader::Raw WeightLoader::take_raw(const std::string& name, int rows, int cols) {
  Raw r;
  auto it = file_.tensors.find(name);
  if (compute_ == Compute::F32 || it == file_.tensors.end() || it->second.dtype != DType::I8) {
    r.f32 = take(name, {rows, cols});
    return r;
  }
  // Kept as stored: the int8 bytes and their checked scales, never widened.
  const TensorView& t = find(name, {rows, cols});
  r.scale = i8_scales(name, rows);
  r.i8.assign(reinterpret_cast<const int8_t*>(t.data), reinterpret_cast<const int8_t*>(t.data) + static_cast<size_t>(rows) * cols);
  return r;
}

Linear WeightLoader::pack(std::vector<Raw> parts, const std::vector<float>& bias, int out_each, int in) {
  const int out = out_each * static_cast<int>(parts.size());
  const size_t part_size = static_cast<size_t>(out_each) * in;
  bool all_i8 = true;
  for (const Raw& p : parts) all_i8 = all_i8 && !p.i8.empty();
  if (all_i8) {
    std::vector<int8_t> q;
    std::vector<float> scale;
    for (const Raw& p : parts) {
      q.insert(q.end(), p.i8.begin(), p.i8.end());
      scale.insert(scale.end(), p.scale.begin(), p.scale.end());
    }
    return pack_linear_i8(q.data(), scale.data(), out, in, bias.data());
  }
  // Mixed storage in one stack: widen the int8 parts, as the f32 path would.
  std::vector<float> w;
  w.reserve(part_size * parts.size());
  for (const Raw& p : parts) {
    if (p.i8.empty()) {
      w.insert(w.end(), p.f32.begin(), p.f32.end());
    } else {
      const auto f = dequantize_i8(p.i8.data(), p.scale.data(), static_cast<size_t>(out_each), static_cast<size_t>(in));
      w.insert(w.end(), f.begin(), f.end());
    }
  }
  return pack_linear_f32(w.data(), out, in, bias.data());
}

Linear WeightLoader::linear(const std::string& prefix, int out, int in) {
  return linear_from(prefix + ".weight", prefix + ".bias", out, in);
}

Linear WeightLoader::linear_from(const std::string& weight, const std::string& bias, int out, int in) {
  std::vector<Raw> parts;
  parts.push_back(take_raw(weight, out, in));
  return pack(std::move(parts), bias.empty() ? std::vector<float>(static_cast<size_t>(out), 0.0f) : take(bias, {out}), out, in);
}

Linear WeightLoader::stacked_linear(const std::vector<std::string>& prefixes, int out_each, int in) {
  std::vector<Raw> parts;
  std::vector<float> bias;
  for (const auto& p : prefixes) {
    parts.push_back(take_raw(p + ".weight", out_each, in));
    const auto b = take(p + ".bias", {out_each});
    bias.insert(bias.end(), b.begin(), b.end());
  }
  return pack(std::move(parts), bias, out_each, in);
}

LayerNormParams WeightLoader::layer_norm(const std::string& prefix, int n) {
  return LayerNormParams{vector(prefix + ".weight", n), vector(prefix + ".bias", n)};
}

void WeightLoader::check_all_used() const {
  for (const auto& kv : file_.tensors)
    if (!used_.count(kv.first)) throw ModelError("unexpected tensor " + quote(kv.first) + " (not part of this architecture)");
}

}  // namespace seq2seq
