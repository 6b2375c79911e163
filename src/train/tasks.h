// What a model learns: the tasks of the training options (training_options.json,
// Task), each a source of examples and a held-out set, from the seed (one source
// for the CLI, the npm module and the page).
//
//   reverse, sort, copy  strings of the letters a-z (one token a letter), min_length
//                        to max_length long: "abc" -> "c b a", "a b c", "a b c"
//   names                word level, the course notes' chatbot: "my name is <name>" ->
//                        "hello <name>" among a few templates; the names are random
//                        letter strings, a fixed pool for training, and the held-out
//                        ones are in no vocabulary (the model cannot write them itself)
//   g2p                  spellings to phonemes from the training recipe's train.tsv
//                        (WORD<TAB>PH ON ES lines), eval_size of its words held out
//
// The held-out examples are drawn first, from a generator of their own, and the
// training examples never repeat one of them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "model_config.h"
#include "random.h"
#include "train/training_options.h"

namespace seq2seq {
namespace train {

// An example as token ids of the task's vocabularies; the target without BOS and EOS.
struct TaskExample {
  std::vector<int> source, target;
};

// A held-out example as a person would type it: the source text the engine's
// tokenizer reads, and the reference output (target tokens joined by spaces).
struct HeldOut {
  std::string source, target;
};

// The data is malformed: a line without its TAB, an empty word, a symbol no
// model may hold. Names the line.
struct DataError : Error {
  explicit DataError(const std::string& what) : Error("data: " + what) {}
};

class TaskData {
 public:
  // The task `o.task` from o's lengths, eval_size and seed; `data`: the text of
  // a g2p data file (required for g2p, refused for the generated tasks; null:
  // none given). Throws OptionError (option out of what the task allows),
  // DataError (malformed or empty data), UsageError.
  static std::unique_ptr<TaskData> create(const TrainingOptions& o, const std::string* data);
  virtual ~TaskData() = default;

  // The vocabularies, specials first (source: <pad> <unk>; target: <pad> <unk>
  // <s> </s> <mask>), as the model's config carries them.
  const std::vector<std::string>& source_vocab() const { return src_vocab_; }
  const std::vector<std::string>& target_vocab() const { return tgt_vocab_; }
  CaseFold source_case() const { return src_case_; }
  // True when the source is words (names): each source token is a word.
  bool word_level_source() const { return word_level_; }
  // The longest source and target (tokens) any example of the task has.
  int max_source_len() const { return max_src_; }
  int max_target_len() const { return max_tgt_; }
  const std::vector<HeldOut>& held_out() const { return held_out_; }

  // A training example (never a held-out one), drawn with `rng`.
  virtual void draw(Random& rng, TaskExample& out) = 0;

  // The source text of a training example, as held_out() writes sources.
  std::string source_text(const TaskExample& e) const;
  std::string target_text(const TaskExample& e) const;

 protected:
  std::vector<std::string> src_vocab_, tgt_vocab_;
  CaseFold src_case_ = CaseFold::None;
  bool word_level_ = false;
  int max_src_ = 0, max_tgt_ = 0;
  std::vector<HeldOut> held_out_;
};

// The special tokens every task's vocabularies start with, and their ids.
extern const std::vector<std::string> kSourceSpecials;  // <pad> <unk>
extern const std::vector<std::string> kTargetSpecials;  // <pad> <unk> <s> </s> <mask>
SpecialIds source_special_ids();
SpecialIds target_special_ids();

}  // namespace train
}  // namespace seq2seq
