// The copy mechanism (pointer-generator, See et al. 2017; docs/model-format.md
// "The copy mechanism"): the course notes' chatbot that repeats a name it never
// saw. A copy model's output distribution is
//
//   P(w) = p_gen P_vocab(w) + (1 - p_gen) sum_i a_i [x_i = w],   p_gen = sigmoid(gate)
//
// over the target vocabulary and the source's tokens it lacks: each such token gets
// an id past the vocabulary for this source (the extended vocabulary), and the
// output can be one of them. What the network computes (the attention a and the
// gate's logit) is the architecture's (transformer.cpp, rnn.cpp); the mix, and
// where each source token goes in the output, are here, for both.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model_config.h"
#include "tensor.h"
#include "vocabulary.h"

namespace seq2seq {

// Where copying each position of one source puts its token in the output.
struct CopyMap {
  // Per source position: the target id of the token of the same text, or V + k for
  // the k-th distinct text the target vocabulary lacks (or holds as a special token).
  std::vector<int> ids;
  // The texts of the output ids V, V + 1, ... (copy-only tokens).
  std::vector<std::string> extra;
};

// The copy map of a source whose tokens have these texts (SourceTokens::texts: a
// word-level model's unknown word keeps its own text): the mapping from source to
// target tokens is derived from the texts, through the target vocabulary.
CopyMap copy_map(const std::vector<std::string>& source_texts, const Vocabulary& target, const SpecialIds& specials);

// A source as the network reads it: the ids the encoder embeds, and for a copy model
// its copy map. From ids alone (as a test or a caller without the text gives it), a
// copy model derives the map from the source vocabulary's texts of the ids.
struct SourceInput {
  SourceInput() = default;
  SourceInput(std::vector<int> source_ids) : ids(std::move(source_ids)) {}  // NOLINT: ids are a source
  SourceInput(std::vector<int> source_ids, CopyMap map) : ids(std::move(source_ids)), copy(std::move(map)) {}
  std::vector<int> ids;
  CopyMap copy;
};

// The copy map a copy model with `config` uses for `source` (its own, or derived from
// the ids' texts); throws InputError if its size is not the source's.
CopyMap copy_map_for(const SourceInput& source, const ModelConfig& config);

// log sigmoid(x), without overflow either way: log P(generate) is log_sigmoid(gate),
// log P(copy) is log_sigmoid(-gate).
inline float log_sigmoid(float x) { return std::min(x, 0.0f) - std::log1p(std::exp(-std::abs(x))); }

// The output distribution of a copy model's rows, in log space:
//   out(r, w) = log(p_gen P_vocab(w) + (1 - p_gen) copy(w)),  copy(w) = sum_{i: ids[i] = w} attention(r, i)
// with log_p_vocab [n x V] the log-softmax of the logits, gate [n] the gate's logits
// and attention [n x S]; out [n x (V + extra)]. Each entry is a log-sum of the two
// terms where both are there, the one term where one is (a token the source lacks:
// generated only; a copy-only token: copied only, P_vocab has none), -infinity where
// neither is (a copy-only token whose attention underflowed to 0). The same
// computation as copy_distribution in models/train/seq2seq_torch.py.
void mix_copy(const RowMatrix& log_p_vocab, const float* gate, const RowMatrix& attention, const std::vector<int>& ids,
              int extra, RowMatrix& out);

// The ids the decoder embeds: a copy-only token (an id past the vocabulary `vocab`),
// fed back after it was emitted, is read as `unk`. Other ids are left to the network's checks.
std::vector<int> decoder_inputs(const std::vector<int>& tokens, int vocab, int unk);

}  // namespace seq2seq
