// One model being trained: its parameters (ParamStore), the graph that computes
// its forward and backward passes, AdamW's state, and the generator that draws
// dropout masks, all owned here (no globals), so that two trainers never share
// state and a seed repeats a run. A step: forward over a batch, the
// label-smoothed cross-entropy, backward, clipping, AdamW (docs/training.md).
//
// Hooks for what comes after teacher forcing, each at the point of the step it
// changes: the batch's decoder inputs are apart from its targets (scheduled
// sampling feeds the decoder a per-example mix of reference and predicted
// tokens, from draws of the trainer's own generator: the RNN's token by token,
// the Transformer's in two passes); guided attention's penalty on the
// cross-attention weights (guided_attention.h) enters both graphs' backward
// passes as an extra gradient on them; the loss
// runs in stages from log-probabilities (loss.h), so that an output
// distribution mixed with a copy distribution replaces only the first stage:
// a copy model's (train/copy_mix.h) is mixed there, per example of the batch, and
// its gradients go back into the graph with the logits' (copy_loss()).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "model_config.h"
#include "random.h"
#include "safetensors.h"
#include "train/guided_attention.h"
#include "train/loss.h"
#include "train/model_file.h"
#include "train/optimizer.h"
#include "train/param_store.h"
#include "train/rnn_graph.h"
#include "train/scheduled_sampling.h"
#include "train/training_options.h"
#include "train/transformer_graph.h"

namespace seq2seq {
namespace train {

struct StepStats {
  int step = 0;            // the step this was (1 for the first)
  double loss = 0;         // mean over the batch's target tokens
  int tokens = 0;          // target tokens (EOS included)
  int correct = 0;         // of them, predicted right by the teacher-forced argmax
  double grad_norm = 0;    // before clipping
  float learning_rate = 0;
  double true_token_probability = 1;  // scheduled sampling's epsilon this step (teacher forcing: 1)
  int own_tokens = 0;      // decoder inputs that were the model's own token, not the true one
  double attention_loss = 0;  // guided attention's penalty P, before its weight (0 when off)
};

class Trainer {
 public:
  // A model of `config` (an autoregressive Transformer, or an RNN encoder-decoder)
  // trained with `options` on batches within `limits`. The parameters start at 0: init_parameters() or
  // load_parameters() next. Throws UsageError for options out of range.
  Trainer(const ModelConfig& config, const TrainingOptions& options, const GraphLimits& limits);

  // The reference's initialisation, drawn from a generator seeded with options.seed.
  void init_parameters();
  // The parameters of a model file of this configuration (ModelError if they differ).
  void load_parameters(const SafetensorsFile& file);

  // Forward, loss and backward over `b`: the store's gradients become this batch's.
  // With `train`, dropout and scheduled sampling as the options say (epsilon: the
  // schedule's at the next step, or the one given); without, neither. Guided
  // attention's term is part of the loss either way (attention_loss()).
  LossSums compute_gradients(const Batch& b, bool train);
  LossSums compute_gradients(const Batch& b, bool train, double epsilon, bool backward = true);
  // The forward pass and the loss alone, without dropout, scheduled sampling or a backward
  // pass: what a probe reads (log_probs(), the attention, a copy model's gate). The
  // gradients are left zero; the next step computes its own.
  LossSums read(const Batch& b);
  // compute_gradients(b, true), then update(). A loss or gradient that is not
  // finite throws DivergedError before any parameter changes.
  StepStats step(const Batch& b);
  // Clipping and AdamW at the next step's learning rate, from the gradients the
  // last compute_gradients() left (`s`, its sums): the step's record.
  StepStats update(const LossSums& s);

