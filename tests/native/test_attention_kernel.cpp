// The attention kernels: each instruction set's SIMD copy (kernel_sets.h) is held
// to the scalar one over many
// random shapes, and the scalar one is held to a naive double-precision
// softmax attention written here, so the reference is not only checked against
// itself.
#include <catch2/catch.hpp>

#include "attention_kernel.h"
#include "kernel_sets.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using seq2seq::AttentionHeadArgs;
using seq2seq::attention_head_scalar;
using seq2seq::attention_head_simd;
using seq2seq::testing::all_attention_kernels;
using seq2seq::testing::simd_attention_kernels;

namespace {

// Own generator so that native and wasm runs (libstdc++ vs libc++) draw the
// same cases.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int uniform_int(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>((next() >> 40) * (1.0 / 16777216.0)); }
  bool coin(int percent) { return uniform_int(0, 99) < percent; }
};

struct Problem {
  int n_q = 1, n_k = 1, dh = 1;
  int ldq = 1, ldk = 1, ldv = 1, ldo = 1, ldp = 1;
  float scale = 1.0f;
  int n_k_valid = -1, causal_offset = -1;
  bool with_probs = true;
  std::vector<float> q, k, v;

  std::string describe() const {
    return "n_q=" + std::to_string(n_q) + " n_k=" + std::to_string(n_k) + " dh=" + std::to_string(dh) +
           " ldq=" + std::to_string(ldq) + " ldk=" + std::to_string(ldk) + " ldv=" + std::to_string(ldv) +
           " ldo=" + std::to_string(ldo) + " ldp=" + std::to_string(ldp) + " scale=" + std::to_string(scale) +
           " n_k_valid=" + std::to_string(n_k_valid) + " causal_offset=" + std::to_string(causal_offset) +
           " probs=" + (with_probs ? "yes" : "no");
  }
};

// Exactly (rows - 1) * ld + cols floats, so a kernel reading past the last row
// is caught by sanitizers.
std::vector<float> strided(int rows, int cols, int ld, Rng& rng, float magnitude) {
  std::vector<float> m(rows == 0 ? 0 : static_cast<std::size_t>(rows - 1) * ld + cols);
  for (float& x : m) x = rng.uniform(-magnitude, magnitude);
  return m;
}

void fill(Problem& p, Rng& rng, float magnitude = 1.0f) {
  p.q = strided(p.n_q, p.dh, p.ldq, rng, magnitude);
  p.k = strided(p.n_k, p.dh, p.ldk, rng, magnitude);
  p.v = strided(p.n_k, p.dh, p.ldv, rng, 1.0f);
}

Problem random_problem(Rng& rng) {
  Problem p;
  p.dh = rng.uniform_int(1, 130);
  p.n_k = rng.coin(20) ? rng.uniform_int(1, 9) : rng.uniform_int(1, 300);
  p.n_q = rng.uniform_int(1, 20);
  p.ldq = p.dh + (rng.coin(50) ? rng.uniform_int(1, 70) : 0);
  p.ldk = p.dh + (rng.coin(50) ? rng.uniform_int(1, 70) : 0);
  p.ldv = p.dh + (rng.coin(50) ? rng.uniform_int(1, 70) : 0);
  p.ldo = p.dh + (rng.coin(50) ? rng.uniform_int(1, 9) : 0);
  p.ldp = p.n_k + (rng.coin(50) ? rng.uniform_int(1, 9) : 0);
  p.scale = 1.0f / std::sqrt(static_cast<float>(p.dh)) * rng.uniform(0.5f, 3.0f);
  p.n_k_valid = rng.coin(40) ? rng.uniform_int(0, p.n_k + 3) : -1;
  p.causal_offset = rng.coin(40) ? rng.uniform_int(0, p.n_k) : -1;
  p.with_probs = rng.coin(60);
  fill(p, rng, rng.coin(20) ? 4.0f : 1.0f);
  return p;
}

bool is_masked(const Problem& p, int i, int j) {
  if (p.n_k_valid >= 0 && j >= p.n_k_valid) return true;
  if (p.causal_offset >= 0 && static_cast<long long>(j) > static_cast<long long>(i) + p.causal_offset) return true;
  return false;
}

struct Result {
  std::vector<float> out, probs;
};

constexpr float kSentinel = 12345.5f;

