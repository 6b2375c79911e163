#include "train/tasks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "errors.h"

namespace seq2seq {
namespace train {

const std::vector<std::string> kSourceSpecials = {"<pad>", "<unk>"};
const std::vector<std::string> kTargetSpecials = {"<pad>", "<unk>", "<s>", "</s>", "<mask>"};

SpecialIds source_special_ids() {
  SpecialIds s;
  s.pad = 0;
  s.unk = 1;
  return s;
}

SpecialIds target_special_ids() {
  SpecialIds s;
  s.pad = 0;
  s.unk = 1;
  s.bos = 2;
  s.eos = 3;
  s.mask = 4;
  return s;
}

std::string TaskData::source_text(const TaskExample& e) const {
  std::string s;
  for (int id : e.source) {
    if (word_level_ && !s.empty()) s += ' ';
    s += src_vocab_[static_cast<size_t>(id)];
  }
  return s;
}

std::string TaskData::target_text(const TaskExample& e) const {
  std::string s;
  for (int id : e.target) {
    if (!s.empty()) s += ' ';
    s += tgt_vocab_[static_cast<size_t>(id)];
  }
  return s;
}

namespace {

// A uniform integer in [lo, hi].
int uniform_int(Random& rng, int lo, int hi) {
  return lo + static_cast<int>(rng.next_u64() % static_cast<uint64_t>(hi - lo + 1));
}

std::string random_letters(Random& rng, int min_len, int max_len) {
  const int n = uniform_int(rng, min_len, max_len);
  std::string s(static_cast<size_t>(n), 'a');
  for (char& c : s) c = static_cast<char>('a' + uniform_int(rng, 0, 25));
  return s;
}

// How many distinct strings of min..max letters there are (capped: only "enough" matters).
double letter_strings(int min_len, int max_len) {
  double n = 0;
  for (int l = min_len; l <= max_len; ++l) n += std::pow(26.0, l);
  return n;
}

// Each stream of random numbers its own, from the one seed: held-out examples,
// training examples, initial weights and dropout never share a draw.
constexpr uint64_t kHeldOutStream = 0x68656c646f7574ull;  // "heldout"

void check_held_out_room(const TrainingOptions& o, double distinct, const char* what) {
  if (distinct < 2.0 * o.eval_size)
    throw OptionError("eval_size", "", "training option eval_size = " + std::to_string(o.eval_size) + ": the task has only " +
                                           std::to_string(static_cast<long long>(distinct)) + " distinct " + what + " between min_length " +
                                           std::to_string(o.min_length) + " and max_length " + std::to_string(o.max_length) +
                                           "; the held-out set may take at most half of them");
}

// reverse, sort, copy.
class LetterTask final : public TaskData {
 public:
  explicit LetterTask(const TrainingOptions& o) : task_(o.task), min_(o.min_length), max_(o.max_length) {
    check_held_out_room(o, letter_strings(o.min_length, o.max_length), "strings");
    src_vocab_ = kSourceSpecials;
    tgt_vocab_ = kTargetSpecials;
    for (char c = 'a'; c <= 'z'; ++c) {
      src_vocab_.push_back(std::string(1, c));
      tgt_vocab_.push_back(std::string(1, c));
    }
    src_case_ = CaseFold::Lower;
    max_src_ = max_tgt_ = o.max_length;
    Random held(o.seed ^ kHeldOutStream);
    while (static_cast<int>(held_out_.size()) < o.eval_size) {
      const std::string s = random_letters(held, min_, max_);
      if (!held_set_.insert(s).second) continue;
      TaskExample e;
      make(s, e);
      held_out_.push_back({s, target_text(e)});
    }
  }

  void draw(Random& rng, TaskExample& out) override {
    std::string s;
    do {
      s = random_letters(rng, min_, max_);
    } while (held_set_.count(s));
    make(s, out);
  }

 private:
  void make(const std::string& s, TaskExample& e) const {
    e.source.clear();
    for (char c : s) e.source.push_back(static_cast<int>(kSourceSpecials.size()) + (c - 'a'));
    std::string t = s;
    if (task_ == Task::Reverse) std::reverse(t.begin(), t.end());
    if (task_ == Task::Sort) std::sort(t.begin(), t.end());
    e.target.clear();
    for (char c : t) e.target.push_back(static_cast<int>(kTargetSpecials.size()) + (c - 'a'));
  }

