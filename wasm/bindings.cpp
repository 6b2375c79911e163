// Embind bindings: ModelHandle and SessionHandle over the C++ Model and Session.
//
// No C++ exception crosses into JavaScript: every fallible call catches and
// returns {error, kind} instead, and the JS wrapper (wasm/src/index.js) turns
// that into a thrown Error. Throwing a JS error from inside wasm would skip C++
// destructors and leak; returning keeps both heaps clean.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "errors.h"
#include "model.h"
#include "session.h"

using emscripten::val;
using namespace seq2seq;

namespace {

val error_value(const char* kind, const std::string& message) {
  val e = val::object();
  e.set("error", message);
  e.set("kind", std::string(kind));
  return e;
}

template <typename F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const ModelError& e) {
    return error_value("ModelError", e.what());
  } catch (const InputError& e) {
    return error_value("InputError", e.what());
  } catch (const UsageError& e) {
    return error_value("UsageError", e.what());
  } catch (const std::bad_alloc&) {
    return error_value("OutOfMemory", "out of memory");
  } catch (const std::exception& e) {
    return error_value("Error", e.what());
  }
}

template <typename T>
val typed_array(const char* type, const std::vector<T>& v) {
  // A copy out of the wasm heap: the vector dies with this call.
  return val::global(type).new_(emscripten::typed_memory_view(v.size(), v.data()));
}

// Token ids are short lists: plain arrays, friendlier to JSON and comparisons.
val int_array(const std::vector<int>& v) {
  val a = val::array();
  for (size_t i = 0; i < v.size(); ++i) a.set(i, v[i]);
  return a;
}

val texts(const std::vector<int>& ids, const Vocabulary& vocab) {
  val a = val::array();
  for (size_t i = 0; i < ids.size(); ++i) a.set(i, vocab.token(ids[i]));
  return a;
}

val hypothesis(const HypothesisView& h, const Vocabulary& vocab) {
  val o = val::object();
  o.set("id", h.id);
  o.set("parent", h.parent);
  o.set("tokens", int_array(h.tokens));
  o.set("texts", texts(h.tokens, vocab));
  o.set("logprob", h.logprob);
  o.set("score", h.score);
  o.set("finished", h.finished);
  o.set("forced", h.forced);
  o.set("tokenProb", h.token_prob);
  val cands = val::array();
  for (size_t i = 0; i < h.candidates.size(); ++i) {
    val c = val::object();
    c.set("token", h.candidates[i].token);
    c.set("text", vocab.token(h.candidates[i].token));
    c.set("prob", h.candidates[i].prob);
    cands.set(i, c);
  }
  o.set("candidates", cands);
  if (!h.attention.empty()) {
    o.set("attention", typed_array("Float32Array", h.attention));
    o.set("attentionHeads", typed_array("Float32Array", h.attention_heads));
  }
  if (!h.self_attention.empty()) o.set("selfAttention", typed_array("Float32Array", h.self_attention));
  return o;
}

val result(const Result& r) {
  val o = val::object();
  o.set("text", r.text);
  o.set("tokens", int_array(r.tokens));
  o.set("logprob", r.logprob);
  o.set("score", r.score);
  o.set("length", r.length);
  return o;
}

val results(const std::vector<Result>& rs) {
  val a = val::array();
  for (size_t i = 0; i < rs.size(); ++i) a.set(i, result(rs[i]));
  return a;
}

// A target's forced score (ForcedScore in src/snapshot.h); lengthLogprob only for a CMLM, whose score uses it.
val forced_score(const ForcedScore& f, const Vocabulary& vocab, bool autoregressive) {
  val o = val::object();
  o.set("text", f.text);
  o.set("tokens", int_array(f.tokens));
  o.set("texts", texts(f.tokens, vocab));
  val lps = val::array();
  for (size_t i = 0; i < f.token_logprobs.size(); ++i) lps.set(i, f.token_logprobs[i]);
  o.set("tokenLogprobs", lps);
  o.set("logprob", f.logprob);
  o.set("score", f.score);
  o.set("length", f.length);
  if (!autoregressive) o.set("lengthLogprob", f.length_logprob);
  return o;
}

