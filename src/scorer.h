// What search sees of a model: "score the next position for these hypotheses"
// and "reorder the cache" (autoregressive), or "score these whole drafts" and
// "the length distribution" (non-autoregressive). Search code includes this
// header and never a model's; each architecture offers the interface through
// adapters at the end of its own .cpp (transformer.cpp, rnn.cpp, ensemble.cpp),
// and tests plug in hand-built toy scorers.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "errors.h"
#include "model_config.h"  // SpecialIds: the target-side ids search must know about
#include "tensor.h"

namespace seq2seq {

// Search checks every row of log-probabilities a scorer gives it with this: a
// NaN or +infinity (weights so large that float arithmetic overflows) is a
// ModelError for this source, never a silently empty or NaN result. -infinity
// is a token the model rules out, which search handles.
inline void require_finite_scores(const float* lp, long n, const std::string& where) {
  for (long i = 0; i < n; ++i)
    if (std::isnan(lp[i]) || lp[i] == INFINITY)
      throw ModelError("the scores of " + where + " are not finite (NaN or infinity): the weights are too large for float arithmetic");
}

// How those errors and others name the output position of index t (0-based): search's, and
// Model::inspect's, whose row t of logits predicts that position.
inline std::string output_position(long t) { return "output position " + std::to_string(t + 1); }

// Attention probabilities per (layer, head): maps[layer*heads + head].
struct HeadMaps {
  int layers = 0, heads = 0;
  std::vector<RowMatrix> maps;
};

// Every map one after another, each row-major: [layers*heads*rows*cols], the
// layout snapshots carry.
inline std::vector<float> flatten(const HeadMaps& m) {
  std::vector<float> out;
  for (const RowMatrix& map : m.maps) out.insert(out.end(), map.data(), map.data() + map.size());
  return out;
}

// Attention of the positions just scored by a StepScorer. The maps are the
// cross-attention, [rows x source length]; `self` is the decoder's masked
// self-attention of the same rows over the target positions fed so far, BOS
// included, [rows x positions] (no maps, layers 0, for a model without
// self-attention: the RNN).
struct CrossAndSelfAttention : HeadMaps {
  HeadMaps self;
};

// What a copy model's last score() mixed into its output distribution (the
// pointer-generator, copy.h), one entry per hypothesis row scored.
struct CopyStep {
  std::vector<float> p_gen;  // [n]: the probability of generating from the vocabulary
  RowMatrix attention;       // [n x source length]: the attention the copy distribution reads
  std::vector<int> ids;      // [source length]: the output id copying each position gives
};

class StepScorer;

// One source's share of a pass over several sources (score_together): the tokens
// fed to its hypotheses, and their log-probabilities back [n x V].
struct StepRequest {
  StepScorer* scorer = nullptr;
  std::vector<int> tokens;
  RowMatrix logprobs;
};

// Autoregressive scoring of the hypotheses of one source. It starts with one
// hypothesis that has been fed nothing.
class StepScorer {
 public:
  virtual ~StepScorer() = default;
  virtual int vocab_size() const = 0;
  virtual int source_length() const = 0;
  // Most tokens a hypothesis can be fed (decoder positions).
  virtual int capacity() const = 0;
  virtual int num_hypotheses() const = 0;
  // Feeds tokens[i] to hypothesis i and writes log-probabilities of each
  // hypothesis's next token to `logprobs` [n x V]; attention if asked.
  virtual void score(const std::vector<int>& tokens, RowMatrix& logprobs, CrossAndSelfAttention* attention) = 0;
  // Hypothesis i continues old hypothesis parents[i] (parents may repeat).
  virtual void reorder(const std::vector<int>& parents) = 0;
  // A copy model's mix at the last score() (its vocab_size() counts the source's
  // copy-only tokens past the target vocabulary); null for any other model.
  virtual const CopyStep* copy_step() const { return nullptr; }
  // Scorers that can share one decoder pass (a Transformer's, over several
  // sources) name the same non-null group; score_group() then scores requests
  // whose scorers are all of this one's group, each as score() would alone
  // (no attention). Others are scored one by one.
  virtual const void* group() const { return nullptr; }
  virtual void score_group(const std::vector<StepRequest*>& requests) {
    for (StepRequest* r : requests) r->scorer->score(r->tokens, r->logprobs, nullptr);
  }
  // The encoder's self-attention over this source, maps [source length x source
  // length]; no maps for a model without one (the RNN). Worked out when asked
  // (another encoder pass), so that decoding without attention keeps none.
  virtual HeadMaps encoder_attention() { return {}; }
};

// Every request scored: those of one group in one pass, the rest one by one.
inline void score_together(std::vector<StepRequest>& requests) {
  std::vector<bool> taken(requests.size(), false);
  for (size_t i = 0; i < requests.size(); ++i) {
    if (taken[i]) continue;
    std::vector<StepRequest*> group{&requests[i]};
    if (const void* g = requests[i].scorer->group())
      for (size_t j = i + 1; j < requests.size(); ++j)
        if (!taken[j] && requests[j].scorer->group() == g) {
          group.push_back(&requests[j]);
          taken[j] = true;
        }
    requests[i].scorer->score_group(group);
  }
}

// Non-autoregressive scoring of whole drafts for one source.
class ParallelScorer {
 public:
  virtual ~ParallelScorer() = default;
  virtual int vocab_size() const = 0;
  virtual int source_length() const = 0;
  virtual int max_target_length() const = 0;
  // Log-probabilities of target lengths 0..max_target_length().
  virtual std::vector<float> length_logprobs() = 0;
  // One decoder pass over all drafts: logprobs[r] is [len_r x V]; attention[r]
  // (if asked) is [len_r x source length], averaged over layers and heads;
  // self_attention[r] (if asked) the decoder's self-attention of draft r, maps
  // [len_r x len_r] (unmasked: every position sees the whole draft).
  virtual void score(const std::vector<std::vector<int>>& drafts, std::vector<RowMatrix>& logprobs,
                     std::vector<RowMatrix>* attention, std::vector<HeadMaps>* self_attention) = 0;
  // As StepScorer::encoder_attention.
  virtual HeadMaps encoder_attention() { return {}; }
};

}  // namespace seq2seq
