#include "train/trainer.h"

#include <cmath>
#include <string>

#include "errors.h"
#include "train/copy_mix.h"

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
  if (config.copy && o.scheduled_sampling != SamplingSchedule::Off)  // (validate() refuses the options too)
    throw UsageError("scheduled sampling draws from the vocabulary's distribution, not a copy model's mix");
  if (config.arch == Arch::Rnn) return nullptr;
  auto g = std::make_unique<TransformerGraph>(config, limits, rates_of(o), store);
  store.allocate();
  return g;
}

// What a copy model's gate reads, side by side: the context of the copy attention,
// the decoder's state and its input. The Transformer's are d_model wide each; the
// RNN's are a_t (2H), s_t and the input's embedding.
GateWidths gate_widths(const ModelConfig& c) {
  if (c.arch == Arch::Rnn) return GateWidths{2 * c.enc_hidden, c.dec_hidden, c.emb_dim};
  return GateWidths{c.d_model, c.d_model, c.d_model};
}

// The sizes of a copy model's buffers (Trainer::CopyBuffers), in floats, in the
// order of CopyBuffers' members: V + S columns a row at most.
std::vector<size_t> copy_buffer_sizes(const ModelConfig& c, const GraphLimits& limits) {
  if (!c.copy) return {};
  const size_t rows = static_cast<size_t>(limits.batch) * limits.dec_len, S = static_cast<size_t>(limits.src_len);
  const size_t V = c.tgt_vocab.size(), T = static_cast<size_t>(limits.dec_len);
  const GateWidths w = gate_widths(c);
  const size_t C = static_cast<size_t>(w.C), D = static_cast<size_t>(w.D), X = static_cast<size_t>(w.X);
  const bool rnn = c.arch == Arch::Rnn;
  // lpv, dlpv, attention, dattention, context, dcontext, gate, dgate, d_output, d_input, d_memory, dprobs, scratch:
  // the RNN's context is its a_t (none computed here), whose gradient goes back for every row of the batch at
  // once; the copy attention's gradient is laid out as its attention (a row each), the Transformer's as its
  // heads' probabilities.
  return {rows * V, rows * V, T * S, T * S, rnn ? 0 : T * C, (rnn ? rows : T) * C, T, T, rows * D, rows * X,
          rnn ? 0 : static_cast<size_t>(limits.batch) * S * C,
          (rnn ? 1 : static_cast<size_t>(c.n_heads)) * rows * S, 2 * (V + S)};
}

