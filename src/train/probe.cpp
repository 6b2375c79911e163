#include "train/probe.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "copy.h"
#include "errors.h"
#include "train/run.h"
#include "vocabulary.h"

namespace seq2seq {
namespace train {

ReadExample read_example(const ModelConfig& cfg, const Vocabulary& src_vocab, const Vocabulary& tgt_vocab, const HeldOut& h) {
  const SpecialIds sp = cfg.tgt_specials;
  ReadExample x;
  // The source as the engine's tokenizer reads it (held-out accuracy decodes it so).
  x.source = tokenize_source(h.source, src_vocab, cfg.src_case, cfg.max_pos, cfg.src_tokens, cfg.src_specials.unk, &x.source_texts);
  // A copy model's output vocabulary is extended by the source's tokens the target
  // vocabulary lacks (src/copy.h): a held-out name is one of them, which only copying writes.
  if (cfg.copy) x.map = copy_map(x.source_texts, tgt_vocab, sp);
  const int V = tgt_vocab.size();
  // The reference's tokens; a held-out name is in no vocabulary: <unk>, which a model
  // without the copy mechanism cannot write.
  std::istringstream words(h.target);
  for (std::string w; words >> w;) {
    int id = tgt_vocab.id(w);
    if (id < 0 && cfg.copy)
      for (size_t k = 0; k < x.map.extra.size(); ++k)
        if (x.map.extra[k] == w) id = V + static_cast<int>(k);
    x.target.push_back(id >= 0 ? id : sp.unk);
    x.written.push_back(id >= 0);
  }
  x.target.push_back(sp.eos);
  x.written.push_back(true);
  return x;
}

void add_example(const ModelConfig& cfg, const ReadExample& x, Batch& b) {
  const SpecialIds sp = cfg.tgt_specials;
  // The decoder reads a copied token past the vocabulary as unk, as decoding does.
  const std::vector<int> reference(x.target.begin(), x.target.end() - 1);
  std::vector<int> dec_in{sp.bos};
  const std::vector<int> read = decoder_inputs(reference, static_cast<int>(cfg.tgt_vocab.size()), sp.unk);
  dec_in.insert(dec_in.end(), read.begin(), read.end());
  if (cfg.copy) b.add(x.source, dec_in, x.target, &x.map.ids, static_cast<int>(x.map.extra.size()));
  else b.add(x.source, dec_in, x.target);
}

Probe probe(TrainingRun& run, int index) {
  const std::vector<HeldOut>& held = run.task().held_out();
  if (index < 0 || index >= static_cast<int>(held.size()))
    throw UsageError("probe: example " + std::to_string(index) + " is outside the held-out set (0 to " +
                     std::to_string(held.size() - 1) + ")");
  const ModelConfig& cfg = run.model_config();
  const Vocabulary src_vocab(cfg.src_vocab), tgt_vocab(cfg.tgt_vocab);
  Probe p;
  p.index = index;
  p.step = run.trainer().steps_taken();
  p.source = held[static_cast<size_t>(index)].source;
  p.reference = held[static_cast<size_t>(index)].target;
  const ReadExample x = read_example(cfg, src_vocab, tgt_vocab, held[static_cast<size_t>(index)]);
  const std::vector<int>& src = x.source;
  const std::vector<int>& dec_out = x.target;
  const CopyMap& map = x.map;
  const int V = tgt_vocab.size();
  Batch b;
  add_example(cfg, x, b);
  Trainer& t = run.trainer();
  // Forward and loss as a step computes them, without dropout, scheduled sampling (no
  // generator is drawn from) or a backward pass.
  t.read(b);
  for (int id : src) p.source_tokens.push_back(src_vocab.token(id));
  // The log-probabilities' rows are as wide as the output vocabulary (a copy model's extended).
  const size_t W = static_cast<size_t>(V) + map.extra.size(), T = dec_out.size(), N = src.size();
  auto token_text = [&](int id) { return id < V ? tgt_vocab.token(id) : map.extra[static_cast<size_t>(id - V)]; };
  for (size_t r = 0; r < T; ++r) {
    const float* row = t.log_probs() + r * W;
    const int id = dec_out[r];
    p.target_tokens.push_back(token_text(id));
    p.token_nll.push_back(-row[id]);
    const int top = static_cast<int>(std::max_element(row, row + W) - row);
    p.top_tokens.push_back(token_text(top));
    p.top_probability.push_back(std::exp(row[top]));
  }
  if (cfg.copy) {
    for (size_t r = 0; r < T; ++r) p.copy_gate.push_back(std::exp(log_sigmoid(t.copy_gate_logits()[r])));
    p.copy_attention.assign(t.copy_attention(), t.copy_attention() + T * N);
  }
  if (cfg.arch == Arch::Rnn) {
    const RnnGraph& g = t.rnn_graph();
    if (const float* a = g.attention()) {
      p.attention_shape = {static_cast<int>(T), static_cast<int>(N)};
      for (size_t r = 0; r < T; ++r) p.cross_attention.insert(p.cross_attention.end(), a + r * g.attention_stride(), a + r * g.attention_stride() + N);
    }
  } else {
    const TransformerGraph& g = t.graph();
    const int layers = cfg.dec_layers, heads = cfg.n_heads;
    p.attention_shape = {layers, heads, static_cast<int>(T), static_cast<int>(N)};
    for (int l = 0; l < layers; ++l) {
      const float* a = g.cross_attention(l) + g.cross_spans()[0].p0;  // [heads][T][N], the batch's only example
      p.cross_attention.insert(p.cross_attention.end(), a, a + static_cast<size_t>(heads) * T * N);
    }
  }
  return p;
}

}  // namespace train
}  // namespace seq2seq
