#include "train/run.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "errors.h"
#include "model.h"
#include "safetensors.h"
#include "copy.h"
#include "session.h"
#include "train/guided_attention.h"
#include "train/loss.h"
#include "train/model_file.h"
#include "train/probe.h"

namespace seq2seq {
namespace train {

namespace {

constexpr uint64_t kDataStream = 0x64617461ull;  // "data": the training examples' own stream
constexpr const char* kCheckpointFormat = "seq2seq-wasm-checkpoint";

// The options that may change when a run resumes: how long it runs and how it reports.
bool may_differ_on_resume(const std::string& name) {
  return name == "steps" || name == "log_every" || name == "eval_every" || name == "memory_limit_mb";
}

template <typename T>
nlohmann::json option_value(const T& v) {
  if constexpr (std::is_enum<T>::value) return to_string(v);
  else if constexpr (std::is_same<T, uint64_t>::value) return std::to_string(v);  // JSON numbers stop at 2^53
  else return v;
}

template <typename T>
std::string option_text(const T& v) {
  if constexpr (std::is_floating_point<T>::value) {
    std::ostringstream o;  // 0.1, not 0.10000000149011612
    o << v;
    return o.str();
  }
  const nlohmann::json j = option_value(v);
  return j.is_string() ? j.get<std::string>() : j.dump();
}

nlohmann::json options_json(const TrainingOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  for_each_training_option([&](const char* name, auto field) { j[name] = option_value(o.*field); });
  return j;
}

TrainingOptions options_from_json(const nlohmann::json& j) {
  TrainingOptions o;
  for_each_training_option([&](const char* name, auto field) {
    using T = std::decay_t<decltype(o.*field)>;
    if (!j.contains(name)) throw CheckpointError(std::string("it does not record the option ") + name);
    const auto& v = j[name];
    try {
      if constexpr (std::is_enum<T>::value) {
        if (!from_string(v.get<std::string>(), o.*field)) throw CheckpointError(std::string("option ") + name + " has an unknown value");
      } else if constexpr (std::is_same<T, uint64_t>::value) {
        o.*field = std::stoull(v.get<std::string>());
      } else {
        o.*field = v.get<T>();
      }
    } catch (const nlohmann::json::exception&) {
      throw CheckpointError(std::string("option ") + name + " is not recorded as its type");
    } catch (const std::logic_error&) {
      throw CheckpointError(std::string("option ") + name + " is not recorded as its type");
    }
  });
  return o;
}

std::string describe(const TrainingOptions& o) {
  std::ostringstream d;
  d << "trained by seq2seq train: task " << to_string(o.task) << ", seed " << o.seed << ", " << o.steps << " steps of "
    << o.batch_size << ", ";
  if (o.arch == TrainArch::Rnn) {
    d << "GRU encoder-decoder, emb_dim " << o.emb_dim << ", enc_hidden " << o.enc_hidden << " a direction, dec_hidden "
      << o.dec_hidden << ", attention " << to_string(o.attention);
    if (o.attention == TrainAttention::ReducedRank || o.attention == TrainAttention::Additive) d << " (attn_dim " << o.attn_dim << ")";
  } else {
    d << o.layers << "+" << o.layers << " layers, d_model " << o.d_model << ", " << o.heads << " heads, d_ff " << o.d_ff << ", "
      << to_string(o.norm) << "-LN";
  }
  if (o.copy) d << ", copy mechanism";
  if (o.label_smoothing > 0) d << ", label smoothing " << o.label_smoothing;
  if (o.scheduled_sampling != SamplingSchedule::Off)
    d << ", scheduled sampling " << to_string(o.scheduled_sampling) << " (midpoint " << o.sampling_midpoint << ", "
      << to_string(o.sampling_token) << ")";
  if (o.guided_attention_weight > 0) {
    d << ", guided attention " << o.guided_attention_weight << " (width " << o.guided_attention_width;
    if (o.arch == TrainArch::Transformer)
      d << ", layer " << (o.guided_attention_layer < 0 ? std::string("all") : std::to_string(o.guided_attention_layer)) << ", head "
        << (o.guided_attention_head < 0 ? std::string("all") : std::to_string(o.guided_attention_head));
    d << ")";
  }
  return d.str();
}

}  // namespace

ModelConfig model_config_for(const TrainingOptions& o, const TaskData& task) {
  ModelConfig c;
  c.src_vocab = task.source_vocab();
  c.tgt_vocab = task.target_vocab();
  c.src_specials = source_special_ids();
  c.tgt_specials = target_special_ids();
  c.src_case = task.source_case();
  c.src_tokens = task.word_level_source() ? SourceTokens::Words : SourceTokens::Chars;
  c.description = describe(o);
  if (o.arch == TrainArch::Rnn) {
    // The course notes' RNN encoder-decoder: one bidirectional GRU layer.
    c.arch = Arch::Rnn;
    c.cell = RnnCell::Gru;
    c.emb_dim = o.emb_dim;
    c.enc_hidden = o.enc_hidden;
    c.enc_layers = 1;
    c.dec_hidden = o.dec_hidden;
    switch (o.attention) {
      case TrainAttention::Dot: c.attention = AttentionScore::Dot; break;
      case TrainAttention::Multiplicative: c.attention = AttentionScore::Multiplicative; break;
      case TrainAttention::ReducedRank: c.attention = AttentionScore::ReducedRank; break;
      case TrainAttention::Additive: c.attention = AttentionScore::Additive; break;
      case TrainAttention::None: c.attention = AttentionScore::None; break;
    }
    c.attn_dim = c.attention == AttentionScore::ReducedRank || c.attention == AttentionScore::Additive ? o.attn_dim : 0;
    // The decoder reads BOS and the target, and predicts EOS after it.
    c.max_pos = std::max(task.max_source_len(), task.max_target_len() + 2);
    c.copy = o.copy;
    c.name = std::string(to_string(o.task)) + "-rnn-" + to_string(o.attention) + (o.copy ? "-copy" : "");
    return c;
  }
  c.arch = Arch::Transformer;
  c.d_model = o.d_model;
  c.n_heads = o.heads;
  c.d_ff = o.d_ff;
  c.activation = o.activation == TrainActivation::Relu ? Activation::Relu : Activation::Gelu;
  c.enc_layers = c.dec_layers = o.layers;
  c.norm = o.norm == TrainNorm::Pre ? NormPlacement::Pre : NormPlacement::Post;
  c.ln_eps = 1e-5f;
  c.pos = o.pos == TrainPos::Sinusoidal ? PosEncoding::Sinusoidal : PosEncoding::Learned;
  // The decoder reads BOS and the target (max_target_len + 1 with EOS predicted).
  c.max_target_len = task.max_target_len() + 1;
  c.max_pos = std::max(task.max_source_len(), c.max_target_len + 1);
  c.scale_embedding = o.scale_embedding;
  c.tie_output = o.tie_output;
  c.copy = o.copy;
  c.name = std::string(to_string(o.task)) + (o.copy ? "-transformer-copy" : "-transformer");
  return c;
}

TrainingRun::TrainingRun(const TrainingOptions& o, const std::string* data) : TrainingRun(o, data, true) {}

TrainingRun::TrainingRun(const TrainingOptions& o, const std::string* data, bool init)
    : options_(o), data_rng_(o.seed ^ kDataStream) {
  validate(o);
  task_ = TaskData::create(o, data);
  const ModelConfig cfg = model_config_for(o, *task_);
  const GraphLimits limits{o.batch_size, task_->max_source_len(), task_->max_target_len() + 1};
  const size_t need = Trainer::estimate_memory_bytes(cfg, o, limits);
  const size_t limit = static_cast<size_t>(o.memory_limit_mb) << 20;
  if (need > limit)
    throw OptionError("memory_limit_mb", to_string(option_range::memory_limit_mb),
                      "this run needs " + std::to_string((need + (1 << 20) - 1) >> 20) + " MB (weights, gradients, AdamW's moments, "
                      "activations of a batch of " + std::to_string(o.batch_size) + "), more than memory_limit_mb = " +
                      std::to_string(o.memory_limit_mb) + ": a smaller model or batch, or a higher limit");
  trainer_ = std::make_unique<Trainer>(cfg, o, limits);
  if (init) trainer_->init_parameters();
  const size_t B = static_cast<size_t>(o.batch_size);
  batch_.src.reserve(B * static_cast<size_t>(limits.src_len));
  batch_.dec_in.reserve(B * static_cast<size_t>(limits.dec_len));
  batch_.target.reserve(B * static_cast<size_t>(limits.dec_len));
  for (std::vector<int>* v : {&batch_.src_off, &batch_.src_len, &batch_.dec_off, &batch_.dec_len}) v->reserve(B);
  if (cfg.copy) {
    batch_.copy_ids.reserve(B * static_cast<size_t>(limits.src_len));
    batch_.copy_extra.reserve(B);
  }
  example_.source.reserve(static_cast<size_t>(limits.src_len));
  example_.target.reserve(static_cast<size_t>(limits.dec_len));
  dec_in_.reserve(static_cast<size_t>(limits.dec_len));
  dec_out_.reserve(static_cast<size_t>(limits.dec_len));
  started_ = std::chrono::steady_clock::now();
}

void TrainingRun::fill_batch() {
  const SpecialIds sp = target_special_ids();
  batch_.clear();
  for (int i = 0; i < options_.batch_size; ++i) {
    task_->draw(data_rng_, example_);
    dec_in_.assign(1, sp.bos);
    dec_in_.insert(dec_in_.end(), example_.target.begin(), example_.target.end());
    dec_out_.assign(example_.target.begin(), example_.target.end());
    dec_out_.push_back(sp.eos);
    if (!trainer_->config().copy) {
      batch_.add(example_.source, dec_in_, dec_out_);
      continue;
    }
    // Where copying each source token puts it: the same map decoding uses (src/copy.h),
    // from the source tokens' texts. A task's targets are target-vocabulary ids, so a
    // training target is never a copy-only token; a source token the target vocabulary
    // lacks still gets its extended id, which only copying can give probability.
    const CopyMap map = copy_map_for(SourceInput(example_.source), trainer_->config());
    batch_.add(example_.source, dec_in_, dec_out_, &map.ids, static_cast<int>(map.extra.size()));
  }
}

ProgressRecord TrainingRun::step(int n) {
  ProgressRecord r;
  r.steps = options_.steps;
  double loss = 0, attention = 0;
  long tokens = 0, correct = 0, own = 0;
  int taken = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (taken < n && !done()) {
    fill_batch();
    const StepStats s = trainer_->step(batch_);
    loss += s.loss * s.tokens;
    attention += s.attention_loss;
    tokens += s.tokens;
    correct += s.correct;
    own += s.own_tokens;
    r.true_token_probability = s.true_token_probability;
    r.learning_rate = s.learning_rate;
    r.grad_norm = s.grad_norm;
    ++taken;
    const int at = trainer_->steps_taken();
    if ((options_.eval_every > 0 && at % options_.eval_every == 0) || at == options_.steps) break;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.step = trainer_->steps_taken();
  r.loss = tokens ? loss / static_cast<double>(tokens) : 0.0;
  r.token_accuracy = tokens ? static_cast<double>(correct) / static_cast<double>(tokens) : 0.0;
  r.sampling = options_.scheduled_sampling != SamplingSchedule::Off;
  r.guided = trainer_->guided();
  r.attention_loss = taken ? attention / taken : 0.0;
  r.own_token_share = tokens ? static_cast<double>(own) / static_cast<double>(tokens) : 0.0;  // a decoder input a target token
  r.steps_per_second = secs > 0 ? taken / secs : 0.0;
  if ((options_.eval_every > 0 && r.step % options_.eval_every == 0) || r.step == options_.steps) {
    r.evaluated = true;
    r.eval = evaluate();
  }
  r.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return r;
}

double TrainingRun::loss_floor() const {
  return smoothed_nll_floor(options_.label_smoothing, static_cast<int>(trainer_->config().tgt_vocab.size()));
}

Evaluation TrainingRun::evaluate() {
  const ModelConfig& cfg = trainer_->config();
  const std::vector<HeldOut>& held = task_->held_out();
  Evaluation ev;
  ev.held_out = static_cast<int>(held.size());
  if (held.empty()) return ev;
  // Free-running: the engine's greedy decode of the model as exported now.
  const std::vector<uint8_t> bytes = trainer_->export_model(ExportStorage::F32);
  const auto model = Model::from_buffer(bytes.data(), bytes.size(), Compute::F32);
  DecodingOptions d;
  d.strategy = Strategy::Greedy;
  d.attention = false;
  d.top_candidates = 0;
  const Session session(model, d);
  std::vector<std::string> sources;
  for (const HeldOut& h : held) sources.push_back(h.source);
  const std::vector<BatchResult> out = session.run_batch(sources);
  // Teacher-forced: the trainer's reading of the references (read(), the probe's pass),
  // batch_size examples a pass (the graph's limits); per position, whether the argmax is
  // the reference's token as written, and the attention's share inside the diagonal band.
  const Vocabulary src_vocab(cfg.src_vocab), tgt_vocab(cfg.tgt_vocab);
  std::vector<ReadExample> read;
  read.reserve(held.size());
  for (const HeldOut& h : held) read.push_back(read_example(cfg, src_vocab, tgt_vocab, h));
  std::vector<std::vector<bool>> forced_right(held.size());
  const bool rnn = cfg.arch == Arch::Rnn;
  ev.has_attention = !(rnn && cfg.attention == AttentionScore::None);
  // The (layer, head) pairs the band measure averages over: guided attention's choice.
  const float width = options_.guided_attention_width;
  const int layer = options_.guided_attention_layer, head = options_.guided_attention_head;
  const int l0 = layer < 0 ? 0 : layer, l1 = layer < 0 ? cfg.dec_layers : layer + 1;
  const int h0 = head < 0 ? 0 : head, h1 = head < 0 ? cfg.n_heads : head + 1;
  double diagonal = 0;
  long positions = 0, forced_total = 0;
  Batch b;
  for (size_t first = 0; first < held.size(); first += static_cast<size_t>(options_.batch_size)) {
    const size_t last = std::min(held.size(), first + static_cast<size_t>(options_.batch_size));
    b.clear();
    for (size_t i = first; i < last; ++i) add_example(cfg, read[i], b);
    trainer_->read(b);
    const std::vector<size_t> at = trainer_->log_prob_offsets(b);
    for (int e = 0; e < b.size; ++e) {
      const size_t i = first + static_cast<size_t>(e);
      const int T = b.dec_len[static_cast<size_t>(e)], N = b.src_len[static_cast<size_t>(e)], W = trainer_->log_prob_width(b, e);
      for (int t = 0; t < T; ++t) {
        const float* row = trainer_->log_probs() + at[static_cast<size_t>(e)] + static_cast<size_t>(t) * W;
        const int top = static_cast<int>(std::max_element(row, row + W) - row);
        const bool right = read[i].written[static_cast<size_t>(t)] && top == read[i].target[static_cast<size_t>(t)];
        forced_right[i].push_back(right);
        forced_total += right;
      }
      positions += T;
      if (!ev.has_attention) continue;
      if (rnn) {
        const RnnGraph& g = trainer_->rnn_graph();
        const size_t ld = static_cast<size_t>(g.attention_stride());
        diagonal += diagonal_band_mass(g.attention() + static_cast<size_t>(b.dec_off[static_cast<size_t>(e)]) * ld, T, N, ld, width);
        continue;
      }
      const TransformerGraph& g = trainer_->graph();
      const size_t p0 = g.cross_spans()[static_cast<size_t>(e)].p0;
      double example = 0;
      for (int l = l0; l < l1; ++l)
        for (int h = h0; h < h1; ++h)
          example += diagonal_band_mass(g.cross_attention(l) + p0 + static_cast<size_t>(h) * T * N, T, N, static_cast<size_t>(N), width);
      diagonal += example / ((l1 - l0) * (h1 - h0));
    }
  }
  // The greedy outputs against the same positions: the output's tokens (a copy model's
  // in its extended ids, as the reference's) and the end token the search finishes with
  // (it always writes one, at the max length at the latest).
  const int eos = cfg.tgt_specials.eos;
  long free_right = 0, after = 0, after_free = 0, after_forced = 0;
  int exact = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    const ReadExample& x = read[i];
    std::vector<int> got;
    if (!out[i].error && !out[i].results.empty()) {
      got = out[i].results[0].tokens;
      got.push_back(eos);
      if (out[i].results[0].text == held[i].target) ++exact;
    }
    int first_wrong = -1;
    for (size_t t = 0; t < x.target.size(); ++t) {
      const bool right = x.written[t] && t < got.size() && got[t] == x.target[t];
      free_right += right;
      if (first_wrong >= 0) {
        ++after;
        after_free += !right;
        after_forced += !forced_right[i][t];
      } else if (!right) {
        first_wrong = static_cast<int>(t);
      }
    }
    ev.first_error_count += first_wrong >= 0;
  }
  const double n = static_cast<double>(held.size());
  ev.word_accuracy = exact / n;
  if (ev.has_attention) ev.attention_diagonal = diagonal / n;
  if (positions > 0) {
    ev.held_out_token_accuracy = static_cast<double>(forced_total) / positions;
    ev.free_token_accuracy = static_cast<double>(free_right) / positions;
  }
  if (after > 0) {
    ev.wrong_after_first_error = static_cast<double>(after_free) / after;
    ev.forced_wrong_after_first_error = static_cast<double>(after_forced) / after;
  }
  return ev;
}

std::vector<uint8_t> TrainingRun::checkpoint() const {
  const ParamStore& s = trainer_->params();
  std::vector<TensorBytes> tensors;
  auto add = [&](const std::string& name, const std::vector<int64_t>& shape, const float* v, size_t n) {
    TensorBytes t{name, "F32", shape, std::vector<uint8_t>(n * 4)};
    std::memcpy(t.bytes.data(), v, n * 4);
    tensors.push_back(std::move(t));
  };
  const AdamW& adam = const_cast<Trainer&>(*trainer_).optimizer();
  for (const ParamTensor& t : s.tensors()) add(t.name, t.shape, s.values().data() + t.offset, t.size);
  for (const ParamTensor& t : s.tensors()) add("adam.m." + t.name, t.shape, adam.first_moment().data() + t.offset, t.size);
  for (const ParamTensor& t : s.tensors()) add("adam.v." + t.name, t.shape, adam.second_moment().data() + t.offset, t.size);
  const Random& dropout = const_cast<Trainer&>(*trainer_).dropout_rng();
  return write_safetensors(tensors, {{"format", kCheckpointFormat},
                                     {"format_version", "1"},
                                     {"config", config_json(trainer_->config())},
                                     {"training_options", options_json(options_).dump()},
                                     {"step", std::to_string(trainer_->steps_taken())},
                                     {"dropout_rng", std::to_string(dropout.state())},
                                     {"sampling_rng", std::to_string(const_cast<Trainer&>(*trainer_).sampling_rng().state())}});
}

std::unique_ptr<TrainingRun> TrainingRun::resume(const std::vector<uint8_t>& bytes, const TrainingOptions& o, const std::string* data) {
  SafetensorsFile file;
  try {
    file = parse_safetensors(bytes.data(), bytes.size());
  } catch (const ModelError& e) {
    throw CheckpointError(std::string("not a checkpoint file: ") + e.what());
  }
  auto meta = [&](const char* key) -> const std::string& {
    const auto it = file.metadata.find(key);
    if (it == file.metadata.end()) throw CheckpointError(std::string("not a checkpoint of seq2seq train (no ") + key + ")");
    return it->second;
  };
  if (meta("format") != kCheckpointFormat) throw CheckpointError("not a checkpoint of seq2seq train (format " + quote(meta("format")) + ")");
  if (meta("format_version") != "1") throw CheckpointError("format version " + quote(meta("format_version")) + " is not one this build reads");
  nlohmann::json recorded;
  try {
    recorded = nlohmann::json::parse(meta("training_options"));
  } catch (const nlohmann::json::exception&) {
    throw CheckpointError("its training options are not JSON");
  }
  const TrainingOptions was = options_from_json(recorded);
  for_each_training_option([&](const char* name, auto field) {
    if (may_differ_on_resume(name) || was.*field == o.*field) return;
    std::string flag = std::string("--") + name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    throw CheckpointError(std::string("it was trained with ") + name + " = " + option_text(was.*field) + "; this run asks for " +
                          option_text(o.*field) + " (" + flag + ")");
  });
  std::unique_ptr<TrainingRun> run(new TrainingRun(o, data, false));
  const ModelConfig saved = parse_model_config(meta("config"));
  auto check_vocab = [&](const std::vector<std::string>& now, const std::vector<std::string>& then, const char* side) {
    if (now == then) return;
    for (const auto& t : now)
      if (std::find(then.begin(), then.end(), t) == then.end())
        throw CheckpointError(std::string("the data holds the ") + side + " symbol " + quote(t) + ", which the checkpoint's model has no token for");
    throw CheckpointError(std::string("the data's ") + side + " vocabulary differs from the checkpoint's");
  };
  check_vocab(run->model_config().src_vocab, saved.src_vocab, "source");
  check_vocab(run->model_config().tgt_vocab, saved.tgt_vocab, "target");
  Trainer& t = *run->trainer_;
  load_parameters(t.params(), file, true);
  AdamW& adam = t.optimizer();
  for (const ParamTensor& p : t.params().tensors()) {
    for (const auto& [prefix, dst] : {std::make_pair("adam.m.", &adam.first_moment()), std::make_pair("adam.v.", &adam.second_moment())}) {
      const auto it = file.tensors.find(prefix + p.name);
      if (it == file.tensors.end() || it->second.shape != p.shape) throw CheckpointError("AdamW's state of " + quote(p.name) + " is missing");
      const std::vector<float> v = tensor_to_f32(it->second, prefix + p.name);
      std::copy(v.begin(), v.end(), dst->begin() + static_cast<long>(p.offset));
    }
  }
  int step = 0;
  uint64_t dropout = 0, sampling = 0;
  try {
    step = std::stoi(meta("step"));
    dropout = std::stoull(meta("dropout_rng"));
    sampling = std::stoull(meta("sampling_rng"));
  } catch (const std::logic_error&) {
    throw CheckpointError("its step or generator state is not a number");
  }
  if (step < 0 || step > o.steps)
    throw CheckpointError("it is at step " + std::to_string(step) + ", past this run's " + std::to_string(o.steps) + " steps");
  adam.set_steps_taken(step);
  t.dropout_rng() = Random(dropout);
  t.sampling_rng() = Random(sampling);
  // The data stream continues where it stood: the batches of the steps taken are drawn again.
  for (int k = 0; k < step; ++k) run->fill_batch();
  return run;
}

}  // namespace train
}  // namespace seq2seq
