// The native command-line tool.
//   seq2seq info MODEL
//   seq2seq decode --model M [options] [--trace [--trace-inside STEP]] [WORD ...]   (no words: one source per line on stdin)
//   seq2seq score --model M [options] [WORD TARGET ...]   (none: WORD<TAB>TARGET lines on stdin)
//   seq2seq inspect --model M [--compute C] WORD [TOKENS]
//   seq2seq train --task T [options] --out FILE   (cli/train_command.cpp)
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/parse_flags.h"
#include "errors.h"
#include "kernel_set.h"
#include "model.h"
#include "model_limits.h"
#include "session.h"
#include "snapshot_json.h"
#include "cli/train_command.h"

namespace {

using seq2seq_cli::parse_enum;
using seq2seq_cli::parse_number;

const char* kUsage =
    "usage:\n"
    "  seq2seq info MODEL\n"
    "      print a model's configuration, size and vocabularies\n"
    "  seq2seq decode --model MODEL [options] [WORD ...]\n"
    "      decode the words, or one source per line from stdin; prints source<TAB>output<TAB>score\n"
    "      (--model given more than once: an ensemble of autoregressive models with the same\n"
    "      vocabularies, each step's distribution the mean of theirs)\n"
    "  seq2seq score --model MODEL [options] [WORD TARGET ...]\n"
    "      the forced score of each TARGET (\"F OW N IY M\") for its WORD, or of WORD<TAB>TARGET\n"
    "      lines from stdin: log P(TARGET | WORD) by teacher forcing (a cmlm: one pass over the\n"
    "      fully masked target); prints source<TAB>target<TAB>logprob<TAB>score<TAB>the\n"
    "      log-probability of each token (then of EOS), the score normalised as decode's\n"
    "      under the same options\n"
    "  seq2seq inspect --model MODEL [--compute C] WORD [TOKENS]\n"
    "      every intermediate of one decoder pass as JSON (StepInside, src/snapshot.h): the\n"
    "      embeddings, positional encoding, Q, K, V, scores, softmax, heads, residuals, norms and\n"
    "      FFN of each layer (an RNN: its states, scores and contexts) and the logits; TOKENS\n"
    "      (\"F OW\"): the output so far, whose next token the pass predicts (a cmlm: the\n"
    "      draft, <mask> where masked)\n"
    "  seq2seq train --task reverse|sort|copy|names|g2p [--data FILE] [options] --out FILE\n"
    "      train a model in the engine and write it (seq2seq train --help lists its options)\n"
    "\n"
    "decode and score options (defaults in brackets):\n";

// The flags of decode and score that are no decoding options.
const char* kCommandUsage =
    "  --trace                       decode: print every step's snapshot as a JSON line instead\n"
    "  --trace-inside STEP           decode --trace: the line of decoder pass STEP also carries \"inside\",\n"
    "                                that pass's StepInside as inspect prints it: the pass that made the\n"
    "                                best live hypothesis's last token (on the last line, with none live:\n"
    "                                the best finished then), or a cmlm's pass over the best draft\n"
    "  --compute C                   auto | f32: int8 kernels for int8-stored weights, or f32\n"
    "                                throughout, as PyTorch computes [auto]\n"
    "  --threads N                   decode: decode the words on N threads sharing the model, each\n"
    "                                with its own session; the output is the same, in input order;\n"
    "                                0: one per core; not with --trace, in [0, 256] [1]\n";

extern const char* kOptionUsage;  // below, written from the options table

int usage() {
  std::cerr << kUsage << kOptionUsage << kCommandUsage;
  return 2;
}

void print_vocab(const char* title, const seq2seq::Vocabulary& v) {
  std::cout << title << " (" << v.size() << "):";
  for (const auto& t : v.tokens()) std::cout << ' ' << t;
  std::cout << '\n';
}

int info(const std::string& path) {
  const auto model = seq2seq::Model::from_file(path);
  const auto& c = model->config();
  std::cout << "name:            " << (c.name.empty() ? "(unnamed)" : c.name) << '\n';
  if (!c.description.empty()) std::cout << "description:     " << c.description << '\n';
  if (c.arch == seq2seq::Arch::Rnn) {
    std::cout << "architecture:    rnn (autoregressive): bidirectional GRU encoder, GRU decoder, "
              << seq2seq::to_string(c.attention) << " attention\n"
              << "sizes:           embedding " << c.emb_dim << ", encoder " << c.enc_layers << " x 2 x " << c.enc_hidden
              << ", decoder " << c.dec_hidden;
    if (c.attn_dim) std::cout << ", attention " << c.attn_dim;
    std::cout << "\nmax length:      " << c.max_pos << '\n';
  } else {
    std::cout << "architecture:    " << seq2seq::to_string(c.arch)
              << (c.autoregressive() ? " (autoregressive)" : " (non-autoregressive, Mask-Predict)") << '\n'
              << "layers:          " << c.enc_layers << " encoder, " << c.dec_layers << " decoder\n"
              << "width:           d_model " << c.d_model << ", " << c.n_heads << " heads of " << c.head_dim() << ", FFN "
              << c.d_ff << " (" << seq2seq::to_string(c.activation) << ")\n"
              << "layer norm:      " << seq2seq::to_string(c.norm) << "-LN, eps " << c.ln_eps << '\n'
              << "positions:       " << seq2seq::to_string(c.pos) << ", " << c.max_pos << " max\n"
              << "embedding:       " << (c.scale_embedding ? "scaled by sqrt(d_model)" : "unscaled") << ", output "
              << (c.tie_output ? "tied to target embedding" : "untied") << '\n';
    if (c.arch == seq2seq::Arch::Cmlm) {
      std::cout << "length head:     lengths 0.." << c.max_target_len;
      if (c.length_offset > 0)
        std::cout << ", predicted as the offset -" << c.length_offset << "..+" << c.max_target_len - c.length_offset
                  << " from the word's length";
      std::cout << '\n';
    }
  }
  if (c.src_tokens == seq2seq::SourceTokens::Words)
    std::cout << "source:          words (separated by white space; an unknown word "
              << (c.src_specials.unk >= 0 ? "reads as " + c.src_vocab[static_cast<size_t>(c.src_specials.unk)] : std::string("is an error"))
              << ")\n";
  if (c.copy)
    std::cout << "copy mechanism:  pointer-generator (P = p_gen P_vocab + (1 - p_gen) copy through the "
              << (c.arch == seq2seq::Arch::Rnn ? "attention" : "last layer's cross-attention") << ")\n";
  std::cout << "parameters:      " << model->parameter_count() << '\n'
            << "file size:       " << model->file_bytes() << " bytes (" << model->storage() << " storage, "
            << model->compute() << " compute)\n";
  std::cout << "kernels:         " << seq2seq::kernel_isa();
  if (seq2seq::carried_kernel_sets().size() > 1) {
    std::cout << " (of";
    for (const seq2seq::KernelSet* k : seq2seq::carried_kernel_sets()) std::cout << ' ' << k->isa;
    std::cout << "; SEQ2SEQ_ISA picks one)";
  }
  std::cout << '\n';
  print_vocab("source vocabulary", model->source_vocab());
  print_vocab("target vocabulary", model->target_vocab());
  return 0;
}

// A numeric option's own flag (for_each_numeric_option names it), parsed against
// the option's range; false when `flag` is none of them.
template <typename Value>
bool numeric_flag(const std::string& flag, Value&& value, seq2seq::DecodingOptions& o, std::set<std::string>& given) {
  bool found = false;
  seq2seq::for_each_numeric_option([&](const seq2seq::NumericOption& opt, auto field, const auto& range) {
    if (found || flag != opt.cli_flag) return;
    o.*field = parse_number(flag, value(), range);
    given.insert(opt.name);
    found = true;
  });
  return found;
}

// BEGIN GENERATED (generated by scripts/gen-options.mjs from src/decoding_options.json: edit the table, then run the script)
// The decoding options' lines of the usage text.
const char* kOptionUsage =
    "  --strategy STRATEGY           how to search: greedy | beam | sample | nar ['greedy' for an autoregressive model, 'nar' for a CMLM]\n"
    "  --greedy                      greedy search (--strategy greedy)\n"
    "  --beam K                      beam search with K hypotheses (--strategy beam --beam-size K)\n"
    "  --sample                      sample instead of searching (--strategy sample)\n"
    "  --nar                         non-autoregressive Mask-Predict (--strategy nar)\n"
    "  --beam-size N                 beam width (beam only; greedy is beam size 1), in [1, 256] [5]\n"
    "  --length-norm LENGTHNORM      how finished hypotheses are compared: none | average | gnmt [average]\n"
    "  --gnmt-alpha X                GNMT length penalty alpha, in [0, 10] [0.6]\n"
    "  --max-length N                output tokens including EOS, clamped to what the model can hold, in [1, 100000] [256]\n"
    "  --max-length-ratio X          > 0: also cap the output at ceil(ratio * source length); 0 is off, in [0, 1000] [0]\n"
    "  --min-length N                EOS is withheld before this many tokens, in [0, 100000] [0]\n"
    "  --n-best N                    hypotheses returned: beam, at most --beam-size; sample, samples drawn; greedy, 1, in [1, 256] [1]\n"
    "  --prefix \"T1 T2\"              forced first target tokens, space-separated ('HH AH'; in JS also ['HH', 'AH']) [none]\n"
    "  --temperature X               sampling temperature, in (0, 100] [1]\n"
    "  --top-k N                     sampling: keep the k likeliest tokens; 0 is off, in [0, 100000] [0]\n"
    "  --top-p X                     sampling: nucleus mass, in (0, 1] [1]\n"
    "  --seed N                      sampling seed; the same seed gives the same samples natively and in wasm (JS: a safe integer), in [0, 2^64 - 1] [0]\n"
    "  --nar-length NARLENGTH        where the target length comes from: predicted | fixed | given [predicted]\n"
    "  --fixed-length                decode max-length positions, cut at the first EOS (--nar-length fixed)\n"
    "  --length-candidates N         predicted length: the length beam width (decode the L likeliest lengths, keep the best draft), in [1, 64] [1]\n"
    "  --length-score-weight X       predicted length: a draft scores avg log P(tokens) + w * log P(length); 0 is Mask-Predict's rule, in [0, 10] [0]\n"
    "  --nar-given-length N          the target length when --nar-length is given, in [0, 100000] [0]\n"
    "  --iterations N                Mask-Predict iterations T, in [1, 100] [10]\n"
    "  --early-stop, --no-early-stop Mask-Predict: stop when an iteration changes no token [on]\n"
    "  --top-candidates N            next-token candidates kept per hypothesis, in [0, 64] [5]\n"
    "  --attention, --no-attention   attention in snapshots: cross-attention, and the encoder and decoder self-attention (Transformer, CMLM) [on]\n"
    ;

// Sets the option(s) `flag` names, value() giving its argument, and adds their C++
// names to `given`; false when `flag` is no decoding option's. A numeric option's
// own flag is numeric_flag()'s (for_each_numeric_option), the rest are here.
template <typename Value>
bool option_flag(const std::string& flag, Value&& value, seq2seq::DecodingOptions& o, std::set<std::string>& given) {
  if (numeric_flag(flag, value, o, given)) return true;
  if (flag == "--strategy") return o.strategy = parse_enum<seq2seq::Strategy>(flag, value(), "greedy, beam, sample, nar"), given.insert({"strategy"}), true;
  if (flag == "--greedy") return o.strategy = seq2seq::Strategy::Greedy, given.insert({"strategy"}), true;
  if (flag == "--beam") return o.strategy = seq2seq::Strategy::Beam, o.beam_size = parse_number(flag, value(), seq2seq::option_range::beam_size), given.insert({"strategy", "beam_size"}), true;
  if (flag == "--sample") return o.strategy = seq2seq::Strategy::Sample, given.insert({"strategy"}), true;
  if (flag == "--nar") return o.strategy = seq2seq::Strategy::Nar, given.insert({"strategy"}), true;
  if (flag == "--length-norm") return o.length_norm = parse_enum<seq2seq::LengthNorm>(flag, value(), "none, average, gnmt"), given.insert({"length_norm"}), true;
  if (flag == "--prefix") return o.prefix = value(), given.insert({"prefix"}), true;
  if (flag == "--nar-length") return o.nar_length = parse_enum<seq2seq::NarLength>(flag, value(), "predicted, fixed, given"), given.insert({"nar_length"}), true;
  if (flag == "--fixed-length") return o.nar_length = seq2seq::NarLength::Fixed, given.insert({"nar_length"}), true;
  if (flag == "--early-stop") return o.early_stop = true, given.insert({"early_stop"}), true;
  if (flag == "--no-early-stop") return o.early_stop = false, given.insert({"early_stop"}), true;
  if (flag == "--attention") return o.attention = true, given.insert({"attention"}), true;
  if (flag == "--no-attention") return o.attention = false, given.insert({"attention"}), true;
  return false;
}
// END GENERATED

// The decoder passes a decode can take: no more than the longest output an
// option allows (one pass per token; Mask-Predict's iterations are fewer).
constexpr seq2seq::Range<int> kPasses{1, seq2seq::option_range::max_length.hi};

// decode --threads: 0 is one per core; more than this is surely a mistake.
constexpr seq2seq::Range<int> kThreads{0, 256};

// What decode and score read from their command lines.
struct Command {
  std::vector<std::string> model_paths;
  seq2seq::Compute compute = seq2seq::Compute::Auto;
  seq2seq::DecodingOptions options;
  std::set<std::string> given;  // the C++ names of the options set by a flag
  bool trace = false;
  int trace_inside = 0;  // decode --trace: the decoder pass whose inside its line carries; 0: none
  std::optional<int> threads;  // decode --threads: threads decoding the words (0: one per core); none given: one
  std::vector<std::string> words;  // the arguments that are no options
};

Command parse_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd;
  seq2seq::DecodingOptions& o = cmd.options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw seq2seq::UsageError("option " + a + " needs a value");
      return args[++i];
    };
    if (a == "--model") cmd.model_paths.push_back(value());
    else if (option_flag(a, value, o, cmd.given)) continue;
    else if (a == "--trace") cmd.trace = true;
    else if (a == "--trace-inside") cmd.trace_inside = parse_number(a, value(), kPasses);
    else if (a == "--compute") cmd.compute = seq2seq::parse_compute(value());
    else if (a == "--threads") cmd.threads = parse_number(a, value(), kThreads);
    else if (a.rfind("--", 0) == 0) throw seq2seq::UsageError("unknown option " + seq2seq::quote(a));
    else cmd.words.push_back(a);
  }
  if (cmd.model_paths.empty()) throw seq2seq::UsageError(name + " needs --model MODEL");
  return cmd;
}

