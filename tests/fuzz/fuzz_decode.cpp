// Decoding: small fixture models (autoregressive f32 and int8, CMLM, RNN), the
// source text and every decoding option taken from the fuzz input, out-of-range
// values included (validate() must refuse them). A session decodes up to two
// sources, with new options in between, and each decode is checked
// (fuzz_common.h: it ends, its tokens are in the vocabulary, its scores are numbers).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "fuzz_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace seq2seq_fuzz;
  FuzzedDataProvider in(bytes, size);
  const auto& model = models()[in.ConsumeIntegralInRange<size_t>(0, models().size() - 1)];
  seq2seq::DecodingOptions first = fuzzed_options(in, *model);
  seq2seq::DecodingOptions second = fuzzed_options(in, *model);
  cap_work(first);
  cap_work(second);
  const bool raw = in.ConsumeIntegralInRange(0, 3) == 0;
  std::string source1 = in.ConsumeRandomLengthString(48);
  std::string source2 = in.ConsumeRemainingBytesAsString();
  if (!raw) {
    source1 = seq2seq_fuzz::mostly_valid_source(source1, model->source_vocab());
    source2 = seq2seq_fuzz::mostly_valid_source(source2, model->source_vocab());
  }
  if (std::getenv("SEQ2SEQ_FUZZ_VERBOSE")) {  // to read a finding: what was decoded, and how
    seq2seq_fuzz::print_options(first);
    seq2seq_fuzz::print_options(second);
    std::fprintf(stderr, "model %s sources '%s' '%s'\n", model->config().name.c_str(), source1.c_str(), source2.c_str());
  }
  std::unique_ptr<seq2seq::Session> session;
  try {
    session = std::make_unique<seq2seq::Session>(model, first);
  } catch (const seq2seq::Error&) {
    return 0;
  }
  // Each call on its own: a session must stay usable after any of them fails.
  try {
    seq2seq_fuzz::decode_checked(*model, *session, source1);
  } catch (const seq2seq::Error&) {
  }
  try {
    session->set_options(second);
  } catch (const seq2seq::Error&) {
  }
  try {
    seq2seq_fuzz::decode_checked(*model, *session, source2);
  } catch (const seq2seq::Error&) {
  }
  return 0;
}
