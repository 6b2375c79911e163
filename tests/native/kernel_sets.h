// The kernels the tests hold to their scalar twins: every kernel set this build
// carries that this CPU runs (kernel_set.h), whichever one the engine picked.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kernel_set.h"

namespace seq2seq::testing {

struct NamedLinear {
  std::string isa;
  std::function<void(const Linear&, const LinearArgs&)> run;
};
struct NamedAttention {
  std::string isa;
  void (*run)(const AttentionHeadArgs&);
};
struct NamedGemm {
  std::string isa;
  void (*run)(const train::GemmArgs&);
};

inline std::vector<NamedLinear> simd_linear_kernels() {
  std::vector<NamedLinear> out;
  for (const KernelSet* k : runnable_kernel_sets())
    out.push_back({k->isa, [k](const Linear& w, const LinearArgs& a) { linear_with(*k, w, a); }});
  return out;
}

inline std::vector<NamedAttention> simd_attention_kernels() {
  std::vector<NamedAttention> out;
  for (const KernelSet* k : runnable_kernel_sets()) out.push_back({k->isa, k->attention_head});
  return out;
}

inline std::vector<NamedGemm> simd_gemm_kernels() {
  std::vector<NamedGemm> out;
  for (const KernelSet* k : runnable_kernel_sets()) out.push_back({k->isa, k->gemm});
  return out;
}

// The scalar twin first, then every instruction set's.
inline std::vector<NamedLinear> all_linear_kernels() {
  std::vector<NamedLinear> out{{"scalar", linear_kernel_scalar}};
  for (auto& k : simd_linear_kernels()) out.push_back(k);
  return out;
}
inline std::vector<NamedAttention> all_attention_kernels() {
  std::vector<NamedAttention> out{{"scalar", attention_head_scalar}};
  for (auto& k : simd_attention_kernels()) out.push_back(k);
  return out;
}

}  // namespace seq2seq::testing
