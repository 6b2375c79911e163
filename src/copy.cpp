#include "copy.h"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "errors.h"

namespace seq2seq {

CopyMap copy_map(const std::vector<std::string>& source_texts, const Vocabulary& target, const SpecialIds& specials) {
  CopyMap m;
  std::unordered_map<std::string, int> extra_ids;
  for (const std::string& text : source_texts) {
    const int id = target.id(text);
    // A special's text is no token to emit (a source word "</s>" is a word): copied, it is a copy-only token.
    if (id >= 0 && specials.is_text(id)) {
      m.ids.push_back(id);
      continue;
    }
    auto it = extra_ids.find(text);
    if (it == extra_ids.end()) {
      it = extra_ids.emplace(text, target.size() + static_cast<int>(m.extra.size())).first;
      m.extra.push_back(text);
    }
    m.ids.push_back(it->second);
  }
  return m;
}

CopyMap copy_map_for(const SourceInput& source, const ModelConfig& config) {
  if (!source.copy.ids.empty()) {
    if (source.copy.ids.size() != source.ids.size())
      throw InputError("the copy map has " + std::to_string(source.copy.ids.size()) + " positions for a source of " +
                       std::to_string(source.ids.size()));
    return source.copy;
  }
  std::vector<std::string> texts;
  for (int id : source.ids) {
    if (id < 0 || id >= static_cast<int>(config.src_vocab.size()))
      throw InputError("token id " + std::to_string(id) + " in the source is outside the vocabulary");
    texts.push_back(config.src_vocab[static_cast<size_t>(id)]);
  }
  return copy_map(texts, Vocabulary(config.tgt_vocab), config.tgt_specials);
}

void mix_copy(const RowMatrix& log_p_vocab, const float* gate, const RowMatrix& attention, const std::vector<int>& ids,
              int extra, RowMatrix& out) {
  const Eigen::Index n = log_p_vocab.rows(), V = log_p_vocab.cols(), S = attention.cols();
  const Eigen::Index W = V + extra;
  out.resize(n, W);
  std::vector<float> copy(static_cast<size_t>(W));
  for (Eigen::Index r = 0; r < n; ++r) {
    std::fill(copy.begin(), copy.end(), 0.0f);
    for (Eigen::Index i = 0; i < S; ++i) copy[static_cast<size_t>(ids[static_cast<size_t>(i)])] += attention(r, i);
    const float log_gen = log_sigmoid(gate[r]), log_copy = log_sigmoid(-gate[r]);
    for (Eigen::Index w = 0; w < W; ++w) {
      const float c = copy[static_cast<size_t>(w)];
      const float copied = c > 0 ? log_copy + std::log(c) : -std::numeric_limits<float>::infinity();
      if (w >= V) {  // a copy-only token: P_vocab has none
        out(r, w) = copied;
        continue;
      }
      const float generated = log_p_vocab(r, w) + log_gen;
      if (!(c > 0)) {
        out(r, w) = generated;
        continue;
      }
      // log(e^g + e^c) = max + log1p(e^-|g - c|): no overflow, and exact when one term dwarfs the other.
      const float hi = std::max(generated, copied);
      out(r, w) = hi + std::log1p(std::exp(-std::abs(generated - copied)));
    }
  }
}

std::vector<int> decoder_inputs(const std::vector<int>& tokens, int vocab, int unk) {
  std::vector<int> fed = tokens;
  for (int& id : fed)
    if (id >= vocab) id = unk;
  return fed;
}

}  // namespace seq2seq
