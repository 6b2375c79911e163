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

WeightLoader::Raw WeightLoader::quantized(const std::string& name, int64_t rows, int64_t cols) {
  const DType stored = file_.tensors.at(name).dtype;
  const bool int4 = stored == DType::U8;
  if (int4 && cols % 2 != 0)
    throw ModelError("tensor " + quote(name) + " is stored as U8 (two 4-bit values a byte), which needs an even number of columns, not " +
                     std::to_string(cols));
  const TensorView& t = find(name, {rows, int4 ? cols / 2 : cols});
  const std::string scale_name = name + ".scale";
  auto s = file_.tensors.find(scale_name);
  if (s == file_.tensors.end()) throw ModelError("tensor " + quote(name) + " is stored as " + dtype_name(stored) + " but " + quote(scale_name) + " is missing");
  if (s->second.shape != std::vector<int64_t>{rows})
    throw ModelError("tensor " + quote(scale_name) + " has shape " + shape_str(s->second.shape) + ", expected [" +
                     std::to_string(rows) + "]");
  if (s->second.dtype != DType::F32 && s->second.dtype != DType::F16)
    throw ModelError("tensor " + quote(scale_name) + " is stored as " + dtype_name(s->second.dtype) + "; a weight's scales are F32 or F16");
  used_.insert(scale_name);
  Raw r;
  r.scale = tensor_to_f32(s->second, scale_name);
  check_i8_scales(r.scale, scale_name);
  const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  if (!int4) {
    r.i8.assign(reinterpret_cast<const int8_t*>(t.data), reinterpret_cast<const int8_t*>(t.data) + n);
    return r;
  }
  // A 4-bit weight's group multipliers (optional): [rows, groups], 0..15.
  const std::string mult_name = name + ".multiplier";
  auto m = file_.tensors.find(mult_name);
  const uint8_t* mult = nullptr;
  size_t groups = 1;
  if (m != file_.tensors.end()) {
    const auto& shape = m->second.shape;
    if (m->second.dtype != DType::U8 || shape.size() != 2 || shape[0] != rows || shape[1] < 1 || cols % shape[1] != 0)
      throw ModelError("tensor " + quote(mult_name) + " must be U8 of shape [" + std::to_string(rows) + ", groups] with groups dividing " +
                       std::to_string(cols) + ", not " + dtype_name(m->second.dtype) + " " + shape_str(shape));
    used_.insert(mult_name);
    mult = m->second.data;
    groups = static_cast<size_t>(shape[1]);
    for (size_t i = 0; i < m->second.nbytes; ++i)
      if (mult[i] > 15)
        throw ModelError("tensor " + quote(mult_name) + " holds " + std::to_string(mult[i]) + " at index " + std::to_string(i) +
                         " (multipliers are 0..15, so that each product fits in int8)");
  }
  r.i8 = widen_int4(t, mult, static_cast<size_t>(rows), static_cast<size_t>(cols), groups);
  return r;
}

std::vector<float> WeightLoader::take(const std::string& name, const std::vector<int64_t>& shape) {
  auto it = file_.tensors.find(name);
  if (it == file_.tensors.end() || !is_quantized(it->second.dtype)) return tensor_to_f32(find(name, shape), name);
  if (shape.size() != 2)
    throw ModelError("tensor " + quote(name) + " is stored as " + dtype_name(it->second.dtype) + ", which only 2-D weights may be");
  const Raw w = quantized(name, shape[0], shape[1]);
  return dequantize_i8(w.i8.data(), w.scale.data(), static_cast<size_t>(shape[0]), static_cast<size_t>(shape[1]));
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
  auto it = file_.tensors.find(name);
  if (compute_ == Compute::F32 || it == file_.tensors.end() || !is_quantized(it->second.dtype)) {
    Raw r;
    r.f32 = take(name, {rows, cols});
    return r;
  }
  // Kept as int8 with its checked scales, never widened (a 4-bit weight is an int8 one exactly).
  return quantized(name, rows, cols);
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

int64_t WeightLoader::parameter_count(const SafetensorsFile& file) {
  int64_t n = 0;
  for (const auto& kv : file.tensors) {
    const std::string& name = kv.first;
    bool companion = false;
    for (const std::string suffix : {".scale", ".multiplier"}) {
      if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
      auto w = file.tensors.find(name.substr(0, name.size() - suffix.size()));
      companion = companion || (w != file.tensors.end() && is_quantized(w->second.dtype));
    }
    if (!companion) n += kv.second.numel() * (kv.second.dtype == DType::U8 ? 2 : 1);
  }
  return n;
}

}  // namespace seq2seq
