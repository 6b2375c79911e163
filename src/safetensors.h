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

// I8: a 2-D weight stored as int8 with a per-row scale in the tensor "<name>.scale";
// U8: a 2-D weight stored as 4-bit integers, two a byte, with its per-row scale and
// optionally a multiplier per group of columns ("<name>.multiplier")
// (docs/model-format.md, "int8 storage" and "4-bit storage"); WeightLoader pairs them.
enum class DType { F32, F16, I8, U8 };

// The dtypes of quantized weights, which only 2-D weights with their scales may have.
inline bool is_quantized(DType d) { return d == DType::I8 || d == DType::U8; }
// The dtype as a file's header spells it ("F32", "F16", "I8", "U8").
const char* dtype_name(DType d);

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

// Throws ModelError ("<what> nests deeper than ...") if the JSON text nests arrays and
// objects deeper than limits::kMaxJsonDepth; a scan of the bytes, no allocation.
void check_json_depth(const char* text, size_t size, const std::string& what);

// Widens a tensor to f32 (F16 is converted; the host is little-endian, as are
// x86, ARM and wasm). Throws ModelError if any value is NaN or infinite, or if
// the tensor is I8 or U8 (those need their scales: dequantize_i8).
std::vector<float> tensor_to_f32(const TensorView& t, const std::string& name);

// An int8 matrix [rows, cols] times its per-row scales [rows]: w[r][c] = float(q[r][c]) * scale[r],
// one float multiply, as the exporter's reference does; over bytes already checked.
std::vector<float> dequantize_i8(const int8_t* q, const float* scale, size_t rows, size_t cols);
// Throws ModelError naming `scale_name` and the row if a scale is negative, NaN or infinite.
void check_i8_scales(const std::vector<float>& scale, const std::string& scale_name);

// A U8 weight [rows, cols / 2] as int8 [rows, cols]: two 4-bit two's-complement values
// a byte (-8..7; the low nibble is the even column), each times its group's multiplier
// (`groups` per row, each over cols / groups columns; none: 1). With multipliers of at
// most 15 every product fits in int8 (-120..105), so the weight is exactly an int8 one.
// The shapes and multipliers must have been checked (WeightLoader does).
std::vector<int8_t> widen_int4(const TensorView& q, const uint8_t* multiplier, size_t rows, size_t cols, size_t groups);

float half_to_float(uint16_t h);

}  // namespace seq2seq
