// The int8 tile of the engine's linear kernel three ways, alone, for
// bench/relaxed-dot.mjs (compiled by clang-19 with -msimd128 -mrelaxed-simd):
//
//   pairs  the simd128 tile (src/linear_kernel_simd.cpp, i8_tile): weights
//          widened from int8 to int16 as they load, x as int16, pairwise
//          i32x4.dot_i16x8_s, 8 products per dot.
//   add    one i32x4.relaxed_dot_i8x16_i7x16_add_s per 16 products (x 7-bit).
//   i16    i16x8.relaxed_dot_i8x16_i7x16_s, then i32x4.dot_i16x8_s by a ones
//          vector held in a register and an add (the form the relaxed build took).
//
// One logical int8 matrix per layer, packed in each tile's layout, and one set
// of x rows (0..127, as the 7-bit scheme makes them), so the three tiles compute
// the same integer sums: the script checks that before it times them. Shapes:
// one Transformer layer of the shipped models (q|k|v 768x256, o 256x256, fc1
// 512x256, fc2 256x512); tiles of MR rows (1: a greedy step, 4: beam search)
// by NP panels of 8 outputs.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

#define LAYERS 4
#define MAX_ROWS 4
static const int kOut[LAYERS] = {768, 256, 512, 256}, kIn[LAYERS] = {256, 256, 256, 512};

static int8_t logical[LAYERS][768 * 512];
static int8_t pairs[LAYERS][768 * 512], quads[LAYERS][768 * 512];
static int16_t x16[MAX_ROWS * 512];
static uint8_t x8[MAX_ROWS * 512];
static int32_t y[MAX_ROWS * 768];
static int one = 1;  // read at run time, so that the ones vector is not a constant the compiler rebuilds per use

static uint32_t lcg(uint32_t* s) { return *s = *s * 1103515245u + 12345u; }

// Fills the matrices and x from seed and packs each layout (as src/linear_kernel_pack.cpp does).
void set_up(uint32_t seed) {
  for (int l = 0; l < LAYERS; ++l) {
    const int out = kOut[l], in = kIn[l], groups = in / 4;
    for (int i = 0; i < out * in; ++i) logical[l][i] = (int8_t)((lcg(&seed) >> 16) % 255 - 127);
    for (int o = 0; o < out; ++o)
      for (int k = 0; k < in; ++k) {
        const int p = o / 8, j = o % 8, g = k / 4, c = k % 4;
        int8_t* pb = pairs[l] + ((size_t)p * groups + g) * 32;
        pb[(c < 2 ? 0 : 16) + 2 * j + (c & 1)] = logical[l][o * in + k];
        int8_t* qb = quads[l] + ((size_t)p * groups + g) * 32;
        qb[(j < 4 ? 0 : 16) + 4 * (j % 4) + c] = logical[l][o * in + k];
      }
  }
  for (int i = 0; i < MAX_ROWS * 512; ++i) x16[i] = x8[i] = (uint8_t)((lcg(&seed) >> 16) % 128);
}

int32_t* sums(void) { return y; }
const int8_t* matrix(int l) { return logical[l]; }
const uint8_t* rows(void) { return x8; }

#define STORE(MR, NP)                                        \
  for (int r = 0; r < MR; ++r)                               \
    for (int c = 0; c < 2 * NP; ++c) wasm_v128_store(y + r * 768 + p0 * 8 + c * 4, acc[r][c]);

