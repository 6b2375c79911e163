// Plain-data pictures of a decode, one per step: what the page draws and the
// CLI traces. Each snapshot is complete (not a delta), so a viewer can step
// back by keeping old ones.
#pragma once
#include <string>
#include <vector>

namespace seq2seq {

struct TokenProb {
  int token = -1;
  float prob = 0;
};

// A node of the autoregressive search tree.
struct HypothesisView {
  int id = 0;                  // unique within the decode; the root (only BOS) is 0
  int parent = -1;             // parent node id; -1 for the root
  std::vector<int> tokens;     // output tokens (no BOS; ends with EOS when finished)
  double logprob = 0;          // cumulative log-probability
  double score = 0;            // length-normalised (DecodingOptions::length_norm)
  bool finished = false;
  bool forced = false;         // the last token was imposed (prefix, or EOS at max length)
  float token_prob = 0;        // probability of the last token
  // The distribution the last token was drawn from: its top candidates, best first.
  std::vector<TokenProb> candidates;
  // Cross-attention of the step that produced the last token: averaged over
  // layers and heads [source length], and per (layer, head) [layers*heads*S].
  std::vector<float> attention;
  std::vector<float> attention_heads;
  // Decoder masked self-attention of the same step (Transformer only; empty for
  // the RNN, which has none): the row of the position just fed (BOS at step 1,
  // then the previous token) over the positions 0..t-1 fed so far, t =
  // tokens.size(), per (layer, head) [layers*heads*t]. Following a hypothesis
  // back through its parents gives rows 1..t of the lower triangle.
  std::vector<float> self_attention;
};

// A candidate considered at a step and dropped.
struct PrunedView {
  int parent = -1;             // node id of the hypothesis it would have extended
  int token = -1;
  double logprob = 0;          // cumulative, as if kept
  double score = 0;
};

struct NarDraft {
  int length = 0;                 // positions decoded
  std::vector<int> tokens;        // one per position
  std::vector<float> probs;       // confidence of each position's token
  std::vector<char> masked;       // 1: re-masked and re-predicted in this iteration
  int output_length = 0;          // tokens before the first EOS
  double avg_logprob = 0;         // over the output (and its EOS, if cut)
  double length_logprob = 0;      // log P(length) from the length head (0 unless the length was predicted)
  double score = 0;               // avg_logprob + length_score_weight * length_logprob: the length beam ranks by it
  std::vector<float> attention;   // [length x source length], averaged over layers and heads
  // The decoder's self-attention over the draft fed in this iteration (masks
  // included), unmasked (every position sees every other), per (layer, head):
  // [layers*heads*length*length].
  std::vector<float> self_attention;
};

struct Result {
  std::vector<int> tokens;        // no BOS, no EOS
  std::string text;               // tokens joined by spaces
  double logprob = 0;
  double score = 0;               // normalised score (NAR: the draft's score, see NarDraft)
  int length = 0;                 // |Y| used by the normalisation (EOS included when produced)
};

struct Snapshot {
  int step = 0;                   // decoder passes so far in this decode
  bool autoregressive = true;
  bool done = false;
  int source_length = 0;
  // Decoder layers and heads: the shape of attention_heads and of the hypotheses'
  // and drafts' self_attention (set for Mask-Predict only when it has the latter).
  int layers = 0, heads = 0;
  // The encoder's self-attention over the source, per (layer, head), row-major
  // [encoder_layers*encoder_heads*S*S] (S = source_length). It is the same at
  // every step of a decode, so only the snapshot of step 1 carries it (the one
  // exception to "complete": a viewer keeps it); empty at later steps, with
  // attention off, and for the RNN, which has no self-attention.
  int encoder_layers = 0, encoder_heads = 0;
  std::vector<float> encoder_attention;

  // Autoregressive (greedy, beam, sample).
  std::vector<HypothesisView> live;      // after this step
  std::vector<HypothesisView> finished;  // all finished so far, best first
  std::vector<PrunedView> pruned;        // dropped at this step

  // Non-autoregressive (CMLM, Mask-Predict).
  int iteration = 0;                     // 1-based Mask-Predict iteration of this step
  int iterations = 0;                    // T
  std::vector<float> length_logprobs;    // over lengths 0..max
  std::vector<int> lengths;              // the lengths being decoded
  std::vector<NarDraft> drafts;          // one per length
  int best_draft = -1;
  bool changed = true;                   // did this iteration change any token

  std::vector<Result> results;           // filled when done: n-best, best first
};

// The forced score of a given target (Session::score): how likely the model finds
// it for a source, read by teacher forcing instead of searched for. Set beside a decode's result it
// tells the two kinds of mistake apart: if the reference scores higher than the
// wrong output, the search missed it (a search error: a wider search could have
// found it); if lower, the model itself prefers its wrong output (a model error).
//
// Autoregressive models (Transformer, RNN, ensembles): exact teacher forcing. BOS
// and then the target's tokens are fed one position at a time to a single
// hypothesis; each position's log-probability of the next target token, and at
// the end of EOS, is read from the same distribution search reads. So the forced
// score of a search's output equals that result's logprob and score.
//
// CMLM (Mask-Predict): a CMLM has no left-to-right likelihood. Its own
// factorisation is the one Mask-Predict's first iteration uses: the length head's
// P(n | source) for the target's length n, and each token's P(y_i | source, n
// masks), all positions predicted at once from a fully masked draft. The forced
// score is that draft scored as Mask-Predict scores its drafts: logprob is the
// plain sum of the n tokens' log-probabilities (no EOS: a draft at its predicted
// length has none), score is their average plus length_score_weight * log P(n)
// when the length is predicted (NarLength::Predicted), the average alone
// otherwise, as for a draft of a fixed or given length. This equals the result of
// a one-iteration decode at the target's length when that result is the target.
// After more iterations a result's confidences come from drafts with some tokens
// unmasked, so its numbers and the forced score are comparable but not the same
// quantity.
struct ForcedScore {
  std::vector<int> tokens;            // the target: no BOS, no EOS
  std::string text;                   // the tokens joined by spaces (Session fills it)
  // One per scored position: autoregressive, each token's and then EOS's
  // log-probability (tokens + 1 values); CMLM, each token's (tokens values).
  std::vector<float> token_logprobs;
  double logprob = 0;                 // their sum: comparable to Result::logprob
  double score = 0;                   // normalised as a Result's score under the same options
  int length = 0;                     // |Y| as the normalisation counts it (as Result::length)
  double length_logprob = 0;          // CMLM: log P(length) from the length head; autoregressive: 0
};

}  // namespace seq2seq
