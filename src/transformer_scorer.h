// The special target ids search needs, from a model's configuration.
#pragma once
#include "model_config.h"
#include "scorer.h"

namespace seq2seq {

TargetSpecials target_specials(const ModelConfig& config);


}  // namespace seq2seq