Result run(const Problem& p, void (*kernel)(const AttentionHeadArgs&)) {
  Result r;
  r.out.assign(static_cast<std::size_t>(p.n_q) * p.ldo, kSentinel);
  if (p.with_probs) r.probs.assign(static_cast<std::size_t>(p.n_q) * p.ldp, kSentinel);
  std::vector<float> scratch(p.n_k);
  AttentionHeadArgs a;
  a.q = p.q.data(); a.ldq = p.ldq;
  a.k = p.k.data(); a.ldk = p.ldk;
  a.v = p.v.data(); a.ldv = p.ldv;
  a.out = r.out.data(); a.ldo = p.ldo;
  a.probs = p.with_probs ? r.probs.data() : nullptr; a.ldp = p.ldp;
  a.scratch = scratch.data();
  a.n_q = p.n_q; a.n_k = p.n_k; a.dh = p.dh;
  a.scale = p.scale;
  a.n_k_valid = p.n_k_valid;
  a.causal_offset = p.causal_offset;
  kernel(a);
  return r;
}

// Softmax attention straight from the definition, in double.
struct Reference {
  std::vector<double> out, probs;  // dense [n_q x dh], [n_q x n_k]
};

Reference naive_attention(const Problem& p) {
  Reference ref;
  ref.out.assign(static_cast<std::size_t>(p.n_q) * p.dh, 0.0);
  ref.probs.assign(static_cast<std::size_t>(p.n_q) * p.n_k, 0.0);
  for (int i = 0; i < p.n_q; ++i) {
    std::vector<double> s(p.n_k, 0.0);
    double m = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (int j = 0; j < p.n_k; ++j) {
      if (is_masked(p, i, j)) continue;
      double dot = 0.0;
      for (int d = 0; d < p.dh; ++d)
        dot += static_cast<double>(p.q[static_cast<std::size_t>(i) * p.ldq + d]) * p.k[static_cast<std::size_t>(j) * p.ldk + d];
      s[j] = static_cast<double>(p.scale) * dot;
      m = std::max(m, s[j]);
      any = true;
    }
    if (!any) continue;
    double sum = 0.0;
    for (int j = 0; j < p.n_k; ++j)
      if (!is_masked(p, i, j)) sum += std::exp(s[j] - m);
    for (int j = 0; j < p.n_k; ++j) {
      if (is_masked(p, i, j)) continue;
      const double pj = std::exp(s[j] - m) / sum;
      ref.probs[static_cast<std::size_t>(i) * p.n_k + j] = pj;
      for (int d = 0; d < p.dh; ++d)
        ref.out[static_cast<std::size_t>(i) * p.dh + d] += pj * p.v[static_cast<std::size_t>(j) * p.ldv + d];
    }
  }
  return ref;
}

struct Errors {
  double out = 0, probs = 0;
  bool padding_intact = true;
  bool finite = true;
};

Errors compare(const Problem& p, const Result& r, const std::vector<double>& out, const std::vector<double>& probs) {
  Errors e;
  for (int i = 0; i < p.n_q; ++i) {
    for (int d = 0; d < p.ldo; ++d) {
      const float x = r.out[static_cast<std::size_t>(i) * p.ldo + d];
      if (d >= p.dh) { e.padding_intact &= (x == kSentinel); continue; }
      e.finite &= std::isfinite(x);
      e.out = std::max(e.out, std::abs(x - out[static_cast<std::size_t>(i) * p.dh + d]));
    }
    if (!p.with_probs) continue;
    for (int j = 0; j < p.ldp; ++j) {
      const float x = r.probs[static_cast<std::size_t>(i) * p.ldp + j];
      if (j >= p.n_k) { e.padding_intact &= (x == kSentinel); continue; }
      e.finite &= std::isfinite(x);
      e.probs = std::max(e.probs, std::abs(x - probs[static_cast<std::size_t>(i) * p.n_k + j]));
    }
  }
  return e;
}

// The scalar result, densely packed in double, as the expected value for the SIMD one.
void as_expected(const Problem& p, const Result& r, std::vector<double>& out, std::vector<double>& probs) {
  out.assign(static_cast<std::size_t>(p.n_q) * p.dh, 0.0);
  probs.assign(static_cast<std::size_t>(p.n_q) * p.n_k, 0.0);
  for (int i = 0; i < p.n_q; ++i) {
    for (int d = 0; d < p.dh; ++d) out[static_cast<std::size_t>(i) * p.dh + d] = r.out[static_cast<std::size_t>(i) * p.ldo + d];
    if (p.with_probs)
      for (int j = 0; j < p.n_k; ++j) probs[static_cast<std::size_t>(i) * p.n_k + j] = r.probs[static_cast<std::size_t>(i) * p.ldp + j];
  }
}

