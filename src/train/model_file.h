// The trainer's side of the model file (docs/model-format.md): parameters read
// from a file into the store (a run that starts from a model, and the parity
// tests), and the store written out as a model file that seq2seq::Model loads,
// in f32 or with int8 weights as models/train/export.py writes them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_config.h"
#include "safetensors.h"
#include "train/param_store.h"

namespace seq2seq {
namespace train {

// The configuration as the file's `config` JSON text, keys in the format's order
// (what parse_model_config reads back to the same struct).
std::string config_json(const ModelConfig& c);

// Every tensor of `store` from `file` (f32, f16 or quantized, widened to f32), by
// name and shape. Throws ModelError naming a tensor that is missing, of another
// shape, or (unless `others_allowed`: a checkpoint's optimizer state) in the file
// and not in the store.
void load_parameters(ParamStore& store, const SafetensorsFile& file, bool others_allowed = false);

// One tensor as a safetensors file stores it.
struct TensorBytes {
  std::string name, dtype;  // dtype: "F32", "I8", ...
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};
// The safetensors container of `tensors` with `metadata` (strings), in order.
std::vector<uint8_t> write_safetensors(const std::vector<TensorBytes>& tensors,
                                       const std::vector<std::pair<std::string, std::string>>& metadata);

enum class ExportStorage { F32, Int8 };

// The model file of `store` (its tensors under their names) and `config`. Int8:
// every 2-D tensor stored as int8 with a per-row scale (symmetric, 127 levels,
// as export.py --i8), the rest f32. Throws UsageError if a value is not finite:
// a model with NaN weights is never written.
std::vector<uint8_t> export_model(const ParamStore& store, const ModelConfig& config, ExportStorage storage);

}  // namespace train
}  // namespace seq2seq
