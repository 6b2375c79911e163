#include "train/trainer.h"

#include <cmath>
#include <string>

#include "errors.h"

namespace seq2seq {
namespace train {

namespace {

// The graph needs the parameters declared before the store is allocated, and
// AdamW needs the store's size: both follow from one construction.
std::unique_ptr<TrainGraph> build_graph(const ModelConfig& config, const TrainingOptions& o, const GraphLimits& limits,
                                              ParamStore& store) {
  validate(o);
  DropoutRates rates;
  rates.dropout = o.dropout;
  rates.attention = o.attention_dropout;
  auto g = make_graph(config, limits, rates, store);
  store.allocate();
  return g;
}

}  // namespace

Trainer::Trainer(const ModelConfig& config, const TrainingOptions& options, const GraphLimits& limits)
    : config_(config),
      options_(options),
      graph_(build_graph(config, options, limits, store_)),
      adam_(store_.size()),
      dropout_rng_(options.seed ^ 0x64726f706f7574ull),  // "dropout": its own stream, apart from the data's
      logp_(static_cast<size_t>(limits.batch) * limits.dec_len * config.tgt_vocab.size()),
      dlogp_(logp_.size()) {}

void Trainer::init_parameters() {
  Random rng(options_.seed);
  graph_->init_parameters(rng);
}

void Trainer::load_parameters(const SafetensorsFile& file) { train::load_parameters(store_, file); }

LossSums Trainer::compute_gradients(const Batch& b, bool train) {
  store_.zero_grads();
  graph_->forward(b, train ? &dropout_rng_ : nullptr);
  const int rows = b.dec_rows(), V = static_cast<int>(config_.tgt_vocab.size());
  log_softmax_rows(graph_->logits(), rows, V, logp_.data());
  // Every decoder row of a packed batch is a real target token: none is ignored.
  const LossSums s = smoothed_nll(logp_.data(), rows, V, b.target.data(), -1, options_.label_smoothing,
                                  1.0f / static_cast<float>(rows), dlogp_.data());
  log_softmax_backward(logp_.data(), dlogp_.data(), rows, V, graph_->dlogits());
  graph_->backward(b);
  return s;
}

StepStats Trainer::step(const Batch& b) {
  StepStats st;
  st.step = adam_.steps_taken() + 1;
  const LossSums s = compute_gradients(b, true);
  st.loss = s.tokens ? s.loss / s.tokens : 0.0;
  st.tokens = s.tokens;
  st.correct = s.correct;
  if (!std::isfinite(st.loss))
    throw DivergedError(st.step, "training diverged at step " + std::to_string(st.step) + ": the loss is not finite");
  st.grad_norm = clip_gradients(store_, options_.clip_norm);
  if (!std::isfinite(st.grad_norm))
    throw DivergedError(st.step, "training diverged at step " + std::to_string(st.step) + ": a gradient is not finite");
  st.learning_rate = learning_rate_at(options_, st.step);
  AdamWSettings a;
  a.lr = st.learning_rate;
  a.beta1 = options_.beta1;
  a.beta2 = options_.beta2;
  a.eps = options_.adam_eps;
  a.weight_decay = options_.weight_decay;
  adam_.step(store_, a);
  return st;
}

size_t Trainer::memory_bytes() const {
  return (store_.size() * 4 + graph_->activation_floats() + logp_.size() * 2) * sizeof(float);
}

size_t Trainer::estimate_memory_bytes(const ModelConfig& config, const TrainingOptions& options, const GraphLimits& limits) {
  ParamStore store;
  DropoutRates rates;
  rates.dropout = options.dropout;
  rates.attention = options.attention_dropout;
  const auto plan = make_graph(config, limits, rates, store, true);
  const size_t logp = static_cast<size_t>(limits.batch) * limits.dec_len * config.tgt_vocab.size();
  return (store.size() * 4 + plan->activation_floats() + logp * 2) * sizeof(float);
}

}  // namespace train
}  // namespace seq2seq
