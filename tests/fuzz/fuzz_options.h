// Shared by the decoding targets (fuzz_decode, fuzz_score): the fixture models
// they decode with and decoding options taken from the fuzz input, out-of-range
// values included (validate() must refuse them).
#pragma once
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_common.h"

namespace seq2seq_fuzz {

// Small fixture models: autoregressive f32 and int8, CMLM, RNN.
inline const std::vector<std::shared_ptr<const seq2seq::Model>>& models() {
  static const std::vector<std::shared_ptr<const seq2seq::Model>> all = [] {
    std::vector<std::shared_ptr<const seq2seq::Model>> m;
    for (const char* file : {"ar_post_sin_tied_relu.safetensors", "ar_pre_sin_tied_relu_i8.safetensors",
                             "cmlm_pre_sin_tied_relu.safetensors", "rnn_additive.safetensors"}) {
      const std::vector<uint8_t> bytes = read_fixture(file);
      m.push_back(seq2seq::Model::from_buffer(bytes.data(), bytes.size()));
    }
    return m;
  }();
  return all;
}

// Mostly a value in [lo, hi]; sometimes any float bits at all (NaN, infinities,
// denormals), which validate() must refuse or handle.
inline float fuzzed_float(FuzzedDataProvider& in, float lo, float hi) {
  if (in.ConsumeIntegralInRange(0, 7) == 0) {
    const uint32_t bits = in.ConsumeIntegral<uint32_t>();
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  return in.ConsumeFloatingPointInRange(lo, hi);
}

// A prefix of target tokens: mostly real ones, sometimes unknown words.
inline std::string fuzzed_prefix(FuzzedDataProvider& in, const seq2seq::Vocabulary& vocab) {
  std::string prefix;
  const int n = in.ConsumeIntegralInRange(0, 3);
  for (int i = 0; i < n; ++i) {
    if (!prefix.empty()) prefix += ' ';
    prefix += in.ConsumeBool() ? vocab.token(in.ConsumeIntegralInRange(0, vocab.size() - 1)) : in.ConsumeRandomLengthString(4);
  }
  return prefix;
}

inline seq2seq::DecodingOptions fuzzed_options(FuzzedDataProvider& in, const seq2seq::Model& model) {
  using namespace seq2seq;
  DecodingOptions o;
  // The strategy that fits the model, but now and then one that does not.
  if (in.ConsumeIntegralInRange(0, 15) == 0) o.strategy = in.PickValueInArray({Strategy::Greedy, Strategy::Beam, Strategy::Sample, Strategy::Nar});
  else if (!model.config().autoregressive()) o.strategy = Strategy::Nar;
  else o.strategy = in.PickValueInArray({Strategy::Greedy, Strategy::Beam, Strategy::Sample});
  o.beam_size = in.ConsumeIntegralInRange(-1, 260);
  o.length_norm = in.PickValueInArray({LengthNorm::None, LengthNorm::Average, LengthNorm::Gnmt});
  o.gnmt_alpha = fuzzed_float(in, -1, 11);
  o.max_length = in.ConsumeIntegralInRange(-1, 300);
  o.max_length_ratio = in.ConsumeBool() ? 0 : fuzzed_float(in, -1, 4);
  o.min_length = in.ConsumeIntegralInRange(-1, 40);
  o.n_best = in.ConsumeIntegralInRange(-1, 260);
  o.prefix = in.ConsumeBool() ? "" : fuzzed_prefix(in, model.target_vocab());
  o.temperature = fuzzed_float(in, -0.5, 5);
  o.top_k = in.ConsumeIntegralInRange(-1, 40);
  o.top_p = fuzzed_float(in, -0.1f, 1.1f);
  o.seed = in.ConsumeIntegral<uint64_t>();
  o.nar_length = in.PickValueInArray({NarLength::Predicted, NarLength::Fixed, NarLength::Given});
  o.length_candidates = in.ConsumeIntegralInRange(-1, 40);
  o.length_score_weight = fuzzed_float(in, -1, 11);
  o.nar_given_length = in.ConsumeIntegralInRange(-1, 40);
  o.iterations = in.ConsumeIntegralInRange(-1, 110);
  o.early_stop = in.ConsumeBool();
  o.top_candidates = in.ConsumeIntegralInRange(-1, 70);
  o.attention = in.ConsumeBool();
  return o;
}

// Legal options allow decodes of many seconds under ASan (64 length candidates x
// 100 iterations, 256 hypotheses x 32 steps): the fuzzer looks for wrong answers,
// not slow right ones, so the work of one decode is capped, keeping every
// option's edge values reachable.
inline void cap_work(seq2seq::DecodingOptions& o) {
  constexpr int kBudget = 64;  // NAR drafts x iterations
  if (o.length_candidates > 0 && o.iterations > 0 && o.length_candidates * o.iterations > kBudget)
    o.iterations = std::max(1, kBudget / o.length_candidates);
  // Up to 128 hypotheses or samples, and hypotheses x output positions up to 1024:
  // 62 samples of up to 194 tokens took 3.6 s under ASan, and re-scoring 170 of
  // them (fuzz_score) 4.8 s, on a loaded machine; libFuzzer's limit is 2 s.
  // Values over the options' ranges are left as they are, for validation to refuse.
  namespace r = seq2seq::option_range;
  constexpr int kMaxHypotheses = 128, kMaxPositions = 1024;
  if (o.beam_size > kMaxHypotheses && r::beam_size.contains(o.beam_size)) o.beam_size = kMaxHypotheses;
  if (o.n_best > kMaxHypotheses && r::n_best.contains(o.n_best)) o.n_best = kMaxHypotheses;
  const int hyps = std::min(std::max({o.beam_size, o.n_best, 1}), std::max(r::beam_size.hi, r::n_best.hi));
  if (o.max_length > 4 && hyps * o.max_length > kMaxPositions) {
    const int cap = std::max(4, kMaxPositions / hyps);
    if (o.min_length > cap && o.min_length <= o.max_length) o.min_length = cap;
    o.max_length = cap;
  }
}

// To read a finding (SEQ2SEQ_FUZZ_VERBOSE set): the options, one line.
inline void print_options(const seq2seq::DecodingOptions& o) {
  std::fprintf(stderr,
               "strategy %s beam %d norm %s alpha %g max_length %d ratio %g min %d n_best %d prefix '%s' temp %g "
               "top_k %d top_p %g nar %s candidates %d weight %g given %d iterations %d early %d top %d attention %d\n",
               seq2seq::to_string(o.strategy), o.beam_size, seq2seq::to_string(o.length_norm), o.gnmt_alpha,
               o.max_length, o.max_length_ratio, o.min_length, o.n_best, o.prefix.c_str(), o.temperature, o.top_k,
               o.top_p, seq2seq::to_string(o.nar_length), o.length_candidates, o.length_score_weight,
               o.nar_given_length, o.iterations, o.early_stop, o.top_candidates, o.attention);
}

}  // namespace seq2seq_fuzz