  Task task_;
  int min_, max_;
  std::unordered_set<std::string> held_set_;
};

// The notes' chatbot, word level: a template's source words with a name, and its
// reply with the same name.
struct NameTemplate {
  std::vector<std::string> source, reply;
};
const std::vector<NameTemplate> kNameTemplates = {
    {{"my", "name", "is"}, {"hello"}},
    {{"i", "am"}, {"hi"}},
    {{"call", "me"}, {"nice", "to", "meet", "you"}},
    {{"they", "call", "me"}, {"good", "to", "see", "you"}},
};
constexpr int kTrainingNames = 300;

class NamesTask final : public TaskData {
 public:
  explicit NamesTask(const TrainingOptions& o) {
    check_held_out_room(o, letter_strings(o.min_length, o.max_length) - kTrainingNames, "names");
    word_level_ = true;
    src_case_ = CaseFold::Lower;
    src_vocab_ = kSourceSpecials;
    tgt_vocab_ = kTargetSpecials;
    std::set<std::string> src_words, tgt_words;
    for (const auto& t : kNameTemplates) {
      src_words.insert(t.source.begin(), t.source.end());
      tgt_words.insert(t.reply.begin(), t.reply.end());
    }
    // The training names: in both vocabularies (the model can learn to write them);
    // none is a template's word.
    Random names(o.seed ^ kHeldOutStream ^ 0x6e616d6573ull);
    std::set<std::string> taken(src_words.begin(), src_words.end());
    taken.insert(tgt_words.begin(), tgt_words.end());
    while (static_cast<int>(pool_.size()) < kTrainingNames) {
      const std::string n = random_letters(names, o.min_length, o.max_length);
      if (taken.insert(n).second) pool_.push_back(n);
    }
    src_words.insert(pool_.begin(), pool_.end());
    tgt_words.insert(pool_.begin(), pool_.end());
    src_vocab_.insert(src_vocab_.end(), src_words.begin(), src_words.end());
    tgt_vocab_.insert(tgt_vocab_.end(), tgt_words.begin(), tgt_words.end());
    for (size_t i = 0; i < src_vocab_.size(); ++i) src_id_[src_vocab_[i]] = static_cast<int>(i);
    for (size_t i = 0; i < tgt_vocab_.size(); ++i) tgt_id_[tgt_vocab_[i]] = static_cast<int>(i);
    for (const auto& t : kNameTemplates) {
      max_src_ = std::max(max_src_, static_cast<int>(t.source.size()) + 1);
      max_tgt_ = std::max(max_tgt_, static_cast<int>(t.reply.size()) + 1);
    }
    // Held-out names: in no vocabulary, so a model without a copy mechanism
    // cannot write them (the notes' 库洛洛).
    Random held(o.seed ^ kHeldOutStream);
    while (static_cast<int>(held_out_.size()) < o.eval_size) {
      const std::string n = random_letters(held, o.min_length, o.max_length);
      if (!taken.insert(n).second) continue;
      const NameTemplate& t = kNameTemplates[static_cast<size_t>(uniform_int(held, 0, static_cast<int>(kNameTemplates.size()) - 1))];
      std::string src, ref;
      for (const auto& w : t.source) src += w + " ";
      for (const auto& w : t.reply) ref += w + " ";
      held_out_.push_back({src + n, ref + n});
    }
  }

  void draw(Random& rng, TaskExample& out) override {
    const NameTemplate& t = kNameTemplates[static_cast<size_t>(uniform_int(rng, 0, static_cast<int>(kNameTemplates.size()) - 1))];
    const std::string& n = pool_[static_cast<size_t>(uniform_int(rng, 0, kTrainingNames - 1))];
    out.source.clear();
    out.target.clear();
    for (const auto& w : t.source) out.source.push_back(src_id_.at(w));
    out.source.push_back(src_id_.at(n));
    for (const auto& w : t.reply) out.target.push_back(tgt_id_.at(w));
    out.target.push_back(tgt_id_.at(n));
  }

