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

}  // namespace

nlohmann::json to_json(const Snapshot& s, const Vocabulary& v) { return JsonWriter::object(s, v); }
nlohmann::json to_json(const Result& r, const Vocabulary& v) { return JsonWriter::object(r, v); }
nlohmann::json to_json(const ForcedScore& f, const Vocabulary& v, bool autoregressive) {
  return JsonWriter::object(f, v, autoregressive);
}
nlohmann::json to_json(const StepInside& s, const Vocabulary& v) { return JsonWriter::object(s, v); }

}  // namespace seq2seq
