// The network behind a Model, for the library itself and its tests. Not installed:
// Network, Transformer and Rnn are internal types (layers, tensors, Eigen), so the
// public model.h only declares them and names this struct its friend.
#pragma once
#include "model.h"

namespace seq2seq {

class Transformer;
class Rnn;

struct ModelAccess {
  // The scorers' source (network.h).
  static const Network& network(const Model& model) { return *model.network_; }
  // The concrete architecture (transformer.h, rnn.h); throws UsageError if the model
  // is another kind or an ensemble.
  static const Transformer& transformer(const Model& model);
  static const Rnn& rnn(const Model& model);
};

}  // namespace seq2seq
