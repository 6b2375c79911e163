// The exceptions the library throws. Every failure a caller can cause (a bad
// model file, bad input text, absurd options, misuse of a session) is one of
// these, with a message meant for a person; nothing aborts.
#pragma once
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

}  // namespace seq2seq
