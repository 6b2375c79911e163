#include "vocabulary.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "errors.h"
#include "model_limits.h"

namespace seq2seq {

Vocabulary::Vocabulary(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
  for (size_t i = 0; i < tokens_.size(); ++i) ids_.emplace(tokens_[i], static_cast<int>(i));
}

Vocabulary Vocabulary::extended(const std::vector<std::string>& extra) const {
  Vocabulary v = *this;
  for (const std::string& t : extra) {
    v.ids_.emplace(t, static_cast<int>(v.tokens_.size()));
    v.tokens_.push_back(t);
  }
  return v;
}

const std::string& Vocabulary::token(int id) const {
  if (id < 0 || id >= size()) throw InputError("token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(size()));
  return tokens_[static_cast<size_t>(id)];
}

int Vocabulary::id(const std::string& token) const {
  auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

namespace {

// Returns the code points of `s`, or throws on malformed UTF-8 (overlong forms,
// surrogates and truncated sequences included).
std::vector<std::string> split_code_points(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) throw InputError("text is not valid UTF-8 (byte " + std::to_string(i) + ")");
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) throw InputError("text is not valid UTF-8 (byte " + std::to_string(i + k) + ")");
      cp = (cp << 6) | (cc & 0x3f);
    }
    const uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      throw InputError("text is not valid UTF-8 (byte " + std::to_string(i) + ")");
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

std::string describe_char(const std::string& ch) {
  const auto c = static_cast<unsigned char>(ch[0]);
  if (ch.size() == 1 && (c < 0x20 || c == 0x7f)) {
    std::ostringstream o;
    o << "control character 0x" << std::hex << static_cast<int>(c);
    return o.str();
  }
  return "'" + ch + "'";
}

uint32_t code_point(const std::string& ch) {
  const auto c = static_cast<unsigned char>(ch[0]);
  uint32_t cp = ch.size() == 1 ? c : ch.size() == 2 ? (c & 0x1f) : ch.size() == 3 ? (c & 0x0f) : (c & 0x07);
  for (size_t k = 1; k < ch.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(ch[k]) & 0x3f);
  return cp;
}

void fold_case(std::string& s, CaseFold fold) {
  for (auto& ch : s) {  // ASCII only: case is a property of the Latin letters our models read
    if (fold == CaseFold::Upper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    if (fold == CaseFold::Lower && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
}

// A word-level source: the words between white space, each looked up, an unknown one read as unk.
SourceTokens read_words(const std::string& text, const Vocabulary& vocab, CaseFold fold, int unk, int max_len) {
  std::string s = text;
  fold_case(s, fold);
  SourceTokens out;
  std::string word;
  auto end_word = [&] {
    if (word.empty()) return;
    if (static_cast<int>(out.ids.size()) >= max_len)
      throw InputError("the source has more than " + std::to_string(max_len) + " words; this model reads at most " +
                       std::to_string(max_len));
    const int id = vocab.id(word);
    out.ids.push_back(id < 0 ? unk : id);
    out.texts.push_back(std::move(word));
    word.clear();
  };
  for (std::string& ch : split_code_points(s)) {
    const uint32_t cp = code_point(ch);
    if (is_white_space(cp)) {
      end_word();
      continue;
    }
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
      throw InputError("word " + std::to_string(out.ids.size() + 1) + " holds " + describe_char(ch) +
                       ": a word holds no control character");
    word += ch;
  }
  end_word();
  if (out.ids.empty()) throw InputError("the source text is empty");
  return out;
}

}  // namespace

bool is_white_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
         c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

SourceTokens read_source(const std::string& text, const Vocabulary& vocab, CaseFold fold, SourceUnit unit, int unk, int max_len) {
  if (unit == SourceUnit::Word) {
    check_text_length(text.size(), "the text");
    return read_words(text, vocab, fold, unk, max_len);
  }
  SourceTokens out;
  out.ids = tokenize_source(text, vocab, fold, max_len);
  for (int id : out.ids) out.texts.push_back(vocab.token(id));
  return out;
}

void check_text_length(uint64_t bytes, const char* what) {
  if (bytes > limits::kMaxTextBytes)
    throw InputError(std::string(what) + " has " + std::to_string(bytes) + " bytes (UTF-8); the longest accepted is " +
                     std::to_string(limits::kMaxTextBytes));
}

std::vector<int> tokenize_source(const std::string& text, const Vocabulary& vocab, CaseFold fold, int max_len) {
  check_text_length(text.size(), "the text");
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError("the source text is empty");
  const auto last = text.find_last_not_of(" \t\r\n");
  std::string s = text.substr(first, last - first + 1);
  fold_case(s, fold);
  // Counted before splitting, so that a huge text is refused without a string per character.
  const auto count = std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xc0) != 0x80; });
  if (count > max_len)
    throw InputError("the source has " + std::to_string(count) + " characters; this model reads at most " + std::to_string(max_len));
  const auto chars = split_code_points(s);
  std::vector<int> ids;
  ids.reserve(chars.size());
  for (size_t i = 0; i < chars.size(); ++i) {
    const int id = vocab.id(chars[i]);
    if (id < 0)
      throw InputError("character " + describe_char(chars[i]) + " at position " + std::to_string(i + 1) +
                       " is not in the model's source alphabet");
    ids.push_back(id);
  }
  return ids;
}

std::vector<int> parse_target_tokens(const std::string& text, const Vocabulary& vocab) {
  check_text_length(text.size(), "the target");
  std::istringstream in(text);
  std::vector<int> ids;
  std::string tok;
  while (in >> tok) {
    const int id = vocab.id(tok);
    if (id < 0) throw InputError("target token " + quote(tok) + " is not in the model's target vocabulary");
    ids.push_back(id);
  }
  return ids;
}

std::string join_tokens(const std::vector<int>& ids, const Vocabulary& vocab) {
  std::string out;
  for (int id : ids) {
    if (!out.empty()) out += ' ';
    out += vocab.token(id);
  }
  return out;
}

}  // namespace seq2seq