size_t copy_floats(const ModelConfig& c, const GraphLimits& limits) {
  size_t n = 0;
  for (size_t k : copy_buffer_sizes(c, limits)) n += k;
  return n;
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
      // A copy model's rows are as wide as the vocabulary and the source's copy-only tokens.
      logp_(static_cast<size_t>(limits.batch) * limits.dec_len * (config.tgt_vocab.size() + (config.copy ? limits.src_len : 0))),
      dlogp_(logp_.size()),
      mixed_(mixed_inputs_of(config, options, limits)) {
  guided_ = guided_of(options);
  if (config.copy && guided())  // (validate() refuses the options too)
    throw UsageError("guided attention with the copy mechanism is not built: both add a gradient on the same attention weights");
  if (guided()) {
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
  if (!config.copy) return;
  const std::vector<size_t> sizes = copy_buffer_sizes(config, limits);
  std::vector<float>* buffers[] = {&copy_.lpv,     &copy_.dlpv,  &copy_.attention, &copy_.dattention, &copy_.context,
                                   &copy_.dcontext, &copy_.gate, &copy_.dgate,     &copy_.d_output,   &copy_.d_input,
                                   &copy_.d_memory, &copy_.dprobs, &copy_.scratch};
  for (size_t k = 0; k < sizes.size(); ++k) buffers[k]->resize(sizes[k]);
  if (rnn_) return;
  cross_dprobs_.assign(static_cast<size_t>(config.dec_layers), nullptr);
  cross_dprobs_.back() = copy_.dprobs.data();
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
  return compute_gradients(b, train, true_token_probability(options_, adam_.steps_taken() + 1), true);
}

LossSums Trainer::read(const Batch& b) { return compute_gradients(b, false, 1.0, false); }

LossSums Trainer::compute_gradients(const Batch& b, bool train, double epsilon, bool backward) {
  store_.zero_grads();
  const float* logits = nullptr;
  float* dlogits = nullptr;
  own_tokens_ = 0;
  epsilon_ = 1.0;
  if (config_.copy) {  // the pointer-generator: its own first stage of the loss, and extra gradients
    if (static_cast<int>(b.copy_extra.size()) != b.size)
      throw UsageError("a copy model trains on batches that give each source's copy ids (Batch::add)");
    for (int id : b.dec_in)
      if (id < 0 || id >= static_cast<int>(config_.tgt_vocab.size()))
        throw UsageError("a copy model's decoder reads vocabulary ids (a copied token past the vocabulary as unk), not " +
                         std::to_string(id));
    // (Scheduled sampling is refused with the copy mechanism: the model's own token would be the
    // mix's, which neither family's sampling draws from.)
    if (rnn_) rnn_->forward(b, train ? &dropout_rng_ : nullptr);
    else graph_->forward(b, train ? &dropout_rng_ : nullptr);
    const LossSums s = copy_loss(b, backward);
    if (!backward) return s;
    if (rnn_) {
      RnnGraph::GateGrads gate;
      gate.d_context = copy_.dcontext.data();
      gate.d_state = copy_.d_output.data();
      gate.d_input = copy_.d_input.data();
      rnn_->backward(b, copy_.dprobs.data(), &gate);
      return s;
    }
    TransformerGraph::ExtraGrads extra;
    extra.d_output = copy_.d_output.data();
    extra.d_input = copy_.d_input.data();
    extra.d_memory = copy_.d_memory.data();
    graph_->backward(b, &cross_dprobs_, &extra);
    return s;
  }
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
  attention_loss_ = 0;
  if (!backward) return s;
  log_softmax_backward(logp_.data(), dlogp_.data(), rows, V, dlogits);
  // Guided attention: P of this pass, and λ dP/dA into the backward pass.
  if (guided()) {
    if (rnn_) attention_loss_ = rnn_guided_attention(*rnn_, b, guided_, ga_dprobs_.data(), ga_w_.data());
    else attention_loss_ = transformer_guided_attention(*graph_, b, guided_, &ga_layers_, ga_w_.data());
  }
  if (rnn_) rnn_->backward(b, guided() ? ga_dprobs_.data() : nullptr);
  else graph_->backward(b, guided() ? &ga_read_ : nullptr);
  return s;
}

std::vector<size_t> Trainer::log_prob_offsets(const Batch& b) const {
  std::vector<size_t> at(static_cast<size_t>(b.size));
  size_t next = 0;
  for (int e = 0; e < b.size; ++e) {
    at[static_cast<size_t>(e)] = next;
    next += static_cast<size_t>(b.dec_len[static_cast<size_t>(e)]) * static_cast<size_t>(log_prob_width(b, e));
  }
  return at;
}

LossSums Trainer::copy_loss(const Batch& b, bool backward) {
  // The copy attention: a Transformer's last decoder layer's cross-attention, its heads
  // averaged (example e's probabilities: [heads][T][S] at its span's p0); the RNN's
  // attention (decoder row r's weights at attention() + r * stride). The gate reads the
  // copy attention's context, the decoder's state and its input: the Transformer's
  // context computed here from the encoder output, the RNN's its a_t.
  const bool rnn = rnn_ != nullptr;
  const int V = static_cast<int>(config_.tgt_vocab.size()), H = rnn ? 1 : config_.n_heads;
  const int rows = b.dec_rows();
  const GateWidths widths = gate_widths(config_);
  const int C = widths.C, D = widths.D, X = widths.X;
  CopyBuffers& c = copy_;
  log_softmax_rows(rnn ? rnn_->logits() : graph_->logits(), rows, V, c.lpv.data());
  if (backward) {
    std::fill(c.d_output.begin(), c.d_output.begin() + static_cast<long>(rows) * D, 0.0f);
    std::fill(c.d_input.begin(), c.d_input.begin() + static_cast<long>(rows) * X, 0.0f);
  }
  const int gate_w = rnn ? rnn_->copy_gate_weight() : graph_->copy_gate_weight();
  const int gate_b = rnn ? rnn_->copy_gate_bias() : graph_->copy_gate_bias();
  const float* w = store_.value(gate_w);
  const float bias = store_.value(gate_b)[0];
  float* dw = store_.grad(gate_w);
  float* db = store_.grad(gate_b);
  const float* probs = nullptr;
  const float* memory = nullptr;
  const float* state = nullptr;
  const float* input = nullptr;
  const std::vector<AttentionSpan>* spans = nullptr;
  size_t stride = 0;  // the RNN's: a decoder row's weights apart
  if (rnn) {
    probs = rnn_->attention();
    stride = static_cast<size_t>(rnn_->attention_stride());
    state = rnn_->gate_state();
    input = rnn_->gate_input();
    if (backward) {
      std::fill(c.dcontext.begin(), c.dcontext.begin() + static_cast<long>(rows) * C, 0.0f);
      std::fill(c.dprobs.begin(), c.dprobs.begin() + static_cast<long>(rows) * stride, 0.0f);
    }
  } else {
    probs = graph_->cross_attention(config_.dec_layers - 1);
    spans = &graph_->cross_spans();
    memory = graph_->memory();
    state = graph_->decoder_output();
    input = graph_->decoder_input();
    if (backward) std::fill(c.d_memory.begin(), c.d_memory.begin() + static_cast<long>(b.src_rows()) * C, 0.0f);
  }
  const float scale = 1.0f / static_cast<float>(rows);
  LossSums sums;
  size_t at = 0;  // example e's rows of logp_, each as wide as its own output vocabulary
  for (int e = 0; e < b.size; ++e) {
    const int T = b.dec_len[static_cast<size_t>(e)], S = b.src_len[static_cast<size_t>(e)];
    const size_t r0 = static_cast<size_t>(b.dec_off[static_cast<size_t>(e)]), s0 = static_cast<size_t>(b.src_off[static_cast<size_t>(e)]);
    const int W = V + b.copy_extra[static_cast<size_t>(e)];
    float* a = c.attention.data();
    const float* p = rnn ? probs + r0 * stride : probs + (*spans)[static_cast<size_t>(e)].p0;
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < S; ++i) {
        if (rnn) {
          a[static_cast<size_t>(t) * S + i] = p[static_cast<size_t>(t) * stride + i];
          continue;
        }
        float sum = 0;
        for (int h = 0; h < H; ++h) sum += p[(static_cast<size_t>(h) * T + t) * S + i];
        a[static_cast<size_t>(t) * S + i] = sum / static_cast<float>(H);
      }
    const float* context = rnn ? rnn_->gate_context() + r0 * C : c.context.data();
    if (!rnn) copy_context_forward(a, memory + s0 * C, T, S, C, c.context.data());
    copy_gate_forward(context, state + r0 * D, input + r0 * X, T, widths, w, bias, c.gate.data());
    const CopyShape shape{T, V, S, W, b.copy_ids.data() + s0, c.scratch.data()};
    float* lp = logp_.data() + at;
    float* dlp = dlogp_.data() + at;
    copy_mix_forward(c.lpv.data() + r0 * V, c.gate.data(), a, shape, lp);
    const LossSums es = smoothed_nll(lp, T, V, b.target.data() + r0, -1, options_.label_smoothing, scale, dlp, W);
    sums.loss += es.loss;
    sums.tokens += es.tokens;
    sums.correct += es.correct;
    at += static_cast<size_t>(T) * W;
    if (!backward) continue;  // a reading (read()): the mix and its loss only
    float* da = c.dattention.data();
    copy_mix_backward(c.lpv.data() + r0 * V, c.gate.data(), a, lp, dlp, shape, c.dlpv.data() + r0 * V, c.dgate.data(), da);
    float* dcontext = rnn ? c.dcontext.data() + r0 * C : c.dcontext.data();
    if (!rnn) std::fill(c.dcontext.begin(), c.dcontext.begin() + static_cast<long>(T) * C, 0.0f);
    copy_gate_backward(c.dgate.data(), context, state + r0 * D, input + r0 * X, T, widths, w, dw, db, dcontext,
                       c.d_output.data() + r0 * D, c.d_input.data() + r0 * X);
    if (rnn) {
      // The copy attention's gradient at the RNN's attention weights; the context's goes back
      // through the graph's own attention (RnnGraph::GateGrads).
      float* dp = c.dprobs.data() + r0 * stride;
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < S; ++i) dp[static_cast<size_t>(t) * stride + i] = da[static_cast<size_t>(t) * S + i];
    } else {
      copy_context_backward(c.dcontext.data(), a, memory + s0 * C, T, S, C, da, c.d_memory.data() + s0 * C);
      // Each head's share of the average.
      float* dp = c.dprobs.data() + (*spans)[static_cast<size_t>(e)].p0;
      for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t)
          for (int i = 0; i < S; ++i)
            dp[(static_cast<size_t>(h) * T + t) * S + i] = da[static_cast<size_t>(t) * S + i] / static_cast<float>(H);
    }
  }
  if (backward) log_softmax_backward(c.lpv.data(), c.dlpv.data(), rows, V, rnn ? rnn_->dlogits() : graph_->dlogits());
  return sums;
}