val snapshot(const Snapshot& s, const Vocabulary& vocab) {
  val o = val::object();
  o.set("step", s.step);
  o.set("autoregressive", s.autoregressive);
  o.set("done", s.done);
  o.set("sourceLength", s.source_length);
  if (!s.encoder_attention.empty()) {  // step 1 only: the same for the whole decode
    o.set("encoderLayers", s.encoder_layers);
    o.set("encoderHeads", s.encoder_heads);
    o.set("encoderAttention", typed_array("Float32Array", s.encoder_attention));
  }
  if (s.autoregressive || s.layers > 0) {
    o.set("layers", s.layers);
    o.set("heads", s.heads);
  }
  if (s.autoregressive) {
    for (const auto& [name, list] : {std::pair<const char*, const std::vector<HypothesisView>*>{"live", &s.live},
                                     {"finished", &s.finished}}) {
      val a = val::array();
      for (size_t i = 0; i < list->size(); ++i) a.set(i, hypothesis((*list)[i], vocab));
      o.set(name, a);
    }
    val pruned = val::array();
    for (size_t i = 0; i < s.pruned.size(); ++i) {
      val p = val::object();
      p.set("parent", s.pruned[i].parent);
      p.set("token", s.pruned[i].token);
      p.set("text", vocab.token(s.pruned[i].token));
      p.set("logprob", s.pruned[i].logprob);
      p.set("score", s.pruned[i].score);
      pruned.set(i, p);
    }
    o.set("pruned", pruned);
  } else {
    o.set("iteration", s.iteration);
    o.set("iterations", s.iterations);
    o.set("lengthLogprobs", typed_array("Float32Array", s.length_logprobs));
    o.set("lengths", int_array(s.lengths));
    o.set("bestDraft", s.best_draft);
    o.set("changed", s.changed);
    val drafts = val::array();
    for (size_t i = 0; i < s.drafts.size(); ++i) {
      const NarDraft& d = s.drafts[i];
      val v = val::object();
      v.set("length", d.length);
      v.set("tokens", int_array(d.tokens));
      v.set("texts", texts(d.tokens, vocab));
      v.set("probs", typed_array("Float32Array", d.probs));
      std::vector<uint8_t> masked(d.masked.begin(), d.masked.end());
      v.set("masked", typed_array("Uint8Array", masked));
      v.set("outputLength", d.output_length);
      v.set("avgLogprob", d.avg_logprob);
      v.set("lengthLogprob", d.length_logprob);
      v.set("score", d.score);
      if (!d.attention.empty()) v.set("attention", typed_array("Float32Array", d.attention));
      if (!d.self_attention.empty()) v.set("selfAttention", typed_array("Float32Array", d.self_attention));
      drafts.set(i, v);
    }
    o.set("drafts", drafts);
  }
  if (s.done) o.set("results", results(s.results));
  return o;
}

// BEGIN GENERATED (generated by scripts/gen-options.mjs from src/decoding_options.json: edit the table, then run the script)
// The JS wrapper has already type-checked the fields and filled in every one
// (wasm/src/options.js); ranges are checked by validate() in C++.
DecodingOptions options_from(const val& o) {
  DecodingOptions d;
  from_string(o["strategy"].as<std::string>(), d.strategy);
  d.beam_size = o["beamSize"].as<int>();
  from_string(o["lengthNorm"].as<std::string>(), d.length_norm);
  d.gnmt_alpha = o["gnmtAlpha"].as<float>();
  d.max_length = o["maxLength"].as<int>();
  d.max_length_ratio = o["maxLengthRatio"].as<float>();
  d.min_length = o["minLength"].as<int>();
  d.n_best = o["nBest"].as<int>();
  d.prefix = o["prefix"].as<std::string>();
  d.temperature = o["temperature"].as<float>();
  d.top_k = o["topK"].as<int>();
  d.top_p = o["topP"].as<float>();
  d.seed = static_cast<uint64_t>(o["seed"].as<double>());  // a safe integer
  from_string(o["narLength"].as<std::string>(), d.nar_length);
  d.length_candidates = o["lengthCandidates"].as<int>();
  d.length_score_weight = o["lengthScoreWeight"].as<float>();
  d.nar_given_length = o["length"].as<int>();
  d.iterations = o["iterations"].as<int>();
  d.early_stop = o["earlyStop"].as<bool>();
  d.top_candidates = o["topCandidates"].as<int>();
  d.attention = o["attention"].as<bool>();
  return d;
}
// END GENERATED

class ModelHandle {
 public:
  val load(const val& bytes, const std::string& compute) {
    return guarded([&] {
      const Compute c = parse_compute(compute);
      const size_t n = bytes["length"].as<size_t>();
      std::vector<uint8_t> buf(n);
      val(emscripten::typed_memory_view(n, buf.data())).call<void>("set", bytes);
      model_ = Model::from_buffer(buf.data(), buf.size(), c);
      return val::undefined();
    });
  }

