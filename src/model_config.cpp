#include "model_config.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "model_limits.h"
#include "safetensors.h"

namespace seq2seq {

namespace {

using nlohmann::json;

const json& field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw ModelError(std::string("config: missing field '") + key + "'");
  return *it;
}

int get_int(const json& j, const char* key, int lo, int hi) {
  const json& v = field(j, key);
  if (!v.is_number_integer()) throw ModelError(std::string("config: '") + key + "' is not an integer");
  const auto x = v.get<int64_t>();
  if (x < lo || x > hi)
    throw ModelError(std::string("config: '") + key + "' = " + std::to_string(x) + " is outside [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "]");
  return static_cast<int>(x);
}

bool get_bool(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_boolean()) throw ModelError(std::string("config: '") + key + "' is not true/false");
  return v.get<bool>();
}

std::string get_string(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_string()) throw ModelError(std::string("config: '") + key + "' is not a string");
  return v.get<std::string>();
}

template <typename E>
E get_enum(const json& j, const char* key, std::initializer_list<std::pair<const char*, E>> choices) {
  const std::string s = get_string(j, key);
  std::string names;
  for (const auto& c : choices) {
    if (s == c.first) return c.second;
    names += names.empty() ? "" : ", ";
    names += c.first;
  }
  throw ModelError(std::string("config: '") + key + "' = " + quote(s) + " is not one of " + names);
}

// White space as JavaScript's \s knows it (which the npm package splits target
// tokens on), and the C0 and C1 control characters.
bool is_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
         c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}
bool is_control(uint32_t c) { return c < 0x20 || (c >= 0x7f && c <= 0x9f); }

constexpr uint32_t kNone = 0xffffffff;

// The first code point of `s` (UTF-8, valid: the JSON parser checked it) that is
// white space or a control character, or kNone.
uint32_t space_or_control(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : 4;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
    for (size_t k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3fu);
    if (is_space(cp) || is_control(cp)) return cp;
    i += len;
  }
  return kNone;
}

std::vector<std::string> get_vocab(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_array() || v.empty()) throw ModelError(std::string("config: '") + key + "' is not a non-empty array");
  if (v.size() > static_cast<size_t>(limits::kMaxVocab))
    throw ModelError(std::string("config: '") + key + "' has " + std::to_string(v.size()) + " entries; at most " +
                     std::to_string(limits::kMaxVocab) + " are accepted");
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& t : v) {
    if (!t.is_string() || t.get<std::string>().empty())
      throw ModelError(std::string("config: '") + key + "' holds an entry that is not a non-empty string");
    auto s = t.get<std::string>();
    const uint32_t bad = space_or_control(s);
    if (bad != kNone) {
      char code[16];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(bad));
      throw ModelError(std::string("config: '") + key + "' entry " + std::to_string(out.size()) + " " + quote(s) + " holds " +
                       (is_space(bad) ? "white space" : "a control character") + " (" + code +
                       "); a token holds neither: target tokens are read and written separated by spaces, "
                       "and the CLI's columns by tabs");
    }
    if (!seen.insert(s).second) throw ModelError(std::string("config: '") + key + "' lists " + quote(s) + " twice");
    out.push_back(std::move(s));
  }
  return out;
}

SpecialIds get_specials(const json& j, const char* key, size_t vocab_size) {
  const json& v = field(j, key);
  if (!v.is_object()) throw ModelError(std::string("config: '") + key + "' is not an object");
  SpecialIds ids;
  std::set<int> seen;
  for (auto it = v.begin(); it != v.end(); ++it) {
    int* slot = it.key() == "pad" ? &ids.pad : it.key() == "unk" ? &ids.unk : it.key() == "bos" ? &ids.bos
              : it.key() == "eos" ? &ids.eos : it.key() == "mask" ? &ids.mask : nullptr;
    if (!slot) throw ModelError(std::string("config: '") + key + "' has unknown special " + quote(it.key()));
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 ||
        it.value().get<int64_t>() >= static_cast<int64_t>(vocab_size))
      throw ModelError(std::string("config: special ") + quote(it.key()) + " in '" + key + "' is not an id inside the vocabulary");
    *slot = it.value().get<int>();
    if (!seen.insert(*slot).second) throw ModelError(std::string("config: '") + key + "' gives two specials the same id");
  }
  return ids;
}