StepStats Trainer::step(const Batch& b) {
  epsilon_ = true_token_probability(options_, adam_.steps_taken() + 1);
  return update(compute_gradients(b, true, epsilon_, true));
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
  size_t copy = 0;
  for (const std::vector<float>* v : {&copy_.lpv, &copy_.dlpv, &copy_.attention, &copy_.dattention, &copy_.context, &copy_.dcontext,
                                      &copy_.gate, &copy_.dgate, &copy_.d_output, &copy_.d_input, &copy_.d_memory, &copy_.dprobs,
                                      &copy_.scratch})
    copy += v->size();
  return (store_.size() * 4 + activations + logp_.size() * 2 + draws_.coins().capacity() * 4 + mixed_.size() + ga_w_.size() +
          ga_dprobs_.size() + copy) *
         sizeof(float);
}

size_t Trainer::estimate_memory_bytes(const ModelConfig& config, const TrainingOptions& options, const GraphLimits& limits) {
  ParamStore store;
  size_t activations = 0;
  if (config.arch == Arch::Rnn) activations = RnnGraph(config, limits, rates_of(options), store, true).activation_floats();
  else activations = TransformerGraph(config, limits, rates_of(options), store, true).activation_floats();
  const size_t logp = static_cast<size_t>(limits.batch) * limits.dec_len *
                      (config.tgt_vocab.size() + (config.copy ? static_cast<size_t>(limits.src_len) : 0));
  const size_t draws = static_cast<size_t>(limits.batch) * limits.dec_len * 4;  // two doubles a decoder row
  const size_t mixed = mixed_inputs_of(config, options, limits);  // ints, a float's size each
  return (store.size() * 4 + activations + logp * 2 + draws + mixed + guided_floats(config, options, limits) +
          copy_floats(config, limits)) *
         sizeof(float);
}

}  // namespace train
}  // namespace seq2seq
