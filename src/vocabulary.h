// Token strings <-> ids, and the tokenizer that turns a source word into ids.
// Source tokens are single characters (Unicode code points); target tokens are
// whole vocabulary entries (phonemes), written out separated by spaces.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model_config.h"

namespace seq2seq {

class Vocabulary {
 public:
  Vocabulary() = default;
  explicit Vocabulary(std::vector<std::string> tokens);
  // This vocabulary followed by `extra` (ids size(), size() + 1, ...): a copy model's
  // output vocabulary for one source, its tokens past the target vocabulary those the
  // source holds and the target vocabulary lacks (copy.h). A text already in the
  // vocabulary keeps its first id for id().
  Vocabulary extended(const std::vector<std::string>& extra) const;

  int size() const { return static_cast<int>(tokens_.size()); }
  const std::string& token(int id) const;        // throws InputError when out of range
  int id(const std::string& token) const;        // -1 when absent
  const std::vector<std::string>& tokens() const { return tokens_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> ids_;
};

// Throws InputError when a text of `bytes` bytes (UTF-8) is longer than
// limits::kMaxTextBytes; `what` names it in the message ("the text").
void check_text_length(uint64_t bytes, const char* what);

// Splits `text` into code points after trimming surrounding white space and
// applying `fold`, and maps each to its id. Throws InputError for empty text,
// invalid UTF-8, a character not in the vocabulary (named with its position), or
// more than `max_len` characters; a text over limits::kMaxTextBytes is refused
// before anything is copied. With SourceTokens::Words the tokens are the text's
// space-separated words instead, and a word not in the vocabulary is `unk` (an
// InputError naming it when the vocabulary has no unk: unk < 0). `texts`, if given,
// receives each token's text after `fold` (a word read as unk: the word itself, what a
// copy model copies).
std::vector<int> tokenize_source(const std::string& text, const Vocabulary& vocab, CaseFold fold, int max_len,
                                 SourceTokens tokens = SourceTokens::Chars, int unk = -1,
                                 std::vector<std::string>* texts = nullptr);

// Parses a space-separated list of target tokens ("HH AH L OW"); throws
// InputError naming an unknown token, or for a text over limits::kMaxTextBytes.
std::vector<int> parse_target_tokens(const std::string& text, const Vocabulary& vocab);

// Joins target ids with spaces, skipping none (the caller strips BOS/EOS).
std::string join_tokens(const std::vector<int>& ids, const Vocabulary& vocab);

}  // namespace seq2seq
