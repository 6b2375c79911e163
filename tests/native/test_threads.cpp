// The README's promise: a Model is immutable and shareable, all decoding state
// lives in a Session. Several threads decode with one shared model, each its own
// session, and must get exactly what one thread gets. Natively this runs in the
// ordinary suite; scripts/test.sh also runs it in a ThreadSanitizer build, which
// reports any data race. (The wasm build has no threads.)
#ifndef __EMSCRIPTEN__
#include <catch2/catch.hpp>

#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fixtures.h"
#include "errors.h"
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
// run_batch_threads (the CLI's decode --threads): the lists, and each source's
// error, of one session's run_batch, in order, however many threads take the
// chunks. The words repeat, of uneven length, with unusable ones among them.
TEST_CASE("run_batch_threads gives one session's run_batch, in order, errors in place", "[session][threads]") {
  struct Case {
    const char* file;
    Strategy strategy;
  };
  const std::vector<Case> cases = {
      {"ar_post_sin_tied_relu.safetensors", Strategy::Greedy},
      {"ar_post_sin_tied_relu.safetensors", Strategy::Beam},
      {"ar_post_sin_tied_relu.safetensors", Strategy::Sample},
      {"cmlm_pre_sin_tied_relu.safetensors", Strategy::Nar},
      {"rnn_additive.safetensors", Strategy::Beam},
  };
  std::vector<std::string> words;
  for (int k = 0; k < 9; ++k)
    for (const char* w : {"ABC", "GADE", "FACEDBAGFACE", "", "BEG", "A", "CAF%E"}) words.push_back(w);
  // A line of what a list gives: each result's text and score, or its error's message.
  auto lines = [](const std::vector<BatchResult>& out) {
    std::vector<std::string> s;
    for (const BatchResult& r : out) {
      std::string line;
      try {
        if (r.error) std::rethrow_exception(r.error);
        for (const Result& x : r.results) line += x.text + " " + std::to_string(x.score) + "|";
      } catch (const Error& e) {
        line = std::string("error: ") + e.what();
      }
      s.push_back(line);
    }
    return s;
  };
  for (const Case& c : cases) {
    INFO(c.file << " " << to_string(c.strategy));
    const auto model = Model::from_file(fixture_path(c.file));
    const DecodingOptions o = options_for(c.strategy);
    const std::vector<std::string> expected = lines(Session(model, o).run_batch(words));
    REQUIRE(expected.size() == words.size());
    CHECK(expected[3].rfind("error: ", 0) == 0);  // the empty word
    CHECK(expected[0].rfind("error: ", 0) != 0);
    for (int threads : {1, 2, 3, 5}) {
      INFO(threads << " threads");
      std::vector<std::unique_ptr<Session>> sessions;
      for (int t = 0; t < threads; ++t) sessions.push_back(std::make_unique<Session>(model, o));
      CHECK(lines(run_batch_threads(sessions, words)) == expected);
      CHECK(run_batch_threads(sessions, {}).empty());
    }
  }
  CHECK_THROWS_AS(run_batch_threads({}, words), UsageError);
}
#endif
