// A loaded model: configuration, vocabularies and weights, immutable after
// loading and safe to share between any number of decoding sessions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "errors.h"
#include "model_config.h"
#include "snapshot.h"
#include "vocabulary.h"

namespace seq2seq {

// The network behind a model (network.h) is declared only: a model's users see
// its configuration and vocabularies, and this header pulls in no layer, tensor
// or Eigen header. The library and its tests reach the network through
// ModelAccess (model_access.h, not installed).
class Network;
struct ModelAccess;

// The instruction set the engine's SIMD kernels use in this process: natively
// the best of "avx2", "sse4.1" and "sse2" that this CPU runs (a portable x86-64
// build carries all three), or the one the environment variable SEQ2SEQ_ISA
// names; "simd128" in WebAssembly. Loading a model checks it: a SEQ2SEQ_ISA this
// build or CPU cannot run is a UsageError naming the ones it can.
std::string kernel_isa();

class Model {
 public:
  // Both throw ModelError for anything wrong with the bytes; the buffer is not
  // kept after the call returns. `compute`: how the linear layers multiply
  // (model_config.h): int8 kernels for int8-stored weights, or f32 throughout.
  static std::shared_ptr<const Model> from_file(const std::string& path, Compute compute = Compute::Auto);
  static std::shared_ptr<const Model> from_buffer(const uint8_t* data, size_t size, Compute compute = Compute::Auto);
  // Autoregressive models with the same vocabularies as one model whose next-token
  // distribution is the mean of theirs (defined in ensemble.cpp); the members stay
  // shared. Throws UsageError if they cannot be combined. Its config is the first
  // member's with the smallest max_pos of them all.
  static std::shared_ptr<const Model> ensemble(const std::vector<std::shared_ptr<const Model>>& members);

  const ModelConfig& config() const { return config_; }
  const Vocabulary& source_vocab() const { return src_vocab_; }
  const Vocabulary& target_vocab() const { return tgt_vocab_; }
  // How many models this one combines: 1 for a model file, N for an ensemble.
  int ensemble_size() const { return ensemble_size_; }
  int64_t parameter_count() const;
  size_t file_bytes() const { return file_bytes_; }
  // How the weights are stored: "f32", "f16", "int8" or "int4" (the narrowest dtype in the
  // file; quantized files keep biases and norms wider); an ensemble's members' if they
  // agree, else "mixed".
  const std::string& storage() const { return storage_; }
  // What the linear layers multiply in: "int8" (int8 or int4 storage, auto compute), "f32", or an
  // ensemble's "mixed".
  const std::string& compute() const { return compute_; }

  // The source text as token ids (see tokenize_source for what is rejected).
  std::vector<int> tokenize(const std::string& text) const;
  // The vocabulary a decode of `source` writes its output in: the target vocabulary,
  // and for a copy model the source's tokens it lacks after it (ids V, V + 1, ...: a
  // copied token the vocabulary lacks shows the source token's text). For a model
  // without the copy mechanism, the target vocabulary itself (valid while this model
  // is). Throws InputError for bad source text.
  std::shared_ptr<const Vocabulary> output_vocab(const std::string& source) const;

  // Every intermediate of one decoder pass (snapshot.h, StepInside): how the model
  // computes a step, with its numbers. `tokens`: an autoregressive model's output so far
  // (ids, no BOS: the pass feeds BOS and them, and its last position's logits are the
  // next token's distribution; a copy model's may be ids of output_vocab(source)), or a
  // CMLM's draft (one id per target position, the mask id where masked). Throws
  // InputError for bad source text, a special token where none
  // may be, a draft that is empty or longer than the length head reaches, or too many
  // tokens for the model's positions; UsageError for an ensemble.
  StepInside inspect(const std::string& source, const std::vector<int>& tokens) const;
  // inspect()'s error for an id of `tokens` outside `vocab` (the target vocabulary, or a
  // copy model's output_vocab for the source), at position `position` (from 1). A double,
  // so that a caller holding ids wider than int (JS numbers) names the id it was given.
  InputError target_id_outside(double id, size_t position, const Vocabulary& vocab) const;

  ~Model();

 private:
  friend struct ModelAccess;
  Model();
  ModelConfig config_;
  Vocabulary src_vocab_, tgt_vocab_;
  std::unique_ptr<Network> network_;
  size_t file_bytes_ = 0;
  std::string storage_ = "f32";
  std::string compute_ = "f32";
  int ensemble_size_ = 1;
  bool ensemble_ = false;  // built by ensemble(), even of one member
};

}  // namespace seq2seq
