// A probe example: one held-out example read by the model as it stands, by
// teacher forcing and without dropout, through the trainer's own forward pass
// and loss (so it reads the distribution the loss reads): its tokens, each
// target position's -log p of the reference token (the notes' cross-entropy
// against the one-hot vector, position by position), and its cross-attention
// weights. What a page redraws as training goes on: the bars falling, the
// attention map forming its diagonal.
#pragma once
#include <string>
#include <vector>

#include "copy.h"
#include "model_config.h"
#include "train/graph.h"
#include "train/tasks.h"
#include "vocabulary.h"

namespace seq2seq {
namespace train {

class TrainingRun;

struct Probe {
  int index = 0;                           // which held-out example
  int step = 0;                            // the steps taken when it was read
  std::string source, reference;           // the held-out example as a person would type it
  std::vector<std::string> source_tokens;  // the source as the model reads it (an unknown word: <unk>)
  // The decoder's positions, each the token it must predict: the reference's
  // tokens (one the target vocabulary lacks: <unk>; for a copy model, one of the
  // source's tokens the target vocabulary lacks is itself, a copy-only token), then
  // the end token.
  std::vector<std::string> target_tokens;
  std::vector<float> token_nll;            // -log p of each of target_tokens
  // At each position the token the model puts first (the argmax of the same row) and its
  // probability: under label smoothing e it cannot pass 1 - e + e/V.
  std::vector<std::string> top_tokens;
  std::vector<float> top_probability;
  // The cross-attention weights, row-major in attention_shape: the Transformer's
  // [decoder layers, heads, target positions, source positions], the RNN's
  // [target positions, source positions]; empty for an RNN without attention.
  std::vector<int> attention_shape;
  std::vector<float> cross_attention;
  // A copy model's pointer-generator at each target position: p_gen, the probability of
  // generating from the vocabulary, and the copy attention a [T x N] (the Transformer's last
  // decoder layer's cross-attention, heads averaged; the RNN's attention): the probability
  // copied from source position i is (1 - p_gen) a_ti. Empty without copy.
  std::vector<float> copy_gate;
  std::vector<float> copy_attention;
};

// Each field under its name on every face (camelCase, as the progress record's).
template <typename Visit>
void visit_fields(const Probe& p, Visit&& v) {
  v("index", p.index);
  v("step", p.step);
  v("source", p.source);
  v("reference", p.reference);
  v("sourceTokens", p.source_tokens);
  v("targetTokens", p.target_tokens);
  v("tokenNll", p.token_nll);
  v("topTokens", p.top_tokens);
  v("topProbability", p.top_probability);
  v("attentionShape", p.attention_shape);
  v("crossAttention", p.cross_attention);
  if (!p.copy_gate.empty()) {
    v("copyGate", p.copy_gate);
    v("copyAttention", p.copy_attention);
  }
}

// A held-out example as the model reads it, the one reading of the probe and of the
// held-out evaluation (run.h): the source as the engine's tokenizer reads it (its
// tokens' texts, a copy model's copy map from them), and the token the decoder must
// predict at each position: the reference's tokens (one the target vocabulary lacks:
// <unk>; for a copy model, one of the source's tokens the target vocabulary lacks is
// its extended id, V + k), then the end token; `written`: whether the position's
// token is the reference's as written (not an <unk> standing for it, which no output
// matches).
struct ReadExample {
  std::vector<int> source;
  std::vector<std::string> source_texts;
  CopyMap map;
  std::vector<int> target;
  std::vector<bool> written;
};
// (src_vocab, tgt_vocab: the config's, built once for a whole held-out set.)
ReadExample read_example(const ModelConfig& cfg, const Vocabulary& src_vocab, const Vocabulary& tgt_vocab, const HeldOut& h);
// Appends it to a batch, teacher-forced: the decoder reads BOS and the reference (a
// copied token past the vocabulary as unk, as decoding reads it).
void add_example(const ModelConfig& cfg, const ReadExample& x, Batch& b);

// Held-out example `index` of `run` read now. Leaves the parameters, AdamW's
// state and every generator as they were (the next step is the one it would
// have been); UsageError for an index outside the held-out set.
Probe probe(TrainingRun& run, int index);

}  // namespace train
}  // namespace seq2seq
