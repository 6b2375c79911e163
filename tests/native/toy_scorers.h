// Hand-built scorers for search tests: the probabilities are whatever the test
// says they are, so the right answer is known without any model.
#pragma once
#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "scorer.h"

namespace seq2seq_test {

using seq2seq::RowMatrix;

// Vocabulary of the toy models: 0 pad, 1 unk, 2 bos, 3 eos, 4 mask, then letters.
enum Toy : int { PAD = 0, UNK = 1, BOS = 2, EOS = 3, MASK = 4, A = 5, B = 6, C = 7, V = 8 };

inline seq2seq::SpecialIds toy_specials() { return {PAD, UNK, BOS, EOS, MASK}; }

// Next-token distribution as a function of the output prefix (no BOS).
using PrefixModel = std::function<std::map<int, double>(const std::vector<int>& prefix)>;

class ToyStepScorer final : public seq2seq::StepScorer {
 public:
  ToyStepScorer(PrefixModel model, int capacity = 16) : model_(std::move(model)), capacity_(capacity), prefixes_(1) {}
  int vocab_size() const override { return V; }
  int source_length() const override { return 2; }
  int capacity() const override { return capacity_; }
  int num_hypotheses() const override { return static_cast<int>(prefixes_.size()); }
  void score(const std::vector<int>& tokens, RowMatrix& lp, seq2seq::CrossAndSelfAttention* attn) override {
    ++calls;
    lp.setConstant(static_cast<long>(tokens.size()), V, -std::numeric_limits<float>::infinity());
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i] != BOS) prefixes_[i].push_back(tokens[i]);
      for (const auto& kv : model_(prefixes_[i])) lp(static_cast<long>(i), kv.first) = static_cast<float>(std::log(kv.second));
    }
    if (attn) {
      attn->layers = 1;
      attn->heads = 1;
      attn->maps.assign(1, RowMatrix::Constant(static_cast<long>(tokens.size()), 2, 0.5f));
    }
  }
  void reorder(const std::vector<int>& parents) override {
    std::vector<std::vector<int>> next;
    for (int p : parents) next.push_back(prefixes_.at(static_cast<size_t>(p)));
    prefixes_ = next;
  }
  int calls = 0;

 private:
  PrefixModel model_;
  int capacity_;
  std::vector<std::vector<int>> prefixes_;
};

// The course notes' example: greedy takes A (0.6) and is then stuck with a poor
// continuation, while B (0.4) continues with 0.9 and 0.9.
inline std::map<int, double> course_example(const std::vector<int>& p) {
  if (p.empty()) return {{A, 0.6}, {B, 0.4}};
  if (p == std::vector<int>{A}) return {{A, 0.3}, {B, 0.3}, {EOS, 0.4}};
  if (p == std::vector<int>{B}) return {{B, 0.9}, {A, 0.05}, {EOS, 0.05}};
  if (p == std::vector<int>{B, B}) return {{EOS, 0.9}, {A, 0.05}, {B, 0.05}};
  return {{EOS, 0.5}, {A, 0.25}, {B, 0.25}};
}

// Per-length, per-position distributions that do not depend on the other
// positions (so Mask-Predict reaches a fixed point after one pass).
class ToyParallelScorer final : public seq2seq::ParallelScorer {
 public:
  std::vector<float> length_lp;                                      // log-probs of lengths 0..max
  std::function<std::map<int, double>(int length, int pos, const std::vector<int>& draft)> dist;
  int vocab = V;  // V - 3: only the special tokens
  int calls = 0;

  int vocab_size() const override { return vocab; }
  int source_length() const override { return 3; }
  int max_target_length() const override { return static_cast<int>(length_lp.size()) - 1; }
  std::vector<float> length_logprobs() override { return length_lp; }
  void score(const std::vector<std::vector<int>>& drafts, std::vector<RowMatrix>& lp, std::vector<RowMatrix>* attn,
             std::vector<seq2seq::HeadMaps>*) override {
    ++calls;
    lp.clear();
    for (const auto& d : drafts) {
      RowMatrix m = RowMatrix::Constant(static_cast<long>(d.size()), vocab, -std::numeric_limits<float>::infinity());
      for (size_t i = 0; i < d.size(); ++i)
        for (const auto& kv : dist(static_cast<int>(d.size()), static_cast<int>(i), d))
          m(static_cast<long>(i), kv.first) = static_cast<float>(std::log(kv.second));
      lp.push_back(m);
      if (attn) attn->push_back(RowMatrix::Constant(static_cast<long>(d.size()), 3, 1.0f / 3));
    }
  }
};

}  // namespace seq2seq_test
