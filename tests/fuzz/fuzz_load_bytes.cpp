// The model loader from raw bytes: Model::from_buffer must answer any byte
// sequence with a model or a ModelError, within the time and memory limits the
// fuzzer is run with (README.md). Seeds: the fixture models and small hand-made
// containers (corpus/load_bytes/).
#include <cstddef>
#include <cstdint>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Both ways of multiplying: the int8 kernels read the stored int8 weights and
  // scales directly, f32 widens them; the size's parity picks one.
  const seq2seq::Compute compute = size % 2 ? seq2seq::Compute::Auto : seq2seq::Compute::F32;
  try {
    auto model = seq2seq::Model::from_buffer(data, size, compute);
    (void)model->parameter_count();
  } catch (const seq2seq::Error&) {
  }
  return 0;
}
