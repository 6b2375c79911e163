#include "transformer_scorer.h"

#include "errors.h"
#include "transformer.h"

namespace seq2seq {

TargetSpecials target_specials(const ModelConfig& c) {
  const SpecialIds& s = c.tgt_specials;
  return TargetSpecials{s.pad, s.unk, s.bos, s.eos, s.mask};
}

namespace {

// The encoder's self-attention of one source: a second encoder pass, run only
// when asked, so that decoding without attention records nothing.
HeadMaps encoder_attention_of(const Transformer& m, const std::vector<int>& source) {
  AttentionMaps maps;
  m.encode({source}, &maps);
  HeadMaps out;
  out.layers = maps.layers;
  out.heads = maps.heads;
  out.maps = std::move(maps.maps);  // one source: index layer*heads + head
  return out;
}

class TransformerStepScorer final : public StepScorer {
 public:
  TransformerStepScorer(const Transformer& m, const std::vector<int>& source, int capacity)
      : m_(m), source_(source), enc_(m.encode({source})), cache_(m.start_cache(enc_, 0, 1, capacity)) {}

  int vocab_size() const override { return static_cast<int>(m_.config().tgt_vocab.size()); }
  int source_length() const override { return cache_.src_len; }
  int capacity() const override { return cache_.capacity; }
  int num_hypotheses() const override { return cache_.n_hyps; }

  void score(const std::vector<int>& tokens, RowMatrix& logprobs, CrossAttention* attention) override {
    StepAttention step;
    m_.decode_step(cache_, tokens, logprobs, attention ? &step : nullptr);
    log_softmax_rows(logprobs);
    if (attention) {
      attention->layers = step.layers;
      attention->heads = step.heads;
      attention->maps = std::move(step.cross);
      attention->self.layers = step.layers;
      attention->self.heads = step.heads;
      attention->self.maps = std::move(step.self);
    }
  }
  void reorder(const std::vector<int>& parents) override { m_.reorder_cache(cache_, parents); }
  HeadMaps encoder_attention() override { return encoder_attention_of(m_, source_); }

 private:
  const Transformer& m_;
  std::vector<int> source_;
  EncoderOutput enc_;
  DecoderCache cache_;
};

class TransformerParallelScorer final : public ParallelScorer {
 public:
  TransformerParallelScorer(const Transformer& m, const std::vector<int>& source)
      : m_(m), source_(source), enc_(m.encode({source})) {
    if (m.config().arch != Arch::Cmlm) throw UsageError("non-autoregressive decoding needs a cmlm model");
  }
  int vocab_size() const override { return static_cast<int>(m_.config().tgt_vocab.size()); }
  int source_length() const override { return enc_.lengths[0]; }
  int max_target_length() const override { return m_.config().max_target_len; }

  std::vector<float> length_logprobs() override {
    RowMatrix l = m_.length_logits(enc_);
    log_softmax_rows(l);
    return std::vector<float>(l.data(), l.data() + l.cols());
  }

  void score(const std::vector<std::vector<int>>& drafts, std::vector<RowMatrix>& logprobs,
             std::vector<RowMatrix>* attention, std::vector<HeadMaps>* self_attention) override {
    AttentionMaps cross, self;
    const RowMatrix all = m_.decode_full(enc_, std::vector<int>(drafts.size(), 0), drafts,
                                         self_attention ? &self : nullptr, attention ? &cross : nullptr);
    Eigen::Index T = 0;
    for (const auto& d : drafts) T = std::max<Eigen::Index>(T, static_cast<Eigen::Index>(d.size()));
    logprobs.resize(drafts.size());
    if (attention) attention->resize(drafts.size());
    if (self_attention) self_attention->assign(drafts.size(), HeadMaps{});
    const int S = enc_.lengths[0];
    for (size_t r = 0; r < drafts.size(); ++r) {
      const auto n = static_cast<Eigen::Index>(drafts[r].size());
      logprobs[r] = all.middleRows(static_cast<Eigen::Index>(r) * T, n);
      log_softmax_rows(logprobs[r]);
      if (attention) {
        RowMatrix avg = RowMatrix::Zero(n, S);
        for (int l = 0; l < cross.layers; ++l)
          for (int h = 0; h < cross.heads; ++h) avg += cross.at(static_cast<int>(r), l, h).topLeftCorner(n, S);
        (*attention)[r] = avg / static_cast<float>(cross.layers * cross.heads);
      }
      if (self_attention) {  // the draft's own block of the batch's padded maps
        HeadMaps& mine = (*self_attention)[r];
        mine.layers = self.layers;
        mine.heads = self.heads;
        for (int l = 0; l < self.layers; ++l)
          for (int h = 0; h < self.heads; ++h) mine.maps.push_back(self.at(static_cast<int>(r), l, h).topLeftCorner(n, n));
      }
    }
  }
  HeadMaps encoder_attention() override { return encoder_attention_of(m_, source_); }

 private:
  const Transformer& m_;
  std::vector<int> source_;
  EncoderOutput enc_;
};

}  // namespace

std::unique_ptr<StepScorer> Transformer::step_scorer(const std::vector<int>& source, int capacity) const {
  return std::make_unique<TransformerStepScorer>(*this, source, capacity);
}

std::unique_ptr<ParallelScorer> Transformer::parallel_scorer(const std::vector<int>& source) const {
  return std::make_unique<TransformerParallelScorer>(*this, source);
}

}  // namespace seq2seq