// The model (or ensemble) of --model, and the command's options completed for it.
std::shared_ptr<const seq2seq::Model> load_model(Command& cmd) {
  std::vector<std::shared_ptr<const seq2seq::Model>> models;
  for (const auto& p : cmd.model_paths) models.push_back(seq2seq::Model::from_file(p, cmd.compute));
  const auto model = models.size() == 1 ? models[0] : seq2seq::Model::ensemble(models);
  if (!cmd.given.count("strategy"))
    cmd.options.strategy = model->config().autoregressive() ? seq2seq::Strategy::Greedy : seq2seq::Strategy::Nar;
  if (!cmd.trace) cmd.options.attention = false;  // nothing prints it: skip the copies
  return model;
}

// The standard output or input failed (a full disk, a closed pipe, a read
// error): what follows could not be written or read, so the command stops and
// main() reports this, exit 1.
struct StreamError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `what` and, when the failed call set it, the system's reason.
std::string stream_failure(const std::string& what, int error) {
  return error ? what + ": " + std::strerror(error) : what;
}

// Throws StreamError once a write to stdout has failed. Checked after each
// source, so that a batch stops at the first buffer that could not be written.
void check_output() {
  if (!std::cout) throw StreamError(stream_failure("cannot write the output", errno));
}

// A batch of sources: each that fails (bad text, or a model that fails on it)
// is reported on stderr with where it came from, and the batch goes on; the
// exit status says at the end that something failed.
class Batch {
 public:
  // Runs f() for the source `shown` quotes (seq2seq::quote), from `where`.
  template <typename F>
  void run(const std::string& where, const std::string& shown, F&& f) {
    errno = 0;  // so that a failed write's reason is its own
    try {
      f();
    } catch (const seq2seq::Error& e) {
      ++failures_;
      std::cout.flush();  // keep stdout and stderr in source order on a terminal
      std::cerr << "seq2seq: " << where << ' ' << shown << ": " << e.what() << '\n';
    }
    check_output();
  }

