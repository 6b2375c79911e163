// The loss: label-smoothed cross-entropy (Szegedy et al. 2016), the course notes'
// cross-entropy between the output distribution and the one-hot vector of the
// right token, with a share e of the target spread uniformly over the V tokens:
//   q = (1 - e) onehot(y) + e / V,   loss = -sum_k q_k log p_k,
// averaged over the target tokens of a batch (padding ignored), as PyTorch's
// F.cross_entropy(..., ignore_index, label_smoothing) computes it.
//
// In two stages, so that a model whose output distribution is not a plain
// softmax (the copy mechanism's mixture of generating and copying) replaces only
// the first: log_softmax_rows() makes log p from logits, smoothed_nll() takes
// log p to the loss and d loss / d log p, and log_softmax_backward() takes that
// back to the logits.
#pragma once

namespace seq2seq {
namespace train {

// logp[r][k] = logits[r][k] - logsumexp(logits[r]) for `rows` rows of V.
void log_softmax_rows(const float* logits, int rows, int V, float* logp);

struct LossSums {
  double loss = 0;   // summed over the counted rows (not yet averaged)
  int tokens = 0;    // rows whose target is not `ignore`
  int correct = 0;   // of those, rows whose argmax is the target (teacher-forced token accuracy)
};

// For each row with targets[r] != ignore: adds -sum_k q_k logp[r][k] to the sums and
// writes dlogp[r][k] = -q_k * scale; rows with targets[r] == ignore get dlogp 0.
// scale is the gradient of the batch loss with respect to each row's loss
// (1 / tokens for the mean).
// width: the rows' length where it exceeds V (a copy model's extended vocabulary,
// copy_mix.h): the tokens past V take no uniform share (they differ from source to
// source) but count for the argmax and may be the target; their dlogp is 0 but at
// the target. -1: V.
LossSums smoothed_nll(const float* logp, int rows, int V, const int* targets, int ignore, float smoothing,
                      float scale, float* dlogp, int width = -1);

// The least smoothed_nll can be per row, the entropy of q, reached at p = q (a
// target within V): -(1 - e + e/V) log(1 - e + e/V) - (V - 1) (e/V) log(e/V); 0
// without smoothing. The floor a loss curve cannot go below.
double smoothed_nll_floor(float smoothing, int V);

// dlogits[r][k] = dlogp[r][k] - p[r][k] * sum_j dlogp[r][j], p = exp(logp).
void log_softmax_backward(const float* logp, const float* dlogp, int rows, int V, float* dlogits);

}  // namespace train
}  // namespace seq2seq
