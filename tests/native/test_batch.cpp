// Session::run_batch, the words stepped together: each source's n-best equals
// start + run for it alone, bit for bit (tokens, log-probability, score), for
// every strategy, any window, and with failing sources among the others. On
// random-weight fixture models of every architecture ([session]: the checking
// builds run it too), and over the CMUdict test split on the shipped models.
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "errors.h"
#include "fixtures.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

// What start + run gives for each source alone: its results, or its error's message.
struct Alone {
  std::vector<Result> results;
  std::string error;
};

std::vector<Alone> one_by_one(const std::shared_ptr<const Model>& model, const DecodingOptions& o,
                              const std::vector<std::string>& sources) {
  Session s(model, o);
  std::vector<Alone> out;
  for (const std::string& src : sources) {
    Alone a;
    try {
      s.start(src);
      a.results = s.run();
    } catch (const Error& e) {
      a.error = e.what();
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string error_of(const BatchResult& b) {
  if (!b.error) return "";
  try {
    std::rethrow_exception(b.error);
  } catch (const Error& e) {
    return e.what();
  }
  return "an exception that is no seq2seq::Error";
}

// run_batch with `window` against one_by_one; returns how many sources decoded.
int check_batch(const std::shared_ptr<const Model>& model, const DecodingOptions& o, const std::vector<std::string>& sources,
                int window) {
  const std::vector<Alone> alone = one_by_one(model, o, sources);
  const std::vector<BatchResult> batch = Session(model, o).run_batch(sources, window);
  REQUIRE(batch.size() == sources.size());
  int decoded = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    INFO("source " << i << " '" << sources[i] << "', window " << window);
    REQUIRE(error_of(batch[i]) == alone[i].error);
    REQUIRE(batch[i].results.size() == alone[i].results.size());
    for (size_t k = 0; k < alone[i].results.size(); ++k) {
      const Result &b = batch[i].results[k], &a = alone[i].results[k];
      CHECK(b.tokens == a.tokens);
      CHECK(b.text == a.text);
      CHECK(b.logprob == a.logprob);  // bit for bit: every row is computed on its own
      CHECK(b.score == a.score);
      CHECK(b.steps == a.steps);
    }
    decoded += alone[i].error.empty() ? 1 : 0;
  }
  return decoded;
}

DecodingOptions with(Strategy s) {
  DecodingOptions o;
  o.strategy = s;
  o.beam_size = 3;
  o.n_best = s == Strategy::Beam ? 2 : 1;
  o.seed = 7;
  return o;
}

// Words of the fixtures' letters, of lengths 1 to 9, and two that fail (nothing
// to decode; a character no fixture model knows) among them.
std::vector<std::string> fixture_words() {
  std::vector<std::string> w;
  const std::string letters = "ABCDEFG";
  for (int i = 0; i < 23; ++i) {
    std::string s;
    for (int k = 0; k <= i % 9; ++k) s += letters[static_cast<size_t>((i * 5 + k * 3) % 7)];
    w.push_back(s);
  }
  w.insert(w.begin() + 4, "");
  w.insert(w.begin() + 11, "AB~C");
  return w;
}

}  // namespace

TEST_CASE("run_batch equals decoding each source alone, on every architecture and strategy", "[session][batch]") {
  const std::vector<std::string> words = fixture_words();
  const int good = static_cast<int>(words.size()) - 2;
  for (const char* file : {"ar_post_sin_tied_relu.safetensors", "ar_pre_sin_tied_relu_i8.safetensors", "rnn_dot.safetensors",
                           "rnn_none.safetensors"}) {
    INFO(file);
    const auto model = Model::from_file(fixture_path(file));
    for (Strategy s : {Strategy::Greedy, Strategy::Beam, Strategy::Sample})
      for (int window : {1, 3, 0}) CHECK(check_batch(model, with(s), words, window) == good);
  }
  const auto cmlm = Model::from_file(fixture_path("cmlm_pre_sin_tied_relu.safetensors"));
  CHECK(check_batch(cmlm, with(Strategy::Nar), words, 4) == good);
}

TEST_CASE("run_batch: per-source limits, a forced prefix, and its own errors", "[session][batch]") {
  const auto model = Model::from_file(fixture_path("ar_post_sin_tied_relu.safetensors"));
  const std::vector<std::string> words = fixture_words();
  SECTION("max_length_ratio gives each source its own length, and min_length fails only the sources it leaves no room") {
    DecodingOptions o = with(Strategy::Beam);
    o.max_length_ratio = 1.5;
    o.min_length = 2;
    const int decoded = check_batch(model, o, words, 5);
    CHECK(decoded > 0);
    CHECK(decoded < static_cast<int>(words.size()) - 2);  // the one-letter words have no room: their own InputError
  }
  SECTION("a forced prefix") {
    DecodingOptions o = with(Strategy::Greedy);
    o.prefix = model->target_vocab().token(5);
    check_batch(model, o, words, 4);
  }
  SECTION("an empty list, and a window of fewer than no source") {
    Session s(model, with(Strategy::Greedy));
    CHECK(s.run_batch({}).empty());
    CHECK_THROWS_AS(s.run_batch(words, -1), UsageError);
  }
  SECTION("the session's own decode in progress is left as it was") {
    DecodingOptions o = with(Strategy::Greedy);
    o.min_length = 3;  // a decode of several steps, whatever the random weights prefer
    Session alone(model, o);
    alone.start("ABCDEFG");
    const std::vector<Result> expected = alone.run();
    REQUIRE(expected.at(0).steps > 1);
    Session s(model, o);
    s.start("ABCDEFG");
    s.step();
    s.run_batch(words, 3);
    CHECK(!s.done());
    CHECK(s.run().at(0).tokens == expected.at(0).tokens);
  }
}

// The shipped models over the CMUdict test split (models/data): the
// Transformer greedy over every third word, beam 5 and sampling over slices, the
// RNN and the CMLM (decoded one by one inside run_batch) over a slice.
TEST_CASE("run_batch on the shipped models equals decoding each word alone over the test split", "[models][batch][split]") {
  std::ifstream in(std::string(SEQ2SEQ_MODEL_DIR) + "/data/cmudict-0.7b.test");
  REQUIRE(in.good());
  std::vector<std::string> words;
  std::string line;
  while (std::getline(in, line)) {
    const std::string word = line.substr(0, line.find(' '));
    if (!word.empty() && (words.empty() || words.back() != word)) words.push_back(word);
  }
  REQUIRE(words.size() > 10000);
  std::vector<std::string> every_third;  // the split's length mix, at a third of the time
  for (size_t i = 0; i < words.size(); i += 3) every_third.push_back(words[i]);
  const std::vector<std::string> slice(words.begin(), words.begin() + 500);
  const auto path = [](const char* name) { return std::string(SEQ2SEQ_MODEL_DIR) + "/" + name; };

  const auto transformer = Model::from_file(path("g2p-transformer.safetensors"));
  CHECK(check_batch(transformer, with(Strategy::Greedy), every_third, 0) == static_cast<int>(every_third.size()));
  DecodingOptions beam = with(Strategy::Beam);
  beam.beam_size = 5;
  CHECK(check_batch(transformer, beam, slice, 0) == 500);
  const std::vector<std::string> few(words.begin(), words.begin() + 200);
  CHECK(check_batch(transformer, with(Strategy::Sample), few, 0) == 200);
  CHECK(check_batch(Model::from_file(path("g2p-rnn-dot.safetensors")), beam, few, 0) == 200);
  CHECK(check_batch(Model::from_file(path("g2p-cmlm.safetensors")), with(Strategy::Nar), few, 0) == 200);
}
