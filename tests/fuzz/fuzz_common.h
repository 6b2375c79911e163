// Shared by the libFuzzer targets of this folder (README.md): the fixtures they
// start from, and one checked decode. Every seq2seq::Error is an acceptable
// answer to a bad input; anything else (a crash, a sanitizer report, an
// assertion, a decode that never ends, a NaN score) stops the fuzzer.
#pragma once
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "errors.h"
#include "model.h"
#include "session.h"

namespace seq2seq_fuzz {

inline std::vector<uint8_t> read_fixture(const std::string& file) {
  const std::string path = std::string(SEQ2SEQ_FIXTURE_DIR) + "/" + file;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot open fixture %s\n", path.c_str());
    std::abort();
  }
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Stops the fuzzer with a message: libFuzzer saves the input as a crash.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

// Random bytes are almost never a source the tokenizer accepts: this maps most
// of them onto the model's one-character source tokens (in either case, the
// tokenizer folds it), and keeps every eighth byte as it is.
inline std::string mostly_valid_source(const std::string& raw, const seq2seq::Vocabulary& vocab) {
  std::string chars;
  for (const std::string& t : vocab.tokens())
    if (t.size() == 1) chars += t;
  if (chars.empty()) return raw;
  std::string out;
  for (unsigned char b : raw) {
    const char c = chars[b % chars.size()];
    out += b % 8 == 0 ? static_cast<char>(b) : b % 8 == 1 ? static_cast<char>(std::tolower(c)) : c;
  }
  return out;
}

// Decodes `source` step by step and checks what any decode must hold: it ends
// within a bound its options imply, step() after the end is refused, and every
// result has tokens of the target vocabulary and a score that is a number.
// on_step(snapshot) sees every snapshot; the last one is returned.
template <typename OnStep>
seq2seq::Snapshot decode_checked(const seq2seq::Model& model, seq2seq::Session& session, const std::string& source,
                                 OnStep&& on_step) {
  session.start(source);
  const seq2seq::DecodingOptions& o = session.options();
  // AR: one pass per output token; NAR: one pass per iteration, and one more to
  // predict the length. A generous bound, far below a hang.
  const long bound = 4L + session.max_length() + o.iterations;
  long steps = 0;
  seq2seq::Snapshot last;
  while (!session.done()) {
    if (++steps > bound) fail("the decode does not end within its max length / iterations");
    last = session.step();
    on_step(last);
  }
  bool refused = false;
  try {
    session.step();
  } catch (const seq2seq::UsageError&) {
    refused = true;
  }
  if (!refused) fail("step() after the end was not refused");
  const int vocab = model.target_vocab().size();
  for (const seq2seq::Result& r : last.results) {
    for (int t : r.tokens)
      if (t < 0 || t >= vocab) fail("a result holds a token outside the target vocabulary");
    if (std::isnan(r.score) || std::isnan(r.logprob)) fail("a result's score is NaN");
  }
  return last;
}

inline seq2seq::Snapshot decode_checked(const seq2seq::Model& model, seq2seq::Session& session, const std::string& source) {
  return decode_checked(model, session, source, [](const seq2seq::Snapshot&) {});
}

}  // namespace seq2seq_fuzz
