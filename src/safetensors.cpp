#include "safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "model_limits.h"

namespace seq2seq {

namespace {

size_t dtype_size(DType d) { return d == DType::F32 ? 4 : d == DType::F16 ? 2 : 1; }

constexpr DType kDTypes[] = {DType::F32, DType::F16, DType::I8, DType::U8};

DType parse_dtype(const nlohmann::json& j, const std::string& name) {
  if (!j.is_string()) throw ModelError("tensor " + quote(name) + ": dtype is not a string");
  const auto s = j.get<std::string>();
  for (DType d : kDTypes)
    if (s == dtype_name(d)) return d;
  throw ModelError("tensor " + quote(name) + ": unsupported dtype " + quote(s) + " (F32, F16, I8 or U8 expected)");
}

uint64_t as_u64(const nlohmann::json& j, const std::string& what) {
  if (!j.is_number_integer() || (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() < 0))
    throw ModelError(what + " is not a non-negative integer");
  return j.get<uint64_t>();
}

}  // namespace

const char* dtype_name(DType d) {
  switch (d) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
  }
  return "?";
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

void check_json_depth(const char* text, size_t size, const std::string& what) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < size; ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::kMaxJsonDepth)
        throw ModelError(what + " nests deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

namespace {

// What a file that is not a model is, where its first bytes say: a web server's
// page for a missing file (an SPA's or a dev server's fallback) arrives as HTML, an
// API's error as JSON. Empty when they say nothing.
std::string text_in_place_of_a_model(const uint8_t* data, size_t size) {
  size_t i = 0;
  if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3;  // a UTF-8 byte order mark
  while (i < size && i < 256 && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
  if (i >= size) return "";
  const char* kind = data[i] == '<' ? "an HTML or XML document" : (data[i] == '{' || data[i] == '[') ? "JSON text" : nullptr;
  if (kind == nullptr) return "";
  size_t end = i;
  while (end < size && end - i < 40 && data[end] != '\n' && data[end] != '\r') ++end;
  return std::string(": it starts with ") + quote(std::string(reinterpret_cast<const char*>(data + i), end - i)) + ", " + kind +
         ", not a model (a server's page or error in place of the file?)";
}

}  // namespace

SafetensorsFile parse_safetensors(const uint8_t* data, size_t size) {
  if (data == nullptr || size < 8) throw ModelError("too short to be a model (" + std::to_string(size) + " bytes)");
  if (size > limits::kMaxModelBytes)
    throw ModelError(std::to_string(size) + " bytes, more than the largest model accepted (" +
                     std::to_string(limits::kMaxModelBytes) + " bytes)");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | data[i];
  if (header_len > size - 8) {
    const std::string text = text_in_place_of_a_model(data, size);
    throw ModelError("header length " + std::to_string(header_len) + " runs past the end of the file (" +
                     std::to_string(size) + " bytes)" + (text.empty() ? ": truncated or not a model file" : text));
  }
  if (header_len > limits::kMaxHeaderBytes)
    throw ModelError("header length " + std::to_string(header_len) + " is larger than the largest header accepted (" +
                     std::to_string(limits::kMaxHeaderBytes) + " bytes)");
  if (header_len < 2) throw ModelError("header is empty");
  // Before parsing: a deeply nested header would cost the parser far more memory than its bytes.
  check_json_depth(reinterpret_cast<const char*>(data + 8), static_cast<size_t>(header_len), "header");

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(data + 8, data + 8 + header_len);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) throw ModelError("header is not a JSON object");
  if (header.size() > static_cast<size_t>(limits::kMaxTensors) + 1)  // + __metadata__
    throw ModelError("header lists " + std::to_string(header.size()) + " entries; at most " +
                     std::to_string(limits::kMaxTensors) + " tensors are accepted");

  const uint8_t* body = data + 8 + header_len;
  const uint64_t body_size = size - 8 - header_len;

  SafetensorsFile file;
  struct Span { uint64_t begin, end; std::string name; };
  std::vector<Span> spans;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const auto& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) throw ModelError("__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) throw ModelError("__metadata__ value " + quote(m.key()) + " is not a string");
        file.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
      throw ModelError("tensor " + quote(name) + ": entry needs dtype, shape and data_offsets");
    TensorView t;
    t.dtype = parse_dtype(v["dtype"], name);
    const auto& shape = v["shape"];
    if (!shape.is_array() || shape.size() > static_cast<size_t>(limits::kMaxTensorRank))
      throw ModelError("tensor " + quote(name) + ": shape is not an array of at most " + std::to_string(limits::kMaxTensorRank) +
                       " dims");
    uint64_t numel = 1;
    for (const auto& d : shape) {
      const uint64_t dim = as_u64(d, "tensor " + quote(name) + ": a shape entry");
      if (dim > (1ull << 32)) throw ModelError("tensor " + quote(name) + ": dimension " + std::to_string(dim) + " is implausibly large");
      if (dim != 0 && numel > std::numeric_limits<uint64_t>::max() / dim) throw ModelError("tensor " + quote(name) + ": size overflows");
      numel *= dim;
      t.shape.push_back(static_cast<int64_t>(dim));
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2) throw ModelError("tensor " + quote(name) + ": data_offsets is not [begin, end]");
    const uint64_t begin = as_u64(off[0], "tensor " + quote(name) + ": data_offsets[0]");
    const uint64_t end = as_u64(off[1], "tensor " + quote(name) + ": data_offsets[1]");
    if (begin > end || end > body_size)
      throw ModelError("tensor " + quote(name) + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                       "] lie outside the " + std::to_string(body_size) + "-byte data section");
    if (numel > std::numeric_limits<uint64_t>::max() / 4 || end - begin != numel * dtype_size(t.dtype))
      throw ModelError("tensor " + quote(name) + ": " + std::to_string(end - begin) + " bytes do not match its shape and dtype");
    t.data = body + begin;
    t.nbytes = static_cast<size_t>(end - begin);
    if (end > begin) spans.push_back({begin, end, name});  // an empty tensor overlaps nothing
    file.tensors.emplace(name, std::move(t));
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].begin < spans[i - 1].end)
      throw ModelError("tensors " + quote(spans[i - 1].name) + " and " + quote(spans[i].name) + " overlap");
  return file;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) { mant <<= 1; --exp; }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<float> tensor_to_f32(const TensorView& t, const std::string& name) {
  if (is_quantized(t.dtype))
    throw ModelError("tensor " + quote(name) + " is stored as " + dtype_name(t.dtype) + ", which only 2-D weights with a " +
                     quote(name + ".scale") + " may be");
  const size_t n = static_cast<size_t>(t.numel());
  std::vector<float> out(n);
  if (t.dtype == DType::F32) {
    std::memcpy(out.data(), t.data, n * 4);
  } else {
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, t.data + 2 * i, 2);
      out[i] = half_to_float(h);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(out[i])) throw ModelError("tensor " + quote(name) + " holds a non-finite value at index " + std::to_string(i));
  return out;
}

