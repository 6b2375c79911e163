// The exceptions the library throws. Every failure a caller can cause (a bad
// model file, bad input text, absurd options, misuse of a session) is one of
// these, with a message meant for a person; nothing aborts.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace seq2seq {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The model file is malformed, truncated, inconsistent or of an unknown kind; or
// its weights give non-finite scores (float overflow) for the source being decoded.
struct ModelError : Error {
  explicit ModelError(const std::string& what) : Error("model file: " + what) {}
};

// The input to decode is unusable: empty, too long, unknown characters or tokens.
struct InputError : Error {
  explicit InputError(const std::string& what) : Error("input: " + what) {}
};

// Decoding options out of range, or a session used in the wrong order.
struct UsageError : Error {
  explicit UsageError(const std::string& what) : Error(what) {}
};

// The length of the well-formed UTF-8 character at s[i] of s[0, n) (1 to 4 bytes), its code
// point in *code_point; 0 where the bytes there are no character: a stray continuation byte, a
// truncated sequence, an overlong form, a surrogate, a code point over U+10FFFF. The one
// statement of what UTF-8 the engine reads (the tokenizer's check) and quote() shows as it is.
inline size_t utf8_char_length(const char* s, size_t n, size_t i, uint32_t* code_point = nullptr) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (len == 0 || len > n - i) return 0;
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
  for (size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc >> 6) != 0x2) return 0;
    cp = (cp << 6) | (cc & 0x3fu);
  }
  const uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for_len[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  if (code_point) *code_point = cp;
  return len;
}

// A value from outside (a token, a flag's argument, a model file's string) as a
// message quotes it: in single quotes, whole when short; a long one is cut after
// 64 bytes, at a character boundary, and its size given: 'AAAA...' (50000000 bytes).
// No message copies more of a value than that, however long the value is. Control
// characters are written as escapes (\x09, \u0085), so that a message shows where
// a TAB or an ESC is rather than passing it to the terminal, and so is each byte that
// is not part of a UTF-8 character (\xFF): a message is always UTF-8. `size` is the
// whole value's when `value` holds only its start.
inline std::string quote(const std::string& value, uint64_t size) {
  constexpr size_t kKeep = 64;
  const bool whole = value.size() <= kKeep && size <= value.size();
  size_t cut = std::min(kKeep, value.size());
  while (cut > 0 && cut < value.size() && (static_cast<unsigned char>(value[cut]) & 0xc0) == 0x80) --cut;
  static const char hex[] = "0123456789ABCDEF";
  std::string out = "'";
  for (size_t i = 0; i < cut;) {
    const auto c = static_cast<unsigned char>(value[i]);
    uint32_t cp = 0;
    const size_t len = utf8_char_length(value.data(), cut, i, &cp);
    if (len == 0 || c < 0x20 || c == 0x7f) {  // not a character, or a C0 control
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    } else if (cp >= 0x80 && cp <= 0x9f) {  // a C1 control
      out += "\\u00";
      out += hex[cp >> 4];
      out += hex[cp & 15];
      i += len;
    } else {
      out.append(value, i, len);
      i += len;
    }
  }
  return whole ? out + "'" : out + "...' (" + std::to_string(size) + " bytes)";
}
inline std::string quote(const std::string& value) { return quote(value, value.size()); }

}  // namespace seq2seq
