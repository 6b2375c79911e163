// Decoder steps per second for each strategy, in one run so the ratios hold on a
// noisy machine: greedy, beam 1..8 (how the per-step cost grows with k: the k
// hypotheses go through the decoder as one batch of rows, which keeps it
// sub-linear) and
// Mask-Predict with T = 1, 4, 10; and what one Model::inspect call costs (the
// inside of one pass, every intermediate kept), over the passes a greedy decode
// takes and over a Mask-Predict draft, beside a decode step.
//
//   bench_decoding AR_MODEL [CMLM_MODEL] [--rounds N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "errors.h"
#include "session.h"

using namespace seq2seq;

namespace {

const std::vector<std::string> kWords = {"PHONEME", "ABRACADABRA", "KNIGHT", "QUEUE", "SCHOOL", "THROUGH",
                                         "XYLOPHONE", "ONOMATOPOEIA", "YACHT", "BOOKKEEPER", "RHYTHM", "CAT"};

struct Row {
  std::string name;
  double steps_per_s = 0, ms_per_word = 0, ms_per_step = 0;
};

// The benchmark words this model can read; a toy model with a small alphabet
// gets words spelled from its own alphabet instead.
std::vector<std::string> words_for(const Model& m) {
  std::vector<std::string> ok;
  for (const auto& w : kWords) {
    try {
      m.tokenize(w);
      ok.push_back(w);
    } catch (const InputError&) {
    }
  }
  if (ok.size() >= 4) return ok;
  std::vector<std::string> letters;
  for (const auto& t : m.source_vocab().tokens())
    if (t.size() == 1) letters.push_back(t);
  ok.clear();
  for (size_t i = 0; i < kWords.size(); ++i) {
    std::string w;
    for (size_t j = 0; j < kWords[i].size(); ++j) w += letters[(i * 7 + j * 3) % letters.size()];
    ok.push_back(w);
  }
  return ok;
}

Row measure(const std::shared_ptr<const Model>& model, const std::string& name, DecodingOptions o, int rounds) {
  o.attention = false;
  const std::vector<std::string> words = words_for(*model);
  Session s(model, o);
  long steps = 0;
  std::vector<double> per_round;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& w : words) {
      s.start(w);
      while (!s.done()) {
        s.step();
        ++steps;
      }
    }
    per_round.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(per_round.begin(), per_round.end());
  const double median = per_round[per_round.size() / 2];
  const double steps_per_round = static_cast<double>(steps) / rounds;
  return {name, steps_per_round / median, 1e3 * median / words.size(), 1e3 * median / steps_per_round};
}

// Model::inspect over the decoder inputs of every pass a greedy decode of each word
// takes (an autoregressive model: BOS and 0..n of its n output tokens), or over
// each word's Mask-Predict output as one draft (a CMLM): ms per call.
Row measure_inspect(const std::shared_ptr<const Model>& model, const std::string& name, DecodingOptions o, int rounds) {
  o.attention = false;
  const std::vector<std::string> words = words_for(*model);
  Session s(model, o);
  std::vector<std::pair<std::string, std::vector<int>>> calls;
  for (const auto& w : words) {
    s.start(w);
    const std::vector<int> out = s.run().front().tokens;
    if (!model->config().autoregressive()) {
      if (!out.empty()) calls.emplace_back(w, out);
      continue;
    }
    for (size_t k = 0; k <= out.size(); ++k) calls.emplace_back(w, std::vector<int>(out.begin(), out.begin() + static_cast<long>(k)));
  }
  std::vector<double> per_round;
  size_t kept = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& [w, tokens] : calls) kept += model->inspect(w, tokens).logits.size();
    per_round.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (kept == 0) throw Error("inspect kept no logits");
  std::sort(per_round.begin(), per_round.end());
  const double median = per_round[per_round.size() / 2];
  const double n = static_cast<double>(calls.size());
  return {name, n / median, 1e3 * median / words.size(), 1e3 * median / n};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_decoding AR_MODEL [CMLM_MODEL] [--rounds N]\n");
    return 2;
  }
  int rounds = 5;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
    else paths.emplace_back(argv[i]);
  }
  try {
    std::vector<Row> rows;
    const auto ar = Model::from_file(paths.at(0));
    DecodingOptions o;
    rows.push_back(measure(ar, "greedy", o, rounds));
    o.strategy = Strategy::Beam;
    for (int k : {1, 2, 4, 8}) {
      o.beam_size = k;
      rows.push_back(measure(ar, "beam " + std::to_string(k), o, rounds));
    }
    rows.push_back(measure_inspect(ar, "inspect, greedy's", DecodingOptions{}, rounds));
    if (paths.size() > 1) {
      const auto cmlm = Model::from_file(paths[1]);
      DecodingOptions n;
      n.strategy = Strategy::Nar;
      n.early_stop = false;
      for (int t : {1, 4, 10}) {
        n.iterations = t;
        rows.push_back(measure(cmlm, "mask-predict T=" + std::to_string(t), n, rounds));
      }
      rows.push_back(measure_inspect(cmlm, "inspect, a draft", n, rounds));
    }
    const double base_step = rows[1].ms_per_step;  // beam 1
    std::printf("%-20s %12s %12s %12s %16s\n", "strategy", "steps/s", "ms/step", "ms/word", "step cost / k=1");
    for (const auto& r : rows)
      std::printf("%-20s %12.1f %12.3f %12.3f %16.2f\n", r.name.c_str(), r.steps_per_s, r.ms_per_step, r.ms_per_word,
                  r.ms_per_step / base_step);
    std::printf("(%d rounds over %zu words, median round; one decoder call per step; an inspect row: one call per step,\n"
                " over the inputs of a greedy decode's passes or one draft per word, its ms/word every call of a word)\n",
                rounds, kWords.size());
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_decoding: %s\n", e.what());
    return 1;
  }
}
