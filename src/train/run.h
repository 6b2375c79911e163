// A training run from the options alone: the task's data, a model sized by the
// options around the task's vocabularies, the trainer, progress records with
// held-out accuracy, export and checkpoints. The CLI (`seq2seq train`) is a loop
// over step(); the npm module's trainer (wasm/train_bindings.cpp) is the same loop, a
// call at a time, in-process or in a worker.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "random.h"
#include "train/tasks.h"
#include "train/trainer.h"
#include "train/training_options.h"

namespace seq2seq {
namespace train {

// The held-out set read two ways with the model as it stands: free-running (greedy
// decoding through the engine, the model exported and loaded, as a user decodes it) and
// teacher-forced (the trainer's own forward pass without dropout, as the probe reads an
// example, train/probe.h, batch_size examples a pass). Every token count runs over the reference's positions, its end token
// included; a position a greedy output does not reach counts wrong.
struct Evaluation {
  double word_accuracy = 0;            // greedy output equal to the reference
  int held_out = 0;                    // held-out examples scored
  double held_out_token_accuracy = 0;  // teacher-forced: the argmax under the true prefix is the reference's token
  double free_token_accuracy = 0;      // greedy: the output's token at the reference's position is the reference's
  // The notes' 一步错步步错: over the examples whose greedy output goes wrong
  // (first_error_count of them), the share of reference positions after the first
  // wrong one that the greedy output also gets wrong, and that the teacher-forced
  // argmax gets wrong (0 where no example goes wrong).
  int first_error_count = 0;
  double wrong_after_first_error = 0;
  double forced_wrong_after_first_error = 0;
  // The share of cross-attention inside the band around the diagonal |n/N - t/T| <= g
  // (diagonal_band_mass, guided_attention.h; g the guided-attention width option), averaged
  // over the examples and, for the Transformer, over the (layer, head) pairs guided
  // attention's options choose (all by default). Absent for an RNN without attention.
  bool has_attention = false;
  double attention_diagonal = 0;
};

// What step() reports: the steps it ran, and, at an evaluation point, the
// held-out evaluation.
struct ProgressRecord {
  int step = 0;                  // the last step taken
  int steps = 0;                 // the run's length
  double loss = 0;               // mean cross-entropy per target token over the steps of this record
  double token_accuracy = 0;     // teacher-forced: the share of target tokens whose argmax is right
  double learning_rate = 0;      // at the last step
  double grad_norm = 0;          // at the last step, before clipping
  double steps_per_second = 0;   // over this record's steps, evaluation excluded
  double elapsed_seconds = 0;    // since the run started (or resumed)
  bool evaluated = false;        // an evaluation point: eval is set
  Evaluation eval;
  bool sampling = false;         // scheduled sampling is on:
  double true_token_probability = 1;  // its epsilon at the last step
  double own_token_share = 0;    // the share of decoder inputs over this record's steps that were an own token other than the true one
  bool guided = false;           // guided attention is on:
  double attention_loss = 0;     // its penalty P (before its weight), the mean over this record's steps
};

// Each field of a record under its name on every face (the CLI's JSON lines, and
// the module's records, camelCase as the snapshots'), stated once here; the
// held-out fields only where the record was evaluated, scheduled sampling's and
// guided attention's only where they are on. An evaluation's fields first:
template <typename Visit>
void visit_fields(const Evaluation& e, Visit&& v) {
  v("wordAccuracy", e.word_accuracy);
  v("heldOut", e.held_out);
  v("heldOutTokenAccuracy", e.held_out_token_accuracy);
  v("freeTokenAccuracy", e.free_token_accuracy);
  v("firstErrorCount", e.first_error_count);
  v("wrongAfterFirstError", e.wrong_after_first_error);
  v("forcedWrongAfterFirstError", e.forced_wrong_after_first_error);
  if (e.has_attention) v("attentionDiagonal", e.attention_diagonal);
}

template <typename Visit>
void visit_fields(const ProgressRecord& r, Visit&& v) {
  v("step", r.step);
  v("steps", r.steps);
  v("loss", r.loss);
  if (r.guided) v("attentionLoss", r.attention_loss);
  v("tokenAccuracy", r.token_accuracy);
  v("learningRate", r.learning_rate);
  v("gradNorm", r.grad_norm);
  v("stepsPerSecond", r.steps_per_second);
  v("elapsedSeconds", r.elapsed_seconds);
  if (r.evaluated) visit_fields(r.eval, v);
  if (r.sampling) {
    v("trueTokenProbability", r.true_token_probability);
    v("ownTokenShare", r.own_token_share);
  }
}

// The checkpoint does not fit the run asked for: another configuration, or data
// with another vocabulary. Names what differs.
struct CheckpointError : Error {
  explicit CheckpointError(const std::string& what) : Error("checkpoint: " + what) {}
};

class TrainingRun {
 public:
  // Validates the options, builds the task (g2p: from `data`, the text of its
  // file; null: none given) and the model; refuses a run that needs more memory
  // than o.memory_limit_mb (OptionError naming memory_limit_mb and the need).
  TrainingRun(const TrainingOptions& o, const std::string* data);
  // A run continued from a checkpoint (checkpoint()'s bytes): the options must be
  // the checkpoint's but for steps, log_every, eval_every and memory_limit_mb,
  // and the data the same vocabularies. Throws CheckpointError otherwise.
  static std::unique_ptr<TrainingRun> resume(const std::vector<uint8_t>& checkpoint, const TrainingOptions& o,
                                             const std::string* data);

  // Runs up to `n` steps, stopping early at an evaluation point (every
  // eval_every steps, and the last) or the run's end; evaluates there.
  // DivergedError when the loss or a gradient stops being finite.
  ProgressRecord step(int n);
  bool done() const { return trainer_->steps_taken() >= options_.steps; }

  // The held-out set read with the model as it is now (Evaluation). Leaves the
  // parameters, AdamW's state and every generator as they were.
  Evaluation evaluate();

  std::vector<uint8_t> export_model(ExportStorage storage) const { return trainer_->export_model(storage); }
  // The model, AdamW's state, the options and where the generators stand.
  std::vector<uint8_t> checkpoint() const;

  // The least the loss can be (smoothed_nll_floor, loss.h): the entropy of the run's
  // label-smoothed target over the target vocabulary; 0 without label smoothing.
  double loss_floor() const;

  const TaskData& task() const { return *task_; }
  Trainer& trainer() { return *trainer_; }
  const TrainingOptions& options() const { return options_; }
  const ModelConfig& model_config() const { return trainer_->config(); }

 private:
  TrainingRun(const TrainingOptions& o, const std::string* data, bool init);
  void fill_batch();

  TrainingOptions options_;
  std::unique_ptr<TaskData> task_;
  std::unique_ptr<Trainer> trainer_;
  Random data_rng_;
  Batch batch_;
  TaskExample example_;
  std::vector<int> dec_in_, dec_out_;
  std::chrono::steady_clock::time_point started_;
};

// The model configuration a run trains: the options' sizes around the task's
// vocabularies, positions for its longest source and target.
ModelConfig model_config_for(const TrainingOptions& o, const TaskData& task);

}  // namespace train
}  // namespace seq2seq
