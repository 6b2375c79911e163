// Which kernel set runs (kernel_set.h): what this build carries, what this CPU
// runs, and SEQ2SEQ_ISA.
#include "kernel_set.h"

#include <cstdlib>
#include <string>

#include "errors.h"

namespace seq2seq {

// Each copy's entry points (linear_kernel_simd.cpp, attention_kernel_simd.cpp).
#define SEQ2SEQ_DECLARE_KERNELS(ns)                                                    \
  namespace ns {                                                                       \
  void linear(const Linear& w, const LinearArgs& a, int16_t* q, float* s);            \
  void attention_head(const AttentionHeadArgs& a);                                     \
  void gemm(const train::GemmArgs& g);                                                 \
  }
SEQ2SEQ_DECLARE_KERNELS(isa_base)
#if defined(SEQ2SEQ_ISA_VARIANTS)  // a portable x86-64 build (CMakeLists.txt)
SEQ2SEQ_DECLARE_KERNELS(isa_sse41)
SEQ2SEQ_DECLARE_KERNELS(isa_avx2)
#endif
#undef SEQ2SEQ_DECLARE_KERNELS

namespace {

// The build's own target, as its compiler flags say (this file gets the same
// flags as isa_base's kernels).
constexpr const char* base_isa_name() {
#if defined(__wasm_simd128__)
  return "simd128";
#elif defined(__AVX2__) && defined(__FMA__)
  return "avx2";
#elif defined(__SSE4_1__)
  return "sse4.1";
#elif defined(__SSE2__) || defined(_M_X64)
  return "sse2";
#elif defined(__ARM_NEON)
  return "neon";
#else
  return "portable";
#endif
}

const KernelSet kBase{base_isa_name(), isa_base::linear, isa_base::attention_head, isa_base::gemm};
#if defined(SEQ2SEQ_ISA_VARIANTS)
const KernelSet kSse41{"sse4.1", isa_sse41::linear, isa_sse41::attention_head, isa_sse41::gemm};
const KernelSet kAvx2{"avx2", isa_avx2::linear, isa_avx2::attention_head, isa_avx2::gemm};
#endif

// Every set this build carries, fastest first, and whether this CPU runs it.
struct Carried {
  const KernelSet* set;
  bool runs;
};
std::vector<Carried> carried_sets() {
  std::vector<Carried> out;
#if defined(SEQ2SEQ_ISA_VARIANTS)
  // __builtin_cpu_supports checks that the OS saves the AVX registers too.
  __builtin_cpu_init();
  out.push_back({&kAvx2, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")});
  out.push_back({&kSse41, static_cast<bool>(__builtin_cpu_supports("sse4.1"))});
#endif
  out.push_back({&kBase, true});
  return out;
}

std::string names(const std::vector<const KernelSet*>& sets) {
  std::string s;
  for (const KernelSet* k : sets) s += (s.empty() ? "" : ", ") + std::string(k->isa);
  return s;
}

const KernelSet& choose() {
#if defined(__EMSCRIPTEN__)
  return kBase;  // one set, and no environment to name another in a browser
#endif
  const char* forced = std::getenv("SEQ2SEQ_ISA");
  const auto& runnable = runnable_kernel_sets();
  if (forced == nullptr || *forced == '\0') return *runnable.front();
  for (const Carried& c : carried_sets()) {
    if (std::string(c.set->isa) != forced) continue;
    if (!c.runs)
      throw UsageError("SEQ2SEQ_ISA=" + std::string(forced) + ": this CPU cannot run it; it runs " + names(runnable));
    return *c.set;
  }
  const std::string shown = std::string(forced).size() > 40 ? std::string(forced).substr(0, 40) + "..." : std::string(forced);
  throw UsageError("SEQ2SEQ_ISA=" + shown + " is not an instruction set this build carries (" + names(carried_kernel_sets()) + ")");
}

}  // namespace

const std::vector<const KernelSet*>& carried_kernel_sets() {
  static const std::vector<const KernelSet*> sets = [] {
    std::vector<const KernelSet*> out;
    for (const Carried& c : carried_sets()) out.push_back(c.set);
    return out;
  }();
  return sets;
}

const std::vector<const KernelSet*>& runnable_kernel_sets() {
  static const std::vector<const KernelSet*> sets = [] {
    std::vector<const KernelSet*> out;
    for (const Carried& c : carried_sets())
      if (c.runs) out.push_back(c.set);
    return out;
  }();
  return sets;
}

const KernelSet& kernels() {
  static const KernelSet& chosen = choose();  // a throw leaves it unset: the next call throws again
  return chosen;
}

void linear_with(const KernelSet& k, const Linear& w, const LinearArgs& a) {
  if (a.m <= 0) return;
  std::vector<int16_t> q;
  std::vector<float> s;
  if (w.type == WeightType::I8) {
    q.resize(static_cast<size_t>(a.m) * static_cast<size_t>(w.in4()));
    s.resize(static_cast<size_t>(a.m));
  }
  k.linear(w, a, q.data(), s.data());
}

void linear_kernel_simd(const Linear& w, const LinearArgs& a) { linear_with(kernels(), w, a); }
void attention_head_simd(const AttentionHeadArgs& a) { kernels().attention_head(a); }
void train::gemm(const train::GemmArgs& g) { kernels().gemm(g); }

std::string kernel_isa() { return kernels().isa; }

}  // namespace seq2seq
