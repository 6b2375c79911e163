#include "snapshot_json.h"

#include "snapshot_fields.h"

namespace seq2seq {

namespace {

// The writer visit_fields() drives (snapshot_fields.h): one JSON object.
class JsonWriter {
 public:
  JsonWriter(nlohmann::json& out, const Vocabulary& vocab) : out_(out), vocab_(vocab) {}

  template <typename T>
  void number(const char* name, T x) { out_[name] = x; }
  void boolean(const char* name, bool x) { out_[name] = x; }
  void string(const char* name, const std::string& x) { out_[name] = x; }
  void int_array(const char* name, const std::vector<int>& x) { out_[name] = x; }
  void float_list(const char* name, const std::vector<float>& x) { out_[name] = x; }
  void float32_array(const char* name, const std::vector<float>& x) { out_[name] = x; }
  void uint8_array(const char* name, const std::vector<uint8_t>& x) { out_[name] = x; }
  void token(const char* name, const char* text_name, int id) {
    out_[name] = id;
    out_[text_name] = vocab_.token(id);
  }
  void tokens(const char* name, const char* texts_name, const std::vector<int>& ids) {
    out_[name] = ids;
    nlohmann::json texts = nlohmann::json::array();
    for (int id : ids) texts.push_back(vocab_.token(id));
    out_[texts_name] = std::move(texts);
  }
  template <typename T>
  void list(const char* name, const std::vector<T>& xs) {
    nlohmann::json a = nlohmann::json::array();
    for (const T& x : xs) a.push_back(object(x, vocab_));
    out_[name] = std::move(a);
  }

  template <typename T>
  void record(const char* name, const T& x) { out_[name] = object(x, vocab_); }

  template <typename T, typename... Context>
  static nlohmann::json object(const T& x, const Vocabulary& vocab, Context... context) {
    nlohmann::json o = nlohmann::json::object();
    JsonWriter w(o, vocab);
    visit_fields(x, w, context...);
    return o;
  }

 private:
  nlohmann::json& out_;
  const Vocabulary& vocab_;
};

// The writer visit_fields() drives to write one JSON object straight to a stream: nothing is
// built but each scalar (a json value that allocates nothing, but for a string), which
// nlohmann's own serializer writes, so that numbers read as dump() writes them.
class JsonStream {
 public:
  JsonStream(std::ostream& out, const Vocabulary& vocab)
      : out_(out), vocab_(vocab), serializer_(nlohmann::detail::output_adapter<char>(out), ' ') {}

  template <typename T>
  void number(const char* name, T x) { key(name); value(x); }
  void boolean(const char* name, bool x) { key(name); value(x); }
  void string(const char* name, const std::string& x) { key(name); value(x); }
  void int_array(const char* name, const std::vector<int>& x) { key(name); array(x); }
  void float_list(const char* name, const std::vector<float>& x) { key(name); array(x); }
  void float32_array(const char* name, const std::vector<float>& x) { key(name); array(x); }
  void uint8_array(const char* name, const std::vector<uint8_t>& x) { key(name); array(x); }
  void token(const char* name, const char* text_name, int id) {
    number(name, id);
    string(text_name, vocab_.token(id));
  }
  void tokens(const char* name, const char* texts_name, const std::vector<int>& ids) {
    int_array(name, ids);
    key(texts_name);
    out_ << '[';
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) out_ << ',';
      value(vocab_.token(ids[i]));
    }
    out_ << ']';
  }
  template <typename T>
  void list(const char* name, const std::vector<T>& xs) {
    key(name);
    out_ << '[';
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i) out_ << ',';
      object(xs[i]);
    }
    out_ << ']';
  }
  template <typename T>
  void record(const char* name, const T& x) {
    key(name);
    object(x);
  }

  template <typename T>
  void object(const T& x) {
    out_ << '{';
    const bool outer = first_;
    first_ = true;
    visit_fields(x, *this);
    first_ = outer;
    out_ << '}';
  }

 private:
  // The names are the schema's camelCase identifiers: nothing in them to escape.
  void key(const char* name) {
    if (!first_) out_ << ',';
    first_ = false;
    out_ << '"' << name << "\":";
  }
  template <typename T>
  void value(const T& x) { serializer_.dump(nlohmann::json(x), false, false, 0); }
  void value(float x) { serializer_.dump(nlohmann::json(static_cast<double>(x)), false, false, 0); }
  template <typename T>
  void array(const std::vector<T>& xs) {
    out_ << '[';
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i) out_ << ',';
      value(xs[i]);
    }
    out_ << ']';
  }

  std::ostream& out_;
  const Vocabulary& vocab_;
  nlohmann::detail::serializer<nlohmann::json> serializer_;
  bool first_ = true;
};

}  // namespace

nlohmann::json to_json(const Snapshot& s, const Vocabulary& v) { return JsonWriter::object(s, v); }
nlohmann::json to_json(const Result& r, const Vocabulary& v) { return JsonWriter::object(r, v); }
nlohmann::json to_json(const ForcedScore& f, const Vocabulary& v, bool autoregressive) {
  return JsonWriter::object(f, v, autoregressive);
}
void write_json(std::ostream& out, const StepInside& s, const Vocabulary& v) { JsonStream(out, v).object(s); }

}  // namespace seq2seq
