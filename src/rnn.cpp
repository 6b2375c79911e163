#include "rnn.h"

#include <cmath>
#include <limits>
#include <string>

#include "copy.h"
#include "errors.h"
#include "weight_loader.h"

namespace seq2seq {

namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

void check_source(const std::vector<int>& ids, const ModelConfig& c) {
  if (ids.empty()) throw InputError("the source is empty");
  if (static_cast<int>(ids.size()) > c.max_pos)
    throw InputError("the source has " + std::to_string(ids.size()) + " tokens; this model reads at most " +
                     std::to_string(c.max_pos));
  for (int id : ids)
    if (id < 0 || id >= static_cast<int>(c.src_vocab.size()))
      throw InputError("token id " + std::to_string(id) + " in the source is outside the vocabulary");
}

}  // namespace

Rnn::Rnn(const ModelConfig& config, const SafetensorsFile& file, Compute compute) : cfg_(config) {
  WeightLoader w(file, compute);
  const int E = cfg_.emb_dim, H = cfg_.enc_hidden, D = cfg_.dec_hidden, A = cfg_.attn_dim;
  const int Vs = static_cast<int>(cfg_.src_vocab.size()), Vt = static_cast<int>(cfg_.tgt_vocab.size());
  src_embed_ = w.matrix("src_embed.weight", Vs, E);
  tgt_embed_ = w.matrix("tgt_embed.weight", Vt, E);
  auto gru = [&](const std::string& ih_w, const std::string& hh_w, const std::string& ih_b, const std::string& hh_b, int in,
                 int hidden) {
    return Gru{w.linear_from(ih_w, ih_b, 3 * hidden, in), w.linear_from(hh_w, hh_b, 3 * hidden, hidden)};
  };
  for (int k = 0; k < cfg_.enc_layers; ++k) {
    const int in = k == 0 ? E : 2 * H;
    const std::string l = "_l" + std::to_string(k);
    BiLayer layer;
    for (const char* dir : {"", "_reverse"}) {
      Gru g = gru("encoder.rnn.weight_ih" + l + dir, "encoder.rnn.weight_hh" + l + dir, "encoder.rnn.bias_ih" + l + dir,
                  "encoder.rnn.bias_hh" + l + dir, in, H);
      (*dir ? layer.bwd : layer.fwd) = std::move(g);
    }
    enc_.push_back(std::move(layer));
  }
  bridge_ = w.linear("bridge", D, 2 * H);
  dec_ = gru("decoder.cell.weight_ih", "decoder.cell.weight_hh", "decoder.cell.bias_ih", "decoder.cell.bias_hh", E, D);
  switch (cfg_.attention) {
    case AttentionScore::Dot:
    case AttentionScore::None: break;
    case AttentionScore::Multiplicative: attn_w_ = w.linear_from("attn.W.weight", "", D, 2 * H); break;
    case AttentionScore::ReducedRank:
      attn_u_ = w.linear_from("attn.U.weight", "", A, D);
      attn_v_ = w.linear_from("attn.V.weight", "", A, 2 * H);
      break;
    case AttentionScore::Additive:
      attn_w1_ = w.linear_from("attn.W1.weight", "", A, 2 * H);
      attn_w2_ = w.linear_from("attn.W2.weight", "", A, D);
      attn_vec_ = w.matrix("attn.v.weight", 1, A);
      break;
  }
  out_ = w.linear("out", Vt, 2 * H + D);
  if (cfg_.copy) copy_gate_ = w.linear("copy_gate", 1, 2 * H + D + E);
  w.check_all_used();
  n_params_ = WeightLoader::parameter_count(file);
}

void Rnn::gru_update(const Gru& g, const Eigen::Ref<const RowMatrix>& x_proj, RowMatrix& h) {
  const Eigen::Index Hd = h.cols();
  RowMatrix gh;
  linear(h, g.hh, gh);
  for (Eigen::Index r = 0; r < h.rows(); ++r)
    for (Eigen::Index i = 0; i < Hd; ++i) {
      const float reset = sigmoid(x_proj(r, i) + gh(r, i));
      const float update = sigmoid(x_proj(r, Hd + i) + gh(r, Hd + i));
      const float cand = std::tanh(x_proj(r, 2 * Hd + i) + reset * gh(r, 2 * Hd + i));
      h(r, i) = (1.0f - update) * cand + update * h(r, i);
    }
}

