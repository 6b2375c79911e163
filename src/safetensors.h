// Reads the safetensors container (docs/model-format.md): an 8-byte little-endian
// header length, a JSON header, then raw tensor bytes. Every offset and size is
// checked before it is used, so no byte sequence can make the reader step
// outside the buffer; problems are reported as ModelError.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace seq2seq {

enum class DType { F32, F16 };

struct TensorView {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;  // points into the caller's buffer
  size_t nbytes = 0;
  int64_t numel() const;
};

struct SafetensorsFile {
  std::map<std::string, std::string> metadata;  // __metadata__ (strings only)
  std::map<std::string, TensorView> tensors;
};

// Parses and validates the container held in [data, data+size). The views
// point into that buffer: it must outlive the result.
SafetensorsFile parse_safetensors(const uint8_t* data, size_t size);

// Widens a tensor to f32 (F16 is converted; the host is little-endian, as are
// x86, ARM and wasm). Throws ModelError if any value is NaN or infinite.
std::vector<float> tensor_to_f32(const TensorView& t, const std::string& name);

float half_to_float(uint16_t h);

}  // namespace seq2seq