  int steps_taken() const { return adam_.steps_taken(); }
  const ModelConfig& config() const { return config_; }
  const TrainingOptions& options() const { return options_; }
  ParamStore& params() { return store_; }
  const ParamStore& params() const { return store_; }
  TransformerGraph& graph();  // the Transformer's graph (UsageError for an RNN)
  RnnGraph& rnn_graph();       // the RNN's graph (UsageError for a Transformer)
  AdamW& optimizer() { return adam_; }
  Random& dropout_rng() { return dropout_rng_; }
  // Scheduled sampling's draws: a stream of their own, so that turning it on
  // changes no dropout mask.
  Random& sampling_rng() { return sampling_rng_; }
  // The tokens the decoder read in the last pass, row for row of its batch.
  const int* decoder_inputs() const;
  // Guided attention's penalty P over the last pass (before its weight; 0 when off):
  // the loss minimised is the cross-entropy + guided_attention_weight * P.
  double attention_loss() const { return attention_loss_; }
  bool guided() const { return guided_.weight > 0; }
  // The log-probabilities of the last compute_gradients(), [decoder rows x target vocabulary]:
  // the distribution the loss read (a probe example's per-token -log p, train/probe.h).
  const float* log_probs() const { return logp_.data(); }
  // A copy model's rows are as wide as each example's extended vocabulary, example after
  // example: where example e of the last pass's batch `b` starts in log_probs(), and its width.
  std::vector<size_t> log_prob_offsets(const Batch& b) const;
  int log_prob_width(const Batch& b, int e) const {
    return static_cast<int>(config_.tgt_vocab.size()) + (config_.copy ? b.copy_extra[static_cast<size_t>(e)] : 0);
  }
  // A copy model's last compute_gradients(), its batch's last example (a probe's only
  // one): the gate's logits [T] (p_gen = sigmoid) and the copy attention [T x S].
  const float* copy_gate_logits() const { return copy_.gate.data(); }
  const float* copy_attention() const { return copy_.attention.data(); }

  std::vector<uint8_t> export_model(ExportStorage storage) const { return train::export_model(store_, config_, storage); }

  // Bytes held for parameters, gradients, AdamW's moments and the graph's buffers;
  // estimate_memory_bytes() says the same before anything is allocated.
  size_t memory_bytes() const;
  static size_t estimate_memory_bytes(const ModelConfig& config, const TrainingOptions& options, const GraphLimits& limits);

 private:
  ModelConfig config_;
  TrainingOptions options_;
  ParamStore store_;
  std::unique_ptr<TransformerGraph> graph_;  // one of the two, by config.arch
  std::unique_ptr<RnnGraph> rnn_;
  AdamW adam_;
  Random dropout_rng_, sampling_rng_;
  SamplingDraws draws_;
  double epsilon_ = 1.0;  // the last pass's probability of the true token
  int own_tokens_ = 0;
  // Guided attention: its settings, the last pass's P, W of one example, and the
  // gradient on the guided weights (per decoder layer for the Transformer).
  GuidedAttention guided_;
  double attention_loss_ = 0;
  std::vector<float> ga_w_, ga_dprobs_;
  std::vector<float*> ga_layers_;
  std::vector<const float*> ga_read_;  // the same, as the backward pass reads them
  std::vector<float> logp_, dlogp_;
  // A copy model's mix, sized for the limits (a step allocates nothing): the
  // vocabulary's log-probabilities and their gradient [rows x V]; one example's copy
  // attention, context, gate and their gradients; the gradients sent back into the
  // graph (the Transformer's decoder output and input, encoder output and last layer's
  // cross-attention probabilities; the RNN's a_t for every row, s_t, the input's
  // embedding and attention weights); the mix's scratch.
  struct CopyBuffers {
    std::vector<float> lpv, dlpv, attention, dattention, context, dcontext, gate, dgate;
    std::vector<float> d_output, d_input, d_memory, dprobs, scratch;
  } copy_;
  std::vector<const float*> cross_dprobs_;  // per decoder layer: the copy attention's gradient on the last
  // The pointer-generator's loss over the batch (the first stage of the loss, loss.h,
  // for a copy model): mixes each example's rows over its extended vocabulary,
  // takes the loss and its gradient back to the logits (the graph's dlogits), the
  // gate's parameters and the extra gradients the graph's backward pass adds.
  // Without `backward`, the mix and its loss only (read()).
  LossSums copy_loss(const Batch& b, bool backward = true);
  std::vector<int> mixed_;  // scheduled sampling's second pass reads these (a Transformer's)
};

// The loss or the gradients stopped being finite: the run has diverged. Names the
// step; nothing is updated by that step, so the parameters stay finite.
struct DivergedError : Error {
  DivergedError(int step_number, const std::string& what) : Error(what), step(step_number) {}
  int step;
};

}  // namespace train
}  // namespace seq2seq
