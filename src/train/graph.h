// What every family's training graph takes (the Transformer's,
// transformer_graph.h, and the RNN's, rnn_graph.h): a packed batch, the limits
// its buffers are sized for, and the dropout rates.
#pragma once
#include <cstddef>
#include <vector>

namespace seq2seq {
namespace train {

// A batch, packed: example b's source tokens are rows [src_off[b], src_off[b] +
// src_len[b]) of `src`; its decoder inputs (BOS, then the target's tokens) are rows
// [dec_off[b], dec_off[b] + dec_len[b]) of `dec_in`, and `target` holds, row for
// row, the token each decoder position must predict (the target's tokens, then
// EOS). Decoder inputs and targets are apart so that a step may feed the decoder
// other tokens than the reference's (scheduled sampling mixes in the model's own).
struct Batch {
  int size = 0;
  std::vector<int> src, src_off, src_len;
  std::vector<int> dec_in, target, dec_off, dec_len;
  // A copy model's (src/copy.h): per source row the output id copying it gives (the
  // target vocabulary's, or V + k for the example's k-th copy-only token), and per
  // example how many copy-only tokens its source has. Its targets may be such ids;
  // its decoder inputs are vocabulary ids (a copied token past it read as unk).
  std::vector<int> copy_ids, copy_extra;

  // Empties it, keeping the capacity (a step allocates nothing).
  void clear();
  // Appends one example; its decoder inputs and targets must be as long; a copy
  // model's with its source's copy ids (as long as the source) and copy-only count.
  void add(const std::vector<int>& source, const std::vector<int>& decoder_input, const std::vector<int>& targets,
           const std::vector<int>* copy_ids = nullptr, int copy_extra = 0);
  int src_rows() const { return static_cast<int>(src.size()); }
  int dec_rows() const { return static_cast<int>(dec_in.size()); }
};

// The most a pass will hold: examples, and the longest source and decoder input.
struct GraphLimits {
  int batch = 1, src_len = 1, dec_len = 1;
};

struct DropoutRates {
  float dropout = 0.0f, attention = 0.0f;
};

}  // namespace train
}  // namespace seq2seq
