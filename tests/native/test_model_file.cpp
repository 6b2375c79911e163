// The loader against bad bytes: every malformation gets a ModelError whose message
// names the problem, and no byte sequence makes it crash or read out of bounds.
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "model_bytes.h"
#include "model.h"
#include "safetensors.h"

using namespace seq2seq;
using namespace seq2seq_test;
using nlohmann::json;

TEST_CASE("a valid file loads from a buffer and from a path alike", "[model_file]") {
  const auto& bytes = valid_file();
  const auto a = Model::from_buffer(bytes.data(), bytes.size());
  const auto b = Model::from_file(fixture_path("cmlm_post_learned_untied_gelu.safetensors"));
  CHECK(a->parameter_count() == b->parameter_count());
  CHECK(a->config().arch == Arch::Cmlm);
  CHECK(a->file_bytes() == bytes.size());
  CHECK_THAT(load_error(bytes), Catch::Equals(""));
}

TEST_CASE("malformed containers are rejected with a message naming the problem", "[model_file]") {
  const auto& good = valid_file();
  CHECK_THAT(load_error({}), Catch::Contains("too short"));
  CHECK_THAT(load_error({1, 2, 3}), Catch::Contains("too short"));
  CHECK_THROWS_AS(Model::from_file("/nonexistent/model.safetensors"), ModelError);

  SECTION("header length past the end") {
    auto bad = good;
    bad[6] = 0x7f;
    CHECK_THAT(load_error(bad), Catch::Contains("runs past the end"));
  }
  SECTION("a web page or a JSON error in place of the model says so") {
    const auto bytes = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
    const std::string page = "<!DOCTYPE html>\n<html><head><title>My app</title></head><body>" + std::string(600, ' ') + "</body></html>\n";
    CHECK_THAT(load_error(bytes(page)), Catch::Contains("runs past the end of the file (") &&
                                            Catch::Contains("it starts with '<!DOCTYPE html>', an HTML or XML document, not a model"));
    CHECK_THAT(load_error(bytes("\xEF\xBB\xBF  \n<html lang=\"en\">" + std::string(100, 'x'))), Catch::Contains("an HTML or XML document"));
    CHECK_THAT(load_error(bytes("{\"error\": \"not found\", \"status\": 404}")),
               Catch::Contains(R"(it starts with '{"error": "not found", "status": 404}', JSON text)"));
    // Binary that is no model keeps the general message.
    CHECK_THAT(load_error({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), Catch::Contains("truncated or not a model file"));
  }
  SECTION("header is not JSON / not an object") {
    CHECK_THAT(load_error(join("{not json", {})), Catch::Contains("not valid JSON"));
    CHECK_THAT(load_error(join("[1, 2, 3]", {})), Catch::Contains("not a JSON object"));
  }
  SECTION("missing or foreign metadata") {
    Parts p = split(good);
    p.header.erase("__metadata__");
    CHECK_THAT(load_error(join(p)), Catch::Contains("no 'format'"));
    p = split(good);
    p.header["__metadata__"]["format"] = "gguf";
    CHECK_THAT(load_error(join(p)), Catch::Contains("not 'seq2seq-wasm'"));
    p = split(good);
    p.header["__metadata__"]["format_version"] = "2";
    CHECK_THAT(load_error(join(p)), Catch::Contains("format_version '2'"));
    p = split(good);
    p.header["__metadata__"]["config"] = 3;
    CHECK_THAT(load_error(join(p)), Catch::Contains("not a string"));
  }
  SECTION("wrong dtype") {
    Parts p = split(good);
    p.header["src_embed.weight"]["dtype"] = "I64";
    CHECK_THAT(load_error(join(p)), Catch::Contains("'src_embed.weight'") && Catch::Contains("unsupported dtype 'I64'"));
  }
  SECTION("byte count does not match shape") {
    Parts p = split(good);
    auto& shape = p.header["tgt_embed.weight"]["shape"];
    shape[1] = shape[1].get<int>() + 1;
    CHECK_THAT(load_error(join(p)), Catch::Contains("'tgt_embed.weight'") && Catch::Contains("do not match"));
  }
  SECTION("offsets outside the data section") {
    Parts p = split(good);
    p.header["out_proj.bias"]["data_offsets"][1] = p.data.size() + 4;
    CHECK_THAT(load_error(join(p)), Catch::Contains("outside"));
    p = split(good);
    p.header["out_proj.bias"]["data_offsets"][0] = -4;
    CHECK_THAT(load_error(join(p)), Catch::Contains("not a non-negative integer"));
  }
  SECTION("overlapping tensors") {
    Parts p = split(good);
    // Point a bias at the first bytes of another tensor of the same size.
    auto& a = p.header["decoder.layers.0.ln1.bias"];
    const auto& b = p.header["decoder.layers.0.ln1.weight"];
    a["data_offsets"] = b["data_offsets"];
    CHECK_THAT(load_error(join(p)), Catch::Contains("overlap"));
  }
  SECTION("a tensor with the right bytes but the wrong shape") {
    Parts p = split(good);
    auto& e = p.header["encoder.layers.0.ffn.fc1.weight"];
    const auto rows = e["shape"][0].get<int>(), cols = e["shape"][1].get<int>();
    e["shape"] = {cols, rows};
    CHECK_THAT(load_error(join(p)), Catch::Contains("'encoder.layers.0.ffn.fc1.weight' has shape"));
  }
  SECTION("missing and unexpected tensors") {
    Parts p = split(good);
    p.header.erase("length_head.bias");
    CHECK_THAT(load_error(join(p)), Catch::Contains("missing tensor 'length_head.bias'"));
    p = split(good);
    p.header["decoder.layers.0.ln4.weight"] = p.header["decoder.layers.0.ln1.weight"];
    p.header.erase("decoder.layers.0.ln1.weight");
    CHECK_THAT(load_error(join(p)), Catch::Contains("missing tensor 'decoder.layers.0.ln1.weight'"));
  }
  SECTION("an unused extra tensor") {
    Parts p = split(good);
    p.header["encoder.layers.9.extra"] = {{"dtype", "F32"}, {"shape", json::array({0})}, {"data_offsets", {0, 0}}};
    CHECK_THAT(load_error(join(p)), Catch::Contains("unexpected tensor 'encoder.layers.9.extra'"));
    // A name as long as the header allows is quoted by its start and its size.
    p = split(good);
    const std::string long_name(200000, 'N');
    p.header[long_name] = {{"dtype", "F32"}, {"shape", json::array({0})}, {"data_offsets", {0, 0}}};
    const std::string message = load_error(join(p));
    CHECK_THAT(message, Catch::Contains("unexpected tensor '" + std::string(64, 'N') + "...' (200000 bytes)"));
    CHECK(message.size() < 400);
  }
  SECTION("non-finite weights") {
    Parts p = split(good);
    const auto begin = p.header["out_proj.bias"]["data_offsets"][0].get<size_t>();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(p.data.data() + begin, &nan, 4);
    CHECK_THAT(load_error(join(p)), Catch::Contains("non-finite value"));
  }
}

TEST_CASE("config values are range-checked and vocabularies held to the embeddings", "[model_file]") {
  const Parts good = split(valid_file());
  auto with = [&](const std::function<void(json&)>& edit) {
    Parts p = good;
    json c = config_of(p);
    edit(c);
    set_config(p, c);
    return load_error(join(p));
  };
  CHECK_THAT(with([](json& c) { c.erase("d_model"); }), Catch::Contains("missing field 'd_model'"));
  CHECK_THAT(with([](json& c) { c["n_heads"] = 5; }), Catch::Contains("not divisible by n_heads"));
  CHECK_THAT(with([](json& c) { c["d_model"] = 0; }), Catch::Contains("'d_model' = 0 is outside"));
  CHECK_THAT(with([](json& c) { c["dec_layers"] = 1000; }), Catch::Contains("'dec_layers' = 1000"));
  CHECK_THAT(with([](json& c) { c["arch"] = "lstm"; }), Catch::Contains("'arch' = 'lstm' is not one of"));
  CHECK_THAT(with([](json& c) { c["norm"] = "middle"; }), Catch::Contains("'norm'"));
  CHECK_THAT(with([](json& c) { c["ln_eps"] = -1; }), Catch::Contains("ln_eps"));
  CHECK_THAT(with([](json& c) { c["tie_output"] = "yes"; }), Catch::Contains("'tie_output' is not true/false"));
  CHECK_THAT(with([](json& c) { c["max_target_len"] = 100000; }), Catch::Contains("max_target_len"));
  CHECK_THAT(with([](json& c) { c["tgt_specials"].erase("mask"); }), Catch::Contains("needs 'mask'"));
  CHECK_THAT(with([](json& c) { c["tgt_specials"]["eos"] = 999; }), Catch::Contains("not an id inside the vocabulary"));
  CHECK_THAT(with([](json& c) { c["tgt_specials"]["eos"] = c["tgt_specials"]["pad"]; }), Catch::Contains("same id"));
  CHECK_THAT(with([](json& c) { c["src_vocab"].push_back(c["src_vocab"][2]); }), Catch::Contains("twice"));
  CHECK_THAT(with([](json& c) { c["src_vocab"] = json::array(); }), Catch::Contains("'src_vocab' is not a non-empty array"));
  // One token more than the embedding has rows: the shape check names the embedding.
  CHECK_THAT(with([](json& c) { c["tgt_vocab"].push_back("ZZ9"); }), Catch::Contains("'tgt_embed.weight' has shape"));
  CHECK_THAT(with([](json& c) { c["pos"] = "sinusoidal"; }), Catch::Contains("unexpected tensor"));
  CHECK_THAT(with([](json& c) { c["tie_output"] = true; }), Catch::Contains("unexpected tensor 'out_proj.weight'"));
  CHECK_THAT(with([](json& c) { c["arch"] = "transformer"; }), Catch::Contains("needs 'bos' and 'eos'") || Catch::Contains("unexpected tensor"));
  // length_offset: optional, 0..max_target_len (16 here), cmlm only
  CHECK(with([](json& c) { c["length_offset"] = 16; }).empty());
  CHECK_THAT(with([](json& c) { c["length_offset"] = -1; }), Catch::Contains("'length_offset' = -1 is outside"));
  CHECK_THAT(with([](json& c) { c["length_offset"] = 17; }), Catch::Contains("'length_offset' = 17 is outside"));
  CHECK_THAT(with([](json& c) { c["length_offset"] = "5"; }), Catch::Contains("'length_offset'"));
  Parts ar = split(read_bytes(fixture_path("ar_post_sin_tied_relu.safetensors")));
  json c = config_of(ar);
  c["length_offset"] = 0;
  set_config(ar, c);
  CHECK(load_error(join(ar)).empty());
  c["length_offset"] = 3;
  set_config(ar, c);
  CHECK_THAT(load_error(join(ar)), Catch::Contains("'length_offset' applies to cmlm models only"));
}

TEST_CASE("vocabulary tokens hold no white space or control characters", "[model_file]") {
  // A target token "AH EY" would decode into what reads as two tokens, which
  // cannot be scored back; a TAB would break the CLI's columns.
  const Parts good = split(valid_file());
  auto with = [&](const char* key, size_t index, const std::string& token) {
    Parts p = good;
    json c = config_of(p);
    c[key][index] = token;
    set_config(p, c);
    return load_error(join(p));
  };
  const json c = config_of(good);
  const size_t t = c["tgt_vocab"].size() - 1, s = c["src_vocab"].size() - 1;
  const std::string why = "; a token holds neither: target tokens are read and written separated by spaces, and the CLI's columns by tabs";
  CHECK(with("tgt_vocab", t, "AH EY") ==
        "model file: config: 'tgt_vocab' entry " + std::to_string(t) + " 'AH EY' holds white space (U+0020)" + why);
  CHECK(with("tgt_vocab", t, "AH\tEY") ==
        "model file: config: 'tgt_vocab' entry " + std::to_string(t) + " 'AH\\x09EY' holds white space (U+0009)" + why);
  CHECK_THAT(with("tgt_vocab", 2, "\xc2\xa0"), Catch::Contains("entry 2 '\xc2\xa0' holds white space (U+00A0)"));          // NBSP
  CHECK_THAT(with("tgt_vocab", 2, "A\xe3\x80\x80"), Catch::Contains("holds white space (U+3000)"));                       // ideographic space
  CHECK_THAT(with("tgt_vocab", 2, std::string("A\0B", 3)), Catch::Contains("'A\\x00B' holds a control character (U+0000)"));
  CHECK_THAT(with("tgt_vocab", 2, "\x1b[2J"), Catch::Contains("'\\x1B[2J' holds a control character (U+001B)"));
  CHECK_THAT(with("tgt_vocab", 2, "A\xc2\x85"), Catch::Contains("'A\\u0085' holds a control character (U+0085)"));     // NEL
  CHECK_THAT(with("src_vocab", s, " "), Catch::Contains("config: 'src_vocab' entry " + std::to_string(s) + " ' ' holds white space (U+0020)"));
  CHECK_THAT(with("src_vocab", s, "\t"), Catch::Contains("'src_vocab' entry " + std::to_string(s) + " '\\x09' holds white space"));
  // A long token is quoted by its start and its size.
  const std::string long_message = with("tgt_vocab", t, std::string(100000, 'Q') + " Q");
  CHECK_THAT(long_message, Catch::Contains("entry " + std::to_string(t) + " '" + std::string(64, 'Q') + "...' (100002 bytes) holds white space"));
  CHECK(long_message.size() < 400);
  // Letters of other scripts and punctuation are tokens like any other.
  CHECK(with("tgt_vocab", t, "\xc9\x99\xcb\x90").empty());  // ə:
}

TEST_CASE("int8 weights need their per-row scales, sane ones", "[model_file][int8]") {
  const Parts good = split(read_bytes(fixture_path("ar_pre_sin_tied_relu_i8.safetensors")));
  const std::string w = "encoder.layers.0.ffn.fc1.weight";  // [d_ff, d_model] = [64, 32]
  REQUIRE(good.header[w]["dtype"] == "I8");
  REQUIRE(good.header[w + ".scale"]["dtype"] == "F32");
  CHECK(load_error(join(good)).empty());
  auto scale_at = [&](const Parts& p, int row) {
    return p.header[w + ".scale"]["data_offsets"][0].get<size_t>() + 4 * static_cast<size_t>(row);
  };
  SECTION("a missing scale") {
    Parts p = good;
    p.header.erase(w + ".scale");
    CHECK_THAT(load_error(join(p)), Catch::Contains("'" + w + "' is stored as I8 but '" + w + ".scale' is missing"));
  }
  SECTION("a scale of the wrong shape") {
    Parts p = good;
    p.header[w + ".scale"]["shape"] = {16};
    p.header[w + ".scale"]["data_offsets"][1] = p.header[w + ".scale"]["data_offsets"][0].get<size_t>() + 64;
    CHECK_THAT(load_error(join(p)), Catch::Contains("'" + w + ".scale' has shape [16], expected [64]"));
  }
  SECTION("a negative or non-finite scale") {
    for (float bad : {-0.5f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      Parts p = good;
      std::memcpy(p.data.data() + scale_at(p, 3), &bad, 4);
      const std::string msg = load_error(join(p));
      INFO(msg);
      CHECK((msg.find("scales must be finite and >= 0") != std::string::npos || msg.find("non-finite value") != std::string::npos));
      CHECK_THAT(msg, Catch::Contains(w + ".scale"));
    }
  }
  SECTION("a scale stored as U8 or I8 (a row's scale is a float)") {
    for (const char* dtype : {"U8", "I8"}) {
      Parts p = good;
      p.header[w + ".scale"]["dtype"] = dtype;  // one byte a row: once read as a weight of its own, asking for its scale
      p.header[w + ".scale"]["data_offsets"][1] = p.header[w + ".scale"]["data_offsets"][0].get<size_t>() + 64;
      CHECK(load_error(join(p)) == "model file: tensor '" + w + ".scale' is stored as " + dtype + "; a weight's scales are F32 or F16");
    }
  }
  SECTION("int8 where no scale can go: a 1-D tensor") {
    Parts p = good;
    const std::string b = "encoder.layers.0.ffn.fc1.bias";  // [64] f32 -> claimed as 64 int8 bytes
    p.header[b]["dtype"] = "I8";
    p.header[b]["data_offsets"][1] = p.header[b]["data_offsets"][0].get<size_t>() + 64;
    CHECK_THAT(load_error(join(p)), Catch::Contains("'" + b + "' is stored as I8, which only 2-D weights may be"));
  }
  SECTION("a scale without an int8 weight") {
    Parts p = good;
    const size_t at = p.data.size();  // out_proj.bias is f32 [16]: give it 16 scales of its own
    p.data.resize(at + 64, 0);
    p.header["out_proj.bias.scale"] = {{"dtype", "F32"}, {"shape", {16}}, {"data_offsets", {at, at + 64}}};
    CHECK_THAT(load_error(join(p)), Catch::Contains("unexpected tensor 'out_proj.bias.scale'"));
  }
}

TEST_CASE("4-bit weights: two a byte, a scale per row, a multiplier per group", "[model_file][int4]") {
  const Parts good = split(read_bytes(fixture_path("cmlm_pre_sin_tied_relu_q4.safetensors")));
  const std::string w = "encoder.layers.0.ffn.fc2.weight";  // [d_model, d_ff] = [32, 64], stored [32, 32]
  REQUIRE(good.header[w]["dtype"] == "U8");
  REQUIRE(good.header[w]["shape"] == json({32, 32}));
  REQUIRE(good.header[w + ".scale"]["shape"] == json({32}));
  REQUIRE(good.header[w + ".multiplier"]["shape"] == json({32, 2}));
  REQUIRE(load_error(join(good)).empty());
  const size_t q_at = good.header[w]["data_offsets"][0].get<size_t>();
  const size_t m_at = good.header[w + ".multiplier"]["data_offsets"][0].get<size_t>();
  // A tensor given `shape` and `bytes` new bytes at the end of the data (zeros past what it held).
  auto restore = [](Parts& p, const std::string& name, const json& shape, size_t bytes) {
    const size_t from = p.header[name]["data_offsets"][0].get<size_t>(), had = p.header[name]["data_offsets"][1].get<size_t>() - from;
    const size_t at = p.data.size();
    p.data.resize(at + bytes, 0);
    std::memcpy(p.data.data() + at, p.data.data() + from, std::min(had, bytes));
    p.header[name]["shape"] = shape;
    p.header[name]["data_offsets"] = {at, at + bytes};
  };
  SECTION("what the engine loads") {
    const auto bytes = join(good);
    const auto model = Model::from_buffer(bytes.data(), bytes.size());
    CHECK(model->storage() == "int4");
    CHECK(model->compute() == "int8");
    // Parameters as PyTorch counts them: two a byte, no scales or multipliers.
    const auto f32 = Model::from_file(fixture_path("cmlm_pre_sin_tied_relu.safetensors"));
    CHECK(model->parameter_count() == f32->parameter_count());
  }
  SECTION("each nibble is a two's-complement value times its group's multiplier") {
    // Row 0's first byte 0x8F: column 0 is 15 - 16 = -1, column 1 is 8 - 16 = -8;
    // the row's two groups (columns 0-31, 32-63) get multipliers 15 and 3.
    Parts p = good;
    p.data[q_at] = 0x8F;
    p.data[q_at + 16] = 0x07;  // column 32: 7
    p.data[m_at] = 15;
    p.data[m_at + 1] = 3;
    const auto bytes = join(p);
    const SafetensorsFile file = parse_safetensors(bytes.data(), bytes.size());
    const auto q = widen_int4(file.tensors.at(w), file.tensors.at(w + ".multiplier").data, 32, 64, 2);
    CHECK(int{q[0]} == -15);
    CHECK(int{q[1]} == -120);
    CHECK(int{q[32]} == 21);
    CHECK(widen_int4(file.tensors.at(w), nullptr, 32, 64, 1)[1] == -8);  // no multipliers: 1
    CHECK(load_error(bytes).empty());
  }
  SECTION("multipliers are optional: none is 1 everywhere") {
    Parts p = good;
    p.header.erase(w + ".multiplier");
    CHECK(load_error(join(p)).empty());
  }
  SECTION("a multiplier over 15 could leave int8") {
    Parts p = good;
    p.data[m_at + 5] = 16;
    CHECK_THAT(load_error(join(p)), Catch::Contains("'" + w + ".multiplier' holds 16 at index 5 (multipliers are 0..15"));
  }
  SECTION("multipliers that do not divide the row into groups, or are not U8") {
    for (auto shape : {json({32, 3}), json({32, 0}), json({32}), json({16, 2}), json({32, 2, 1})}) {
      Parts p = good;
      int64_t n = 1;
      for (const auto& d : shape) n *= d.get<int64_t>();
      restore(p, w + ".multiplier", shape, static_cast<size_t>(n));
      INFO(shape.dump());
      CHECK_THAT(load_error(join(p)), Catch::Contains("'" + w + ".multiplier' must be U8 of shape [32, groups] with groups dividing 64"));
    }
    Parts p = good;
    p.header[w + ".multiplier"]["dtype"] = "I8";
    CHECK_THAT(load_error(join(p)), Catch::Contains("must be U8"));
  }
  SECTION("the stored shape is the weight's with half the columns") {
    Parts p = good;
    restore(p, w, {32, 64}, 32 * 64);
    CHECK_THAT(load_error(join(p)), Catch::Contains("'" + w + "' has shape [32, 64], expected [32, 32]"));
  }
  SECTION("a missing or bad scale") {
    Parts p = good;
    p.header.erase(w + ".scale");
    CHECK_THAT(load_error(join(p)), Catch::Contains("'" + w + "' is stored as U8 but '" + w + ".scale' is missing"));
    p = good;
    const float minus = -1.0f;
    std::memcpy(p.data.data() + p.header[w + ".scale"]["data_offsets"][0].get<size_t>() + 4 * 5, &minus, 4);
    CHECK_THAT(load_error(join(p)), Catch::Contains("holds -1.000000 at row 5 (scales must be finite and >= 0)"));
  }
  SECTION("4-bit where no scale can go, and multipliers without a 4-bit weight") {
    Parts p = good;
    const std::string b = "encoder.layers.0.ffn.fc1.bias";  // [64] f32 -> claimed as 64 bytes
    p.header[b]["dtype"] = "U8";
    p.header[b]["data_offsets"][1] = p.header[b]["data_offsets"][0].get<size_t>() + 64;
    CHECK_THAT(load_error(join(p)), Catch::Contains("'" + b + "' is stored as U8, which only 2-D weights may be"));
    Parts i8 = split(read_bytes(fixture_path("ar_pre_sin_tied_relu_i8.safetensors")));
    const size_t at = i8.data.size();
    i8.data.resize(at + 64, 1);
    i8.header["encoder.layers.0.ffn.fc1.weight.multiplier"] = {{"dtype", "U8"}, {"shape", {64, 1}}, {"data_offsets", {at, at + 64}}};
    CHECK_THAT(load_error(join(i8)), Catch::Contains("unexpected tensor 'encoder.layers.0.ffn.fc1.weight.multiplier'"));
  }
}

TEST_CASE("no byte sequence crashes the loader", "[model_file][fuzz]") {
  const auto& good = valid_file();
  std::mt19937 rng(1234);
  int rejected = 0, loaded = 0;
  SECTION("every truncation") {
    // All cuts inside the header and the first data bytes, then a sample of the rest.
    std::vector<size_t> cuts;
    for (size_t n = 0; n < std::min<size_t>(good.size(), 9000); n += 7) cuts.push_back(n);
    for (int i = 0; i < 200; ++i) cuts.push_back(rng() % good.size());
    for (size_t n : cuts) {
      std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
      if (load_error(cut).empty()) ++loaded; else ++rejected;
    }
    CHECK(loaded == 0);
    CHECK(rejected == static_cast<int>(cuts.size()));
  }
  SECTION("random byte corruption: loads or throws ModelError, nothing else") {
    for (int i = 0; i < 300; ++i) {
      auto bad = good;
      const int flips = 1 + static_cast<int>(rng() % 4);
      // Bias towards the header, where corruption is most interesting.
      for (int f = 0; f < flips; ++f) bad[rng() % std::min<size_t>(bad.size(), (rng() % 2) ? 4096 : bad.size())] ^= static_cast<uint8_t>(1u << (rng() % 8));
      try {
        Model::from_buffer(bad.data(), bad.size());
        ++loaded;
      } catch (const ModelError&) {
        ++rejected;
      }
    }
    CHECK(rejected + loaded == 300);
    CHECK(rejected > 0);
  }
}

TEST_CASE("f16 widening covers normals, subnormals, zeros and infinities", "[model_file]") {
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0xc000) == -2.0f);
  CHECK(half_to_float(0x3555) == Approx(0.333251953125f));
  CHECK(half_to_float(0x0001) == Approx(5.960464477539063e-08f));  // smallest subnormal 2^-24
  CHECK(half_to_float(0x03ff) == Approx(6.097555160522461e-05f));  // largest subnormal
  CHECK(half_to_float(0x7bff) == 65504.0f);
  CHECK(half_to_float(0x8000) == 0.0f);
  CHECK(std::isinf(half_to_float(0x7c00)));
  CHECK(std::isnan(half_to_float(0x7e00)));
}
