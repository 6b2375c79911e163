// Counts heap allocations (operator new) made by this thread while an
// AllocationCount lives: the trainer promises that a step allocates nothing
// (every buffer is sized when the model is built), and the tests hold it to that.
// The test binary replaces the global operator new and delete with malloc and
// free plus this count (allocation_count.cpp); outside a count they only forward.
#pragma once

namespace seq2seq_test {

class AllocationCount {
 public:
  AllocationCount();
  ~AllocationCount();
  AllocationCount(const AllocationCount&) = delete;
  AllocationCount& operator=(const AllocationCount&) = delete;
  long count() const;  // allocations since this count began (nested counts included)

 private:
  long start_;
};

}  // namespace seq2seq_test
