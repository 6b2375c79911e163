// The inside of one pass (Model::inspect: `seq2seq inspect`, --trace-inside, Model.inspect):
// a fixture model (autoregressive f32, int8, CMLM f32 and 4-bit, RNN with and without
// attention; one read at 1,024 positions, whose long sources pass the bound on what an inside
// keeps; models whose weights or scales overflow float arithmetic), a source (raw, or mostly the
// model's characters) and the decoder's input (token ids in and out of the vocabulary, token
// texts, a draft of masks and END). Every seq2seq::Error is an answer; what inspect returns
// must hold together:
//   - it keeps exactly the numbers Network::inside_values counted, never more than
//     limits::kMaxInsideValues, and a pass counted over the bound was refused;
//   - its logits hold no NaN or +infinity (those are decoding's ModelError);
//   - its streamed JSON (write_json, what the CLI prints) parses, and gives back its logits
//     and its target as they were (for insides of up to 2^12 numbers).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

#include "../native/inside_count.h"
#include "fuzz_common.h"
#include "model_access.h"
#include "model_limits.h"
#include "network.h"
#include "snapshot_fields.h"
#include "snapshot_json.h"
#include "vocabulary.h"

namespace {

using seq2seq::Model;

// A fixture with its config passed through edit(config), and every F32 tensor whose name
// holds `part` multiplied by `factor` (clamped to the largest finite float).
template <typename Edit>
std::shared_ptr<const Model> variant(const char* file, Edit&& edit, const std::string& part = "", double factor = 1) {
  std::vector<uint8_t> bytes = seq2seq_fuzz::read_fixture(file);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<size_t>(i)];
  nlohmann::json header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
  std::vector<uint8_t> data(bytes.begin() + 8 + static_cast<long>(n), bytes.end());
  for (const auto& [name, t] : header.items()) {
    if (part.empty() || name == "__metadata__" || name.find(part) == std::string::npos || t["dtype"] != "F32") continue;
    for (size_t at = t["data_offsets"][0].get<size_t>(); at < t["data_offsets"][1].get<size_t>(); at += 4) {
      float x;
      std::memcpy(&x, &data[at], 4);
      x = static_cast<float>(std::max(-3.4e38, std::min(3.4e38, x * factor)));
      std::memcpy(&data[at], &x, 4);
    }
  }
  nlohmann::json config = nlohmann::json::parse(header["__metadata__"]["config"].get<std::string>());
  edit(config);
  header["__metadata__"]["config"] = config.dump();
  const std::string h = header.dump();
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(static_cast<uint64_t>(h.size()) >> (8 * i));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return Model::from_buffer(out.data(), out.size());
}

const std::vector<std::shared_ptr<const Model>>& inspect_models() {
  static const std::vector<std::shared_ptr<const Model>> all = [] {
    auto same = [](nlohmann::json&) {};
    auto long_positions = [](nlohmann::json& c) { c["max_pos"] = 1024; };
    return std::vector<std::shared_ptr<const Model>>{
        variant("ar_post_sin_tied_relu.safetensors", same),
        variant("ar_pre_sin_tied_relu_i8.safetensors", same),
        variant("cmlm_pre_sin_tied_relu.safetensors", same),
        variant("cmlm_pre_sin_tied_relu_q4.safetensors", same),
        variant("rnn_additive.safetensors", same),
        variant("rnn_none.safetensors", same),
        variant("ar_post_sin_tied_relu.safetensors", long_positions),
        variant("ar_post_sin_tied_relu.safetensors", same, "decoder.layers.1.ffn", 1e20),
        variant("cmlm_pre_sin_tied_relu_q4.safetensors", same, "decoder.layers.1.ffn.fc1.weight.scale", 1e39),
        variant("rnn_dot.safetensors", same, "out.weight", 1e39),
    };
  }();
  return all;
}

