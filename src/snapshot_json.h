// Snapshots, results and forced scores as JSON (the CLI's --trace lines): the
// fields and names of the module's JS objects (src/snapshot_fields.h), typed
// arrays as arrays of numbers. Token ids come with their texts.
#pragma once
#include <nlohmann/json.hpp>

#include "snapshot.h"
#include "vocabulary.h"

namespace seq2seq {

nlohmann::json to_json(const Snapshot& s, const Vocabulary& target_vocab);
nlohmann::json to_json(const Result& r, const Vocabulary& target_vocab);
nlohmann::json to_json(const ForcedScore& f, const Vocabulary& target_vocab, bool autoregressive);
nlohmann::json to_json(const StepInside& s, const Vocabulary& target_vocab);

}  // namespace seq2seq
