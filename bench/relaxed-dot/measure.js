// The timing of bench/relaxed-dot.mjs, the same in a page and in Deno: checks that
// the three tiles of kernels.c compute the exact sums of the same products (against
// a JS reference over the logical matrices), then times them interleaved, tile by
// tile within each round, and returns per tile shape the median µs per layer.
export const TILES = ['pairs', 'add', 'i16'];
export const SHAPES = ['1x2', '1x4', '2x2', '4x1'];
const OUT = [768, 256, 512, 256], IN = [256, 256, 256, 512];
const MACS = OUT.reduce((s, o, l) => s + o * IN[l], 0);  // per row of x, one layer

// Each timed block runs about blockMs (browsers coarsen performance.now() to 0.1-1 ms).
export async function measure(bytes, { rounds = 7, blockMs = 150 } = {}) {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const e = instance.exports;
  e.set_up(12345);
  const mem = () => e.memory.buffer;
  const x = new Uint8Array(mem(), e.rows(), 4 * 512);
  for (let l = 0; l < OUT.length; ++l) {
    const w = new Int8Array(mem(), e.matrix(l), OUT[l] * IN[l]);
    for (const shape of SHAPES) {
      const rows = Number(shape[0]);
      for (const tile of TILES) {
        e[`run_${tile}_${shape}`](1, l);
        const y = new Int32Array(mem(), e.sums(), 4 * 768);
        for (let r = 0; r < rows; ++r) {
          for (let o = 0; o < OUT[l]; ++o) {
            let want = 0;
            for (let k = 0; k < IN[l]; ++k) want += w[o * IN[l] + k] * x[r * IN[l] + k];
            if (y[r * 768 + o] !== want) throw new Error(`${tile} ${shape}: matrix ${l}, row ${r}, output ${o} is ${y[r * 768 + o]}, not ${want}`);
          }
        }
      }
    }
  }
  // Calls per block, from a first timing of each tile.
  const reps = {};
  for (const shape of SHAPES) {
    for (const tile of TILES) {
      const run = e[`run_${tile}_${shape}`];
      let n = 1, ms = 0;
      while (ms < 20) {
        n *= 2;
        const t0 = performance.now();
        run(n, -1);
        ms = performance.now() - t0;
      }
      reps[`${tile} ${shape}`] = Math.max(1, Math.round((n * blockMs) / ms));
    }
  }
  const times = {};
  for (let round = 0; round < rounds; ++round) {
    for (const shape of SHAPES) {
      const order = round % 2 ? [...TILES].reverse() : TILES;
      for (const tile of order) {
        const run = e[`run_${tile}_${shape}`];
        const n = reps[`${tile} ${shape}`];
        const t0 = performance.now();
        run(n, -1);
        (times[`${tile} ${shape}`] ??= []).push((performance.now() - t0) / n);
      }
    }
  }
  const median = (a) => a.slice().sort((p, q) => p - q)[a.length >> 1];
  return SHAPES.map((shape) => {
    const rows = Number(shape[0]);
    const us = Object.fromEntries(TILES.map((t) => [t, 1000 * median(times[`${t} ${shape}`])]));
    return { shape, us, gmacs: Object.fromEntries(TILES.map((t) => [t, (rows * MACS) / us[t] / 1000])) };
  });
}