// Insides this large are left uncomputed: at the bound one takes seconds under the sanitizers,
// which the fuzzer would call a hang (tests/native/test_step_inside.cpp computes one there). At
// 2^20 numbers the parse of the JSON written took up to 24 s on a loaded machine.
constexpr uint64_t kLargestComputed = uint64_t{1} << 16;
constexpr uint64_t kLargestReadBack = uint64_t{1} << 12;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace seq2seq_fuzz;
  FuzzedDataProvider in(bytes, size);
  const auto& models = inspect_models();
  const auto& model = models[in.ConsumeIntegralInRange<size_t>(0, models.size() - 1)];
  const seq2seq::Vocabulary& vocab = model->target_vocab();
  const int V = vocab.size();
  const seq2seq::SpecialIds& sp = model->config().tgt_specials;
  std::vector<int> tokens;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:  // ids, in and around the vocabulary
      for (int i = in.ConsumeIntegralInRange(0, 12); i > 0; --i) tokens.push_back(in.ConsumeIntegralInRange(-3, V + 3));
      break;
    case 1:  // any ids
      for (int i = in.ConsumeIntegralInRange(0, 4); i > 0; --i) tokens.push_back(in.ConsumeIntegral<int>());
      break;
    case 2:  // a Mask-Predict draft: tokens, END, masks
      for (int i = in.ConsumeIntegralInRange(0, 20); i > 0; --i)
        tokens.push_back(in.PickValueInArray({sp.mask, sp.mask, sp.eos, in.ConsumeIntegralInRange(0, V - 1)}));
      break;
    default:  // token texts, as the CLI and JS take them
      try {
        tokens = seq2seq::parse_target_tokens(in.ConsumeRandomLengthString(64), vocab);
      } catch (const seq2seq::Error&) {
        return 0;
      }
  }
  const bool raw = in.ConsumeIntegralInRange(0, 3) == 0;
  std::string source = in.ConsumeRemainingBytesAsString();
  if (!raw) source = mostly_valid_source(source, model->source_vocab());
  if (std::getenv("SEQ2SEQ_FUZZ_VERBOSE")) {
    std::fprintf(stderr, "model %s source '%s' (%zu bytes), %zu tokens\n", model->config().name.c_str(), source.c_str(), source.size(),
                 tokens.size());
  }

  // What the pass would keep, where the source is one the model reads.
  const seq2seq::Network& net = seq2seq::ModelAccess::network(*model);
  uint64_t counted = 0;
  try {
    const int positions = static_cast<int>(tokens.size()) + (model->config().autoregressive() ? 1 : 0);
    counted = net.inside_values(static_cast<int>(model->tokenize(source).size()), positions);
  } catch (const seq2seq::Error&) {
  }
  if (counted > kLargestComputed && counted <= seq2seq::limits::kMaxInsideValues) return 0;

  seq2seq::StepInside inside;
  try {
    inside = model->inspect(source, tokens);
  } catch (const seq2seq::InputError&) {
    return 0;
  } catch (const seq2seq::Error&) {
    if (counted > seq2seq::limits::kMaxInsideValues) fail("a pass over the bound was refused with another error than an InputError");
    return 0;
  }
  if (counted > seq2seq::limits::kMaxInsideValues) fail("a pass over the bound was computed");
  const uint64_t kept = seq2seq::values_kept(inside);
  const int extra = inside.copy ? inside.output_vocab_size - inside.vocab_size : 0;  // a copy model's copy-only tokens
  if (kept != net.inside_values(inside.source_length, static_cast<int>(inside.target.size()), extra))
    fail("the inside keeps another number of values than inside_values counts");
  for (float x : inside.logits)
    if (std::isnan(x) || x == INFINITY) fail("the inside's logits hold a NaN or +infinity");
  // Reading the JSON back costs most of an execution (8 ms for 30,000 numbers); the writer has
  // no path that depends on an array's length, so small insides are what is read back.
  if (kept > kLargestReadBack) return 0;
  std::ostringstream written;
  seq2seq::write_json(written, inside, vocab);
  const nlohmann::json back = nlohmann::json::parse(written.str());  // throws, and so stops the fuzzer, if it is not JSON
  if (back["target"].get<std::vector<int>>() != inside.target) fail("the JSON's target is not the inside's");
  // JSON has no infinity: a logit of -infinity (a token the weights rule out) is written null.
  const nlohmann::json& logits = back["logits"];
  if (logits.size() != inside.logits.size()) fail("the JSON has another number of logits than the inside");
  for (size_t i = 0; i < logits.size(); ++i)
    if (inside.logits[i] == -INFINITY ? !logits[i].is_null() : logits[i].get<float>() != inside.logits[i])
      fail("the JSON's logits are not the inside's");
  return 0;
}
