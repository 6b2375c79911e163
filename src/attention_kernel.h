// The attention core for one head: scaled Q·Kᵀ, masking, a numerically stable
// softmax and the weighted sum of V. Written once over SIMDe (attention_kernel_simd.cpp),
// which compiles to wasm simd128 in the browser and to SSE/AVX or NEON natively,
// and once as plain scalar C++ (attention_kernel_scalar.cpp), the reference the
// tests hold the SIMD version to. Projections and everything else live in Eigen.
#pragma once

namespace seq2seq {

// All matrices are row-major with an explicit leading dimension (row stride in
// floats), so a head is just a column slice of the [T x d_model] projections:
// q = Q + h*dh with ldq = d_model.
struct AttentionHeadArgs {
  const float* q = nullptr; int ldq = 0;  // [n_q x dh]
  const float* k = nullptr; int ldk = 0;  // [n_k x dh]
  const float* v = nullptr; int ldv = 0;  // [n_k x dh]
  float* out = nullptr; int ldo = 0;      // [n_q x dh], overwritten
  float* probs = nullptr; int ldp = 0;    // optional [n_q x n_k] attention weights; nullptr: not written
  float* scratch = nullptr;               // n_k floats of caller-owned scratch
  int n_q = 0, n_k = 0, dh = 0;
  float scale = 1.0f;                     // usually 1/sqrt(dh)
  int n_k_valid = -1;                     // keys j >= n_k_valid are masked (source padding); -1: all valid
  int causal_offset = -1;                 // >= 0: query i sees only keys j <= i + causal_offset; -1: no causal mask
};

// Masked keys get probability exactly 0. A query row whose keys are all masked
// gets zero probabilities and a zero output (it cannot happen with the masks the
// engine builds, but the kernel must not divide by zero if it does).
void attention_head_scalar(const AttentionHeadArgs& a);
void attention_head_simd(const AttentionHeadArgs& a);  // the engine's kernel set's (kernel_set.h)

// Which kernel the engine calls; the scalar one stays for tests and benchmarks.
inline void attention_head(const AttentionHeadArgs& a) { attention_head_simd(a); }

}  // namespace seq2seq