// Every instruction set's copy against the scalar twin.
void check_simd_against_scalar(const Problem& p) {
  INFO(p.describe());
  const Result scalar = run(p, attention_head_scalar);
  std::vector<double> out, probs;
  as_expected(p, scalar, out, probs);
  for (const auto& kernel : simd_attention_kernels()) {
    INFO(kernel.isa);
    const Result simd = run(p, kernel.run);
    const Errors e = compare(p, simd, out, probs);
    CHECK(e.out <= 1e-5);
    CHECK(e.probs <= 1e-5);
    CHECK(e.padding_intact);
    CHECK(e.finite);
  }
}

void check_against_naive(const Problem& p, void (*kernel)(const AttentionHeadArgs&), double tol) {
  INFO(p.describe());
  const Result r = run(p, kernel);
  const Reference ref = naive_attention(p);
  const Errors e = compare(p, r, ref.out, ref.probs);
  CHECK(e.out <= tol);
  CHECK(e.probs <= tol);
  CHECK(e.padding_intact);
  CHECK(e.finite);
}

}  // namespace

TEST_CASE("attention SIMD matches scalar on random shapes", "[attention]") {
  Rng rng(20240601);
  for (int c = 0; c < 600; ++c) check_simd_against_scalar(random_problem(rng));
}

TEST_CASE("attention SIMD matches scalar for every head dim 1..130", "[attention]") {
  Rng rng(7);
  for (int dh = 1; dh <= 130; ++dh) {
    for (int n_k : {1, 3, 4, 5, 8, 13, 64, 67}) {
      Problem p;
      p.dh = dh;
      p.n_k = n_k;
      p.n_q = 5;
      p.ldq = dh + 3; p.ldk = dh + 1; p.ldv = dh + 5; p.ldo = dh + 2; p.ldp = n_k + 1;
      p.scale = 1.0f / std::sqrt(static_cast<float>(dh));
      p.causal_offset = (dh % 3 == 0) ? 1 : -1;
      p.n_k_valid = (dh % 5 == 0) ? n_k - 1 : -1;
      p.with_probs = (dh % 2 == 0);
      fill(p, rng, 2.0f);
      check_simd_against_scalar(p);
    }
  }
}

TEST_CASE("attention SIMD matches scalar on long sequences", "[attention]") {
  Rng rng(99);
  for (int L : {255, 256, 257, 300}) {
    for (int dh : {32, 64, 128}) {
      Problem p;
      p.dh = dh; p.n_k = L; p.n_q = (L == 256) ? L : 20;
      p.ldq = p.ldk = p.ldv = 4 * dh; p.ldo = dh; p.ldp = L;
      p.scale = 1.0f / std::sqrt(static_cast<float>(dh));
      p.causal_offset = (L == 256) ? 0 : -1;
      fill(p, rng, 2.0f);
      check_simd_against_scalar(p);
    }
  }
}

TEST_CASE("attention scalar reference matches naive double softmax attention", "[attention]") {
  Rng rng(12345);
  for (int c = 0; c < 200; ++c) check_against_naive(random_problem(rng), attention_head_scalar, 1e-5);
}

TEST_CASE("attention SIMD matches naive double softmax attention", "[attention]") {
  Rng rng(54321);
  for (int c = 0; c < 200; ++c) {
    const Problem p = random_problem(rng);
    for (const auto& kernel : simd_attention_kernels()) {
      INFO(kernel.isa);
      check_against_naive(p, kernel.run, 1e-5);
    }
  }
}

TEST_CASE("attention on a hand-computed case", "[attention]") {
  // Two keys with scores 0 and ln 3 (scale 1): probabilities 1/4 and 3/4.
  const float ln3 = std::log(3.0f);
  const std::vector<float> q = {1.0f, 0.0f};
  const std::vector<float> k = {0.0f, 5.0f, ln3, -2.0f};
  const std::vector<float> v = {4.0f, -8.0f, 8.0f, 4.0f};
  for (const auto& named : all_attention_kernels()) {
    const auto kernel = named.run;
    INFO(named.isa);
    float out[2], probs[2], scratch[2];
    AttentionHeadArgs a;
    a.q = q.data(); a.ldq = 2; a.k = k.data(); a.ldk = 2; a.v = v.data(); a.ldv = 2;
    a.out = out; a.ldo = 2; a.probs = probs; a.ldp = 2; a.scratch = scratch;
    a.n_q = 1; a.n_k = 2; a.dh = 2; a.scale = 1.0f;
    kernel(a);
    CHECK(probs[0] == Approx(0.25).margin(1e-6));
    CHECK(probs[1] == Approx(0.75).margin(1e-6));
    CHECK(out[0] == Approx(7.0).margin(1e-5));   // 0.25*4 + 0.75*8
    CHECK(out[1] == Approx(1.0).margin(1e-5));   // 0.25*-8 + 0.75*4
  }
}

