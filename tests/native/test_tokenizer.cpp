// Source text -> ids: what is accepted, what is refused and how it is said.
#include <catch2/catch.hpp>

#include "errors.h"
#include "vocabulary.h"

using namespace seq2seq;

namespace {
Vocabulary letters() { return Vocabulary({"<pad>", "<unk>", "A", "B", "C", "'", "\xc3\x89"}); }  // É
std::string message_of(const std::string& text, CaseFold fold = CaseFold::Upper, int max_len = 8) {
  try {
    tokenize_source(text, letters(), fold, max_len);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("source text is case-folded, trimmed and split into characters", "[tokenizer]") {
  CHECK(tokenize_source("abc", letters(), CaseFold::Upper, 8) == std::vector<int>{2, 3, 4});
  CHECK(tokenize_source("  CaB'\n", letters(), CaseFold::Upper, 8) == std::vector<int>{4, 2, 3, 5});
  CHECK(tokenize_source("A\xc3\x89", letters(), CaseFold::None, 8) == std::vector<int>{2, 6});
}

TEST_CASE("bad source text is refused with a clear message", "[tokenizer]") {
  CHECK_THAT(message_of(""), Catch::Contains("empty"));
  CHECK_THAT(message_of("   \t"), Catch::Contains("empty"));
  CHECK_THAT(message_of("abz"), Catch::Contains("character 'Z' at position 3"));
  CHECK_THAT(message_of("a b"), Catch::Contains("character ' ' at position 2"));
  CHECK_THAT(message_of("a\x01"), Catch::Contains("control character 0x1"));
  CHECK_THAT(message_of("abc", CaseFold::None), Catch::Contains("character 'a' at position 1"));
  CHECK_THAT(message_of("abcabcabc"), Catch::Contains("9 characters") && Catch::Contains("at most 8"));
  CHECK_THAT(message_of("a\xff"), Catch::Contains("not valid UTF-8"));
  CHECK_THAT(message_of("a\xc3"), Catch::Contains("not valid UTF-8"));
  CHECK_THAT(message_of("\xc0\x81"), Catch::Contains("not valid UTF-8"));       // overlong
  CHECK_THAT(message_of("\xed\xa0\x80"), Catch::Contains("not valid UTF-8"));   // surrogate
}

TEST_CASE("target tokens parse and join", "[tokenizer]") {
  Vocabulary v({"<pad>", "HH", "AH", "L", "OW"});
  CHECK(parse_target_tokens("HH AH  L OW", v) == std::vector<int>{1, 2, 3, 4});
  CHECK(join_tokens({1, 2, 3, 4}, v) == "HH AH L OW");
  CHECK_THROWS_WITH(parse_target_tokens("HH XX", v), Catch::Contains("'XX'"));
  CHECK_THROWS_AS(join_tokens({9}, v), InputError);
}

TEST_CASE("a source longer than the model reads is refused by its length, before it is split", "[tokenizer][errors]") {
  // Ten million characters: counted, not turned into ten million strings.
  const Vocabulary v({"<pad>", "<unk>", "A"});
  CHECK_THROWS_MATCHES(tokenize_source(std::string(10'000'000, 'A'), v, CaseFold::None, 48), InputError,
                       Catch::Message("input: the source has 10000000 characters; this model reads at most 48"));
  CHECK_THROWS_MATCHES(tokenize_source(std::string(49, 'A') + "\xc3\xa9", v, CaseFold::None, 49), InputError,
                       Catch::Message("input: the source has 50 characters; this model reads at most 49"));
}