RnnState Rnn::encode(const std::vector<int>& source) const {
  check_source(source, cfg_);
  const int S = static_cast<int>(source.size()), H = cfg_.enc_hidden;
  RowMatrix x(S, cfg_.emb_dim);
  for (int j = 0; j < S; ++j) x.row(j) = src_embed_.row(source[static_cast<size_t>(j)]);
  RowMatrix last_fwd, first_bwd;
  for (const BiLayer& layer : enc_) {
    RowMatrix out(S, 2 * H);
    for (int dir = 0; dir < 2; ++dir) {
      const Gru& g = dir == 0 ? layer.fwd : layer.bwd;
      RowMatrix proj, h = RowMatrix::Zero(1, H);
      linear(x, g.ih, proj);  // every position's input projection in one product
      for (int t = 0; t < S; ++t) {
        const int j = dir == 0 ? t : S - 1 - t;
        gru_update(g, proj.row(j), h);
        out.block(j, dir * H, 1, H) = h;
      }
      (dir == 0 ? last_fwd : first_bwd) = h;
    }
    x.swap(out);
  }
  RnnState st;
  st.values = x;
  RowMatrix ends(1, 2 * H);
  ends << last_fwd, first_bwd;
  linear(ends, bridge_, st.dec);
  st.dec = st.dec.array().tanh().matrix();
  // Keys: what the decoder state is compared with, computed once per source.
  switch (cfg_.attention) {
    case AttentionScore::Dot: st.keys = st.values; break;                                         // e = s·h
    case AttentionScore::Multiplicative: linear(st.values, attn_w_, st.keys); break;  // e = s·(W h)
    case AttentionScore::ReducedRank: linear(st.values, attn_v_, st.keys); break;     // e = (U s)·(V h)
    case AttentionScore::Additive: linear(st.values, attn_w1_, st.keys); break;       // W1 h
    case AttentionScore::None: st.keys = ends; break;                                 // c itself
  }
  return st;
}

void Rnn::read_source(const RnnState& st, RowMatrix* raw, RowMatrix& weights, RowMatrix* context) const {
  const Eigen::Index n = st.dec.rows();
  if (cfg_.attention == AttentionScore::None) {  // the same c at every step
    weights.resize(n, 0);
    if (context) *context = st.keys.replicate(n, 1);
    if (raw) raw->resize(n, 0);
    return;
  }
  const Eigen::Index S = st.values.rows();
  RowMatrix& scores = weights;
  scores.resize(n, S);
  switch (cfg_.attention) {
    case AttentionScore::Dot:
    case AttentionScore::Multiplicative: scores.noalias() = st.dec * st.keys.transpose(); break;
    case AttentionScore::ReducedRank: {
      RowMatrix us;
      linear(st.dec, attn_u_, us);
      scores.noalias() = us * st.keys.transpose();
      break;
    }
    case AttentionScore::Additive: {
      RowMatrix q;  // [n x A]
      linear(st.dec, attn_w2_, q);
      for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < S; ++j)
          scores(i, j) = (attn_vec_.array() * (st.keys.row(j) + q.row(i)).array().tanh()).sum();
      break;
    }
    case AttentionScore::None: break;  // returned above
  }
  if (raw) *raw = scores;
  for (Eigen::Index i = 0; i < n; ++i) {  // softmax over the source positions
    const float m = scores.row(i).maxCoeff();
    scores.row(i) = (scores.row(i).array() - m).exp().matrix();
    scores.row(i) /= scores.row(i).sum();
  }
  if (context) context->noalias() = weights * st.values;
}

void Rnn::step(RnnState& st, const std::vector<int>& tokens, RowMatrix& logits, RowMatrix* attention,
               std::vector<float>* copy_gate) const {
  if (copy_gate && !cfg_.copy) throw UsageError("rnn step: a copy gate asked of a model without the copy mechanism");
  const int n = static_cast<int>(st.dec.rows());
  if (static_cast<int>(tokens.size()) != n)
    throw UsageError("rnn step: " + std::to_string(tokens.size()) + " tokens for " + std::to_string(n) + " hypotheses");
  const int Vt = static_cast<int>(cfg_.tgt_vocab.size());
  RowMatrix x(n, cfg_.emb_dim);
  for (int i = 0; i < n; ++i) {
    const int id = tokens[static_cast<size_t>(i)];
    if (id < 0 || id >= Vt) throw InputError("token id " + std::to_string(id) + " is outside the target vocabulary");
    x.row(i) = tgt_embed_.row(id);
  }
  RowMatrix proj;
  linear(x, dec_.ih, proj);
  gru_update(dec_, proj, st.dec);

  RowMatrix weights, context;
  read_source(st, nullptr, weights, cfg_.attention == AttentionScore::None ? &context : nullptr);
  RowMatrix features(n, st.values.cols() + st.dec.cols());
  // [a; s], with a = weights · h written into the features as one expression (the
  // product the engine has always computed here: another form rounds differently in
  // some builds, and beam search breaks near-ties by those last bits).
  if (cfg_.attention == AttentionScore::None) features << context, st.dec;
  else features << weights * st.values, st.dec;
  linear(features, out_, logits);
  if (copy_gate) {  // p_gen's logit from [a_t ; s_t ; the input's embedding]
    RowMatrix gate_in(n, features.cols() + x.cols()), gate;
    gate_in << features, x;
    linear(gate_in, copy_gate_, gate);
    copy_gate->assign(gate.data(), gate.data() + gate.size());
  }
  if (attention) *attention = std::move(weights);
  ++st.steps;
}

