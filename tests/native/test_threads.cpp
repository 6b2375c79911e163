// The README's promise: a Model is immutable and shareable, all decoding state
// lives in a Session. Several threads decode with one shared model, each its own
// session, and must get exactly what one thread gets. Natively this runs in the
// ordinary suite; scripts/test.sh also runs it in a ThreadSanitizer build, which
// reports any data race. (The wasm build has no threads.)
#ifndef __EMSCRIPTEN__
#include <catch2/catch.hpp>

#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "fixtures.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

DecodingOptions options_for(Strategy s) {
  DecodingOptions o;
  o.strategy = s;
  o.beam_size = 4;
  o.n_best = s == Strategy::Beam || s == Strategy::Sample ? 3 : 1;
  o.seed = 7;
  o.iterations = 4;
  o.length_candidates = 2;
  return o;
}

// Every (word, strategy) decode as text and scores, in a fixed order starting at `first`.
std::vector<std::string> decode_all(const std::shared_ptr<const Model>& model, const std::vector<Strategy>& strategies,
                                    size_t first) {
  static const std::vector<std::string> words = {"ABC", "GADE", "FACE", "BEG", "DEAF", "A", "CAFE'-"};
  const size_t n = words.size() * strategies.size();
  std::vector<std::string> out(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t i = (first + k) % n;
    Session session(model, options_for(strategies[i % strategies.size()]));
    session.start(words[i / strategies.size()]);
    std::string line;
    for (const Result& r : session.run()) line += r.text + " " + std::to_string(r.score) + "|";
    out[i] = line;
  }
  return out;
}

}  // namespace

TEST_CASE("threads sharing one model, each with its own session, decode as one thread does", "[session][threads]") {
  struct Case {
    const char* file;
    std::vector<Strategy> strategies;
  };
  const std::vector<Case> cases = {
      {"ar_post_sin_tied_relu.safetensors", {Strategy::Greedy, Strategy::Beam, Strategy::Sample}},
      {"ar_pre_sin_tied_relu_i8.safetensors", {Strategy::Greedy, Strategy::Beam}},
      {"cmlm_pre_sin_tied_relu.safetensors", {Strategy::Nar}},
      {"rnn_additive.safetensors", {Strategy::Greedy, Strategy::Beam, Strategy::Sample}},
  };
  constexpr int kThreads = 6;
  for (const Case& c : cases) {
    INFO(c.file);
    const auto model = Model::from_file(fixture_path(c.file));
    const std::vector<std::string> expected = decode_all(model, c.strategies, 0);
    std::vector<std::vector<std::string>> got(kThreads);
    std::vector<std::thread> threads;
    // Each thread starts at another decode, so different steps overlap.
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          got[t] = decode_all(model, c.strategies, static_cast<size_t>(t) * 5);
        } catch (const std::exception& e) {
          got[t] = {std::string("threw: ") + e.what()};
        }
      });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) CHECK(got[t] == expected);
  }
}
#endif