  // Runs f(line) for each non-blank line of stdin (without its "\n" or "\r\n").
  // A line longer than `cap` bytes is not held: too_long(bytes) throws the error
  // that reports it, and the next line goes on. A read that fails (an I/O error,
  // stdin a directory) is no end of input: it throws StreamError naming the line.
  template <typename TooLong, typename F>
  void lines(uint64_t cap, TooLong&& too_long, F&& f) {
    each_line(cap, [&](const std::string& where, const std::string& shown, const std::string* line, uint64_t bytes) {
      run(where, shown, [&] { line ? f(*line) : too_long(bytes); });
    });
  }

  // lines() for a caller that runs the lines itself (later, several at once):
  // item(where, shown, line, bytes) per non-blank line, with line null for one
  // of `bytes` bytes, longer than `cap`.
  template <typename Item>
  void each_line(uint64_t cap, Item&& item) {
    std::vector<char> buf(static_cast<size_t>(cap) + 3);  // the line, a '\r', and one byte more to tell it is longer
    std::istream& in = std::cin;
    for (long number = 1;; ++number) {
      const std::string where = "line " + std::to_string(number);
      errno = 0;
      in.getline(buf.data(), static_cast<std::streamsize>(buf.size()));
      auto read_failed = [&] { return StreamError(stream_failure("cannot read " + where + " of the input", errno)); };
      if (in.bad()) throw read_failed();
      const auto got = static_cast<uint64_t>(in.gcount());
      if (got == 0 && in.eof()) return;
      if (in.fail()) {  // longer than buf holds: the rest is skipped, counted, not kept
        const uint64_t kept = buf.size() - 1;
        in.clear();
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
        if (in.bad()) throw read_failed();
        const uint64_t rest = static_cast<uint64_t>(in.gcount()) - (in.eof() ? 0 : 1);
        item(where, seq2seq::quote(std::string(buf.data(), static_cast<size_t>(kept)), kept + rest), nullptr, kept + rest);
        if (in.eof()) return;
        continue;
      }
      std::string line(buf.data(), static_cast<size_t>(got - (in.eof() ? 0 : 1)));
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      if (line.size() > cap) item(where, seq2seq::quote(line), nullptr, line.size());
      else item(where, seq2seq::quote(line), &line, line.size());
      if (in.eof()) return;
    }
  }

