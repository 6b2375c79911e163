#pragma once
// The numbers a StepInside keeps, counted as visit_fields shows its arrays to a writer: the
// count Network::inside_values must give from the shapes alone (held to it by
// tests/native/test_step_inside.cpp and the inspect fuzz target).

#include <cstdint>
#include <string>
#include <vector>

#include "snapshot.h"
#include "snapshot_fields.h"

namespace seq2seq {

struct InsideValueCounter {
  uint64_t n = 0;
  template <typename T>
  void number(const char*, T) {}
  void boolean(const char*, bool) {}
  void string(const char*, const std::string&) {}
  void int_array(const char*, const std::vector<int>&) {}
  void float_list(const char*, const std::vector<float>& x) { n += x.size(); }
  void float32_array(const char*, const std::vector<float>& x) { n += x.size(); }
  void uint8_array(const char*, const std::vector<uint8_t>& x) { n += x.size(); }
  void token(const char*, const char*, int) {}
  void tokens(const char*, const char*, const std::vector<int>&) {}
  template <typename T>
  void list(const char*, const std::vector<T>& xs) {
    for (const T& x : xs) visit_fields(x, *this);
  }
  template <typename T>
  void record(const char*, const T& x) { visit_fields(x, *this); }
};

inline uint64_t values_kept(const StepInside& inside) {
  InsideValueCounter c;
  visit_fields(inside, c);
  return c.n;
}

}  // namespace seq2seq
