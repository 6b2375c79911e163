// seq2seq train (train_command.cpp).
#pragma once
#include <string>
#include <vector>

namespace seq2seq_cli {

// Runs `seq2seq train ARGS`; returns the exit status. Throws seq2seq::Error
// (UsageError for bad flags and options out of range) as the other commands do.
int train_command(const std::vector<std::string>& args);
// Its usage text.
extern const char* kTrainUsage;

}  // namespace seq2seq_cli