  int status() const { return failures_ ? 1 : 0; }

 private:
  int failures_ = 0;
};

// Which decoder input the pass of a trace line read, for --trace-inside.
// Autoregressive: the pass that made the line's best live hypothesis's last
// token read BOS and that hypothesis's tokens before it; on a last line with none
// live, the best that finished at this step stands in. A beam that stops because
// its live hypotheses can no longer win drops them from its last line; then the
// pass shown is the one over the best hypothesis live before the step (`before`).
// A CMLM: the best draft as this iteration's pass read it, its re-masked
// positions masked. `key` and `index` say whose pass it is.
struct TracedPass {
  std::vector<int> tokens;
  const char* key;
  int index;
};

TracedPass traced_pass(const seq2seq::Snapshot& s, const std::vector<seq2seq::HypothesisView>& before, int mask) {
  if (!s.autoregressive) {
    const seq2seq::NarDraft& d = s.drafts.at(static_cast<size_t>(s.best_draft));
    TracedPass p{d.tokens, "insideDraft", s.best_draft};
    for (size_t i = 0; i < p.tokens.size(); ++i)
      if (d.masked[i]) p.tokens[i] = mask;
    return p;
  }
  auto best_of = [](const std::vector<seq2seq::HypothesisView>& hs, size_t length) -> const seq2seq::HypothesisView* {
    const seq2seq::HypothesisView* best = nullptr;
    for (const auto& h : hs)
      if ((length == 0 || h.tokens.size() == length) && (!best || h.score > best->score)) best = &h;
    return best;
  };
  const seq2seq::HypothesisView* h = best_of(s.live, 0);
  if (!h) h = best_of(s.finished, static_cast<size_t>(s.step));
  if (h) return {std::vector<int>(h->tokens.begin(), h->tokens.end() - 1), "insideHypothesis", h->parent};
  h = best_of(before, 0);
  if (!h) throw seq2seq::UsageError("--trace-inside: pass " + std::to_string(s.step) + " shows no hypothesis to follow");
  return {h->tokens, "insideHypothesis", h->id};
}

