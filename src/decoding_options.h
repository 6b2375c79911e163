// Everything that decides how to decode, as one plain struct (in the spirit of
// CTranslate2's options): the search reads it, the bindings mirror it, the CLI
// fills it from flags. validate() turns absurd values into a UsageError.
#pragma once
#include <cstdint>
#include <string>

namespace seq2seq {

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
  int beam_size = 5;                   // Beam only (Greedy is beam size 1); 1..256
  LengthNorm length_norm = LengthNorm::Average;
  float gnmt_alpha = 0.6f;             // 0..10
  int max_length = 256;                // output tokens incl. EOS; clamped to what the model can hold
  float max_length_ratio = 0;          // > 0: also cap at ceil(ratio * source length)
  int min_length = 0;                  // EOS is not allowed before this many tokens
  int n_best = 1;                      // hypotheses returned (Beam: <= beam_size; Sample: samples drawn)
  std::string prefix;                  // forced first target tokens, space-separated ("HH AH")

  // Sampling.
  float temperature = 1.0f;            // > 0
  int top_k = 0;                       // 0: no top-k cut
  float top_p = 1.0f;                  // (0, 1]
  uint64_t seed = 0;

  // Non-autoregressive (CMLM, Mask-Predict).
  NarLength nar_length = NarLength::Predicted;
  int length_candidates = 1;           // Predicted: length beam width
  float length_score_weight = 0.0f;    // Predicted: weight of log P(length) in a draft's score, 0..10
  int nar_given_length = 0;            // Given: the length
  int iterations = 10;                 // Mask-Predict T, 1..100
  bool early_stop = true;              // stop when an iteration changes no token

  // What snapshots carry.
  int top_candidates = 5;              // next-token candidates kept per hypothesis, 0..64
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