void Rnn::reorder(RnnState& st, const std::vector<int>& parents) const {
  if (parents.empty()) throw UsageError("reorder: no hypotheses left");
  RowMatrix next(static_cast<Eigen::Index>(parents.size()), st.dec.cols());
  for (size_t i = 0; i < parents.size(); ++i) {
    if (parents[i] < 0 || parents[i] >= st.dec.rows())
      throw UsageError("reorder: parent index " + std::to_string(parents[i]) + " out of range");
    next.row(static_cast<Eigen::Index>(i)) = st.dec.row(parents[i]);
  }
  st.dec.swap(next);
}

namespace {

class RnnStepScorer final : public StepScorer {
 public:
  RnnStepScorer(const Rnn& m, const SourceInput& source, int capacity)
      : m_(m), st_(m.encode(source.ids)), capacity_(capacity) {
    if (capacity < 1 || capacity > m.config().max_pos)
      throw UsageError("capacity must be in [1, " + std::to_string(m.config().max_pos) + "]");
    if (m.config().copy) {
      CopyMap map = copy_map_for(source, m.config());
      copy_.ids = std::move(map.ids);
      extra_ = static_cast<int>(map.extra.size());
    }
  }
  int vocab_size() const override { return static_cast<int>(m_.config().tgt_vocab.size()) + extra_; }
  int source_length() const override { return static_cast<int>(st_.values.rows()); }
  int capacity() const override { return capacity_; }
  int num_hypotheses() const override { return static_cast<int>(st_.dec.rows()); }
  void score(const std::vector<int>& tokens, RowMatrix& logprobs, CrossAndSelfAttention* attention) override {
    if (st_.steps >= capacity_) throw UsageError("the decoder has no positions left (" + std::to_string(capacity_) + ")");
    RowMatrix attn;
    const bool copy = m_.config().copy;
    if (copy) {
      for (int id : tokens)
        if (id < 0 || id >= vocab_size())
          throw InputError("token id " + std::to_string(id) + " is outside the output vocabulary of " +
                           std::to_string(vocab_size()));
      std::vector<float> gate;
      m_.step(st_, decoder_inputs(tokens, static_cast<int>(m_.config().tgt_vocab.size()), m_.config().tgt_specials.unk),
              vocab_lp_, &attn, &gate);
      log_softmax_rows(vocab_lp_);
      mix_copy(vocab_lp_, gate.data(), attn, copy_.ids, extra_, logprobs);
      copy_.p_gen.resize(gate.size());
      for (size_t i = 0; i < gate.size(); ++i) copy_.p_gen[i] = std::exp(log_sigmoid(gate[i]));
      copy_.attention = attn;
    } else {
      m_.step(st_, tokens, logprobs, attention ? &attn : nullptr);
      log_softmax_rows(logprobs);
    }
    if (attention && m_.config().attention == AttentionScore::None) {  // nothing attended: no maps
      attention->layers = 0;
      attention->heads = 0;
      attention->maps.clear();
    } else if (attention) {  // one "layer" with one "head": the RNN's single attention
      attention->layers = 1;
      attention->heads = 1;
      attention->maps.assign(1, std::move(attn));
    }
  }
  void reorder(const std::vector<int>& parents) override { m_.reorder(st_, parents); }
  const CopyStep* copy_step() const override { return m_.config().copy ? &copy_ : nullptr; }

 private:
  const Rnn& m_;
  RnnState st_;
  int capacity_;
  CopyStep copy_;       // copy models: the last step's mix
  int extra_ = 0;       // copy models: the source's copy-only tokens
  RowMatrix vocab_lp_;  // copy models: the vocabulary's distribution before the mix
};

}  // namespace

std::unique_ptr<StepScorer> Rnn::step_scorer(const SourceInput& source, int capacity) const {
  return std::make_unique<RnnStepScorer>(*this, source, capacity);
}

std::unique_ptr<ParallelScorer> Rnn::parallel_scorer(const std::vector<int>&) const {
  throw UsageError("non-autoregressive decoding needs a cmlm model; this one is an RNN");
}

}  // namespace seq2seq
