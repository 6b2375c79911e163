#include "train/trainer.h"

#include <cmath>
#include <string>

#include "errors.h"

namespace seq2seq {
namespace train {

namespace {

DropoutRates rates_of(const TrainingOptions& o) {
  DropoutRates rates;
  rates.dropout = o.dropout;
  rates.attention = o.attention_dropout;
  return rates;
}

// The graph needs the parameters declared before the store is allocated, and
// AdamW needs the store's size: both follow from one construction.
std::unique_ptr<TransformerGraph> build_graph(const ModelConfig& config, const TrainingOptions& o, const GraphLimits& limits,
                                              ParamStore& store) {
  validate(o);
  if (config.arch == Arch::Rnn) return nullptr;
  auto g = std::make_unique<TransformerGraph>(config, limits, rates_of(o), store);
  store.allocate();
  return g;
}

GuidedAttention guided_of(const TrainingOptions& o) {
  GuidedAttention ga;
  ga.weight = o.guided_attention_weight;
  ga.width = o.guided_attention_width;
  ga.layer = o.guided_attention_layer;
  ga.head = o.guided_attention_head;
  return ga;
}

// Floats guided attention holds: W of one example, and the gradient on the guided
// weights (the Transformer: each guided decoder layer's cross-attention).
size_t guided_floats(const ModelConfig& config, const TrainingOptions& o, const GraphLimits& limits) {
  if (o.guided_attention_weight <= 0) return 0;
  const size_t w = static_cast<size_t>(limits.dec_len) * limits.src_len;
  const size_t rows = static_cast<size_t>(limits.batch) * limits.dec_len * limits.src_len;
  if (config.arch == Arch::Rnn) return w + rows;
  const size_t layers = o.guided_attention_layer < 0 ? static_cast<size_t>(config.dec_layers) : 1;
  return w + layers * rows * static_cast<size_t>(config.n_heads);
}

std::unique_ptr<RnnGraph> build_rnn_graph(const ModelConfig& config, const TrainingOptions& o, const GraphLimits& limits,
                                          ParamStore& store) {
  if (config.arch != Arch::Rnn) return nullptr;
  auto g = std::make_unique<RnnGraph>(config, limits, rates_of(o), store);
  store.allocate();
  return g;
}

// The two-pass form's mixed decoder inputs: a buffer only a Transformer under
// scheduled sampling has.
size_t mixed_inputs_of(const ModelConfig& config, const TrainingOptions& o, const GraphLimits& limits) {
  const bool two_pass = config.arch != Arch::Rnn && o.scheduled_sampling != SamplingSchedule::Off;
  return two_pass ? static_cast<size_t>(limits.batch) * limits.dec_len : 0;
}

}  // namespace

Trainer::Trainer(const ModelConfig& config, const TrainingOptions& options, const GraphLimits& limits)
    : config_(config),
      options_(options),
      graph_(build_graph(config, options, limits, store_)),
      rnn_(build_rnn_graph(config, options, limits, store_)),
      adam_(store_.size()),
      dropout_rng_(options.seed ^ 0x64726f706f7574ull),  // "dropout": its own stream, apart from the data's
      sampling_rng_(options.seed ^ 0x73616d706c696e67ull),  // "sampling"
      draws_(static_cast<size_t>(limits.batch) * limits.dec_len),
      logp_(static_cast<size_t>(limits.batch) * limits.dec_len * config.tgt_vocab.size()),
      dlogp_(logp_.size()),
      mixed_(mixed_inputs_of(config, options, limits)) {
  guided_ = guided_of(options);
  if (!guided()) return;
  check_guided_attention(config, guided_);  // the options were validated for options.arch; the model is the config's
  const size_t w = static_cast<size_t>(limits.dec_len) * limits.src_len;
  ga_w_.assign(w, 0.0f);
  ga_dprobs_.assign(guided_floats(config, options, limits) - w, 0.0f);
  if (config.arch != Arch::Rnn) {
    // One buffer per guided layer, null for the others.
    const size_t per_layer = static_cast<size_t>(limits.batch) * config.n_heads * w;
    ga_layers_.assign(static_cast<size_t>(config.dec_layers), nullptr);
    size_t at = 0;
    for (int l = 0; l < config.dec_layers; ++l)
      if (guided_.layer < 0 || guided_.layer == l) {
        ga_layers_[static_cast<size_t>(l)] = ga_dprobs_.data() + at;
        at += per_layer;
      }
    ga_read_.assign(ga_layers_.begin(), ga_layers_.end());
  }
}

void Trainer::init_parameters() {
  Random rng(options_.seed);
  if (rnn_) rnn_->init_parameters(rng);
  else graph_->init_parameters(rng);
}

TransformerGraph& Trainer::graph() {
  if (!graph_) throw UsageError("this trainer's model is an RNN, not a Transformer");
  return *graph_;
}

RnnGraph& Trainer::rnn_graph() {
  if (!rnn_) throw UsageError("this trainer's model is a Transformer, not an RNN");
  return *rnn_;
}

const int* Trainer::decoder_inputs() const { return rnn_ ? rnn_->inputs() : graph_->inputs(); }

void Trainer::load_parameters(const SafetensorsFile& file) { train::load_parameters(store_, file); }

LossSums Trainer::compute_gradients(const Batch& b, bool train) {
  return compute_gradients(b, train, true_token_probability(options_, adam_.steps_taken() + 1));
}

LossSums Trainer::compute_gradients(const Batch& b, bool train, double epsilon) {
  store_.zero_grads();
  const float* logits = nullptr;
  float* dlogits = nullptr;
  own_tokens_ = 0;
  epsilon_ = 1.0;
  if (rnn_) {
    // Scheduled sampling (training only): two draws every decoder row, whatever the outcome.
    const bool sampling = train && options_.scheduled_sampling != SamplingSchedule::Off;
    if (sampling) {
      draws_.draw(sampling_rng_, b.dec_rows(), epsilon, options_.sampling_token);
      epsilon_ = epsilon;
    }
    rnn_->forward(b, train ? &dropout_rng_ : nullptr, sampling ? &draws_ : nullptr);
    if (sampling)
      for (int r = 0; r < b.dec_rows(); ++r) own_tokens_ += rnn_->inputs()[r] != b.dec_in[static_cast<size_t>(r)];
    logits = rnn_->logits();
    dlogits = rnn_->dlogits();
  } else {
    // Teacher forcing's pass; under scheduled sampling the first of two: its logits
    // give the model's own tokens, and the decoder runs again over the mix (the
    // encoder's output and the dropout masks as they are), without the targets or
    // the loss changing. Only the second pass is differentiated.
    graph_->forward(b, train ? &dropout_rng_ : nullptr);
    if (train && options_.scheduled_sampling != SamplingSchedule::Off) {
      draws_.draw(sampling_rng_, b.dec_rows(), epsilon, options_.sampling_token);
      epsilon_ = epsilon;
      own_tokens_ = mix_inputs(b, graph_->logits(), static_cast<int>(config_.tgt_vocab.size()), draws_, mixed_.data());
      graph_->decode_again(b, mixed_.data());
    }
    logits = graph_->logits();
    dlogits = graph_->dlogits();
  }
  const int rows = b.dec_rows(), V = static_cast<int>(config_.tgt_vocab.size());
  log_softmax_rows(logits, rows, V, logp_.data());
  // Every decoder row of a packed batch is a real target token: none is ignored.
  const LossSums s = smoothed_nll(logp_.data(), rows, V, b.target.data(), -1, options_.label_smoothing,
                                  1.0f / static_cast<float>(rows), dlogp_.data());
  log_softmax_backward(logp_.data(), dlogp_.data(), rows, V, dlogits);
  // Guided attention: P of this pass, and λ dP/dA into the backward pass.
  attention_loss_ = 0;
  if (guided()) {
    if (rnn_) attention_loss_ = rnn_guided_attention(*rnn_, b, guided_, ga_dprobs_.data(), ga_w_.data());
    else attention_loss_ = transformer_guided_attention(*graph_, b, guided_, &ga_layers_, ga_w_.data());
  }
  if (rnn_) rnn_->backward(b, guided() ? ga_dprobs_.data() : nullptr);
  else graph_->backward(b, guided() ? &ga_read_ : nullptr);
  return s;
}

StepStats Trainer::step(const Batch& b) {
  epsilon_ = true_token_probability(options_, adam_.steps_taken() + 1);
  return update(compute_gradients(b, true, epsilon_));
}

StepStats Trainer::update(const LossSums& s) {
  StepStats st;
  st.step = adam_.steps_taken() + 1;
  st.true_token_probability = epsilon_;
  st.own_tokens = own_tokens_;
  st.loss = s.tokens ? s.loss / s.tokens : 0.0;
  st.tokens = s.tokens;
  st.correct = s.correct;
  st.attention_loss = attention_loss_;
  if (!std::isfinite(st.loss))
    throw DivergedError(st.step, "training diverged at step " + std::to_string(st.step) + ": the loss is not finite");
  if (!std::isfinite(st.attention_loss))
    throw DivergedError(st.step, "training diverged at step " + std::to_string(st.step) + ": the guided-attention loss is not finite");
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
  const size_t activations = rnn_ ? rnn_->activation_floats() : graph_->activation_floats();
  return (store_.size() * 4 + activations + logp_.size() * 2 + draws_.coins().capacity() * 4 + mixed_.size() + ga_w_.size() +
          ga_dprobs_.size()) *
         sizeof(float);
}

size_t Trainer::estimate_memory_bytes(const ModelConfig& config, const TrainingOptions& options, const GraphLimits& limits) {
  ParamStore store;
  size_t activations = 0;
  if (config.arch == Arch::Rnn) activations = RnnGraph(config, limits, rates_of(options), store, true).activation_floats();
  else activations = TransformerGraph(config, limits, rates_of(options), store, true).activation_floats();
  const size_t logp = static_cast<size_t>(limits.batch) * limits.dec_len * config.tgt_vocab.size();
  const size_t draws = static_cast<size_t>(limits.batch) * limits.dec_len * 4;  // two doubles a decoder row
  const size_t mixed = mixed_inputs_of(config, options, limits);  // ints, a float's size each
  return (store.size() * 4 + activations + logp * 2 + draws + mixed + guided_floats(config, options, limits)) * sizeof(float);
}

}  // namespace train
}  // namespace seq2seq