#define TILE_PAIRS(NAME, MR, NP)                                                                                        \
  static void NAME(const int8_t* w, int K, int p0) {                                                                    \
    const int G = K / 4;                                                                                                \
    v128_t acc[MR][2 * NP];                                                                                             \
    for (int r = 0; r < MR; ++r)                                                                                        \
      for (int c = 0; c < 2 * NP; ++c) acc[r][c] = wasm_i32x4_splat(0);                                                 \
    for (int g = 0; g < G; ++g)                                                                                         \
      for (int n = 0; n < NP; ++n) {                                                                                    \
        const int8_t* b = w + ((size_t)(p0 + n) * G + g) * 32;                                                         \
        for (int h = 0; h < 2; ++h) {                                                                                   \
          const v128_t w01 = wasm_i16x8_load8x8(b + 8 * h), w23 = wasm_i16x8_load8x8(b + 16 + 8 * h);                   \
          for (int r = 0; r < MR; ++r) {                                                                                \
            const v128_t a = wasm_v128_load32_splat(x16 + r * K + 4 * g), c = wasm_v128_load32_splat(x16 + r * K + 4 * g + 2); \
            acc[r][2 * n + h] = wasm_i32x4_add(acc[r][2 * n + h], wasm_i32x4_add(wasm_i32x4_dot_i16x8(w01, a), wasm_i32x4_dot_i16x8(w23, c))); \
          }                                                                                                             \
        }                                                                                                               \
      }                                                                                                                 \
    STORE(MR, NP)                                                                                                       \
  }

// STEP(acc, w, x): one 16-product step of a quads tile.
#define TILE_QUADS(NAME, MR, NP, STEP)                                                                                  \
  static void NAME(const int8_t* w, int K, int p0) {                                                                    \
    const int G = K / 4;                                                                                                \
    const v128_t ones = wasm_i16x8_splat((int16_t)one);                                                                 \
    (void)ones;                                                                                                         \
    v128_t acc[MR][2 * NP];                                                                                             \
    for (int r = 0; r < MR; ++r)                                                                                        \
      for (int c = 0; c < 2 * NP; ++c) acc[r][c] = wasm_i32x4_splat(0);                                                 \
    for (int g = 0; g < G; ++g) {                                                                                       \
      v128_t wv[2 * NP];                                                                                                \
      for (int n = 0; n < NP; ++n) {                                                                                    \
        wv[2 * n] = wasm_v128_load(w + ((size_t)(p0 + n) * G + g) * 32);                                               \
        wv[2 * n + 1] = wasm_v128_load(w + ((size_t)(p0 + n) * G + g) * 32 + 16);                                      \
      }                                                                                                                 \
      for (int r = 0; r < MR; ++r) {                                                                                    \
        const v128_t xs = wasm_v128_load32_splat(x8 + r * K + 4 * g);                                                   \
        for (int c = 0; c < 2 * NP; ++c) acc[r][c] = STEP(acc[r][c], wv[c], xs);                                        \
      }                                                                                                                 \
    }                                                                                                                   \
    STORE(MR, NP)                                                                                                       \
  }
#define STEP_ADD(acc, w, x) wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w, x, acc)
#define STEP_I16(acc, w, x) wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(wasm_i16x8_relaxed_dot_i8x16_i7x16(w, x), ones))

// A whole layer (only < 0) or one of its matrices, reps times: every panel for MR rows.
#define RUN(LAYOUT, KIND, MR, NP)                                                   \
  void run_##KIND##_##MR##x##NP(int reps, int only) {                               \
    for (int i = 0; i < reps; ++i)                                                  \
      for (int l = 0; l < LAYERS; ++l)                                              \
        if (only < 0 || only == l)                                                  \
          for (int p = 0; p < kOut[l] / 8; p += NP) KIND##_##MR##x##NP(LAYOUT[l], kIn[l], p); \
  }
#define ALL(MR, NP)                                                                            \
  TILE_PAIRS(pairs_##MR##x##NP, MR, NP)                                                        \
  TILE_QUADS(add_##MR##x##NP, MR, NP, STEP_ADD)                                                \
  TILE_QUADS(i16_##MR##x##NP, MR, NP, STEP_I16)                                                \
  RUN(pairs, pairs, MR, NP) RUN(quads, add, MR, NP) RUN(quads, i16, MR, NP)

ALL(1, 2)
ALL(1, 4)
ALL(2, 2)
ALL(4, 1)
