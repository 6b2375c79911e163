#include "model.h"
#include "model_access.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "errors.h"
#include "model_limits.h"
#include "rnn.h"
#include "transformer.h"
#include "safetensors.h"

namespace seq2seq {

namespace {

// The bytes of a regular file whose size is checked before anything is read: a
// directory, a device or a pipe (an endless stream, /dev/zero) is refused
// rather than read until memory runs out.
std::vector<uint8_t> read_model_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw ModelError("cannot open '" + path + "'" + (ec ? ": " + ec.message() : ""));
  if (fs::is_directory(st)) throw ModelError("'" + path + "' is a directory, not a model file");
  if (!fs::is_regular_file(st)) throw ModelError("'" + path + "' is not a regular file (a device, a pipe or a socket)");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) throw ModelError("cannot read '" + path + "': " + ec.message());
  if (size > limits::kMaxModelBytes)
    throw ModelError("'" + path + "' has " + std::to_string(size) + " bytes, more than the largest model accepted (" +
                     std::to_string(limits::kMaxModelBytes) + " bytes)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError("cannot open '" + path + "'");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<uintmax_t>(in.gcount()) != size)
    throw ModelError("cannot read all " + std::to_string(size) + " bytes of '" + path + "'");
  return bytes;
}

}  // namespace

std::shared_ptr<const Model> Model::from_file(const std::string& path, Compute compute) {
  const std::vector<uint8_t> bytes = read_model_file(path);
  return from_buffer(bytes.data(), bytes.size(), compute);
}

std::shared_ptr<const Model> Model::from_buffer(const uint8_t* data, size_t size, Compute compute) {
  kernel_isa();  // a SEQ2SEQ_ISA that cannot run fails here, before any decode
  const SafetensorsFile file = parse_safetensors(data, size);
  auto meta = [&](const char* key) -> const std::string& {
    auto it = file.metadata.find(key);
    if (it == file.metadata.end()) throw ModelError(std::string("__metadata__ has no '") + key + "': not a seq2seq-wasm model");
    return it->second;
  };
  if (meta("format") != "seq2seq-wasm") throw ModelError("__metadata__ format is '" + meta("format") + "', not 'seq2seq-wasm'");
  if (meta("format_version") != "1")
    throw ModelError("format_version '" + meta("format_version") + "' is not supported (this library reads version 1)");

  std::shared_ptr<Model> m(new Model());
  m->config_ = parse_model_config(meta("config"));
  m->src_vocab_ = Vocabulary(m->config_.src_vocab);
  m->tgt_vocab_ = Vocabulary(m->config_.tgt_vocab);
  if (m->config_.arch == Arch::Rnn) {
    m->network_ = std::make_unique<Rnn>(m->config_, file, compute);
  } else {
    m->network_ = std::make_unique<Transformer>(m->config_, file, compute);
  }
  m->file_bytes_ = size;
  for (const auto& kv : file.tensors) {
    if (kv.second.dtype == DType::U8) m->storage_ = "int4";
    if (kv.second.dtype == DType::I8 && m->storage_ != "int4") m->storage_ = "int8";
    if (kv.second.dtype == DType::F16 && m->storage_ == "f32") m->storage_ = "f16";
  }
  m->compute_ = (m->storage_ == "int8" || m->storage_ == "int4") && compute == Compute::Auto ? "int8" : "f32";
  return m;
}

Model::Model() = default;
Model::~Model() = default;

int64_t Model::parameter_count() const { return network_->parameter_count(); }

// from_buffer builds the network from config_.arch (an Rnn for rnn, a Transformer
// for the others) and ensemble() sets ensemble_: those two tags say what network_
// holds.
const Transformer& ModelAccess::transformer(const Model& m) {
  if (m.ensemble_) throw UsageError("this is an ensemble of " + std::to_string(m.ensemble_size_) + " models, not one Transformer");
  if (m.config_.arch == Arch::Rnn) throw UsageError(std::string("this is an ") + to_string(m.config_.arch) + " model, not a Transformer");
  return static_cast<const Transformer&>(*m.network_);
}

const Rnn& ModelAccess::rnn(const Model& m) {
  if (m.ensemble_) throw UsageError("this is an ensemble of " + std::to_string(m.ensemble_size_) + " models, not one RNN");
  if (m.config_.arch != Arch::Rnn) throw UsageError(std::string("this is a ") + to_string(m.config_.arch) + " model, not an RNN");
  return static_cast<const Rnn&>(*m.network_);
}

std::vector<int> Model::tokenize(const std::string& text) const {
  return tokenize_source(text, src_vocab_, config_.src_case, config_.max_pos, config_.src_tokens, config_.src_specials.unk);
}

