// Flag arguments parsed strictly, shared by the CLI's commands (main.cpp,
// train_command.cpp): a number against its option's range, an enum by its name.
#pragma once
#include <cctype>
#include <charconv>
#include <string>
#include <type_traits>

#include "decoding_options.h"
#include "errors.h"

namespace seq2seq_cli {

// Strict number parsing against the option's range: "3x", "", "1e10" for an
// integer, "-1" for the seed are errors naming the flag and what was given,
// never a value cast out of range.
template <typename T>
inline bool parse_in(const std::string& s, const seq2seq::Range<T>& range, T& out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  if constexpr (std::is_integral<T>::value) {
    const char* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, out);  // decimal digits only; no sign for unsigned T
    return r.ec == std::errc() && r.ptr == end && range.contains(out);
  } else {
    try {
      size_t used = 0;
      const double v = std::stod(s, &used);
      // In range as a double first, so that the cast to float is defined.
      if (used != s.size() || !seq2seq::Range<double>{range.lo, range.hi, range.open_lo}.contains(v)) return false;
      out = static_cast<T>(v);
      return range.contains(out);
    } catch (const std::exception&) {  // no number, or beyond double
      return false;
    }
  }
}

template <typename T>
inline T parse_number(const std::string& flag, const std::string& s, const seq2seq::Range<T>& range) {
  T v{};
  if (!parse_in(s, range, v))
    throw seq2seq::UsageError("option " + flag + " needs " + (std::is_integral<T>::value ? "an integer" : "a number") + " in " +
                              seq2seq::to_string(range) + ", got " + seq2seq::quote(s));
  return v;
}

// An enum option's value by its name; `names` lists them for the message.
template <typename E>
inline E parse_enum(const std::string& flag, const std::string& s, const char* names) {
  E v{};
  if (!seq2seq::from_string(s, v)) throw seq2seq::UsageError("option " + flag + " needs one of " + names + ", got " + seq2seq::quote(s));
  return v;
}

}  // namespace seq2seq_cli