TEST_CASE("attention masked keys get probability exactly zero and are never read", "[attention]") {
  Rng rng(3);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& named : all_attention_kernels()) {
    const auto kernel = named.run;
    INFO(named.isa);
    for (int n_k_valid : {1, 2, 5, 17, 40}) {
      for (int causal : {-1, 0, 3}) {
        Problem p;
        p.dh = 19; p.n_k = 41; p.n_q = 9;
        p.ldq = p.ldk = p.ldv = p.ldo = 19; p.ldp = 41;
        p.scale = 0.3f;
        p.n_k_valid = n_k_valid;
        p.causal_offset = causal;
        fill(p, rng, 1.0f);
        // Padding keys hold NaN: touching them would poison the row.
        for (int j = n_k_valid; j < p.n_k; ++j)
          for (int d = 0; d < p.dh; ++d) {
            p.k[static_cast<std::size_t>(j) * p.ldk + d] = nan;
            p.v[static_cast<std::size_t>(j) * p.ldv + d] = nan;
          }
        INFO(p.describe());
        const Result r = run(p, kernel);
        bool masked_zero = true, finite = true;
        for (int i = 0; i < p.n_q; ++i) {
          double sum = 0.0;
          for (int j = 0; j < p.n_k; ++j) {
            const float x = r.probs[static_cast<std::size_t>(i) * p.ldp + j];
            if (is_masked(p, i, j)) masked_zero &= (x == 0.0f);
            finite &= std::isfinite(x);
            sum += x;
          }
          CHECK(sum == Approx(1.0).margin(1e-5));
          for (int d = 0; d < p.dh; ++d) finite &= std::isfinite(r.out[static_cast<std::size_t>(i) * p.ldo + d]);
        }
        CHECK(masked_zero);
        CHECK(finite);
        const Reference ref = naive_attention(p);
        CHECK(compare(p, r, ref.out, ref.probs).out <= 1e-5);
      }
    }
  }
}

TEST_CASE("attention rows with every key masked give zero probabilities and zero output", "[attention]") {
  Rng rng(4);
  for (const auto& named : all_attention_kernels()) {
    const auto kernel = named.run;
    INFO(named.isa);
    for (int dh : {1, 4, 7, 64}) {
      for (int n_k : {0, 1, 9}) {
        Problem p;
        p.dh = dh; p.n_k = n_k; p.n_q = 3;
        p.ldq = p.ldk = p.ldv = p.ldo = dh; p.ldp = std::max(n_k, 1);
        p.n_k_valid = 0;
        p.causal_offset = (dh == 7) ? 0 : -1;
        fill(p, rng, 1.0f);
        INFO(p.describe());
        const Result r = run(p, kernel);
        CHECK(std::all_of(r.out.begin(), r.out.end(), [](float x) { return x == 0.0f; }));
        for (int i = 0; i < p.n_q; ++i)
          for (int j = 0; j < n_k; ++j) CHECK(r.probs[static_cast<std::size_t>(i) * p.ldp + j] == 0.0f);
      }
    }
  }
}

