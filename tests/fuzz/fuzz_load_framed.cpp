// The loader behind a well-formed frame: the fuzz input does not write bytes of
// the container but decides how a real fixture's container is changed — config
// values, tensor dtypes, shapes and offsets, metadata, and values written into
// the tensor bytes (huge, NaN, denormal, arbitrary) — so that the fuzzer spends
// its time in the model checks rather than in the JSON parser. A model that
// loads is then decoded once, which must end in results or a seq2seq::Error.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_common.h"

namespace {

using nlohmann::json;

// A fixture taken apart: its config, its tensors' header entries, its data section.
struct Template {
  json config;
  json tensors;  // name -> {dtype, shape, data_offsets}
  std::vector<uint8_t> data;
};

Template take_apart(const std::string& file) {
  const std::vector<uint8_t> bytes = seq2seq_fuzz::read_fixture(file);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  Template t;
  t.tensors = json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
  t.config = json::parse(t.tensors["__metadata__"]["config"].get<std::string>());
  t.tensors.erase("__metadata__");
  t.data.assign(bytes.begin() + 8 + static_cast<long>(n), bytes.end());
  return t;
}

// Fuzzed strings need not be UTF-8: their bytes are kept as they are, the loader's
// JSON parser is to judge them.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::ignore); }

// One of each architecture and storage; RNN and int8 first, they are the smallest.
const std::vector<Template>& templates() {
  static const std::vector<Template> all = {
      take_apart("rnn_dot.safetensors"), take_apart("rnn_additive.safetensors"),
      take_apart("ar_pre_sin_tied_relu_i8.safetensors"), take_apart("ar_pre_sin_tied_relu_f16.safetensors"),
      take_apart("ar_post_learned_tied_gelu_noscale.safetensors"), take_apart("cmlm_pre_sin_tied_relu.safetensors")};
  return all;
}

// Integers where checks tend to break: signs, zero, powers of two, type limits.
int64_t edgy_int(FuzzedDataProvider& in) {
  static const int64_t edges[] = {0, 1, 2, 3, 4, -1, 7, 8, 16, 31, 32, 33, 64, 255, 256, 4096, 65535, 65536,
                                  1 << 24, INT32_MAX, INT32_MIN, int64_t(1) << 40, INT64_MAX, INT64_MIN};
  if (in.ConsumeBool()) return in.PickValueInArray(edges);
  return in.ConsumeIntegralInRange<int64_t>(-8, 128);
}

json fuzzed_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0: return edgy_int(in);
    case 1: return in.ConsumeFloatingPoint<double>();
    case 2: return in.ConsumeBool();
    case 3: return nullptr;
    case 4: return in.ConsumeRandomLengthString(24);
    case 5: return json::array({in.ConsumeRandomLengthString(8), in.ConsumeRandomLengthString(8)});
    case 6: return json::object({{in.ConsumeRandomLengthString(8), edgy_int(in)}});
    default: {
      // A vocabulary-like array: some specials, some tokens, maybe duplicates.
      json a = json::array();
      const int n = in.ConsumeIntegralInRange(0, 40);
      for (int i = 0; i < n; ++i) a.push_back(in.ConsumeRandomLengthString(6));
      return a;
    }
  }
}

void mutate_config(FuzzedDataProvider& in, json& config) {
  const int edits = in.ConsumeIntegralInRange(0, 4);
  for (int e = 0; e < edits; ++e) {
    std::vector<std::string> keys;
    for (auto it = config.begin(); it != config.end(); ++it) keys.push_back(it.key());
    if (keys.empty()) return;
    const std::string key = keys[in.ConsumeIntegralInRange<size_t>(0, keys.size() - 1)];
    switch (in.ConsumeIntegralInRange(0, 5)) {
      case 0: config.erase(key); break;
      case 1: config[key] = fuzzed_value(in); break;
      case 2:  // specials: point one at another index
        if (config[key].is_object() && !config[key].empty()) config[key].begin().value() = edgy_int(in);
        else config[key] = edgy_int(in);
        break;
      case 3:  // vocabularies: drop or duplicate tokens
        if (config[key].is_array() && !config[key].empty()) {
          const size_t i = in.ConsumeIntegralInRange<size_t>(0, config[key].size() - 1);
          if (in.ConsumeBool()) config[key].erase(i);
          else config[key].push_back(config[key][i]);
        }
        break;
      default:  // a nearby number: the most likely to pass the first checks
        if (config[key].is_number_integer() && std::llabs(config[key].get<int64_t>()) < (int64_t(1) << 40))
          config[key] = config[key].get<int64_t>() + in.ConsumeIntegralInRange(-2, 2);
        else config[key] = fuzzed_value(in);
    }
  }
}

