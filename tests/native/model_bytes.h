// Model files taken apart and put back together, for tests that craft bad ones:
// the header as JSON, the data section as bytes.
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "fixtures.h"
#include "model.h"

namespace seq2seq_test {

using nlohmann::json;

struct Parts {
  json header;
  std::vector<uint8_t> data;
};

inline Parts split(const std::vector<uint8_t>& file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[static_cast<size_t>(i)];
  Parts p;
  p.header = json::parse(file.begin() + 8, file.begin() + 8 + static_cast<long>(n));
  p.data.assign(file.begin() + 8 + static_cast<long>(n), file.end());
  return p;
}

inline std::vector<uint8_t> join(const std::string& header, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out(8 + header.size() + data.size());
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  if (!data.empty()) std::memcpy(out.data() + 8 + header.size(), data.data(), data.size());
  return out;
}

inline std::vector<uint8_t> join(const Parts& p) { return join(p.header.dump(), p.data); }

inline const std::vector<uint8_t>& valid_file() {
  static const auto bytes = read_bytes(fixture_path("cmlm_post_learned_untied_gelu.safetensors"));
  return bytes;
}

inline json config_of(const Parts& p) { return json::parse(p.header["__metadata__"]["config"].get<std::string>()); }
inline void set_config(Parts& p, const json& c) { p.header["__metadata__"]["config"] = c.dump(); }

// Loads and returns the ModelError message ("" if it loaded).
inline std::string load_error(const std::vector<uint8_t>& bytes) {
  try {
    seq2seq::Model::from_buffer(bytes.data(), bytes.size());
  } catch (const seq2seq::ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace seq2seq_test
