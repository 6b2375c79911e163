#include "decoding_options.h"

#include <cmath>
#include <string>

#include "errors.h"

namespace seq2seq {

const char* to_string(Strategy s) {
  switch (s) {
    case Strategy::Greedy: return "greedy";
    case Strategy::Beam: return "beam";
    case Strategy::Sample: return "sample";
    case Strategy::Nar: return "nar";
  }
  return "?";
}
const char* to_string(LengthNorm n) {
  return n == LengthNorm::None ? "none" : n == LengthNorm::Average ? "average" : "gnmt";
}
const char* to_string(NarLength n) {
  return n == NarLength::Predicted ? "predicted" : n == NarLength::Fixed ? "fixed" : "given";
}

namespace {
template <typename T>
void check_range(const char* name, T v, T lo, T hi) {
  if (!(v >= lo && v <= hi))  // also catches NaN
    throw UsageError(std::string("option ") + name + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "]");
}
}  // namespace

void validate(const DecodingOptions& o) {
  check_range("beam_size", o.beam_size, 1, 256);
  check_range("gnmt_alpha", o.gnmt_alpha, 0.0f, 10.0f);
  check_range("max_length", o.max_length, 1, 100000);
  check_range("max_length_ratio", o.max_length_ratio, 0.0f, 1000.0f);
  check_range("min_length", o.min_length, 0, 100000);
  if (o.min_length >= o.max_length)
    throw UsageError("option min_length = " + std::to_string(o.min_length) + " must be below max_length = " +
                     std::to_string(o.max_length));
  check_range("n_best", o.n_best, 1, 256);
  if (o.strategy == Strategy::Beam && o.n_best > o.beam_size)
    throw UsageError("option n_best = " + std::to_string(o.n_best) + " exceeds beam_size = " + std::to_string(o.beam_size) +
                     " (beam search keeps only beam_size hypotheses)");
  if (o.strategy == Strategy::Greedy && o.n_best != 1) throw UsageError("greedy search returns one hypothesis: n_best must be 1");
  if (!(o.temperature > 0.0f) || !(o.temperature <= 100.0f))
    throw UsageError("option temperature = " + std::to_string(o.temperature) + " must be in (0, 100]");
  check_range("top_k", o.top_k, 0, 100000);
  if (!(o.top_p > 0.0f && o.top_p <= 1.0f))
    throw UsageError("option top_p = " + std::to_string(o.top_p) + " must be in (0, 1]");
  check_range("length_candidates", o.length_candidates, 1, 64);
  if (!(o.length_score_weight >= 0.0f && o.length_score_weight <= 10.0f))
    throw UsageError("option length_score_weight = " + std::to_string(o.length_score_weight) + " must be in [0, 10]");
  check_range("nar_given_length", o.nar_given_length, 0, 100000);
  if (o.strategy == Strategy::Nar && o.nar_length == NarLength::Given && o.nar_given_length < 1)
    throw UsageError("nar_length = given needs nar_given_length >= 1");
  check_range("iterations", o.iterations, 1, 100);
  check_range("top_candidates", o.top_candidates, 0, 64);
}

double normalized_score(double logprob, int length, LengthNorm norm, double alpha) {
  switch (norm) {
    case LengthNorm::None: return logprob;
    case LengthNorm::Average: return logprob / std::max(length, 1);
    case LengthNorm::Gnmt: return logprob / std::pow((5.0 + length) / 6.0, alpha);
  }
  return logprob;
}

}  // namespace seq2seq
