// A small seeded generator (SplitMix64) whose stream is the same on every
// platform: std::uniform_real_distribution is not (libstdc++ natively and
// libc++ in wasm differ), and sampling must reproduce across both.
#pragma once
#include <cstdint>

namespace seq2seq {

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Where the stream stands: Random(state()) continues it exactly (a checkpoint
  // keeps a trainer's generator this way).
  uint64_t state() const { return state_; }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  uint64_t state_;
};

}  // namespace seq2seq
