#!/usr/bin/env node
// Training speed: optimizer steps per second of three tiny Transformers on the
// reverse task, the engine's trainer natively and as wasm under Node against
// PyTorch on one thread, with the same config and batch size, in one run.
//
//   node bench/train-speed.mjs [--rounds R] [--json FILE]
//
// Sides: build/native/bench_train (bench/bench_train.cpp; a native build with
// benchmarks on), build/wasm-bench/bench_train.js (the same source built by
// Emscripten: emcmake cmake -S . -B build/wasm-bench -DCMAKE_BUILD_TYPE=Release
// -DSEQ2SEQ_BUILD_BENCH=ON -DSEQ2SEQ_BUILD_TESTS=OFF, then --target bench_train)
// and /usr/bin/python3 bench/train_speed_torch.py (the reference's classes,
// models/train/seq2seq_torch.py, torch.set_num_threads(1)). Each process runs
// some untimed steps, then times its steps; every side is one thread.
//
// Each round runs every side of every config once, the order of the sides
// rotating between rounds, so load on a shared machine falls on all alike; the
// table has medians over rounds and the medians of the per-round ratios, with
// the load average before and after. Two rates: steps per second of wall time,
// and per second of the process's CPU time (on a loaded machine a process gets a
// share of a core, which the wall time measures too; under Node the CPU time is
// the whole process's, its compiler and GC threads included). Memory: natively and for PyTorch the
// process's peak resident set (PyTorch's includes the interpreter and torch);
// in wasm the module's linear memory at the end (it only grows: its peak).
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(flag("--rounds", 3));
const jsonOut = flag("--json", null);

// ≈ 30 k, ≈ 250 k and ≈ 1 M parameters with the reverse task's vocabularies;
// the largest is the g2p task's default shape. [d_model, heads, d_ff, layers,
// batch, untimed steps, timed steps]
const configs = [
  { name: "30k", shape: [32, 4, 128, 1, 32], warm: 20, timed: 200 },
  { name: "250k", shape: [64, 4, 256, 2, 32], warm: 10, timed: 60 },
  { name: "1M", shape: [128, 4, 256, 3, 32], warm: 5, timed: 24 },
];

const nativeBin = join(root, "build/native/bench_train");
const wasmJs = join(root, "build/wasm-bench/bench_train.js");
const sides = [
  { name: "native", file: nativeBin, cmd: (a) => [nativeBin, a] },
  { name: "wasm", file: wasmJs, cmd: (a) => [process.execPath, [wasmJs, ...a]] },
  { name: "pytorch", file: join(root, "bench/train_speed_torch.py"),
    cmd: (a) => ["/usr/bin/python3", [join(root, "bench/train_speed_torch.py"), ...a]] },
];
for (const s of sides) {
  if (!existsSync(s.file)) {
    console.error(`missing ${s.file} (see the comment at the top of bench/train-speed.mjs)`);
    process.exit(1);
  }
}

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

const loadBefore = loadavg();
const results = {}; // config -> side -> [records]
for (let r = 0; r < rounds; ++r) {
  for (const c of configs) {
    const argv = [...c.shape, c.warm, c.timed].map(String);
    for (let k = 0; k < sides.length; ++k) {
      const s = sides[(k + r) % sides.length];
      const [bin, rest] = s.cmd(argv);
      const out = execFileSync(bin, rest, {
        encoding: "utf8", env: { ...process.env, OMP_NUM_THREADS: "1", OMP_WAIT_POLICY: "PASSIVE" },
      });
      const rec = JSON.parse(out.trim().split("\n").pop());
      ((results[c.name] ??= {})[s.name] ??= []).push(rec);
      process.stderr.write(`round ${r + 1} ${c.name} ${s.name}: ${rec.stepsPerSecond} steps/s\n`);
    }
  }
}
const loadAfter = loadavg();

const rows = [];
for (const c of configs) {
  const per = results[c.name];
  const sps = (side, key = "stepsPerSecond") => median(per[side].map((x) => x[key]));
  const ratio = (a, b, key = "stepsPerSecond") => median(per[a].map((x, i) => x[key] / per[b][i][key]));
  rows.push({
    config: c.name, params: per.native[0].params, torchParams: per.pytorch[0].params,
    shape: `d_model ${c.shape[0]}, ${c.shape[1]} heads, d_ff ${c.shape[2]}, ${c.shape[3]} + ${c.shape[3]} layers, batch ${c.shape[4]}`,
    native: sps("native"), wasm: sps("wasm"), pytorch: sps("pytorch"),
    wasmOverTorch: ratio("wasm", "pytorch"), nativeOverTorch: ratio("native", "pytorch"), wasmOverNative: ratio("wasm", "native"),
    nativeCpu: sps("native", "stepsPerCpuSecond"), wasmCpu: sps("wasm", "stepsPerCpuSecond"), pytorchCpu: sps("pytorch", "stepsPerCpuSecond"),
    wasmOverTorchCpu: ratio("wasm", "pytorch", "stepsPerCpuSecond"), nativeOverTorchCpu: ratio("native", "pytorch", "stepsPerCpuSecond"),
    nativePeakMB: Math.max(...per.native.map((x) => x.peakMB)), wasmMemoryMB: Math.max(...per.wasm.map((x) => x.peakMB)),
    torchPeakMB: Math.max(...per.pytorch.map((x) => x.peakMB)), trainerMB: per.native[0].trainerMB,
  });
}
const f = (x, d = 1) => x.toFixed(d);
console.log(`load average before ${loadBefore.map((x) => f(x, 2)).join(" ")}, after ${loadAfter.map((x) => f(x, 2)).join(" ")}; ` +
  `${rounds} rounds; native kernels ${results[configs[0].name].native[0].isa}, wasm ${results[configs[0].name].wasm[0].isa}, torch ${results[configs[0].name].pytorch[0].torch}`);
console.log("steps per second (wall):\n| config | parameters | native | wasm | PyTorch (1 thread) | wasm / PyTorch | native / PyTorch | wasm / native | trainer's buffers MB | peak MB native (RSS) | wasm memory MB | peak MB PyTorch (RSS) |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(`| ${r.config}: ${r.shape} | ${r.params.toLocaleString("en")} | ${f(r.native, 2)} | ${f(r.wasm, 2)} | ${f(r.pytorch, 2)} | ` +
    `${f(r.wasmOverTorch, 2)} | ${f(r.nativeOverTorch, 2)} | ${f(r.wasmOverNative, 2)} | ${f(r.trainerMB)} | ${f(r.nativePeakMB)} | ${f(r.wasmMemoryMB)} | ${f(r.torchPeakMB)} |`);
}
console.log("\nsteps per CPU second:\n| config | native | wasm | PyTorch (1 thread) | wasm / PyTorch | native / PyTorch |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(`| ${r.config} | ${f(r.nativeCpu, 2)} | ${f(r.wasmCpu, 2)} | ${f(r.pytorchCpu, 2)} | ${f(r.wasmOverTorchCpu, 2)} | ${f(r.nativeOverTorchCpu, 2)} |`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ loadBefore, loadAfter, rounds, rows, results }, null, 1));