  val info() const {
    return guarded([&] {
      const ModelConfig& c = require().config();
      val o = val::object();
      o.set("name", c.name);
      o.set("description", c.description);
      o.set("arch", std::string(to_string(c.arch)));
      o.set("autoregressive", c.autoregressive());
      o.set("dModel", c.d_model);
      o.set("heads", c.n_heads);
      o.set("ffn", c.d_ff);
      o.set("encoderLayers", c.enc_layers);
      o.set("decoderLayers", c.dec_layers);
      o.set("norm", std::string(to_string(c.norm)));
      o.set("positions", std::string(to_string(c.pos)));
      o.set("maxPositions", c.max_pos);
      o.set("maxTargetLength", c.max_target_len);
      if (c.arch == Arch::Rnn) {  // the RNN's own sizes; the Transformer fields above are 0
        o.set("cell", std::string("gru"));
        o.set("attentionScore", std::string(to_string(c.attention)));
        o.set("embDim", c.emb_dim);
        o.set("encHidden", c.enc_hidden);
        o.set("decHidden", c.dec_hidden);
        o.set("attnDim", c.attn_dim);
      }
      o.set("parameters", static_cast<double>(model_->parameter_count()));
      o.set("fileBytes", static_cast<double>(model_->file_bytes()));
      o.set("storage", model_->storage());
      o.set("compute", model_->compute());
      val sv = val::array(), tv = val::array();
      for (size_t i = 0; i < c.src_vocab.size(); ++i) sv.set(i, c.src_vocab[i]);
      for (size_t i = 0; i < c.tgt_vocab.size(); ++i) tv.set(i, c.tgt_vocab[i]);
      o.set("sourceVocab", sv);
      o.set("targetVocab", tv);
      val sp = val::object();
      sp.set("pad", c.tgt_specials.pad);
      sp.set("unk", c.tgt_specials.unk);
      sp.set("bos", c.tgt_specials.bos);
      sp.set("eos", c.tgt_specials.eos);
      sp.set("mask", c.tgt_specials.mask);
      o.set("targetSpecials", sp);
      return o;
    });
  }

  val tokenize(const std::string& text) const {
    return guarded([&] { return int_array(require().tokenize(text)); });
  }

  const std::shared_ptr<const Model>& model() const { return model_; }

 private:
  const Model& require() const {
    if (!model_) throw UsageError("no model loaded");
    return *model_;
  }
  std::shared_ptr<const Model> model_;
};

class SessionHandle {
 public:
  explicit SessionHandle(const ModelHandle& m) : model_(m.model()) {}

  val configure(const val& options) {
    return guarded([&] {
      if (!model_) throw UsageError("the model has no weights loaded");
      const DecodingOptions o = options_from(options);
      if (session_) session_->set_options(o); else session_ = std::make_unique<Session>(model_, o);
      return val::undefined();
    });
  }
  val start(const std::string& source) {
    return guarded([&] {
      require().start(source);
      return val::undefined();
    });
  }
  val step() {
    return guarded([&] { return snapshot(require().step(), model_->target_vocab()); });
  }
  val run() {
    return guarded([&] { return results(require().run()); });
  }
  // The forced score of `target` for `source`; the decode in progress is left as it was.
  val score(const std::string& source, const std::string& target) {
    return guarded([&] {
      return forced_score(require().score(source, target), model_->target_vocab(), model_->config().autoregressive());
    });
  }
  // Checks every text of the array as start() would, decoding none; the first
  // that fails comes back as {error, kind, index}.
  val checkBatch(const val& texts) {
    return over(texts, [](Session& s, const std::string& text) {
      s.check(text);
      return val::undefined();
    });
  }
  // Decodes every text of the array with this one session: one call across the
  // boundary for the whole list, one n-best list per text. Stops at the first
  // text that fails: {error, kind, index}.
  val decodeBatch(const val& texts) {
    return over(texts, [](Session& s, const std::string& text) {
      s.start(text);
      return results(s.run());
    });
  }
  bool done() const { return session_ && session_->done(); }
  bool started() const { return session_ && session_->started(); }
  int maxLength() const { return session_ ? session_->max_length() : 0; }

 private:
  Session& require() {
    if (!session_) throw UsageError("the session has no options: call configure() first");
    return *session_;
  }
  // f(session, text) for each text of a JS array: the array of what f returns,
  // or the first failure as {error, kind, index}.
  template <typename F>
  val over(const val& texts, F&& f) {
    const size_t n = texts["length"].as<size_t>();
    size_t at = n;  // the text being handled when something fails; n: none
    val out = guarded([&] {
      Session& s = require();
      val values = val::array();
      for (at = 0; at < n; ++at) values.set(at, f(s, texts[at].as<std::string>()));
      return values;
    });
    if (at < n) out.set("index", at);
    return out;
  }
  std::shared_ptr<const Model> model_;  // keeps the weights alive even if the ModelHandle is deleted first
  std::unique_ptr<Session> session_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(seq2seq_wasm) {
  emscripten::class_<ModelHandle>("ModelHandle")
      .constructor<>()
      .function("load", &ModelHandle::load)
      .function("info", &ModelHandle::info)
      .function("tokenize", &ModelHandle::tokenize);
  emscripten::class_<SessionHandle>("SessionHandle")
      .constructor<const ModelHandle&>()
      .function("configure", &SessionHandle::configure)
      .function("start", &SessionHandle::start)
      .function("step", &SessionHandle::step)
      .function("run", &SessionHandle::run)
      .function("score", &SessionHandle::score)
      .function("checkBatch", &SessionHandle::checkBatch)
      .function("decodeBatch", &SessionHandle::decodeBatch)
      .function("done", &SessionHandle::done)
      .function("started", &SessionHandle::started)
      .function("maxLength", &SessionHandle::maxLength);
}
