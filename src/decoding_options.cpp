#include "decoding_options.h"

#include <cmath>
#include <sstream>
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
std::string range_text(const Range<T>& r) {
  std::ostringstream o;  // shortest form: "[0, 10]", not "[0.000000, 10.000000]"
  o << (r.open_lo ? '(' : '[') << r.lo << ", " << r.hi << ']';
  return o.str();
}

template <typename T>
void check_range(const char* name, T v, const Range<T>& r) {
  if (!r.contains(v))
    throw UsageError(std::string("option ") + name + " = " + std::to_string(v) + " is outside " + range_text(r));
}

// The same check, worded for the options whose messages have always said "must be in".
void check_in(const char* name, float v, const Range<float>& r) {
  if (!r.contains(v)) throw UsageError(std::string("option ") + name + " = " + std::to_string(v) + " must be in " + range_text(r));
}

}  // namespace

std::string to_string(const Range<int>& r) { return range_text(r); }
std::string to_string(const Range<float>& r) { return range_text(r); }
std::string to_string(const Range<uint64_t>& r) { return range_text(r); }

void validate(const DecodingOptions& o) {
  namespace R = option_range;
  check_range("beam_size", o.beam_size, R::beam_size);
  check_range("gnmt_alpha", o.gnmt_alpha, R::gnmt_alpha);
  check_range("max_length", o.max_length, R::max_length);
  check_range("max_length_ratio", o.max_length_ratio, R::max_length_ratio);
  check_range("min_length", o.min_length, R::min_length);
  if (o.min_length >= o.max_length)
    throw UsageError("option min_length = " + std::to_string(o.min_length) + " must be below max_length = " +
                     std::to_string(o.max_length));
  check_range("n_best", o.n_best, R::n_best);
  if (o.strategy == Strategy::Beam && o.n_best > o.beam_size)
    throw UsageError("option n_best = " + std::to_string(o.n_best) + " exceeds beam_size = " + std::to_string(o.beam_size) +
                     " (beam search keeps only beam_size hypotheses)");
  if (o.strategy == Strategy::Greedy && o.n_best != 1) throw UsageError("greedy search returns one hypothesis: n_best must be 1");
  check_in("temperature", o.temperature, R::temperature);
  check_range("top_k", o.top_k, R::top_k);
  check_in("top_p", o.top_p, R::top_p);
  check_range("length_candidates", o.length_candidates, R::length_candidates);
  check_in("length_score_weight", o.length_score_weight, R::length_score_weight);
  check_range("nar_given_length", o.nar_given_length, R::nar_given_length);
  if (o.strategy == Strategy::Nar && o.nar_length == NarLength::Given && o.nar_given_length < 1)
    throw UsageError("nar_length = given needs nar_given_length >= 1");
  check_range("iterations", o.iterations, R::iterations);
  check_range("top_candidates", o.top_candidates, R::top_candidates);
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
