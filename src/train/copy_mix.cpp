#include "train/copy_mix.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "copy.h"  // log_sigmoid: the inference's, so training and decoding mix alike

namespace seq2seq {
namespace train {

namespace {

constexpr float kNone = -std::numeric_limits<float>::infinity();

// The copy probability of each output id of one row, into copy [W].
void copy_probs(const float* a, const CopyShape& s, float* copy) {
  std::fill(copy, copy + s.W, 0.0f);
  for (int i = 0; i < s.S; ++i) copy[s.ids[i]] += a[i];
}

}  // namespace

void copy_context_forward(const float* attention, const float* memory, int rows, int S, int C, float* context) {
  for (int t = 0; t < rows; ++t) {
    float* c = context + static_cast<size_t>(t) * C;
    std::fill(c, c + C, 0.0f);
    for (int i = 0; i < S; ++i) {
      const float a = attention[static_cast<size_t>(t) * S + i];
      const float* m = memory + static_cast<size_t>(i) * C;
      for (int k = 0; k < C; ++k) c[k] += a * m[k];
    }
  }
}

void copy_context_backward(const float* dcontext, const float* attention, const float* memory, int rows, int S, int C,
                           float* dattention, float* dmemory) {
  for (int t = 0; t < rows; ++t) {
    const float* dc = dcontext + static_cast<size_t>(t) * C;
    for (int i = 0; i < S; ++i) {
      const float* m = memory + static_cast<size_t>(i) * C;
      float* dm = dmemory + static_cast<size_t>(i) * C;
      const float a = attention[static_cast<size_t>(t) * S + i];
      double dot = 0;
      for (int k = 0; k < C; ++k) {
        dot += static_cast<double>(dc[k]) * m[k];
        dm[k] += a * dc[k];
      }
      dattention[static_cast<size_t>(t) * S + i] += static_cast<float>(dot);
    }
  }
}

void copy_gate_forward(const float* context, const float* state, const float* input, int rows, GateWidths g,
                       const float* w, float b, float* gate) {
  for (int t = 0; t < rows; ++t) {
    double z = b;
    const float* parts[3] = {context + static_cast<size_t>(t) * g.C, state + static_cast<size_t>(t) * g.D,
                             input + static_cast<size_t>(t) * g.X};
    const int widths[3] = {g.C, g.D, g.X};
    const float* wk = w;
    for (int p = 0; p < 3; ++p) {
      for (int k = 0; k < widths[p]; ++k) z += static_cast<double>(wk[k]) * parts[p][k];
      wk += widths[p];
    }
    gate[t] = static_cast<float>(z);
  }
}

void copy_gate_backward(const float* dgate, const float* context, const float* state, const float* input, int rows,
                        GateWidths g, const float* w, float* dw, float* db, float* dcontext, float* dstate,
                        float* dinput) {
  const int widths[3] = {g.C, g.D, g.X};
  double bias = 0;
  for (int t = 0; t < rows; ++t) {
    const float d = dgate[t];
    bias += d;
    const float* parts[3] = {context + static_cast<size_t>(t) * g.C, state + static_cast<size_t>(t) * g.D,
                             input + static_cast<size_t>(t) * g.X};
    float* grads[3] = {dcontext ? dcontext + static_cast<size_t>(t) * g.C : nullptr,
                       dstate ? dstate + static_cast<size_t>(t) * g.D : nullptr,
                       dinput ? dinput + static_cast<size_t>(t) * g.X : nullptr};
    size_t at = 0;
    for (int p = 0; p < 3; ++p) {
      for (int k = 0; k < widths[p]; ++k) {
        dw[at + static_cast<size_t>(k)] += d * parts[p][k];
        if (grads[p]) grads[p][k] += d * w[at + static_cast<size_t>(k)];
      }
      at += static_cast<size_t>(widths[p]);
    }
  }
  *db += static_cast<float>(bias);
}

void copy_mix_forward(const float* logp_vocab, const float* gate, const float* attention, const CopyShape& s,
                      float* logp) {
  float* copy = s.scratch;
  for (int t = 0; t < s.rows; ++t) {
    copy_probs(attention + static_cast<size_t>(t) * s.S, s, copy);
    const float log_gen = log_sigmoid(gate[t]), log_copy = log_sigmoid(-gate[t]);
    const float* lv = logp_vocab + static_cast<size_t>(t) * s.V;
    float* out = logp + static_cast<size_t>(t) * s.W;
    for (int w = 0; w < s.W; ++w) {
      const float c = copy[w];
      const float copied = c > 0 ? log_copy + std::log(c) : kNone;
      if (w >= s.V) {
        out[w] = copied;
      } else if (!(c > 0)) {
        out[w] = lv[w] + log_gen;
      } else {  // as mix_copy: max + log1p(exp(-|difference|))
        const float generated = lv[w] + log_gen;
        out[w] = std::max(generated, copied) + std::log1p(std::exp(-std::abs(generated - copied)));
      }
    }
  }
}

void copy_mix_backward(const float* logp_vocab, const float* gate, const float* attention, const float* logp,
                       const float* dlogp, const CopyShape& s, float* dlogp_vocab, float* dgate, float* dattention) {
  float *copy = s.scratch, *dcopy = s.scratch + s.W;
  for (int t = 0; t < s.rows; ++t) {
    const float* a = attention + static_cast<size_t>(t) * s.S;
    copy_probs(a, s, copy);
    const float log_gen = log_sigmoid(gate[t]), log_copy = log_sigmoid(-gate[t]);
    const float p_gen = std::exp(log_gen), p_copy = std::exp(log_copy);
    const float* lv = logp_vocab + static_cast<size_t>(t) * s.V;
    const float* out = logp + static_cast<size_t>(t) * s.W;
    const float* d = dlogp + static_cast<size_t>(t) * s.W;
    float* dv = dlogp_vocab + static_cast<size_t>(t) * s.V;
    double dz = 0;
    for (int w = 0; w < s.W; ++w) {
      const float c = copy[w];
      // The shares of the token's probability that generating and copying hold.
      float gen_share = 0, copy_share = 0;
      if (w < s.V && c > 0) {
        gen_share = std::exp(lv[w] + log_gen - out[w]);
        copy_share = std::exp(log_copy + std::log(c) - out[w]);
      } else if (w < s.V) {
        gen_share = 1;
      } else if (c > 0) {
        copy_share = 1;
      }
      const float dgen = d[w] * gen_share, dcp = d[w] * copy_share;
      if (w < s.V) dv[w] = dgen;
      // d log sigmoid(g) / dg = 1 - p_gen; d log sigmoid(-g) / dg = -p_gen.
      dz += static_cast<double>(dgen) * p_copy - static_cast<double>(dcp) * p_gen;
      dcopy[w] = c > 0 ? dcp / c : 0.0f;
    }
    dgate[t] = static_cast<float>(dz);
    float* da = dattention + static_cast<size_t>(t) * s.S;
    for (int i = 0; i < s.S; ++i) da[i] = dcopy[s.ids[i]];
  }
}

}  // namespace train
}  // namespace seq2seq
