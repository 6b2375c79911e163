#include "train/model_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "errors.h"

namespace seq2seq {
namespace train {

namespace {

using ojson = nlohmann::ordered_json;

// The shortest decimal that reads back as the same float (1e-05, not 9.99999975e-06).
double shortest(float v) {
  for (int digits = 6; digits <= 9; ++digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    const double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == v) return d;
  }
  return v;
}

ojson specials(const SpecialIds& s) {
  ojson j = ojson::object();
  const std::pair<const char*, int> ids[] = {{"pad", s.pad}, {"unk", s.unk}, {"bos", s.bos}, {"eos", s.eos}, {"mask", s.mask}};
  for (const auto& [name, id] : ids)
    if (id >= 0) j[name] = id;
  return j;
}

const char* case_name(CaseFold c) { return c == CaseFold::Upper ? "upper" : c == CaseFold::Lower ? "lower" : "none"; }

}  // namespace

std::string config_json(const ModelConfig& c) {
  ojson j;
  j["arch"] = to_string(c.arch);
  if (c.arch == Arch::Rnn) {
    j["cell"] = "gru";
    j["emb_dim"] = c.emb_dim;
    j["enc_hidden"] = c.enc_hidden;
    j["enc_layers"] = c.enc_layers;
    j["dec_hidden"] = c.dec_hidden;
    j["attention"] = to_string(c.attention);
    j["attn_dim"] = c.attn_dim;
    j["max_pos"] = c.max_pos;
  } else {
    j["d_model"] = c.d_model;
    j["n_heads"] = c.n_heads;
    j["d_ff"] = c.d_ff;
    j["activation"] = to_string(c.activation);
    j["enc_layers"] = c.enc_layers;
    j["dec_layers"] = c.dec_layers;
    j["norm"] = to_string(c.norm);
    j["ln_eps"] = shortest(c.ln_eps);
    j["pos"] = to_string(c.pos);
    j["max_pos"] = c.max_pos;
    j["scale_embedding"] = c.scale_embedding;
    j["tie_output"] = c.tie_output;
    j["max_target_len"] = c.max_target_len;
    if (c.length_offset != 0) j["length_offset"] = c.length_offset;
  }
  j["src_vocab"] = c.src_vocab;
  j["tgt_vocab"] = c.tgt_vocab;
  j["src_specials"] = specials(c.src_specials);
  j["tgt_specials"] = specials(c.tgt_specials);
  j["src_case"] = case_name(c.src_case);
  if (c.src_tokens == SourceTokens::Words) j["src_tokens"] = "words";  // optional: absent means chars
  if (c.copy) j["copy"] = true;  // optional: absent means no copy mechanism
  j["name"] = c.name;
  j["description"] = c.description;
  return j.dump();
}

void load_parameters(ParamStore& store, const SafetensorsFile& file, bool others_allowed) {
  std::set<std::string> taken;
  for (int i = 0; i < store.count(); ++i) {
    const ParamTensor& t = store.tensor(i);
    const auto it = file.tensors.find(t.name);
    if (it == file.tensors.end()) throw ModelError("tensor " + quote(t.name) + " is missing");
    const TensorView& v = it->second;
    if (v.shape != t.shape) throw ModelError("tensor " + quote(t.name) + " has another shape than the configuration's");
    std::vector<float> values;
    if (v.dtype == DType::I8) {
      const auto s = file.tensors.find(t.name + ".scale");
      if (s == file.tensors.end() || s->second.numel() != t.shape[0])
        throw ModelError("tensor " + quote(t.name) + " is int8 without its per-row scales");
      const std::vector<float> scale = tensor_to_f32(s->second, t.name + ".scale");
      check_i8_scales(scale, t.name + ".scale");
      values = dequantize_i8(reinterpret_cast<const int8_t*>(v.data), scale.data(), static_cast<size_t>(t.shape[0]),
                             t.size / static_cast<size_t>(t.shape[0]));
      taken.insert(t.name + ".scale");
    } else if (v.dtype == DType::U8) {
      throw ModelError("tensor " + quote(t.name) + " is stored in 4 bits; training starts from f32, f16 or int8 weights");
    } else {
      values = tensor_to_f32(v, t.name);
    }
    std::memcpy(store.value(i), values.data(), values.size() * sizeof(float));
    taken.insert(t.name);
  }
  if (others_allowed) return;
  for (const auto& [name, view] : file.tensors)
    if (!taken.count(name)) throw ModelError("tensor " + quote(name) + " is not a parameter of this model");
}

std::vector<uint8_t> write_safetensors(const std::vector<TensorBytes>& tensors,
                                       const std::vector<std::pair<std::string, std::string>>& metadata) {
  ojson header;
  ojson meta = ojson::object();
  for (const auto& [k, v] : metadata) meta[k] = v;
  header["__metadata__"] = meta;
  size_t offset = 0;
  for (const TensorBytes& p : tensors) {
    header[p.name] = {{"dtype", p.dtype}, {"shape", p.shape}, {"data_offsets", {offset, offset + p.bytes.size()}}};
    offset += p.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-aligned
  std::vector<uint8_t> out(8 + text.size() + offset);
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, text.data(), text.size());
  size_t at = 8 + text.size();
  for (const TensorBytes& p : tensors) {
    std::memcpy(out.data() + at, p.bytes.data(), p.bytes.size());
    at += p.bytes.size();
  }
  return out;
}

std::vector<uint8_t> export_model(const ParamStore& store, const ModelConfig& config, ExportStorage storage) {
  std::vector<TensorBytes> parts;
  for (const ParamTensor& t : store.tensors()) {
    const float* v = store.value(store.index(t.name));
    for (size_t i = 0; i < t.size; ++i)
      if (!std::isfinite(v[i]))
        throw UsageError("export: parameter " + quote(t.name) + " holds a value that is not finite; the model is not written");
    if (storage == ExportStorage::Int8 && t.shape.size() == 2) {
      const size_t rows = static_cast<size_t>(t.shape[0]), cols = static_cast<size_t>(t.shape[1]);
      TensorBytes q{t.name, "I8", t.shape, std::vector<uint8_t>(rows * cols)};
      TensorBytes s{t.name + ".scale", "F32", {t.shape[0]}, std::vector<uint8_t>(rows * 4)};
      for (size_t r = 0; r < rows; ++r) {
        double amax = 0;
        for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(static_cast<double>(v[r * cols + c])));
        const float scale = static_cast<float>(amax / 127.0);
        const double safe = scale > 0 ? scale : 1.0;
        for (size_t c = 0; c < cols; ++c) {
          const double x = std::nearbyint(v[r * cols + c] / safe);
          q.bytes[r * cols + c] = static_cast<uint8_t>(static_cast<int8_t>(std::max(-127.0, std::min(127.0, x))));
        }
        std::memcpy(s.bytes.data() + r * 4, &scale, 4);
      }
      parts.push_back(std::move(q));
      parts.push_back(std::move(s));
    } else {
      TensorBytes p{t.name, "F32", t.shape, std::vector<uint8_t>(t.size * 4)};
      std::memcpy(p.bytes.data(), v, t.size * 4);
      parts.push_back(std::move(p));
    }
  }
  return write_safetensors(parts, {{"format", "seq2seq-wasm"}, {"format_version", "1"}, {"config", config_json(config)}});
}

}  // namespace train
}  // namespace seq2seq