 private:
  std::vector<std::string> pool_;
  std::map<std::string, int> src_id_, tgt_id_;
};

// Splits UTF-8 text into code points (the engine's source tokens).
std::vector<std::string> code_points(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) throw DataError("invalid UTF-8");
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

// No model holds white space or a control character in a token (docs/model-format.md).
bool unusable_symbol(const std::string& cp) {
  const auto c = static_cast<unsigned char>(cp[0]);
  if (cp.size() == 1) return c <= 0x20 || c == 0x7f;
  if (cp.size() == 2 && c == 0xc2) {
    const auto d = static_cast<unsigned char>(cp[1]);
    return d <= 0xa0;  // U+0080..U+009F controls, U+00A0 no-break space
  }
  return false;
}

std::string upper_ascii(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

class G2pTask final : public TaskData {
 public:
  G2pTask(const TrainingOptions& o, const std::string& text) {
    src_case_ = CaseFold::Upper;
    struct Row {
      std::vector<std::string> letters, phones;
      std::string word;
    };
    std::vector<Row> rows;
    std::istringstream in(text);
    std::string line;
    long number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      const std::string where = "line " + std::to_string(number) + ": ";
      const size_t tab = line.find('\t');
      if (tab == std::string::npos) throw DataError(where + "no TAB between the word and its phonemes (WORD<TAB>PH ON ES)");
      Row r;
      r.word = upper_ascii(line.substr(0, tab));
      if (r.word.empty()) throw DataError(where + "an empty word");
      try {
        r.letters = code_points(r.word);
      } catch (const DataError&) {
        throw DataError(where + "the word is not valid UTF-8");
      }
      for (const auto& cp : r.letters)
        if (unusable_symbol(cp)) throw DataError(where + "the word " + quote(r.word) + " holds white space or a control character");
      std::istringstream ph(line.substr(tab + 1));
      std::string p;
      while (ph >> p) {
        for (const auto& cp : code_points(p))
          if (unusable_symbol(cp)) throw DataError(where + "the phoneme " + quote(p) + " holds a control character");
        r.phones.push_back(p);
      }
      if (r.phones.empty()) throw DataError(where + "the word " + quote(r.word) + " has no phonemes");
      rows.push_back(std::move(r));
    }
    if (rows.empty()) throw DataError("the file holds no examples (WORD<TAB>PH ON ES lines)");
    // The held-out words (every pronunciation of each), drawn from the seed.
    std::vector<std::string> words;
    {
      std::set<std::string> seen;
      for (const Row& r : rows)
        if (seen.insert(r.word).second) words.push_back(r.word);
    }
    if (static_cast<int>(words.size()) < 2 * o.eval_size)
      throw OptionError("eval_size", "", "training option eval_size = " + std::to_string(o.eval_size) + ": the data has only " +
                                             std::to_string(words.size()) + (words.size() == 1 ? " word" : " words") +
                                             "; the held-out set may take at most half of them");
    Random held(o.seed ^ kHeldOutStream);
    std::set<std::string> held_words;
    while (static_cast<int>(held_words.size()) < o.eval_size)
      held_words.insert(words[static_cast<size_t>(uniform_int(held, 0, static_cast<int>(words.size()) - 1))]);
    std::set<std::string> letters, phones;
    for (const Row& r : rows) {
      letters.insert(r.letters.begin(), r.letters.end());
      phones.insert(r.phones.begin(), r.phones.end());
    }
    src_vocab_ = kSourceSpecials;
    tgt_vocab_ = kTargetSpecials;
    for (const auto& s : letters)
      if (std::find(kSourceSpecials.begin(), kSourceSpecials.end(), s) == kSourceSpecials.end()) src_vocab_.push_back(s);
    for (const auto& s : phones) {
      if (std::find(kTargetSpecials.begin(), kTargetSpecials.end(), s) != kTargetSpecials.end())
        throw DataError("the phoneme " + quote(s) + " is one of the target's special tokens");
      tgt_vocab_.push_back(s);
    }
    std::map<std::string, int> src_id, tgt_id;
    for (size_t i = 0; i < src_vocab_.size(); ++i) src_id[src_vocab_[i]] = static_cast<int>(i);
    for (size_t i = 0; i < tgt_vocab_.size(); ++i) tgt_id[tgt_vocab_[i]] = static_cast<int>(i);
    // A word held out is scored against its first pronunciation.
    std::set<std::string> scored;
    for (const Row& r : rows) {
      max_src_ = std::max(max_src_, static_cast<int>(r.letters.size()));
      max_tgt_ = std::max(max_tgt_, static_cast<int>(r.phones.size()));
      if (held_words.count(r.word)) {
        if (scored.insert(r.word).second) {
          std::string ref;
          for (const auto& p : r.phones) ref += (ref.empty() ? "" : " ") + p;
          held_out_.push_back({r.word, ref});
        }
        continue;
      }
      TaskExample e;
      for (const auto& c : r.letters) e.source.push_back(src_id.at(c));
      for (const auto& p : r.phones) e.target.push_back(tgt_id.at(p));
      train_.push_back(std::move(e));
    }
    order_.resize(train_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    next_ = order_.size();  // shuffled at the first draw
  }

  // Epochs over the training rows, each in a new order.
  void draw(Random& rng, TaskExample& out) override {
    if (next_ >= order_.size()) {
      for (size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.next_u64() % i]);
      next_ = 0;
    }
    const TaskExample& e = train_[order_[next_++]];
    out.source.assign(e.source.begin(), e.source.end());
    out.target.assign(e.target.begin(), e.target.end());
  }

 private:
  std::vector<TaskExample> train_;
  std::vector<size_t> order_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<TaskData> TaskData::create(const TrainingOptions& o, const std::string* data) {
  validate(o);
  if (o.task == Task::G2p) {
    if (data == nullptr)
      throw UsageError("task g2p reads the training recipe's train.tsv (WORD<TAB>PH ON ES lines): give --data FILE "
                       "(python3 -m models.train prepare-data writes models/train/work/data/train.tsv)");
    return std::make_unique<G2pTask>(o, *data);
  }
  if (data != nullptr)
    throw UsageError(std::string("task ") + to_string(o.task) + " is generated from the seed; --data is for task g2p");
  if (o.task == Task::Names) return std::make_unique<NamesTask>(o);
  return std::make_unique<LetterTask>(o);
}

}  // namespace train
}  // namespace seq2seq
