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
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_char_length(s.data(), s.size(), i);
    if (len == 0) throw InputError("text is not valid UTF-8 (byte " + std::to_string(i) + ")");
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

}  // namespace

void check_text_length(uint64_t bytes, const char* what) {
  if (bytes > limits::kMaxTextBytes)
    throw InputError(std::string(what) + " has " + std::to_string(bytes) + " bytes (UTF-8); the longest accepted is " +
                     std::to_string(limits::kMaxTextBytes));
}

std::vector<int> tokenize_source(const std::string& text, const Vocabulary& vocab, CaseFold fold, int max_len,
                                 SourceTokens tokens, int unk, std::vector<std::string>* texts) {
  if (texts) texts->clear();
  check_text_length(text.size(), "the text");
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError("the source text is empty");
  const auto last = text.find_last_not_of(" \t\r\n");
  std::string s = text.substr(first, last - first + 1);
  for (auto& ch : s) {  // ASCII only: case is a property of the Latin letters our models read
    if (fold == CaseFold::Upper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    if (fold == CaseFold::Lower && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  if (tokens == SourceTokens::Words) {
    std::istringstream in(s);
    std::vector<int> ids;
    std::string word;
    while (in >> word) {
      if (static_cast<int>(ids.size()) >= max_len)
        throw InputError("the source has more than " + std::to_string(max_len) + " words; this model reads at most " +
                         std::to_string(max_len));
      int id = vocab.id(word);
      if (id < 0 && unk < 0)
        throw InputError("word " + quote(word) + " at position " + std::to_string(ids.size() + 1) +
                         " is not in the model's source vocabulary");
      ids.push_back(id < 0 ? unk : id);
      if (texts) texts->push_back(word);
    }
    return ids;
  }
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
  if (texts) *texts = chars;
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
