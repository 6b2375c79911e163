// What an evaluation point costs against a training step (docs/training.md "Held-out
// measures"): the page evaluates every few dozen steps, so an evaluation must stay a
// few steps' worth. For the default reverse run and a tiny names run: the median time
// of one step, of TrainingRun::evaluate() (greedy decoding of the held-out set through
// the engine, and the trainer's forward pass over it), of that forward pass alone, and
// of the same reading done a probe an example.
//
//   train_eval [--repeats N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "train/probe.h"
#include "train/run.h"

using namespace seq2seq::train;

namespace {

double median_ms(int repeats, const std::function<void()>& f) {
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void measure(const char* name, const TrainingOptions& o, int repeats) {
  TrainingRun run(o, nullptr);
  run.step(50);  // past the first steps' warm-up of the caches
  const double step = median_ms(repeats * 5, [&] { run.step(1); });
  const double eval = median_ms(repeats, [&] { run.evaluate(); });
  const seq2seq::ModelConfig& cfg = run.model_config();
  const auto& held = run.task().held_out();
  const seq2seq::Vocabulary src_vocab(cfg.src_vocab), tgt_vocab(cfg.tgt_vocab);
  const double forced = median_ms(repeats, [&] {
    Batch b;
    for (size_t first = 0; first < held.size(); first += static_cast<size_t>(o.batch_size)) {
      b.clear();
      for (size_t i = first; i < std::min(held.size(), first + static_cast<size_t>(o.batch_size)); ++i)
        add_example(cfg, read_example(cfg, src_vocab, tgt_vocab, held[i]), b);
      run.trainer().read(b);
    }
  });
  // The same reading an example at a time (a probe of each): what batching saves.
  const double one_by_one = median_ms(repeats, [&] {
    for (size_t i = 0; i < held.size(); ++i) probe(run, static_cast<int>(i));
  });
  std::printf("%-28s held-out %4zu  step %7.2f ms  evaluation %7.2f ms (%.1f steps; teacher-forced pass %.2f ms, %.1f steps; "
              "a probe an example %.2f ms)\n",
              name, held.size(), step, eval, eval / step, forced, forced / step, one_by_one);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 9;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
  try {
    measure("reverse (defaults)", task_defaults(Task::Reverse), repeats);
    TrainingOptions names = task_defaults(Task::Names);
    names.layers = 1;
    names.heads = 2;
    names.d_model = 32;
    names.d_ff = 64;
    names.batch_size = 16;
    names.eval_size = 100;
    measure("names (1 layer, d_model 32)", names, repeats);
    names.copy = true;
    measure("names, copy", names, repeats);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_eval: %s\n", e.what());
    return 1;
  }
  return 0;
}
