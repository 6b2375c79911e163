// Guided attention on a monotonic task (docs/training.md "Guided attention",
// what it does): the same run of `copy` (the same seed, start and batches) with and
// without the penalty, and at a few steps
//   - held-out exact: free-running greedy decoding of the held-out strings through
//     the engine (TrainingRun::evaluate), the share copied exactly;
//   - P: the guided-attention penalty (width 0.2, every decoder layer and head) of a
//     fixed probe batch of 32 training-distribution strings (a batch's worth), teacher-forced: the
//     attention-weighted mean of W(n, t), 0 when every weight is on the diagonal;
//   - on the letter: of the probe's decoder rows that write a letter (all but EOS's),
//     the share whose cross-attention, averaged over layers and heads, peaks at the
//     source position of the very letter it writes (copy's true alignment).
//
//   guided_attention [--arch transformer|rnn] [--steps N] [--weight L] [--every K] [--seed S]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "train/guided_attention.h"
#include "train/run.h"
#include "train/tasks.h"

using namespace seq2seq::train;

namespace {

TrainingOptions options_for(TrainArch arch, int steps, float weight, uint64_t seed) {
  TrainingOptions o = task_defaults(Task::Copy);
  o.arch = arch;
  o.layers = 2;
  o.heads = 4;
  o.d_model = 32;
  o.d_ff = 64;
  o.emb_dim = 16;
  o.enc_hidden = 32;
  o.dec_hidden = 64;
  o.attn_dim = 32;
  o.batch_size = 32;
  o.steps = steps;
  o.warmup_steps = steps / 8;
  o.eval_every = 0;
  o.seed = seed;
  o.guided_attention_weight = weight;
  return o;
}

struct Probe {
  double penalty = 0, on_letter = 0;
};

Probe measure(TrainingRun& run, const Batch& probe, TrainArch arch) {
  Trainer& t = run.trainer();
  t.compute_gradients(probe, false);
  GuidedAttention ga;
  std::vector<float> w(64 * 64);
  Probe p;
  p.penalty = arch == TrainArch::Rnn ? rnn_guided_attention(t.rnn_graph(), probe, ga, nullptr, w.data())
                                     : transformer_guided_attention(t.graph(), probe, ga, nullptr, w.data());
  long hits = 0, rows = 0;
  std::vector<double> avg;
  for (int e = 0; e < probe.size; ++e) {
    const int N = probe.src_len[static_cast<size_t>(e)], T = probe.dec_len[static_cast<size_t>(e)];
    for (int row = 0; row + 1 < T; ++row) {  // row `row` writes letter `row` of the source
      avg.assign(static_cast<size_t>(N), 0.0);
      if (arch == TrainArch::Rnn) {
        const float* a = t.rnn_graph().attention() +
                         static_cast<size_t>(probe.dec_off[static_cast<size_t>(e)] + row) * t.rnn_graph().attention_stride();
        for (int n = 0; n < N; ++n) avg[static_cast<size_t>(n)] = a[n];
      } else {
        const TransformerGraph& g = t.graph();
        const AttentionSpan& s = g.cross_spans()[static_cast<size_t>(e)];
        for (int l = 0; l < g.config().dec_layers; ++l)
          for (int h = 0; h < g.config().n_heads; ++h) {
            const float* a = g.cross_attention(l) + s.p0 + (static_cast<size_t>(h) * T + row) * N;
            for (int n = 0; n < N; ++n) avg[static_cast<size_t>(n)] += a[n];
          }
      }
      int best = 0;
      for (int n = 1; n < N; ++n)
        if (avg[static_cast<size_t>(n)] > avg[static_cast<size_t>(best)]) best = n;
      hits += best == row;
      ++rows;
    }
  }
  p.on_letter = rows ? static_cast<double>(hits) / rows : 0.0;
  return p;
}

}  // namespace

int run(int argc, char** argv) {
  TrainArch arch = TrainArch::Transformer;
  int steps = 400, every = 50;
  float weight = 1.0f;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--arch") arch = v == "rnn" ? TrainArch::Rnn : TrainArch::Transformer;
    else if (a == "--steps") steps = std::atoi(v.c_str());
    else if (a == "--weight") weight = static_cast<float>(std::atof(v.c_str()));
    else if (a == "--every") every = std::atoi(v.c_str());
    else if (a == "--seed") seed = std::strtoull(v.c_str(), nullptr, 10);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const TrainingOptions base = options_for(arch, steps, 0.0f, seed);
  Batch probe;
  {
    const auto task = TaskData::create(base, nullptr);
    const seq2seq::SpecialIds sp = target_special_ids();
    seq2seq::Random rng(seed ^ 0x70726f6265ull);  // "probe"
    TaskExample ex;
    for (int i = 0; i < base.batch_size; ++i) {
      task->draw(rng, ex);
      std::vector<int> in{sp.bos}, out = ex.target;
      in.insert(in.end(), ex.target.begin(), ex.target.end());
      out.push_back(sp.eos);
      probe.add(ex.source, in, out);
    }
  }
  std::printf("copy, %s, %d steps of %d, seed %llu; guided attention weight %g, width 0.2%s\n",
              arch == TrainArch::Rnn ? "RNN (additive, emb_dim 16, enc_hidden 32, dec_hidden 64)" : "Transformer 2+2 layers, d_model 32, 4 heads",
              steps, base.batch_size, static_cast<unsigned long long>(seed), weight, arch == TrainArch::Rnn ? "" : ", every layer and head");
  std::printf("%6s | %-30s | %-30s\n", "", "without", "with");
  std::printf("%6s | %8s %8s %11s | %8s %8s %11s\n", "step", "exact", "P", "on letter", "exact", "P", "on letter");
  TrainingRun plain(base, nullptr), guided(options_for(arch, steps, weight, seed), nullptr);
  double secs[2] = {0, 0};
  while (!plain.done()) {
    TrainingRun* runs[2] = {&plain, &guided};
    double exact[2];
    Probe pr[2];
    for (int k = 0; k < 2; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      runs[k]->step(every);
      secs[k] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      exact[k] = runs[k]->evaluate().word_accuracy;
      pr[k] = measure(*runs[k], probe, arch);
    }
    std::printf("%6d | %7.1f%% %8.4f %10.1f%% | %7.1f%% %8.4f %10.1f%%\n", plain.trainer().steps_taken(), 100 * exact[0], pr[0].penalty,
                100 * pr[0].on_letter, 100 * exact[1], pr[1].penalty, 100 * pr[1].on_letter);
  }
  std::printf("training time (evaluation excluded): %.1f s without, %.1f s with\n", secs[0], secs[1]);
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "guided_attention: %s\n", e.what());
    return 1;
  }
}