void mutate_tensors(FuzzedDataProvider& in, json& tensors, size_t data_size) {
  const int edits = in.ConsumeIntegralInRange(0, 4);
  for (int e = 0; e < edits; ++e) {
    std::vector<std::string> names;
    for (auto it = tensors.begin(); it != tensors.end(); ++it) names.push_back(it.key());
    if (names.empty()) return;
    const std::string name = names[in.ConsumeIntegralInRange<size_t>(0, names.size() - 1)];
    json& t = tensors[name];
    if (!t.is_object()) continue;  // replaced by a value below already
    switch (in.ConsumeIntegralInRange(0, 6)) {
      case 0: tensors.erase(name); break;
      case 1: t["dtype"] = in.PickValueInArray({"F32", "F16", "I8", "BF16", "F64", "U8", ""}); break;
      case 2:
        if (!t["shape"].empty()) t["shape"][in.ConsumeIntegralInRange<size_t>(0, t["shape"].size() - 1)] = edgy_int(in);
        break;
      case 3:
        if (in.ConsumeBool()) t["shape"].push_back(edgy_int(in));
        else if (!t["shape"].empty()) t["shape"].erase(t["shape"].size() - 1);
        break;
      case 4: {
        const int64_t offset = in.ConsumeBool() ? edgy_int(in) : in.ConsumeIntegralInRange<int64_t>(0, static_cast<int64_t>(data_size));
        t["data_offsets"][in.ConsumeIntegralInRange(0, 1)] = offset;
        break;
      }
      case 5: tensors[name + in.ConsumeRandomLengthString(6)] = t; break;  // a copy under another name
      default: t = fuzzed_value(in);
    }
  }
}

// Values written over the tensor bytes, 4 bytes at a time at fuzzed positions.
void mutate_data(FuzzedDataProvider& in, std::vector<uint8_t>& data) {
  const int edits = in.ConsumeIntegralInRange(0, 8);
  for (int e = 0; e < edits && data.size() >= 4; ++e) {
    static const float values[] = {3e38f, -3e38f, std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN(), 1e-45f, 0.0f, 1e10f, -1e10f};
    uint32_t bits;
    if (in.ConsumeBool()) {
      const float v = in.PickValueInArray(values);
      std::memcpy(&bits, &v, 4);
    } else {
      bits = in.ConsumeIntegral<uint32_t>();
    }
    const size_t at = in.ConsumeIntegralInRange<size_t>(0, data.size() - 4);
    std::memcpy(data.data() + at, &bits, 4);
  }
  if (in.ConsumeIntegralInRange(0, 15) == 0) data.resize(in.ConsumeIntegralInRange<size_t>(0, data.size() + 64));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  FuzzedDataProvider in(bytes, size);
  const Template& base = templates()[in.ConsumeIntegralInRange<size_t>(0, templates().size() - 1)];
  json config = base.config;
  json tensors = base.tensors;
  std::vector<uint8_t> data = base.data;
  mutate_config(in, config);
  mutate_tensors(in, tensors, data.size());
  mutate_data(in, data);

  json metadata = {{"format", "seq2seq-wasm"}, {"format_version", "1"}, {"config", dump(config)}};
  if (in.ConsumeIntegralInRange(0, 31) == 0) metadata[in.PickValueInArray({"format", "format_version", "config"})] = fuzzed_value(in);
  tensors["__metadata__"] = metadata;
  const std::string header = dump(tensors);
  std::vector<uint8_t> file(8);
  const uint64_t n = header.size();
  std::memcpy(file.data(), &n, 8);
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), data.begin(), data.end());

  const seq2seq::Compute compute = in.ConsumeBool() ? seq2seq::Compute::Auto : seq2seq::Compute::F32;
  const std::string source = in.ConsumeRandomLengthString(12);
  try {
    auto model = seq2seq::Model::from_buffer(file.data(), file.size(), compute);
    seq2seq::DecodingOptions opt;
    opt.strategy = model->config().autoregressive() ? seq2seq::Strategy::Greedy : seq2seq::Strategy::Nar;
    seq2seq::Session session(model, opt);
    const std::string text = source.empty() ? "ABC" : seq2seq_fuzz::mostly_valid_source(source, model->source_vocab());
    seq2seq_fuzz::decode_checked(*model, session, text);
  } catch (const seq2seq::Error&) {
  }
  return 0;
}
