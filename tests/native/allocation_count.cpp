#include "allocation_count.h"

#include <cstdlib>
#include <new>

namespace {

thread_local long allocations = 0;
thread_local int counting = 0;

void* allocate(std::size_t n) {
  if (counting) ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
// The nothrow forms too (std::stable_partition's temporary buffer takes one): every form
// that a replaced delete may free must come from malloc, or AddressSanitizer reports
// the pair as mismatched.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace seq2seq_test {

AllocationCount::AllocationCount() : start_(allocations) { ++counting; }
AllocationCount::~AllocationCount() { --counting; }
long AllocationCount::count() const { return allocations - start_; }

}  // namespace seq2seq_test
