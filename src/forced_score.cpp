#include "forced_score.h"

#include "errors.h"
#include "scorer.h"

namespace seq2seq {

namespace {

void require_emittable(const std::vector<int>& target, const SpecialIds& sp, int vocab) {
  for (int tok : target)
    if (tok < 0 || tok >= vocab || tok == sp.pad || tok == sp.unk || tok == sp.bos || tok == sp.eos || tok == sp.mask)
      throw InputError("the target holds token id " + std::to_string(tok) + ", which search never emits");
}

std::string position_name(size_t i) { return "target position " + std::to_string(i + 1); }

}  // namespace

ForcedScore force_autoregressive(StepScorer& scorer, const SpecialIds& sp, const std::vector<int>& target,
                                 const DecodingOptions& options) {
  if (sp.bos < 0 || sp.eos < 0) throw UsageError("autoregressive scoring needs BOS and EOS tokens");
  require_emittable(target, sp, scorer.vocab_size());
  const size_t positions = target.size() + 1;  // the tokens, then EOS
  if (scorer.num_hypotheses() != 1 || static_cast<long>(positions) > scorer.capacity())
    throw UsageError("forced scoring needs a fresh scorer with room for " + std::to_string(positions) + " positions");
  ForcedScore f;
  f.tokens = target;
  RowMatrix lp;
  int fed = sp.bos;
  for (size_t i = 0; i < positions; ++i) {
    scorer.score({fed}, lp, nullptr);
    require_finite_scores(lp.row(0).data(), lp.cols(), position_name(i));
    const int next = i < target.size() ? target[i] : sp.eos;
    f.token_logprobs.push_back(lp(0, next));
    if (const CopyStep* copy = scorer.copy_step()) f.token_p_gen.push_back(copy->p_gen[0]);
    // Summed in double, in order, as search sums a hypothesis: the same numbers to the bit.
    f.logprob += lp(0, next);
    fed = next;
  }
  f.length = static_cast<int>(positions);
  f.score = normalized_score(f.logprob, f.length, options.length_norm, options.gnmt_alpha);
  return f;
}

ForcedScore force_parallel(ParallelScorer& scorer, const SpecialIds& sp, const std::vector<int>& target,
                           const DecodingOptions& options) {
  if (sp.mask < 0) throw UsageError("Mask-Predict scoring needs a MASK token");
  require_emittable(target, sp, scorer.vocab_size());
  const int n = static_cast<int>(target.size());
  if (n < 1 || n > scorer.max_target_length())
    throw UsageError("a CMLM scores targets of 1 to " + std::to_string(scorer.max_target_length()) + " tokens, not " +
                     std::to_string(n));
  const std::vector<float> lengths = scorer.length_logprobs();
  require_finite_scores(lengths.data(), static_cast<long>(lengths.size()), "the target lengths");
  std::vector<RowMatrix> lp;
  scorer.score({std::vector<int>(static_cast<size_t>(n), sp.mask)}, lp, nullptr, nullptr);
  ForcedScore f;
  f.tokens = target;
  for (int i = 0; i < n; ++i) {
    require_finite_scores(lp[0].row(i).data(), lp[0].cols(), position_name(static_cast<size_t>(i)));
    const float v = lp[0](i, target[static_cast<size_t>(i)]);
    f.token_logprobs.push_back(v);
    f.logprob += v;
  }
  f.length = n;
  f.length_logprob = lengths[static_cast<size_t>(n)];
  // As NarSearch scores a draft: the average, plus the length's weight when the length was predicted.
  const bool predicted = options.nar_length == NarLength::Predicted;
  f.score = f.logprob / n + (predicted ? options.length_score_weight * f.length_logprob : 0.0);
  return f;
}

}  // namespace seq2seq