// Words read from stdin and decoded together at most this many at a time (per thread).
constexpr size_t kDecodeChunk = 256;

int decode(const std::vector<std::string>& args) {
  Command cmd = parse_command("decode", args);
  if (cmd.trace_inside && !cmd.trace)
    throw seq2seq::UsageError("--trace-inside STEP adds to the lines of --trace: give --trace too");
  if (cmd.trace_inside && cmd.model_paths.size() != 1)
    throw seq2seq::UsageError("--trace-inside shows one model's pass: an ensemble has no single inside");
  if (cmd.threads && cmd.trace)
    throw seq2seq::UsageError("--threads decodes the words together; --trace prints one decode at a time: give one of them");
  int threads = cmd.threads.value_or(1);
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto model = load_model(cmd);
  // One session per thread (the first is the one a single thread and --trace use).
  std::vector<std::unique_ptr<seq2seq::Session>> sessions;
  for (int t = 0; t < threads; ++t) sessions.push_back(std::make_unique<seq2seq::Session>(model, cmd.options));
  seq2seq::Session& session = *sessions[0];
  auto decode_one = [&](const std::string& word) {
    session.start(word);
    // The source's own: a copy model writes a copied token the vocabulary lacks with the source's text.
    const seq2seq::Vocabulary& vocab = session.output_vocab();
    if (cmd.trace) {
      // The live hypotheses pass trace_inside reads (the root before pass 1).
      std::vector<seq2seq::HypothesisView> before(1);
      int passes = 0;
      while (!session.done()) {
        const seq2seq::Snapshot s = session.step();
        // The inside is a pass of its own after the step's: the search never computes it. It is
        // computed before the line's JSON document is made, and written after it, streamed
        // (snapshot_json.h), so that no document is alive when it runs out of memory.
        std::unique_ptr<seq2seq::StepInside> inside;
        std::optional<TracedPass> p;
        if (s.step == cmd.trace_inside) {
          p = traced_pass(s, before, model->config().tgt_specials.mask);
          inside = std::make_unique<seq2seq::StepInside>(model->inspect(word, p->tokens));
        } else if (s.step + 1 == cmd.trace_inside) {
          before = s.live;
        }
        passes = s.step;
        nlohmann::json j = seq2seq::to_json(s, vocab);   // with its source, as the module's snapshots
        if (p) j[p->key] = p->index;
        std::string line = j.dump();
        if (inside) {
          line.pop_back();  // the object's '}': the inside is its last member
          std::cout << line << ",\"inside\":";
          seq2seq::write_json(std::cout, *inside, vocab);
          std::cout << "}\n";
        } else {
          std::cout << line << '\n';
        }
      }
      if (cmd.trace_inside > passes)
        throw seq2seq::UsageError("--trace-inside " + std::to_string(cmd.trace_inside) + " asks for a pass this decode never ran: it took " +
                                  std::to_string(passes) + (passes == 1 ? " decoder pass" : " decoder passes"));
      return;
    }
    for (const auto& r : session.run()) std::cout << word << '\t' << r.text << '\t' << r.score << '\n';
  };
  Batch batch;
  // A stdin line longer than any text the engine takes: its error, as the engine words it.
  const auto refuse_long = [](uint64_t bytes) { seq2seq::check_text_length(bytes, "the text"); };
  if (cmd.trace) {
    for (size_t i = 0; i < cmd.words.size(); ++i) {
      const std::string& word = cmd.words[i];
      batch.run("word " + std::to_string(i + 1), seq2seq::quote(word), [&] { decode_one(word); });
    }
    if (cmd.words.empty())
      batch.lines(seq2seq::limits::kMaxTextBytes, refuse_long, decode_one);
    return batch.status();
  }
  // Without --trace the words are decoded together (Session::run_batch), a
  // pending list at a time, and printed in input order as each would be alone.
  struct Pending {
    std::string where, shown, word;
    uint64_t too_long = 0;  // bytes of a line not held; 0 for a word
  };
  std::vector<Pending> pending;
  auto flush = [&] {
    std::vector<Pending> list;
    list.swap(pending);  // taken whole: a write that fails mid-list is not retried
    std::vector<std::string> words;
    for (const Pending& p : list)
      if (!p.too_long) words.push_back(p.word);
    const std::vector<seq2seq::BatchResult> out = seq2seq::run_batch_threads(sessions, words);
    size_t k = 0;
    for (const Pending& p : list) {
      if (p.too_long) {
        batch.run(p.where, p.shown, [&] { refuse_long(p.too_long); });
        continue;
      }
      const seq2seq::BatchResult& r = out[k++];
      batch.run(p.where, p.shown, [&] {
        if (r.error) std::rethrow_exception(r.error);
        for (const auto& x : r.results) std::cout << p.word << '\t' << x.text << '\t' << x.score << '\n';
      });
    }
  };
  for (size_t i = 0; i < cmd.words.size(); ++i) pending.push_back({"word " + std::to_string(i + 1), seq2seq::quote(cmd.words[i]), cmd.words[i]});
  if (cmd.words.empty()) {
    try {
      batch.each_line(seq2seq::limits::kMaxTextBytes, [&](const std::string& where, const std::string& shown, const std::string* line, uint64_t bytes) {
        pending.push_back({where, shown, line ? *line : std::string(), line ? 0 : bytes});
        // A full list goes now, and so does whatever has arrived when the input
        // pauses (nothing more buffered): a program that writes a word and waits
        // for its phonemes gets them.
        if (pending.size() >= kDecodeChunk * sessions.size() || std::cin.rdbuf()->in_avail() <= 0) flush();
      });
    } catch (...) {
      flush();  // the lines read before a failed read are still decoded and printed
      throw;
    }
  }
  flush();
  return batch.status();
}

