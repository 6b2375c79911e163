// Words stepped together: words per second of Session::run_batch with windows
// of 1 to 64 sources (1: each word stepped alone inside the same call; 0: the
// default, about Session::kBatchRows hypotheses) against start + run per word,
// over the first N distinct words of the CMUdict test split, greedy and beam 5.
// Rounds interleave every variant so that a drift in the machine's load hits all
// alike; medians of per-round ratios to the loop are printed. The results are
// checked equal to the loop's in the first round.
//
//   bench_batch MODEL [--words N] [--rounds R] [--data FILE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "session.h"

using namespace seq2seq;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<std::string> test_words(const std::string& path, size_t n) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::string line;
  while (out.size() < n && std::getline(in, line)) {
    const std::string w = line.substr(0, line.find(' '));
    if (!w.empty() && seen.insert(w).second) out.push_back(w);
  }
  return out;
}

template <typename F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_batch MODEL [--words N] [--rounds R] [--data FILE]\n");
    return 2;
  }
  size_t n_words = 1000;
  int rounds = 3;
  std::string data = std::string(argv[1]).substr(0, std::string(argv[1]).find_last_of('/') + 1) + "data/cmudict-0.7b.test";
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--words") n_words = static_cast<size_t>(std::atol(argv[i + 1]));
    else if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
    else if (flag == "--data") data = argv[i + 1];
  }
  const auto model = Model::from_file(argv[1]);
  const std::vector<std::string> words = test_words(data, n_words);
  std::printf("%s, %zu words of %s, %d rounds\n", argv[1], words.size(), data.c_str(), rounds);

  const std::vector<int> windows = {1, 4, 8, 16, 32, 64, 0};
  for (const char* strategy : {"greedy", "beam"}) {
    DecodingOptions o;
    o.strategy = std::string(strategy) == "beam" ? Strategy::Beam : Strategy::Greedy;
    o.beam_size = 5;
    o.attention = false;
    Session s(model, o);
    std::vector<double> loop_s;
    std::vector<std::vector<double>> ratio(windows.size());
    for (int r = 0; r < rounds; ++r) {
      std::vector<std::vector<Result>> alone;
      const double loop = seconds([&] {
        for (const auto& w : words) {
          s.start(w);
          alone.push_back(s.run());
        }
      });
      loop_s.push_back(loop);
      for (size_t k = 0; k < windows.size(); ++k) {
        std::vector<BatchResult> batch;
        const double t = seconds([&] { batch = s.run_batch(words, windows[k]); });
        ratio[k].push_back(loop / t);
        if (r == 0)
          for (size_t i = 0; i < words.size(); ++i)
            if (batch[i].error || batch[i].results.at(0).tokens != alone[i].at(0).tokens ||
                batch[i].results.at(0).logprob != alone[i].at(0).logprob) {
              std::fprintf(stderr, "%s window %d: word %zu differs from the loop\n", strategy, windows[k], i);
              return 1;
            }
      }
    }
    std::printf("\n%s%s: loop of start + run %.1f words/s (median)\n", strategy, o.strategy == Strategy::Beam ? " 5" : "",
                words.size() / median(loop_s));
    std::printf("| window (sources in flight) | run_batch / loop (median; each round) |\n| ---: | ---: |\n");
    for (size_t k = 0; k < windows.size(); ++k) {
      std::printf("| %s | %.3f (", windows[k] ? std::to_string(windows[k]).c_str() : "default", median(ratio[k]));
      for (size_t r = 0; r < ratio[k].size(); ++r) std::printf("%s%.2f", r ? ", " : "", ratio[k][r]);
      std::printf(") |\n");
    }
  }
  return 0;
}
