// What scheduled sampling's two passes cost a Transformer's training step: the
// same run (a task's default options, the same seed) taught with teacher forcing
// and with two-pass scheduled sampling, side by side. Rounds alternate the two,
// K steps each, so that a drift in the machine's load hits both alike; the first
// round warms up and is dropped. Printed: the medians of steps per second (wall)
// and of CPU milliseconds per step (this thread's: less moved by other work on
// the machine; in wasm, Node's count of the process's), their ratio, and the
// load average before and after. Natively build/native/bench_train_sampling, in
// wasm node build/wasm/bench_train_sampling.js (a build with benchmarks on).
//
//   bench_train_sampling [--task reverse] [--steps-per-round K] [--rounds R]
//                        [--schedule linear] [--token sample]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "train/run.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

using namespace seq2seq::train;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

#ifdef __EMSCRIPTEN__
// Under Node the C clocks give no CPU time; Node's own count of the process's
// does (one thread computes here).
EM_JS(double, node_cpu_seconds, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
});
double thread_cpu_seconds() { return node_cpu_seconds(); }
#else
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
#endif

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: bench_train_sampling [--task reverse|sort|copy|names] [--steps-per-round K] [--rounds R]\n"
               "                            [--schedule linear|exponential|inverse_sigmoid] [--token sample|argmax]\n");
  std::exit(2);
}

struct Timing {
  std::vector<double> steps_per_second, cpu_ms_per_step;
};

// K steps of `run`, timed.
void time_round(TrainingRun& run, int k, Timing& t, bool keep) {
  const double c0 = thread_cpu_seconds();
  const auto w0 = std::chrono::steady_clock::now();
  const int start = run.trainer().steps_taken();
  while (run.trainer().steps_taken() - start < k) run.step(k - (run.trainer().steps_taken() - start));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const double cpu = thread_cpu_seconds() - c0;
  if (!keep) return;
  t.steps_per_second.push_back(k / wall);
  t.cpu_ms_per_step.push_back(1000.0 * cpu / k);
}

}  // namespace

int main(int argc, char** argv) {
  Task task = Task::Reverse;
  int k = 50, rounds = 7;
  SamplingSchedule schedule = SamplingSchedule::Linear;
  SampledToken token = SampledToken::Sample;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) usage();
    const std::string a = argv[i], v = argv[i + 1];
    bool ok = true;
    if (a == "--task") ok = from_string(v, task) && task != Task::G2p;
    else if (a == "--steps-per-round") ok = (k = std::atoi(v.c_str())) >= 1;
    else if (a == "--rounds") ok = (rounds = std::atoi(v.c_str())) >= 2;
    else if (a == "--schedule") ok = from_string(v, schedule) && schedule != SamplingSchedule::Off;
    else if (a == "--token") ok = from_string(v, token);
    else ok = false;
    if (!ok) usage();
  }

  TrainingOptions tf = task_defaults(task);
  tf.steps = 10000000;  // never the last step: no evaluation inside a round
  tf.eval_every = 0;
  TrainingOptions ss = tf;
  ss.scheduled_sampling = schedule;
  ss.sampling_token = token;

  const std::string load_before = load_average();
  TrainingRun a(tf, nullptr), b(ss, nullptr);
  const seq2seq::ModelConfig& cfg = a.model_config();
  std::printf("task %s, d_model %d, %d heads, d_ff %d, %d + %d layers, batches of %d; scheduled sampling %s, own token %s\n",
              to_string(task), cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.enc_layers, cfg.dec_layers, tf.batch_size,
              to_string(schedule), to_string(token));
  std::printf("%d rounds of %d steps each (the first dropped), alternating\n", rounds, k);
  Timing ta, tb;
  for (int r = 0; r < rounds; ++r) {
    // Alternate which goes first, so that neither always follows the other.
    if (r % 2 == 0) {
      time_round(a, k, ta, r > 0);
      time_round(b, k, tb, r > 0);
    } else {
      time_round(b, k, tb, r > 0);
      time_round(a, k, ta, r > 0);
    }
  }
  // A platform with no CPU clock reads 0: the wall time is all there is then.
  const bool cpu = median(ta.cpu_ms_per_step) > 0 && median(tb.cpu_ms_per_step) > 0;
  std::vector<double> ratio;
  for (size_t i = 0; i < ta.cpu_ms_per_step.size(); ++i)
    ratio.push_back(cpu ? tb.cpu_ms_per_step[i] / ta.cpu_ms_per_step[i] : ta.steps_per_second[i] / tb.steps_per_second[i]);
  std::printf("%-34s %12s %16s\n", "", "steps/s", cpu ? "CPU ms/step" : "");
  for (const auto& [name, t] : {std::pair<const char*, const Timing*>{"teacher forcing", &ta}, {"scheduled sampling, two passes", &tb}}) {
    std::printf("%-34s %12.2f", name, median(t->steps_per_second));
    if (cpu) std::printf(" %16.2f", median(t->cpu_ms_per_step));
    std::printf("\n");
  }
  std::printf("two passes / teacher forcing, %s a step: %.3f (median of the rounds' ratios)\n",
              cpu ? "CPU time" : "wall time (no CPU clock here)", median(ratio));
  std::printf("load average (1, 5, 15 min): before %s, after %s\n", load_before.c_str(), load_average().c_str());
  return 0;
}
