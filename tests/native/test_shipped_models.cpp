// The shipped G2P models decode as recorded (tests/fixtures/shipped_models.json,
// written by tests/tools/make_model_checks.py): exact outputs for a fixed word list,
// and the WER on a fixed 1,000-word slice of the test split under a threshold
// just above the measured value (with "stress_removed", a stressed model's outputs
// lose their stress digits first: the split has none). A listed model that is
// missing is a failure.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "fixtures.h"
#include "session.h"

using namespace seq2seq;
using namespace seq2seq_test;

namespace {

DecodingOptions options_from(const nlohmann::json& j) {
  DecodingOptions o;
  REQUIRE(from_string(j.value("strategy", "greedy"), o.strategy));
  o.beam_size = j.value("beam_size", o.beam_size);
  REQUIRE(from_string(j.value("length_norm", "average"), o.length_norm));
  o.iterations = j.value("iterations", o.iterations);
  o.length_candidates = j.value("length_candidates", o.length_candidates);
  o.length_score_weight = j.value("length_score_weight", o.length_score_weight);
  o.attention = false;
  return o;
}

// word -> its reference pronunciations, in file order.
std::vector<std::pair<std::string, std::vector<std::string>>> test_split() {
  std::ifstream in(std::string(SEQ2SEQ_MODEL_DIR) + "/data/cmudict-0.7b.test");
  REQUIRE(in.good());
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  std::map<std::string, size_t> index;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string word, ph, pron;
    if (!(ss >> word)) continue;
    while (ss >> ph) pron += (pron.empty() ? "" : " ") + ph;
    auto it = index.find(word);
    if (it == index.end()) {
      index[word] = out.size();
      out.push_back({word, {pron}});
    } else {
      out[it->second].second.push_back(pron);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("shipped models: exact outputs on fixed words and WER on a test slice", "[models]") {
  const auto spec = load_json(fixture_path("shipped_models.json"));
  for (const auto& m : spec["models"]) {
    const std::string file = m["file"];
    SECTION(file) {
      const auto model = Model::from_file(std::string(SEQ2SEQ_MODEL_DIR) + "/" + file);
      for (const auto& d : m["decodings"]) {
        INFO(file << " " << d["name"].get<std::string>());
        Session s(model, options_from(d["options"]));
        for (auto it = d["outputs"].begin(); it != d["outputs"].end(); ++it) {
          s.start(it.key());
          const auto r = s.run();
          INFO("word " << it.key());
          CHECK(r.at(0).text == it.value().get<std::string>());
        }
      }
      const auto& slice = m["slice"];
      const auto words = test_split();
      const bool stress_removed = slice.value("stress_removed", false);
      Session s(model, options_from(slice["options"]));
      int n = 0, wrong = 0;
      for (size_t i = 0; i < words.size(); i += slice["every"].get<size_t>()) {
        s.start(words[i].first);
        std::string out = s.run().at(0).text;
        if (stress_removed) out.erase(std::remove_if(out.begin(), out.end(), [](unsigned char c) { return std::isdigit(c) != 0; }), out.end());
        const auto& refs = words[i].second;
        wrong += std::find(refs.begin(), refs.end(), out) == refs.end();
        ++n;
      }
      CHECK(n == slice["words"].get<int>());
      const double wer = 100.0 * wrong / n;
      INFO(file << ": slice WER " << wer << "% (recorded " << slice["measured_wer"].get<double>() << "%)");
      CHECK(wer <= slice["max_wer"].get<double>());
    }
  }
}
