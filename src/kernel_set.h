// The SIMD kernels, one set per instruction set this build carries, and the
// one the engine runs. linear_kernel_simd.cpp, attention_kernel_simd.cpp and the
// trainer's train/gemm_kernel_simd.cpp are written once over SIMDe; a portable x86-64 build compiles them three times
// (SSE2, SSE4.1, AVX2+FMA: CMakeLists.txt), each copy in its own namespace, and
// picks the best one this CPU runs the first time a kernel is needed
// (CTranslate2 and onnxruntime choose theirs the same way). Other builds (wasm,
// arm64, -march=native) carry one set, compiled for their target.
#pragma once
#include <cstdint>
#include <vector>

#include "attention_kernel.h"
#include "linear_kernel.h"
#include "train/gemm_kernel.h"

// The namespace a kernel source compiles into: each instruction set's copy
// names its own (CMakeLists.txt), the build's own target is isa_base.
#if !defined(SEQ2SEQ_KERNEL_NS)
#  define SEQ2SEQ_KERNEL_NS isa_base
#endif

namespace seq2seq {

struct KernelSet {
  const char* isa;  // "avx2", "sse4.1", "sse2", "simd128", "neon", or "portable" (SIMDe's plain C)
  // y = x Wᵀ + b (linear_kernel.h); for int8 weights `q` holds m rows of in4
  // int16 and `s` m floats of scratch, the caller's.
  void (*linear)(const Linear& w, const LinearArgs& a, int16_t* q, float* s);
  void (*attention_head)(const AttentionHeadArgs& a);
  // The trainer's f32 product (train/gemm_kernel.h).
  void (*gemm)(const train::GemmArgs& g);
};

// Every set this build carries, and those of them this CPU can run, the fastest first.
const std::vector<const KernelSet*>& carried_kernel_sets();
const std::vector<const KernelSet*>& runnable_kernel_sets();

// The set the engine uses, chosen once: the fastest runnable one, or the one the
// environment variable SEQ2SEQ_ISA names. A name this build does not carry, or
// one this CPU cannot run, is a UsageError that lists the names it can.
const KernelSet& kernels();

// The linear product with a given set (the scratch is allocated here, so that
// the instruction-set copies hold no standard-library code of their own).
void linear_with(const KernelSet& k, const Linear& w, const LinearArgs& a);

}  // namespace seq2seq
