// Training speed of the engine's trainer: optimizer steps per second of a
// Transformer on the reverse task (teacher forcing, AdamW, clipping; dropout and
// label smoothing 0, the task's defaults), with the run's own batches drawn from
// the seed, exactly as `seq2seq train` takes them. The same executable built by
// Emscripten runs under Node, so the native and the wasm numbers come from one
// source; bench/train-speed.mjs runs both beside PyTorch (bench/train_speed_torch.py)
// and prints the table of docs/training.md.
//
//   bench_train D_MODEL HEADS D_FF LAYERS BATCH WARMUP_STEPS TIMED_STEPS
//
// One JSON line: the parameters, the kernel set, steps per second over the timed
// steps (after the warm-up steps, which fill the caches and let AdamW's moments
// start), of wall time and of the process's CPU time, the trainer's own bytes (parameters, gradients, moments, activations),
// and the peak memory: natively the process's peak resident set, in wasm the
// module's linear memory (it only grows, so its size at the end is its peak).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#if defined(__EMSCRIPTEN__)
#include <emscripten/em_asm.h>
#include <emscripten/heap.h>
#else
#include <sys/resource.h>
#include <ctime>
#endif

#include "kernel_set.h"
#include "train/run.h"
#include "train/training_options.h"

using namespace seq2seq;

namespace {

int arg(char** argv, int i) {
  char* end = nullptr;
  const long v = std::strtol(argv[i], &end, 10);
  if (*end != '\0' || v < 0 || v > 1000000) {
    std::fprintf(stderr, "bench_train: argument %d (%s) is not a count\n", i, argv[i]);
    std::exit(2);
  }
  return static_cast<int>(v);
}

// CPU seconds of the process: on a loaded machine the wall time says how much of
// a core the process got, the CPU time how fast it ran. Under Node, the whole
// process's (its compiler and GC threads too), as process.cpuUsage() counts it.
double cpu_seconds() {
#if defined(__EMSCRIPTEN__)
  return EM_ASM_DOUBLE({
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  });
#else
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
#endif
}

double peak_memory_mb() {
#if defined(__EMSCRIPTEN__)
  return static_cast<double>(emscripten_get_heap_size()) / (1 << 20);
#else
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024;  // KiB on Linux
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: bench_train D_MODEL HEADS D_FF LAYERS BATCH WARMUP_STEPS TIMED_STEPS\n");
    return 2;
  }
  try {
    train::TrainingOptions o = train::task_defaults(train::Task::Reverse);
    o.d_model = arg(argv, 1);
    o.heads = arg(argv, 2);
    o.d_ff = arg(argv, 3);
    o.layers = arg(argv, 4);
    o.batch_size = arg(argv, 5);
    const int warm = arg(argv, 6), timed = arg(argv, 7);
    // Far past the steps taken, so that no evaluation point falls among them.
    o.steps = warm + timed + 1000;
    o.eval_every = 0;
    o.log_every = o.steps;
    train::TrainingRun run(o, nullptr);
    int done = 0;
    while (done < warm) done = run.step(warm - done).step;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = cpu_seconds();
    while (done < warm + timed) done = run.step(warm + timed - done).step;
    const double cpu = cpu_seconds() - cpu0;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "{\"side\":\"%s\",\"isa\":\"%s\",\"params\":%zu,\"dModel\":%d,\"heads\":%d,\"dFf\":%d,\"layers\":%d,"
        "\"batch\":%d,\"steps\":%d,\"seconds\":%.4f,\"stepsPerSecond\":%.3f,\"cpuSeconds\":%.4f,\"stepsPerCpuSecond\":%.3f,"
        "\"trainerMB\":%.2f,\"peakMB\":%.1f}\n",
#if defined(__EMSCRIPTEN__)
        "wasm",
#else
        "native",
#endif
        kernels().isa, run.trainer().params().size(), o.d_model, o.heads, o.d_ff, o.layers, o.batch_size, timed,
        seconds, timed / seconds, cpu, timed / cpu, static_cast<double>(run.trainer().memory_bytes()) / (1 << 20), peak_memory_mb());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_train: %s\n", e.what());
    return 1;
  }
  return 0;
}
