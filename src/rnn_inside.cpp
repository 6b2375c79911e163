// Rnn::inspect: the RNN's pass over one source and one decoder input, keeping the
// encoder states, the context vector, each decoder state, the raw scores, the
// weights and the context read at every position. It runs the decoder's own
// encode/read_source, so its numbers are a decode's. Decoding never calls it.
#include "errors.h"
#include "rnn.h"

namespace seq2seq {

// What inspect() below keeps, array by array, in its order.
uint64_t Rnn::inside_values(int source_length, int target_length) const {
  const uint64_t S = static_cast<uint64_t>(source_length), T = static_cast<uint64_t>(target_length);
  const uint64_t H2 = 2 * static_cast<uint64_t>(cfg_.enc_hidden), D = static_cast<uint64_t>(cfg_.dec_hidden);
  const uint64_t V = cfg_.tgt_vocab.size();
  const uint64_t scored = cfg_.attention == AttentionScore::None ? 0 : 2 * T * S;  // scores, weights
  // encoder states, context vector; per position: decoder state, context, logits
  return S * H2 + H2 + T * (D + H2 + V) + scored;
}

StepInside Rnn::inspect(const std::vector<int>& source, const std::vector<int>& target) const {
  if (target.empty()) throw InputError("the target is empty");
  if (static_cast<int>(target.size()) > cfg_.max_pos)
    throw InputError("the target has " + std::to_string(target.size()) + " tokens; this model reads at most " +
                     std::to_string(cfg_.max_pos));
  RnnState st = encode(source);
  const int H = cfg_.enc_hidden, S = static_cast<int>(st.values.rows()), T = static_cast<int>(target.size());
  StepInside out;
  out.rnn = true;
  out.arch = to_string(cfg_.arch);
  out.source_length = S;
  out.target = target;
  out.vocab_size = static_cast<int>(cfg_.tgt_vocab.size());
  out.attention = to_string(cfg_.attention);
  out.encoder_width = 2 * H;
  out.decoder_width = cfg_.dec_hidden;
  out.encoder_states.assign(st.values.data(), st.values.data() + st.values.size());
  RowVector c(2 * H);  // the top layer's last forward and first backward state, as encode() joins them
  c << st.values.row(S - 1).head(H), st.values.row(0).tail(H);
  out.context_vector.assign(c.data(), c.data() + c.size());
  for (int t = 0; t < T; ++t) {
    RowMatrix logits, raw, weights, context;
    step(st, {target[static_cast<size_t>(t)]}, logits, nullptr);
    read_source(st, &raw, weights, &context);  // what that step read, again, with its raw scores
    out.decoder_states.insert(out.decoder_states.end(), st.dec.data(), st.dec.data() + st.dec.size());
    out.scores.insert(out.scores.end(), raw.data(), raw.data() + raw.size());
    out.weights.insert(out.weights.end(), weights.data(), weights.data() + weights.size());
    out.context.insert(out.context.end(), context.data(), context.data() + context.size());
    out.logits.insert(out.logits.end(), logits.data(), logits.data() + logits.size());
  }
  return out;
}

}  // namespace seq2seq
