// The largest model and the longest text the engine accepts, in one place (not
// named limits.h, which would shadow the C header of that name on the include
// path). Each model bound sits far above any model this project writes (a real
// header is ~20 KB, a shipped model 4 MB) and low enough that no file, however
// crafted, makes the loader allocate or compute more than its bytes justify.
// docs/model-format.md ("Limits") mirrors this table, with the error each bound
// gives; every model bound is a ModelError. The npm package's JS reads the same
// numbers from wasm/src/limits.js, which scripts/gen-limits.mjs writes from here.
#pragma once
#include <cstdint>

namespace seq2seq {
namespace limits {

// The whole file. The wasm heap is capped at 1 GB, so a model near this size
// loads natively only.
constexpr uint64_t kMaxModelBytes = uint64_t{1} << 30;
// The JSON header, in bytes and in nesting depth (a real header nests 3 deep:
// the header object, a tensor entry, its shape). Both are checked before the
// header is parsed, so a hostile header costs no more than a scan of its bytes.
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;
constexpr int kMaxJsonDepth = 16;
constexpr int kMaxTensors = 8192;
constexpr int kMaxTensorRank = 8;

// Config values (model_config.cpp).
constexpr int kMaxWidth = 4096;      // d_model; the RNN's emb_dim, enc_hidden, dec_hidden, attn_dim
constexpr int kMaxHeads = 256;
constexpr int kMaxFeedForward = 16384;  // d_ff
constexpr int kMaxLayers = 64;       // Transformer encoder and decoder layers
constexpr int kMaxRnnLayers = 4;     // bidirectional GRU layers
constexpr int kMaxPositions = 4096;  // max_pos: the longest source and target
constexpr int kMaxVocab = 65536;     // entries in each vocabulary

// Texts: a source, a forced-score target, a prefix, a list of tokens, in bytes of
// UTF-8 (an InputError; a UsageError for the prefix option). Four times the
// longest source any model reads (kMaxPositions characters of up to 4 bytes), so
// no text a model could take is refused, and low enough that a text is never a
// reason for the wasm heap to grow: the JS wrapper refuses a longer string before
// it is copied into the heap, the CLI a longer line before it is held.
constexpr uint64_t kMaxTextBytes = uint64_t{1} << 16;

// The inside of one pass (Model::inspect: `seq2seq inspect`, `--trace-inside`,
// Model.inspect in JS) keeps every intermediate, and what it keeps grows with
// layers x heads x L^2 (every attention's scores, scaled scores and weights)
// besides layers x L x d: a model within every bound above, read at its longest,
// would keep ~10^12 numbers. Model::inspect counts the numbers the pass would
// keep (Network::inside_values, exact, from the model's shapes and the two
// lengths) and refuses more than this with an InputError before computing
// anything: 2^24 numbers, 64 MB as float32 (the JSON of them is ~200 MB). A
// shipped model at its longest (48 positions, 3 + 3 layers of 4 heads, d 256)
// keeps 2.1 million, an eighth of it.
constexpr uint64_t kMaxInsideValues = uint64_t{1} << 24;

}  // namespace limits
}  // namespace seq2seq