// score: WORD TARGET pairs from the arguments, or WORD<TAB>TARGET lines from
// stdin. An argument is taken as given: a TAB in a WORD is a character of the
// word (which no model reads: the loader refuses control characters in a
// vocabulary), in a TARGET a space between tokens.
int score(const std::vector<std::string>& args) {
  Command cmd = parse_command("score", args);
  if (cmd.trace || cmd.trace_inside) throw seq2seq::UsageError("score has no --trace: it prints each token's log-probability");
  if (cmd.threads) throw seq2seq::UsageError("score has no --threads: it scores one pair at a time");
  if (cmd.words.size() % 2 != 0)
    throw seq2seq::UsageError("score takes WORD TARGET pairs; " + seq2seq::quote(cmd.words.back()) + " has no target");
  const auto model = load_model(cmd);
  const seq2seq::Session session(model, cmd.options);
  auto score_one = [&](const std::string& word, const std::string& target) {
    const seq2seq::ForcedScore f = session.score(word, target);
    std::cout << word << '\t' << f.text << '\t' << f.logprob << '\t' << f.score << '\t';
    for (size_t i = 0; i < f.token_logprobs.size(); ++i) std::cout << (i ? " " : "") << f.token_logprobs[i];
    std::cout << '\n';
  };
  Batch batch;
  for (size_t i = 0; i + 1 < cmd.words.size(); i += 2) {
    const std::string &word = cmd.words[i], &target = cmd.words[i + 1];
    batch.run("pair " + std::to_string(i / 2 + 1), seq2seq::quote(word) + ' ' + seq2seq::quote(target), [&] { score_one(word, target); });
  }
  if (cmd.words.empty()) {
    // A line holds a text and a target of at most kMaxTextBytes each, and the TAB between them.
    constexpr uint64_t kLine = 2 * seq2seq::limits::kMaxTextBytes + 1;
    auto too_long = [](uint64_t bytes) {
      throw seq2seq::InputError("the line has " + std::to_string(bytes) + " bytes; the longest accepted is " + std::to_string(kLine) +
                                " (a text and a target of at most " + std::to_string(seq2seq::limits::kMaxTextBytes) +
                                " bytes each, and the TAB between)");
    };
    batch.lines(kLine, too_long, [&](const std::string& line) {
      const size_t tab = line.find('\t');
      if (tab == std::string::npos) throw seq2seq::InputError("a line of score's input is WORD<TAB>TARGET");
      score_one(line.substr(0, tab), line.substr(tab + 1));
    });
  }
  return batch.status();
}

