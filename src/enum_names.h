#pragma once
// An enum's names, as the options tables' generated name lists give them
// (src/decoding_options.cpp, src/train/training_options.cpp): {value, "name"} pairs.

#include <cstddef>
#include <string>
#include <utility>

namespace seq2seq {

// The name of `v`; "?" for a value the list lacks.
template <typename E, size_t N>
const char* name_of(E v, const std::pair<E, const char*> (&names)[N]) {
  for (const auto& [value, name] : names)
    if (value == v) return name;
  return "?";
}

// Sets `out` to the value named `name`; false (and `out` untouched) for any other text.
template <typename E, size_t N>
bool value_of(const std::string& name, const std::pair<E, const char*> (&names)[N], E& out) {
  for (const auto& [value, text] : names) {
    if (name == text) {
      out = value;
      return true;
    }
  }
  return false;
}

}  // namespace seq2seq