void check_i8_scales(const std::vector<float>& scale, const std::string& scale_name) {
  for (size_t r = 0; r < scale.size(); ++r)
    if (!(scale[r] >= 0.0f) || !std::isfinite(scale[r]))
      throw ModelError("tensor " + quote(scale_name) + " holds " + std::to_string(scale[r]) + " at row " + std::to_string(r) +
                       " (scales must be finite and >= 0)");
}

std::vector<float> dequantize_i8(const int8_t* q, const float* scale, size_t rows, size_t cols) {
  std::vector<float> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) out[r * cols + c] = static_cast<float>(q[r * cols + c]) * scale[r];
  return out;
}

std::vector<int8_t> widen_int4(const TensorView& q, const uint8_t* multiplier, size_t rows, size_t cols, size_t groups) {
  const size_t width = multiplier ? cols / groups : cols;
  std::vector<int8_t> out(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* row = q.data + r * (cols / 2);
    for (size_t c = 0; c < cols; ++c) {
      const int nibble = (row[c / 2] >> (4 * (c % 2))) & 0xf;
      const int m = multiplier ? multiplier[r * groups + c / width] : 1;
      out[r * cols + c] = static_cast<int8_t>((nibble >= 8 ? nibble - 16 : nibble) * m);
    }
  }
  return out;
}

}  // namespace seq2seq