ReadSource ModelAccess::read(const Model& m, const std::string& text) {
  const ModelConfig& c = m.config_;
  ReadSource r;
  std::vector<std::string> texts;
  r.input.ids = tokenize_source(text, m.src_vocab_, c.src_case, c.max_pos, c.src_tokens, c.src_specials.unk,
                                c.copy ? &texts : nullptr);
  if (!c.copy) {  // the model's own vocabulary, not owned: the caller holds the model
    r.output_vocab = std::shared_ptr<const Vocabulary>(&m.tgt_vocab_, [](const Vocabulary*) {});
    return r;
  }
  r.input.copy = copy_map(texts, m.tgt_vocab_, c.tgt_specials);
  r.output_vocab = std::make_shared<const Vocabulary>(m.tgt_vocab_.extended(r.input.copy.extra));
  return r;
}

std::shared_ptr<const Vocabulary> Model::output_vocab(const std::string& source) const {
  return ModelAccess::read(*this, source).output_vocab;
}

InputError Model::target_id_outside(double id, size_t position, const Vocabulary& vocab) const {
  std::string shown;
  if (std::abs(id) < 9.2e18) {
    shown = std::to_string(static_cast<long long>(id));
  } else {  // the shortest form that reads back as the id, as JS writes a number
    char buf[32];
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, id);
      if (std::strtod(buf, nullptr) == id) break;
    }
    shown = buf;
  }
  return InputError("token id " + shown + " at position " + std::to_string(position) + " is outside the " +
                    (vocab.size() > tgt_vocab_.size()
                         ? "output vocabulary (the target vocabulary and this source's copy-only tokens) of "
                         : "target vocabulary of ") +
                    std::to_string(vocab.size()));
}

StepInside Model::inspect(const std::string& source, const std::vector<int>& tokens) const {
  const ReadSource read = ModelAccess::read(*this, source);
  const std::vector<int>& src = read.input.ids;
  const Vocabulary& out_vocab = *read.output_vocab;  // a copy model's output holds the source's copy-only tokens too
  const SpecialIds& sp = config_.tgt_specials;
  const bool ar = config_.autoregressive();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const int id = tokens[i];
    if (id < 0 || id >= out_vocab.size()) throw target_id_outside(id, i + 1, out_vocab);
    // A CMLM's draft is what Mask-Predict feeds back: any token it emitted (END included, kept
    // where it was sure of it) and the mask where it re-masked.
    const bool in_draft = !ar && (id == sp.mask || id == sp.eos);
    if (!sp.is_text(id) && !in_draft)
      throw InputError("token '" + tgt_vocab_.token(id) + "' at position " + std::to_string(i + 1) + " is a special token" +
                       (ar ? " (give the output so far: BOS is fed first by itself)" : " (a draft holds tokens, END and masks)"));
  }
  std::vector<int> input;
  if (ar) {
    input.push_back(sp.bos);
    input.insert(input.end(), tokens.begin(), tokens.end());
  } else {
    if (tokens.empty()) throw InputError("the draft is empty: a CMLM's pass reads at least one position");
    if (static_cast<int>(tokens.size()) > config_.max_target_len)
      throw InputError("the draft has " + std::to_string(tokens.size()) + " positions; this model's length head reaches " +
                       std::to_string(config_.max_target_len));
    input = tokens;
  }
  if (static_cast<int>(input.size()) > config_.max_pos)
    throw InputError("the decoder input has " + std::to_string(input.size()) + " positions; this model has " +
                     std::to_string(config_.max_pos));
  const uint64_t values = network_->inside_values(static_cast<int>(src.size()), static_cast<int>(input.size()),
                                                  static_cast<int>(read.input.copy.extra.size()));
  if (values > limits::kMaxInsideValues)
    throw InputError("the inside of this pass (a source of " + std::to_string(src.size()) + " positions, a decoder input of " +
                     std::to_string(input.size()) + ") holds " + std::to_string(values) + " numbers; inspect keeps at most " +
                     std::to_string(limits::kMaxInsideValues) + ": give a shorter source or fewer tokens");
  StepInside inside = network_->inspect(read.input, input);
  // Refused as decoding refuses the same scores (scorer.h): the row's log-probabilities, as search
  // would see them, must hold no NaN or +infinity.
  const auto V = static_cast<Eigen::Index>(inside.vocab_size);
  RowMatrix row(1, V);
  for (size_t t = 0; V > 0 && t * static_cast<size_t>(V) < inside.logits.size(); ++t) {
    row = Eigen::Map<const RowMatrix>(inside.logits.data() + t * static_cast<size_t>(V), 1, V);
    log_softmax_rows(row);
    require_finite_scores(row.data(), V, output_position(static_cast<long>(t)));
  }
  return inside;
}

}  // namespace seq2seq
