// Source text -> ids: what is accepted, what is refused and how it is said.
#include <catch2/catch.hpp>

#include "errors.h"
#include "model_limits.h"
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
  // Sixty thousand characters: counted, not turned into sixty thousand strings.
  const Vocabulary v({"<pad>", "<unk>", "A"});
  CHECK_THROWS_MATCHES(tokenize_source(std::string(60'000, 'A'), v, CaseFold::None, 48), InputError,
                       Catch::Message("input: the source has 60000 characters; this model reads at most 48"));
  CHECK_THROWS_MATCHES(tokenize_source(std::string(49, 'A') + "\xc3\xa9", v, CaseFold::None, 49), InputError,
                       Catch::Message("input: the source has 50 characters; this model reads at most 49"));
}

TEST_CASE("a text longer than kMaxTextBytes is refused by its size, before it is copied", "[tokenizer][errors]") {
  const Vocabulary v({"<pad>", "<unk>", "A", "HH"});
  const auto limit = static_cast<size_t>(limits::kMaxTextBytes);
  // At the limit the text is read (and refused by the model's length); one byte over, by the limit.
  CHECK_THROWS_WITH(tokenize_source(std::string(limit, 'A'), v, CaseFold::None, 48), Catch::Contains("this model reads at most 48"));
  CHECK_THROWS_MATCHES(tokenize_source(std::string(limit + 1, ' '), v, CaseFold::None, 48), InputError,
                       Catch::Message("input: the text has 65537 bytes (UTF-8); the longest accepted is 65536"));
  CHECK_THROWS_MATCHES(tokenize_source(std::string(10'000'000, 'A'), v, CaseFold::None, 48), InputError,
                       Catch::Message("input: the text has 10000000 bytes (UTF-8); the longest accepted is 65536"));
  std::string target;
  while (target.size() + 3 <= limit) target += "HH ";
  CHECK(parse_target_tokens(target, v).size() == limit / 3);
  CHECK_THROWS_MATCHES(parse_target_tokens(target + "HH", v), InputError,
                       Catch::Message("input: the target has 65537 bytes (UTF-8); the longest accepted is 65536"));
}

TEST_CASE("a message quotes a bounded prefix of a value, with its size", "[tokenizer][errors]") {
  const Vocabulary v({"<pad>", "HH"});
  // An unknown token of 60,000 bytes: the message holds its first 64 and its size.
  std::string message;
  try {
    parse_target_tokens("HH " + std::string(60'000, 'Q'), v);
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message == "input: target token '" + std::string(64, 'Q') + "...' (60000 bytes) is not in the model's target vocabulary");
  CHECK(quote("HELLO") == "'HELLO'");
  CHECK(quote("A\tB\x1b[31m\xc2\x85") == "'A\\x09B\\x1B[31m\\u0085'");  // TAB, ESC and NEL as escapes
  // Cut at a character boundary: 63 bytes of 'A', then a 2-byte character that would straddle byte 64.
  CHECK(quote(std::string(63, 'A') + "\xc3\x89" + "B") == "'" + std::string(63, 'A') + "...' (66 bytes)");
  CHECK(quote("AB", 1000) == "'AB...' (1000 bytes)");  // the start of a longer value
  // A byte that is no part of a UTF-8 character is an escape too, so that a message stays UTF-8:
  // a stray byte, a truncated sequence, an overlong NUL, a surrogate; characters around them are kept.
  CHECK(quote("A\xff" "B") == "'A\\xFFB'");
  CHECK(quote("\xc3" "A\xc3\x89") == "'\\xC3A\xc3\x89'");
  CHECK(quote("\xc0\x80") == "'\\xC0\\x80'");
  CHECK(quote("\xed\xa0\x80\xf0\x9f\x98\x80") == "'\\xED\\xA0\\x80\xf0\x9f\x98\x80'");
  CHECK(quote(std::string(63, 'A') + "\xc3") == "'" + std::string(63, 'A') + "\\xC3'");
}
