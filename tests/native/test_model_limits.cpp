// The limits of src/model_limits.h, each with its error, and the files that used to
// cost far more than their bytes: a directory or a device as the model, a deeply
// nested header, a small file declaring huge dimensions.
#include <chrono>
#include <functional>
#include <string>

#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "model.h"
#include "model_bytes.h"
#include "model_limits.h"
#include "tensor.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

std::string file_error(const std::string& path) {
  try {
    Model::from_file(path);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

// A header of `n` bytes: a JSON object padded with spaces.
std::string padded_header(size_t n) {
  std::string h = "{}";
  h.insert(1, n - h.size(), ' ');
  return h;
}

std::string nested(int depth) { return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']'); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("only a regular file is read as a model", "[model_file][limits]") {
  CHECK_THAT(file_error(SEQ2SEQ_FIXTURE_DIR), Catch::Contains("is a directory, not a model file"));
  CHECK_THAT(file_error("/tmp"), Catch::StartsWith("model file: '/tmp' is a directory"));
  // An endless stream: refused by its kind, nothing read.
  CHECK_THAT(file_error("/dev/zero"), Catch::Contains("'/dev/zero' is not a regular file"));
  CHECK_THAT(file_error("/nonexistent/model.safetensors"), Catch::Contains("cannot open '/nonexistent/model.safetensors'"));
  CHECK(file_error(fixture_path("ar_post_sin_tied_relu.safetensors")).empty());
}

TEST_CASE("the container's limits: file size, header size and depth, tensor count and rank", "[model_file][limits]") {
  const auto& good = valid_file();
  SECTION("a buffer larger than the largest model") {
    // Refused on its size alone, before a byte is read: the buffer need not be that large.
    const std::string msg = [&] {
      try {
        Model::from_buffer(good.data(), limits::kMaxModelBytes + 1);
      } catch (const ModelError& e) {
        return std::string(e.what());
      }
      return std::string();
    }();
    CHECK_THAT(msg, Catch::Contains("bytes, more than the largest model accepted (" + std::to_string(limits::kMaxModelBytes) + " bytes)"));
  }
  SECTION("a header one byte over the limit, and one at it") {
    CHECK_THAT(load_error(join(padded_header(limits::kMaxHeaderBytes + 1), {})),
               Catch::Contains("larger than the largest header accepted (" + std::to_string(limits::kMaxHeaderBytes) + " bytes)"));
    CHECK_THAT(load_error(join(padded_header(limits::kMaxHeaderBytes), {})), Catch::Contains("no 'format'"));
  }
  SECTION("a 16 MB header") {
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THAT(load_error(join(std::string(16u << 20, '['), {})), Catch::Contains("larger than the largest header accepted"));
    CHECK(seconds_since(t0) < 1.0);
  }
  SECTION("nesting: at the limit it parses, one deeper is refused before parsing") {
    const int d = limits::kMaxJsonDepth;
    CHECK_THAT(load_error(join("{\"x\": " + nested(d - 1) + "}", {})), Catch::Contains("entry needs dtype"));
    CHECK_THAT(load_error(join("{\"x\": " + nested(d) + "}", {})),
               Catch::Contains("header nests deeper than " + std::to_string(d) + " levels"));
    // Brackets inside strings are text, not nesting.
    CHECK_THAT(load_error(join("{\"x\": \"" + std::string(1000, '[') + "\\\"\"}", {})), Catch::Contains("entry needs dtype"));
    // A header as deep as it is long (the largest accepted): refused by a scan, in no time.
    const size_t n = limits::kMaxHeaderBytes / 2;
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THAT(load_error(join(std::string(n, '[') + std::string(n, ']'), {})), Catch::Contains("header nests deeper"));
    CHECK(seconds_since(t0) < 1.0);
  }
  SECTION("a config nested too deep") {
    Parts p = split(good);
    p.header["__metadata__"]["config"] = nested(limits::kMaxJsonDepth + 1);
    CHECK_THAT(load_error(join(p)), Catch::Contains("config nests deeper than"));
  }
  SECTION("more tensors than accepted") {
    Parts p = split(good);
    for (int i = 0; i < limits::kMaxTensors; ++i)
      p.header["extra." + std::to_string(i)] = {{"dtype", "F32"}, {"shape", json::array({0})}, {"data_offsets", {0, 0}}};
    CHECK_THAT(load_error(join(p)), Catch::Contains("at most " + std::to_string(limits::kMaxTensors) + " tensors are accepted"));
  }
  SECTION("a tensor of too many dimensions") {
    Parts p = split(good);
    p.header["out_proj.bias"]["shape"] = json::array();
    for (int i = 0; i <= limits::kMaxTensorRank; ++i) p.header["out_proj.bias"]["shape"].push_back(1);
    CHECK_THAT(load_error(join(p)), Catch::Contains("at most " + std::to_string(limits::kMaxTensorRank) + " dims"));
  }
}

TEST_CASE("config values past their limits", "[model_file][limits]") {
  auto with = [](const std::string& fixture, const std::function<void(json&)>& edit) {
    Parts p = split(read_bytes(fixture_path(fixture)));
    json c = config_of(p);
    edit(c);
    set_config(p, c);
    return load_error(join(p));
  };
  auto over = [&](const std::string& fixture, const char* key, int limit, int lo = 1) {
    INFO(fixture << ": " << key);
    CHECK_THAT(with(fixture, [&](json& c) { c[key] = limit + 1; }),
               Catch::Contains(std::string("'") + key + "' = " + std::to_string(limit + 1) + " is outside [" +
                               std::to_string(lo) + ", " + std::to_string(limit) + "]"));
  };
  const std::string tf = "cmlm_post_learned_untied_gelu.safetensors";
  over(tf, "d_model", limits::kMaxWidth);
  over(tf, "n_heads", limits::kMaxHeads);
  over(tf, "d_ff", limits::kMaxFeedForward);
  over(tf, "enc_layers", limits::kMaxLayers, 0);
  over(tf, "dec_layers", limits::kMaxLayers);
  over(tf, "max_pos", limits::kMaxPositions);
  const std::string rnn = "rnn_additive.safetensors";
  over(rnn, "emb_dim", limits::kMaxWidth);
  over(rnn, "enc_hidden", limits::kMaxWidth);
  over(rnn, "dec_hidden", limits::kMaxWidth);
  over(rnn, "attn_dim", limits::kMaxWidth);
  over(rnn, "enc_layers", limits::kMaxRnnLayers);
  over(rnn, "max_pos", limits::kMaxPositions);

  CHECK_THAT(with(tf, [](json& c) {
               for (int i = static_cast<int>(c["tgt_vocab"].size()); i <= limits::kMaxVocab; ++i) c["tgt_vocab"].push_back("T" + std::to_string(i));
             }),
             Catch::Contains("'tgt_vocab' has " + std::to_string(limits::kMaxVocab + 1) + " entries; at most " +
                             std::to_string(limits::kMaxVocab) + " are accepted"));
}

TEST_CASE("a target vocabulary of specials only leaves nothing to emit", "[model_file][limits]") {
  for (const std::string fixture : {"cmlm_post_learned_untied_gelu.safetensors", "ar_post_sin_tied_relu.safetensors"}) {
    INFO(fixture);
    Parts p = split(read_bytes(fixture_path(fixture)));
    json c = config_of(p);
    int n = 0;  // the specials are the first ids
    for (const auto& kv : c["tgt_specials"].items()) n = std::max(n, kv.value().get<int>() + 1);
    json vocab = json::array();
    for (int i = 0; i < n; ++i) vocab.push_back(c["tgt_vocab"][static_cast<size_t>(i)]);
    c["tgt_vocab"] = vocab;
    set_config(p, c);
    CHECK_THAT(load_error(join(p)), Catch::Contains("'tgt_vocab' holds only special tokens"));
  }
}

TEST_CASE("a small file declaring huge dimensions fails before anything of their size is built", "[model_file][limits]") {
  // The largest width and position count, embeddings present (int8, so the file stays
  // small), every other tensor missing: the error must come before the sinusoidal
  // table of max_pos x d_model floats (64 MB) is computed.
  Parts p = split(read_bytes(fixture_path("ar_post_sin_tied_relu.safetensors")));
  json c = config_of(p);
  REQUIRE(c["pos"] == "sinusoidal");
  const int L = limits::kMaxWidth, P = limits::kMaxPositions;
  c["d_model"] = L;
  c["max_pos"] = P;
  set_config(p, c);
  json header = {{"__metadata__", p.header["__metadata__"]}};
  std::vector<uint8_t> data;
  auto add = [&](const std::string& name, const char* dtype, std::vector<int64_t> shape, size_t bytes) {
    header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + bytes}}};
    data.resize(data.size() + bytes, 0);
  };
  for (const char* side : {"src", "tgt"}) {
    const auto rows = static_cast<int64_t>(c[std::string(side) + "_vocab"].size());
    add(std::string(side) + "_embed.weight", "I8", {rows, L}, static_cast<size_t>(rows * L));
    add(std::string(side) + "_embed.weight.scale", "F32", {rows}, static_cast<size_t>(rows * 4));
  }
  const auto bytes = join(header.dump(), data);

  auto t0 = std::chrono::steady_clock::now();
  const RowMatrix table = sinusoidal_positions(P, L);
  const double table_seconds = seconds_since(t0);
  CHECK(table.rows() == P);
  t0 = std::chrono::steady_clock::now();
  CHECK_THAT(load_error(bytes), Catch::Contains("missing tensor 'encoder.layers.0.self_attn.q_proj.weight'"));
  const double load_seconds = seconds_since(t0);
  INFO("load " << load_seconds << " s, table alone " << table_seconds << " s");
  CHECK(load_seconds < table_seconds / 4);
}
