// The model configuration carried in the file's __metadata__ (docs/model-format.md),
// parsed and range-checked. A plain struct: everything the engine needs to know
// about a model's shape lives here and nowhere else.
#pragma once
#include <string>
#include <vector>

namespace seq2seq {

enum class Arch { Transformer, Cmlm, Rnn };
enum class RnnCell { Gru };
// None: no attention; the decoder reads the fixed context vector c (rnn.h).
enum class AttentionScore { Dot, Multiplicative, ReducedRank, Additive, None };
enum class NormPlacement { Post, Pre };
enum class PosEncoding { Sinusoidal, Learned };
enum class Activation { Relu, Gelu };
enum class CaseFold { None, Upper, Lower };
// What a source token is: a character (a word's letters), or a word of a
// space-separated text (word-level models, such as a trained chatbot's).
enum class SourceTokens { Chars, Words };

// The length logit of lengths an offset length head cannot reach (docs/model-format.md):
// finite so that log-probabilities stay finite (snapshots are JSON), low enough that
// their probability is exactly 0 in float32. models/train/seq2seq_torch.py has the same.
constexpr float kLengthUnreachable = -1e4f;

// The special token ids of one vocabulary (-1: absent). Search takes the target
// side's (scorer.h), which is why this plain struct lives here, below the scorers.
struct SpecialIds {
  int pad = -1, unk = -1, bos = -1, eos = -1, mask = -1;

  // May search choose this token? Every one but PAD, UNK, BOS and MASK; EOS is
  // chosen to end the output.
  bool emittable(int id) const { return id != pad && id != unk && id != bos && id != mask; }
  // Is it a token of an output's text: emittable, and not EOS.
  bool is_text(int id) const { return emittable(id) && id != eos; }
};

// How a model's linear layers multiply, chosen when it is loaded. Auto: int8
// kernels for weights the file stores as int8 (a quarter of the memory, and
// faster), f32 for the rest; F32: every weight widened to f32, as PyTorch computes.
enum class Compute { Auto, F32 };

struct ModelConfig {
  Arch arch = Arch::Transformer;
  int d_model = 0, n_heads = 0, d_ff = 0;
  Activation activation = Activation::Relu;
  int enc_layers = 0, dec_layers = 0;
  NormPlacement norm = NormPlacement::Post;
  float ln_eps = 1e-5f;
  PosEncoding pos = PosEncoding::Sinusoidal;
  int max_pos = 0;
  bool scale_embedding = true;
  bool tie_output = true;
  int max_target_len = 0;  // cmlm: length classes 0..max_target_len
  // cmlm: 0 = length class k is length k; C > 0 = class k is length (source length + k - C),
  // the head predicts the offset from the source length. Transformer::length_logits
  // returns logits over absolute lengths either way.
  int length_offset = 0;

  // RNN encoder-decoder (arch rnn); enc_layers above counts its bi-GRU layers.
  RnnCell cell = RnnCell::Gru;
  int emb_dim = 0, enc_hidden = 0, dec_hidden = 0, attn_dim = 0;
  AttentionScore attention = AttentionScore::Dot;

  std::vector<std::string> src_vocab, tgt_vocab;
  SpecialIds src_specials, tgt_specials;
  CaseFold src_case = CaseFold::None;
  SourceTokens src_tokens = SourceTokens::Chars;
  // The copy mechanism (pointer-generator; docs/model-format.md "The copy mechanism"):
  // the output distribution mixes the vocabulary's with a copy of the source through
  // the attention, over the target vocabulary and the source's tokens it lacks (copy.h).
  bool copy = false;
  std::string name, description;

  bool autoregressive() const { return arch != Arch::Cmlm; }
  int head_dim() const { return d_model / n_heads; }
};

// Parses the `config` JSON text; throws ModelError naming the bad field.
ModelConfig parse_model_config(const std::string& json_text);

const char* to_string(Arch a);
const char* to_string(NormPlacement n);
const char* to_string(PosEncoding p);
const char* to_string(Activation a);
const char* to_string(AttentionScore a);
const char* to_string(Compute c);
const char* to_string(SourceTokens t);
const char* to_string(CaseFold c);
Compute parse_compute(const std::string& name);  // "auto" | "f32"; throws UsageError

}  // namespace seq2seq