// inspect: WORD and the decoder's tokens, one JSON object.
int inspect(const std::vector<std::string>& args) {
  Command cmd = parse_command("inspect", args);
  if (cmd.trace || cmd.trace_inside || cmd.threads || !cmd.given.empty()) throw seq2seq::UsageError("inspect takes --model and --compute only");
  if (cmd.model_paths.size() != 1) throw seq2seq::UsageError("inspect shows one model: give --model once");
  if (cmd.words.empty() || cmd.words.size() > 2) throw seq2seq::UsageError("inspect takes WORD [TOKENS]");
  const auto model = load_model(cmd);
  const auto vocab = model->output_vocab(cmd.words[0]);  // a copy model's output may hold the source's tokens
  const std::vector<int> tokens = cmd.words.size() == 2 ? seq2seq::parse_target_tokens(cmd.words[1], *vocab) : std::vector<int>{};
  seq2seq::write_json(std::cout, model->inspect(cmd.words[0], tokens), *vocab);
  std::cout << '\n';
  return 0;
}

int run(const std::string& cmd, const std::vector<std::string>& rest) {
  if (cmd == "info" && rest.size() == 1) return info(rest[0]);
  if (cmd == "decode") return decode(rest);
  if (cmd == "score") return score(rest);
  if (cmd == "inspect") return inspect(rest);
  if (cmd == "train") return seq2seq_cli::train_command(rest);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage << kOptionUsage << kCommandUsage;
    return 0;
  }
  return usage();
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);  // only iostreams here: unsynchronised, a long stdin line reads in a blink
#ifdef SIGPIPE
  // A reader that went away (`| head`) makes writes fail with EPIPE, reported as
  // any failed write is, rather than ending the process by a signal with no word.
  std::signal(SIGPIPE, SIG_IGN);
#endif
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  try {
    const int status = run(cmd, rest);
    std::cout.flush();
    check_output();
    return status;
  } catch (const StreamError& e) {
    std::cerr << "seq2seq: " << e.what() << '\n';
    return 1;
  } catch (const seq2seq::UsageError& e) {
    std::cerr << "seq2seq: " << e.what() << '\n';
    return 2;
  } catch (const seq2seq::Error& e) {
    std::cerr << "seq2seq: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "seq2seq: out of memory\n";
    return 1;
  } catch (const std::exception& e) {  // the library throws only seq2seq::Error; this is a safety net, not an abort
    std::cerr << "seq2seq: " << e.what() << '\n';
    return 1;
  }
}
