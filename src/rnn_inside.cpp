// Rnn::inspect: the RNN's pass over one source and one decoder input, keeping the
// encoder states, the context vector, each decoder state, the raw scores, the
// weights and the context read at every position. It runs the decoder's own
// encode/read_source, so its numbers are a decode's. Decoding never calls it.
#include "copy.h"
#include "errors.h"
#include "rnn.h"

namespace seq2seq {

// What inspect() below keeps, array by array, in its order.
uint64_t Rnn::inside_values(int source_length, int target_length, int extra) const {
  const uint64_t S = static_cast<uint64_t>(source_length), T = static_cast<uint64_t>(target_length);
  const uint64_t H2 = 2 * static_cast<uint64_t>(cfg_.enc_hidden), D = static_cast<uint64_t>(cfg_.dec_hidden);
  const uint64_t V = cfg_.tgt_vocab.size();
  const uint64_t scored = cfg_.attention == AttentionScore::None ? 0 : 2 * T * S;  // scores, weights
  // a copy model's, per position: the copy attention, its context, p_gen, the mixed distribution
  const uint64_t copied = cfg_.copy ? T * (S + H2 + 1 + V + static_cast<uint64_t>(extra)) : 0;
  // encoder states, context vector; per position: decoder state, context, logits
  return S * H2 + H2 + T * (D + H2 + V) + scored + copied;
}

StepInside Rnn::inspect(const SourceInput& source, const std::vector<int>& target_ids) const {
  if (target_ids.empty()) throw InputError("the target is empty");
  if (static_cast<int>(target_ids.size()) > cfg_.max_pos)
    throw InputError("the target has " + std::to_string(target_ids.size()) + " tokens; this model reads at most " +
                     std::to_string(cfg_.max_pos));
  RnnState st = encode(source.ids);
  CopyMap copy;
  std::vector<int> target = target_ids;  // what the decoder embeds: a copy model reads a copy-only token as unk
  if (cfg_.copy) {
    copy = copy_map_for(source, cfg_);
    const int n = static_cast<int>(cfg_.tgt_vocab.size() + copy.extra.size());
    for (int id : target_ids)
      if (id < 0 || id >= n) throw InputError("token id " + std::to_string(id) + " is outside the output vocabulary of " + std::to_string(n));
    target = decoder_inputs(target_ids, static_cast<int>(cfg_.tgt_vocab.size()), cfg_.tgt_specials.unk);
  }
  const int H = cfg_.enc_hidden, S = static_cast<int>(st.values.rows()), T = static_cast<int>(target.size());
  StepInside out;
  out.rnn = true;
  out.arch = to_string(cfg_.arch);
  out.source_length = S;
  out.target = target_ids;
  out.copy = cfg_.copy;
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
    std::vector<float> gate;
    step(st, {target[static_cast<size_t>(t)]}, logits, nullptr, cfg_.copy ? &gate : nullptr);
    read_source(st, &raw, weights, &context);  // what that step read, again, with its raw scores
    if (cfg_.copy) {  // the pointer-generator's mix (copy.h): its attention is the model's, its context a_t
      RowMatrix lp = logits, mixed;
      log_softmax_rows(lp);
      mix_copy(lp, gate.data(), weights, copy.ids, static_cast<int>(copy.extra.size()), mixed);
      out.output_vocab_size = static_cast<int>(mixed.cols());
      out.copy_attention.insert(out.copy_attention.end(), weights.data(), weights.data() + weights.size());
      out.copy_context.insert(out.copy_context.end(), context.data(), context.data() + context.size());
      out.p_gen.push_back(std::exp(log_sigmoid(gate[0])));
      out.log_probs.insert(out.log_probs.end(), mixed.data(), mixed.data() + mixed.size());
    }
    out.decoder_states.insert(out.decoder_states.end(), st.dec.data(), st.dec.data() + st.dec.size());
    out.scores.insert(out.scores.end(), raw.data(), raw.data() + raw.size());
    out.weights.insert(out.weights.end(), weights.data(), weights.data() + weights.size());
    out.context.insert(out.context.end(), context.data(), context.data() + context.size());
    out.logits.insert(out.logits.end(), logits.data(), logits.data() + logits.size());
  }
  if (cfg_.copy) out.copy_ids = copy.ids;
  return out;
}

}  // namespace seq2seq