// A vocabulary of specials only leaves search nothing to emit (every output would be
// empty, or no token could be chosen at all).
void check_has_tokens(const std::vector<std::string>& vocab, const SpecialIds& sp, const char* key) {
  for (int id = 0; id < static_cast<int>(vocab.size()); ++id)
    if (sp.is_text(id)) return;
  throw ModelError(std::string("config: '") + key + "' holds only special tokens; a model needs at least one other");
}

}  // namespace

ModelConfig parse_model_config(const std::string& text) {
  check_json_depth(text.data(), text.size(), "config");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw ModelError(std::string("config is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw ModelError("config is not a JSON object");

  ModelConfig c;
  c.arch = get_enum<Arch>(j, "arch", {{"transformer", Arch::Transformer}, {"cmlm", Arch::Cmlm}, {"rnn", Arch::Rnn}});
  if (c.arch == Arch::Rnn) {
    c.cell = get_enum<RnnCell>(j, "cell", {{"gru", RnnCell::Gru}});
    c.emb_dim = get_int(j, "emb_dim", 1, limits::kMaxWidth);
    c.enc_hidden = get_int(j, "enc_hidden", 1, limits::kMaxWidth);
    c.enc_layers = get_int(j, "enc_layers", 1, limits::kMaxRnnLayers);
    c.dec_hidden = get_int(j, "dec_hidden", 1, limits::kMaxWidth);
    c.attention = get_enum<AttentionScore>(j, "attention", {{"dot", AttentionScore::Dot},
                                                            {"multiplicative", AttentionScore::Multiplicative},
                                                            {"reduced_rank", AttentionScore::ReducedRank},
                                                            {"additive", AttentionScore::Additive},
                                                            {"none", AttentionScore::None}});
    if (c.attention == AttentionScore::ReducedRank || c.attention == AttentionScore::Additive)
      c.attn_dim = get_int(j, "attn_dim", 1, limits::kMaxWidth);
    if (c.attention == AttentionScore::Dot && c.dec_hidden != 2 * c.enc_hidden)
      throw ModelError("config: dot attention needs dec_hidden (" + std::to_string(c.dec_hidden) + ") == 2 * enc_hidden (" +
                       std::to_string(2 * c.enc_hidden) + ")");
  } else {
    c.d_model = get_int(j, "d_model", 1, limits::kMaxWidth);
    c.n_heads = get_int(j, "n_heads", 1, limits::kMaxHeads);
    if (c.d_model % c.n_heads != 0) throw ModelError("config: d_model " + std::to_string(c.d_model) +
                                                     " is not divisible by n_heads " + std::to_string(c.n_heads));
    c.d_ff = get_int(j, "d_ff", 1, limits::kMaxFeedForward);
    c.activation = get_enum<Activation>(j, "activation", {{"relu", Activation::Relu}, {"gelu", Activation::Gelu}});
    c.enc_layers = get_int(j, "enc_layers", 0, limits::kMaxLayers);
    c.dec_layers = get_int(j, "dec_layers", 1, limits::kMaxLayers);
    c.norm = get_enum<NormPlacement>(j, "norm", {{"post", NormPlacement::Post}, {"pre", NormPlacement::Pre}});
    const json& eps = field(j, "ln_eps");
    if (!eps.is_number() || !(eps.get<double>() > 0.0 && eps.get<double>() < 1.0))
      throw ModelError("config: 'ln_eps' must be a number in (0, 1)");
    c.ln_eps = eps.get<float>();
    c.pos = get_enum<PosEncoding>(j, "pos", {{"sinusoidal", PosEncoding::Sinusoidal}, {"learned", PosEncoding::Learned}});
    c.scale_embedding = get_bool(j, "scale_embedding");
    c.tie_output = get_bool(j, "tie_output");
  }
  c.max_pos = get_int(j, "max_pos", 1, limits::kMaxPositions);
  c.src_vocab = get_vocab(j, "src_vocab");
  c.tgt_vocab = get_vocab(j, "tgt_vocab");
  c.src_specials = get_specials(j, "src_specials", c.src_vocab.size());
  c.tgt_specials = get_specials(j, "tgt_specials", c.tgt_vocab.size());
  c.src_case = j.contains("src_case")
                   ? get_enum<CaseFold>(j, "src_case", {{"none", CaseFold::None}, {"upper", CaseFold::Upper}, {"lower", CaseFold::Lower}})
                   : CaseFold::None;
  // Optional, "chars" when absent (files written before it existed read characters).
  if (j.contains("src_tokens"))
    c.src_tokens = get_enum<SourceTokens>(j, "src_tokens", {{"chars", SourceTokens::Chars}, {"words", SourceTokens::Words}});
  if (j.contains("copy")) c.copy = get_bool(j, "copy");  // optional, false when absent
  if (j.contains("name")) c.name = get_string(j, "name");
  if (j.contains("description")) c.description = get_string(j, "description");

  check_has_tokens(c.tgt_vocab, c.tgt_specials, "tgt_vocab");
  if (c.autoregressive() && (c.tgt_specials.bos < 0 || c.tgt_specials.eos < 0))
    throw ModelError("config: an autoregressive model needs 'bos' and 'eos' in tgt_specials");
  if (c.arch == Arch::Cmlm) {
    if (c.tgt_specials.mask < 0) throw ModelError("config: a cmlm model needs 'mask' in tgt_specials");
    c.max_target_len = get_int(j, "max_target_len", 1, c.max_pos - 1);
  } else if (j.contains("max_target_len")) {  // written by every Transformer export; checked, not used
    c.max_target_len = get_int(j, "max_target_len", 1, c.max_pos - 1);
  }
  if (c.copy) {
    if (c.arch == Arch::Cmlm)
      throw ModelError("config: the copy mechanism ('copy': true) needs an autoregressive model (transformer or rnn); a cmlm "
                       "predicts every position at once and has no copy");
    if (c.arch == Arch::Rnn && c.attention == AttentionScore::None)
      throw ModelError("config: the copy mechanism copies through the attention, and attention 'none' has none");
    if (c.tgt_specials.unk < 0)
      throw ModelError("config: a copy model needs 'unk' in tgt_specials: the decoder reads it after a copied token the "
                       "target vocabulary lacks");
  }
  if (j.contains("length_offset")) {  // optional: files written before it existed have absolute lengths
    c.length_offset = get_int(j, "length_offset", 0, std::max(0, c.max_target_len));
    if (c.length_offset != 0 && c.arch != Arch::Cmlm)
      throw ModelError("config: 'length_offset' applies to cmlm models only (this one is " + std::string(to_string(c.arch)) +
                       ")");
  }
  return c;
}

const char* to_string(Arch a) { return a == Arch::Transformer ? "transformer" : a == Arch::Cmlm ? "cmlm" : "rnn"; }
const char* to_string(AttentionScore a) {
  switch (a) {
    case AttentionScore::Dot: return "dot";
    case AttentionScore::Multiplicative: return "multiplicative";
    case AttentionScore::ReducedRank: return "reduced_rank";
    case AttentionScore::Additive: return "additive";
    case AttentionScore::None: return "none";
  }
  return "?";
}
const char* to_string(NormPlacement n) { return n == NormPlacement::Post ? "post" : "pre"; }
const char* to_string(PosEncoding p) { return p == PosEncoding::Sinusoidal ? "sinusoidal" : "learned"; }
const char* to_string(Activation a) { return a == Activation::Relu ? "relu" : "gelu"; }
const char* to_string(Compute c) { return c == Compute::F32 ? "f32" : "auto"; }
const char* to_string(SourceTokens t) { return t == SourceTokens::Words ? "words" : "chars"; }
const char* to_string(CaseFold c) { return c == CaseFold::Upper ? "upper" : c == CaseFold::Lower ? "lower" : "none"; }

Compute parse_compute(const std::string& name) {
  if (name == "auto") return Compute::Auto;
  if (name == "f32") return Compute::F32;
  throw UsageError("compute must be 'auto' or 'f32', not " + quote(name));
}

}  // namespace seq2seq
