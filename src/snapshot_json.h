// Snapshots, results and forced scores as JSON (the CLI's --trace lines): the
// fields and names of the module's JS objects (src/snapshot_fields.h), typed
// arrays as arrays of numbers. Token ids come with their texts.
#pragma once
#include <ostream>

#include <nlohmann/json.hpp>

#include "snapshot.h"
#include "vocabulary.h"

namespace seq2seq {

nlohmann::json to_json(const Snapshot& s, const Vocabulary& target_vocab);
nlohmann::json to_json(const Result& r, const Vocabulary& target_vocab);
nlohmann::json to_json(const ForcedScore& f, const Vocabulary& target_vocab, bool autoregressive);
// The inside of a pass (`seq2seq inspect`, `--trace-inside`) is written as it is read, never
// held as a JSON document: it can hold millions of numbers (limits::kMaxInsideValues), which as a
// document take four times the memory of the StepInside and more again to dump, and a document
// that fails to allocate half-way allocates again to destroy itself (nlohmann's destructor, which
// ends the process from there). The same fields, names and number format as to_json would give.
void write_json(std::ostream& out, const StepInside& s, const Vocabulary& target_vocab);

}  // namespace seq2seq
