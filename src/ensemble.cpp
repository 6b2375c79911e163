#include "ensemble.h"

#include <cmath>
#include <limits>

#include "errors.h"
#include "model.h"
#include "model_access.h"

namespace seq2seq {

void mean_of_probabilities(const std::vector<RowMatrix>& member_logprobs, RowMatrix& out) {
  const RowMatrix& first = member_logprobs.at(0);
  out.resize(first.rows(), first.cols());
  const float log_m = std::log(static_cast<float>(member_logprobs.size()));
  for (Eigen::Index r = 0; r < first.rows(); ++r) {
    for (Eigen::Index v = 0; v < first.cols(); ++v) {
      float hi = -std::numeric_limits<float>::infinity();
      for (const auto& lp : member_logprobs) hi = std::max(hi, lp(r, v));
      if (std::isinf(hi)) {  // every member says impossible
        out(r, v) = hi;
        continue;
      }
      double sum = 0;
      for (const auto& lp : member_logprobs) sum += std::exp(static_cast<double>(lp(r, v) - hi));
      out(r, v) = hi + static_cast<float>(std::log(sum)) - log_m;
    }
  }
}

namespace {

class EnsembleStepScorer final : public StepScorer {
 public:
  EnsembleStepScorer(const std::vector<std::shared_ptr<const Model>>& members, const SourceInput& source, int capacity) {
    for (const auto& m : members) scorers_.push_back(ModelAccess::network(*m).step_scorer(source, capacity));
    member_lp_.resize(scorers_.size());
  }
  int vocab_size() const override { return scorers_[0]->vocab_size(); }
  int source_length() const override { return scorers_[0]->source_length(); }
  int capacity() const override {
    int c = scorers_[0]->capacity();
    for (const auto& s : scorers_) c = std::min(c, s->capacity());
    return c;
  }
  int num_hypotheses() const override { return scorers_[0]->num_hypotheses(); }

  void score(const std::vector<int>& tokens, RowMatrix& logprobs, CrossAndSelfAttention* attention) override {
    for (size_t m = 0; m < scorers_.size(); ++m) scorers_[m]->score(tokens, member_lp_[m], m == 0 ? attention : nullptr);
    mean_of_probabilities(member_lp_, logprobs);
  }
  void reorder(const std::vector<int>& parents) override {
    for (auto& s : scorers_) s->reorder(parents);
  }
  HeadMaps encoder_attention() override { return scorers_[0]->encoder_attention(); }

 private:
  std::vector<std::unique_ptr<StepScorer>> scorers_;
  std::vector<RowMatrix> member_lp_;
};

}  // namespace

Ensemble::Ensemble(std::vector<std::shared_ptr<const Model>> members) : members_(std::move(members)) {
  if (members_.empty()) throw UsageError("an ensemble needs at least one model");
}

int64_t Ensemble::parameter_count() const {
  int64_t n = 0;
  for (const auto& m : members_) n += m->parameter_count();
  return n;
}

std::unique_ptr<StepScorer> Ensemble::step_scorer(const SourceInput& source, int capacity) const {
  return std::make_unique<EnsembleStepScorer>(members_, source, capacity);
}

namespace {
UsageError no_single_inside() { return UsageError("an ensemble has no single inside to show: inspect one of its models"); }
}  // namespace

uint64_t Ensemble::inside_values(int, int, int) const { throw no_single_inside(); }

StepInside Ensemble::inspect(const SourceInput&, const std::vector<int>&) const {
  throw no_single_inside();
}

std::unique_ptr<ParallelScorer> Ensemble::parallel_scorer(const std::vector<int>&) const {
  throw UsageError("an ensemble decodes autoregressively only");
}

// --- Model::ensemble (model.h): checks the members, then wraps them ------------

namespace {

bool same_specials(const SpecialIds& a, const SpecialIds& b) {
  return a.pad == b.pad && a.unk == b.unk && a.bos == b.bos && a.eos == b.eos && a.mask == b.mask;
}

}  // namespace

std::shared_ptr<const Model> Model::ensemble(const std::vector<std::shared_ptr<const Model>>& members) {
  if (members.empty()) throw UsageError("an ensemble needs at least one model");
  for (size_t i = 0; i < members.size(); ++i) {
    if (!members[i]) throw UsageError("ensemble member " + std::to_string(i + 1) + " is null");
    const ModelConfig& a = members[0]->config();
    const ModelConfig& b = members[i]->config();
    const std::string which = "ensemble member " + std::to_string(i + 1) + " ('" + b.name + "')";
    if (!b.autoregressive()) throw UsageError(which + " is non-autoregressive; an ensemble decodes autoregressively");
    // Each copy model's distribution spans its own mix of the vocabulary and the source: no mean of those is defined here.
    if (b.copy) throw UsageError(which + " has the copy mechanism; an ensemble averages models without it");
    if (b.src_vocab != a.src_vocab || b.src_case != a.src_case || b.src_tokens != a.src_tokens ||
        !same_specials(b.src_specials, a.src_specials))
      throw UsageError(which + " has another source vocabulary than member 1");
    if (b.tgt_vocab != a.tgt_vocab || !same_specials(b.tgt_specials, a.tgt_specials))
      throw UsageError(which + " has another target vocabulary than member 1");
  }
  std::shared_ptr<Model> m(new Model());
  m->config_ = members[0]->config();
  m->config_.name = "ensemble of " + std::to_string(members.size());
  m->config_.description.clear();
  m->storage_ = members[0]->storage();
  m->compute_ = members[0]->compute();
  for (const auto& x : members) {
    if (x->compute() != m->compute_) m->compute_ = "mixed";
    m->config_.max_pos = std::min(m->config_.max_pos, x->config().max_pos);
    m->file_bytes_ += x->file_bytes();
    if (x->storage() != m->storage_) m->storage_ = "mixed";
  }
  m->src_vocab_ = members[0]->source_vocab();
  m->tgt_vocab_ = members[0]->target_vocab();
  m->network_ = std::make_unique<Ensemble>(members);
  m->ensemble_size_ = static_cast<int>(members.size());
  m->ensemble_ = true;
  return m;
}

}  // namespace seq2seq
