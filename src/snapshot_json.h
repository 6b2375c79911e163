// Snapshots as JSON (the CLI's --trace lines). Token ids come with their text.
#pragma once
#include <nlohmann/json.hpp>

#include "snapshot.h"
#include "vocabulary.h"

namespace seq2seq {

nlohmann::json to_json(const Snapshot& s, const Vocabulary& target_vocab);
nlohmann::json to_json(const Result& r);

}  // namespace seq2seq
