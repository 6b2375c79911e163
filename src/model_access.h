// The network behind a Model, for the library itself and its tests. Not installed:
// Network, Transformer and Rnn are internal types (layers, tensors, Eigen), so the
// public model.h only declares them and names this struct its friend.
#pragma once
#include <memory>
#include <string>

#include "copy.h"
#include "model.h"

namespace seq2seq {

class Transformer;
class Rnn;

// A source text as the network reads it (ids, and a copy model's copy map) and the
// vocabulary its output is written in (Model::output_vocab).
struct ReadSource {
  SourceInput input;
  std::shared_ptr<const Vocabulary> output_vocab;
};

struct ModelAccess {
  // Throws InputError for bad source text.
  static ReadSource read(const Model& model, const std::string& text);
  // The scorers' source (network.h).
  static const Network& network(const Model& model) { return *model.network_; }
  // The concrete architecture (transformer.h, rnn.h); throws UsageError if the model
  // is another kind or an ensemble.
  static const Transformer& transformer(const Model& model);
  static const Rnn& rnn(const Model& model);
};

}  // namespace seq2seq
