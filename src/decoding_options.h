// Everything that decides how to decode, as one plain struct (in the spirit of
// CTranslate2's options): the search reads it, the bindings mirror it, the CLI
// fills it from flags. validate() turns absurd values into a UsageError; the
// ranges it enforces are option_range below.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

namespace seq2seq {

// The values a numeric option accepts, [lo, hi] or (lo, hi]. The bounds below are
// the one place each is stated: validate() holds options to them and the CLI
// parses its flags against them.
template <typename T>
struct Range {
  T lo, hi;
  bool open_lo = false;
  bool contains(T v) const { return (open_lo ? v > lo : v >= lo) && v <= hi; }  // false for NaN
};

// "[1, 256]", "(0, 1]".
std::string to_string(const Range<int>& r);
std::string to_string(const Range<float>& r);
std::string to_string(const Range<uint64_t>& r);

namespace option_range {
inline constexpr Range<int> beam_size{1, 256};
inline constexpr Range<float> gnmt_alpha{0.0f, 10.0f};
inline constexpr Range<int> max_length{1, 100000};
inline constexpr Range<float> max_length_ratio{0.0f, 1000.0f};
inline constexpr Range<int> min_length{0, 100000};
inline constexpr Range<int> n_best{1, 256};
inline constexpr Range<float> temperature{0.0f, 100.0f, true};
inline constexpr Range<int> top_k{0, 100000};
inline constexpr Range<float> top_p{0.0f, 1.0f, true};
inline constexpr Range<uint64_t> seed{0, std::numeric_limits<uint64_t>::max()};
inline constexpr Range<int> length_candidates{1, 64};
inline constexpr Range<float> length_score_weight{0.0f, 10.0f};
inline constexpr Range<int> nar_given_length{0, 100000};
inline constexpr Range<int> iterations{1, 100};
inline constexpr Range<int> top_candidates{0, 64};
}  // namespace option_range

enum class Strategy { Greedy, Beam, Sample, Nar };

// How finished hypotheses are compared. |Y| counts output tokens including EOS.
//   None:    log P(Y)
//   Average: log P(Y) / |Y|                      (the course notes' score / t)
//   Gnmt:    log P(Y) / ((5 + |Y|) / 6)^alpha    (Wu et al. 2016)
enum class LengthNorm { None, Average, Gnmt };

// Where a non-autoregressive decode takes its target length from.
//   Predicted: the length head's best `length_candidates` lengths, decoded in
//              parallel; the best draft wins (length beam), scored by
//                avg log P(tokens) + length_score_weight * log P(length).
//              Weight 0 is Mask-Predict's rule (average log-probability only).
//   Fixed:     max_length positions, the output cut at the first EOS.
//   Given:     exactly `nar_length` positions.
enum class NarLength { Predicted, Fixed, Given };

struct DecodingOptions {
  Strategy strategy = Strategy::Greedy;

  // Autoregressive search.
  int beam_size = 5;                   // Beam only (Greedy is beam size 1)
  LengthNorm length_norm = LengthNorm::Average;
  float gnmt_alpha = 0.6f;
  int max_length = 256;                // output tokens incl. EOS; clamped to what the model can hold
  float max_length_ratio = 0;          // > 0: also cap at ceil(ratio * source length)
  int min_length = 0;                  // EOS is not allowed before this many tokens
  int n_best = 1;                      // hypotheses returned (Beam: <= beam_size; Sample: samples drawn)
  std::string prefix;                  // forced first target tokens, space-separated ("HH AH")

  // Sampling.
  float temperature = 1.0f;
  int top_k = 0;                       // 0: no top-k cut
  float top_p = 1.0f;
  uint64_t seed = 0;

  // Non-autoregressive (CMLM, Mask-Predict).
  NarLength nar_length = NarLength::Predicted;
  int length_candidates = 1;           // Predicted: length beam width
  float length_score_weight = 0.0f;    // Predicted: weight of log P(length) in a draft's score
  int nar_given_length = 0;            // Given: the length
  int iterations = 10;                 // Mask-Predict T
  bool early_stop = true;              // stop when an iteration changes no token

  // What snapshots carry.
  int top_candidates = 5;              // next-token candidates kept per hypothesis
  bool attention = true;               // cross-attention in snapshots
};

const char* to_string(Strategy s);
const char* to_string(LengthNorm n);
const char* to_string(NarLength n);

// Throws UsageError naming the first option out of range.
void validate(const DecodingOptions& o);

// The length-normalised score of a hypothesis with cumulative log-probability
// `logprob` and `length` output tokens (EOS included).
double normalized_score(double logprob, int length, LengthNorm norm, double alpha);

}  // namespace seq2seq