TEST_CASE("attention with huge logits neither overflows nor produces NaN", "[attention]") {
  Rng rng(5);
  for (const auto& named : all_attention_kernels()) {
    const auto kernel = named.run;
    INFO(named.isa);
    // Integer inputs up to 1e3 with dh <= 16: every score is an integer below
    // 2^24, so exact in float whatever the summation order, and the result can
    // be compared with the double reference even though scores reach ~1e7 and
    // differ by as little as 1 (exp of the raw scores would overflow).
    for (int c = 0; c < 20; ++c) {
      Problem p = random_problem(rng);
      p.dh = rng.uniform_int(1, 16);
      p.ldq = p.ldk = p.ldv = p.ldo = p.dh + c % 3;
      p.scale = 1.0f;
      fill(p, rng, 1.0f);
      for (auto* m : {&p.q, &p.k})
        for (float& x : *m) x = static_cast<float>(rng.uniform_int(-1000, 1000));
      INFO(p.describe());
      const Result r = run(p, kernel);
      const Reference ref = naive_attention(p);
      const Errors e = compare(p, r, ref.out, ref.probs);
      CHECK(e.finite);
      CHECK(e.out <= 1e-5);
      CHECK(e.probs <= 1e-5);
    }
    // Real-valued inputs of magnitude 1e3 and a scale of 1e3: no reference
    // (near-ties make any float rounding visible), but every row must still be a
    // distribution and the output finite.
    for (int c = 0; c < 20; ++c) {
      Problem p = random_problem(rng);
      p.with_probs = true;
      p.n_k_valid = -1;
      p.scale = 1e3f;
      fill(p, rng, 1e3f);
      INFO(p.describe());
      const Result r = run(p, kernel);
      bool ok = true;
      for (int i = 0; i < p.n_q; ++i) {
        double sum = 0.0;
        for (int j = 0; j < p.n_k; ++j) {
          const float x = r.probs[static_cast<std::size_t>(i) * p.ldp + j];
          ok &= std::isfinite(x) && x >= 0.0f && x <= 1.0f;
          sum += x;
        }
        ok &= std::abs(sum - 1.0) <= 1e-5;
        for (int d = 0; d < p.dh; ++d) ok &= std::isfinite(r.out[static_cast<std::size_t>(i) * p.ldo + d]);
      }
      CHECK(ok);
    }
  }
}

// dh = 1, q = 1, scale = 1 makes the scores exactly the key values, so
// probs[j] / probs[0] (key 0 holds the maximum, 0) is exp(key j) up to one
// rounding of the normalisation: a direct check of the exponential.
namespace {
double max_exp_relative_error(void (*kernel)(const AttentionHeadArgs&), const std::vector<float>& xs) {
  const int n = static_cast<int>(xs.size()) + 1;
  std::vector<float> k(n), v(n, 0.0f), probs(n), scratch(n);
  k[0] = 0.0f;
  std::copy(xs.begin(), xs.end(), k.begin() + 1);
  const float one = 1.0f;
  float out = 0.0f;
  AttentionHeadArgs a;
  a.q = &one; a.ldq = 1; a.k = k.data(); a.ldk = 1; a.v = v.data(); a.ldv = 1;
  a.out = &out; a.ldo = 1; a.probs = probs.data(); a.ldp = n; a.scratch = scratch.data();
  a.n_q = 1; a.n_k = n; a.dh = 1; a.scale = 1.0f;
  kernel(a);
  double worst = 0.0;
  for (int j = 1; j < n; ++j) {
    const double expected = std::exp(static_cast<double>(k[j]));
    const double got = static_cast<double>(probs[j]) / probs[0];
    worst = std::max(worst, std::abs(got - expected) / expected);
  }
  return worst;
}
}  // namespace

TEST_CASE("attention softmax exponential is accurate to 1e-6 relative", "[attention]") {
  Rng rng(6);
  std::vector<float> xs(20000);
  // Down to -80 so that exp(x) / sum stays a normal float.
  for (float& x : xs) x = rng.uniform(-80.0f, 0.0f);
  for (int t = 0; t < 2000; ++t) xs[t] = rng.uniform(-1.0f, 0.0f);
  CHECK(max_exp_relative_error(attention_head_scalar, xs) <= 1e-6);
  for (const auto& kernel : simd_attention_kernels()) {
    INFO(kernel.isa);
    CHECK(max_exp_relative_error(kernel.run, xs) <= 1e-6);
  }
}

// Every float in [-80, 0]: about 1.1e9 values, so hidden; run with
// `seq2seq_tests "[.exp-exhaustive]"`. It prints the worst relative error.
TEST_CASE("attention SIMD exponential over every float in [-80, 0]", "[.exp-exhaustive]") {
  const std::uint32_t first = 0x80000000u;                 // -0.0
  std::uint32_t last;                                       // -80.0f
  const float minus80 = -80.0f;
  std::memcpy(&last, &minus80, sizeof last);
  double worst = 0.0;
  std::vector<float> xs;
  xs.reserve(1 << 16);
  for (std::uint64_t bits = first; bits <= last; ++bits) {
    float x;
    const std::uint32_t b = static_cast<std::uint32_t>(bits);
    std::memcpy(&x, &b, sizeof x);
    xs.push_back(x);
    if (xs.size() == xs.capacity() || bits == last) {
      worst = std::max(worst, max_exp_relative_error(attention_head_simd, xs));
      xs.clear();
    }
  }
  WARN("worst relative error of the SIMD exp (incl. 0.5 ulp of normalisation): " << worst);
  CHECK(worst <= 1e-6);
}
