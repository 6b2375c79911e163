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

// A value from outside (a token, a flag's argument, a model file's string) as a
// message quotes it: in single quotes, whole when short; a long one is cut after
// 64 bytes, at a character boundary, and its size given: 'AAAA...' (50000000 bytes).
// No message copies more of a value than that, however long the value is. Control
// characters are written as escapes (\x09, \u0085), so that a message shows where
// a TAB or an ESC is rather than passing it to the terminal. `size` is the whole
// value's when `value` holds only its start.
inline std::string quote(const std::string& value, uint64_t size) {
  constexpr size_t kKeep = 64;
  const bool whole = value.size() <= kKeep && size <= value.size();
  size_t cut = std::min(kKeep, value.size());
  while (cut > 0 && cut < value.size() && (static_cast<unsigned char>(value[cut]) & 0xc0) == 0x80) --cut;
  static const char hex[] = "0123456789ABCDEF";
  std::string out = "'";
  for (size_t i = 0; i < cut; ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    const auto next = i + 1 < cut ? static_cast<unsigned char>(value[i + 1]) : 0;
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F
      out += "\\u00";
      out += hex[next >> 4];
      out += hex[next & 15];
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return whole ? out + "'" : out + "...' (" + std::to_string(size) + " bytes)";
}
inline std::string quote(const std::string& value) { return quote(value, value.size()); }

}  // namespace seq2seq
