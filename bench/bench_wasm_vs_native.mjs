#!/usr/bin/env node
// WebAssembly (this package, in-process under Node) vs native (the CLI), same
// model, same words, same options, in one run: per-word decode latency for
// greedy, beam 5 and Mask-Predict, and their ratio.
//
//   node bench/bench_wasm_vs_native.mjs [--ar MODEL] [--cmlm MODEL] [--words N] [--repeat R] [--cli PATH]
//
// Native: `seq2seq decode --model M [flags]` with the words on stdin (one
// process, one session, like the module). Its wall time minus the wall time of
// the same command with no words (process start-up and model load) is the
// decode time; the best of R runs is kept. WASM: one Session (attention off, as
// the CLI has it when not tracing), decode() over the same words after a
// warm-up; the best of R passes. Runs alternate native / wasm so that load on a
// shared machine hits both alike. Outputs are checked to agree (tokens
// identical, scores within 1e-4). Defaults: the shipped G2P models when present
// (words from the CMUdict test split), the fixture models otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../wasm/src/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const pick = (shipped, fixture) => (existsSync(`${ROOT}/${shipped}`) ? `${ROOT}/${shipped}` : `${ROOT}/${fixture}`);
const AR = arg('ar', pick('models/g2p-transformer.safetensors', 'tests/fixtures/ar_pre_sin_tied_relu_f16.safetensors'));
const CMLM = arg('cmlm', pick('models/g2p-cmlm.safetensors', 'tests/fixtures/cmlm_pre_sin_tied_relu.safetensors'));
const N = Number(arg('words', 200));
const R = Number(arg('repeat', 5));
const CLI = arg('cli', process.env.SEQ2SEQ_CLI || `${ROOT}/build/native/seq2seq`);
if (!existsSync(CLI)) {
  console.error(`no native CLI at ${CLI}: cmake -S . -B build/native && cmake --build build/native -j2 --target seq2seq`);
  process.exit(2);
}

// Words the model reads: the CMUdict test split, or (a fixture's 7-letter
// alphabet) deterministic pseudo-random words of 3-10 letters.
function wordList(info, n) {
  const alphabet = new Set(info.sourceVocab);
  const fits = (w) => w.length <= info.maxPositions && [...w].every((c) => alphabet.has(c));
  const split = `${ROOT}/models/data/cmudict-0.7b.test`;
  if (existsSync(split)) {
    const words = [...new Set(readFileSync(split, 'utf8').split('\n').map((l) => l.split(/\s+/)[0]).filter(Boolean))].filter(fits);
    if (words.length >= n) {
      const step = Math.floor(words.length / n);   // spread over the alphabet, not just A...
      return Array.from({ length: n }, (_, i) => words[i * step]);
    }
  }
  const letters = info.sourceVocab.filter((c) => /^[A-Z]$/.test(c));
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, () => Array.from({ length: 3 + Math.floor(rand() * 8) }, () => letters[Math.floor(rand() * letters.length)]).join(''));
}

function native(model, flags, words) {
  const t0 = performance.now();
  const r = spawnSync(CLI, ['decode', '--model', model, ...flags], { input: words.length ? `${words.join('\n')}\n` : '', encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`native CLI failed: ${r.stderr}`);
  return { ms, lines: r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => l.split('\t')) : [] };
}

function wasm(session, words) {
  const out = [];
  const t0 = performance.now();
  for (const w of words) out.push(session.decode(w));
  return { ms: performance.now() - t0, out };
}

const MODES = [
  { name: 'greedy', model: AR, flags: [], options: {} },
  { name: 'beam 5', model: AR, flags: ['--beam', '5'], options: { strategy: 'beam', beamSize: 5 } },
  { name: 'Mask-Predict (T=10)', model: CMLM, flags: [], options: {} },
];

const models = new Map();
for (const path of new Set(MODES.map((m) => m.model))) models.set(path, await loadModel(readFileSync(path)));

console.log(`seq2seq-wasm: WebAssembly (Node ${process.versions.node}, in-process) vs native CLI; ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}; load average ${loadavg()[0].toFixed(1)} at start`);
console.log(`models: ${[...models.keys()].map((p) => p.replace(`${ROOT}/`, '')).join(', ')}; best of ${R} runs each, runs alternating`);
const rows = [];
for (const mode of MODES) {
  const model = models.get(mode.model);
  const words = wordList(model.info, N);
  const session = model.createSession({ ...mode.options, attention: false });
  wasm(session, words.slice(0, 20));   // warm-up: JIT of the glue, heap growth
  let nativeBest = Infinity;
  let startupBest = Infinity;
  let wasmBest = Infinity;
  let nativeLines = null;
  let wasmOut = null;
  for (let r = 0; r < R; ++r) {
    const s = native(mode.model, mode.flags, []);
    startupBest = Math.min(startupBest, s.ms);
    const n = native(mode.model, mode.flags, words);
    nativeBest = Math.min(nativeBest, n.ms);
    nativeLines = n.lines;
    const w = wasm(session, words);
    wasmBest = Math.min(wasmBest, w.ms);
    wasmOut = w.out;
  }
  session.delete();
  // The outputs agree (n-best 1: one line per word).
  let agree = nativeLines.length === words.length;
  for (let i = 0; agree && i < words.length; ++i) {
    const [w, text, score] = nativeLines[i];
    const ours = wasmOut[i][0];
    agree = w === words[i] && text === ours.text && Math.abs(Number(score) - ours.score) <= 1e-4;
  }
  const outTokens = wasmOut.reduce((a, r) => a + r[0].tokens.length + 1, 0);
  const nativeUs = ((nativeBest - startupBest) / words.length) * 1000;
  const wasmUs = (wasmBest / words.length) * 1000;
  rows.push({ mode: mode.name, words: words.length, tokens: (outTokens / words.length).toFixed(1), startup: startupBest, nativeUs, nativeRawUs: (nativeBest / words.length) * 1000, wasmUs, agree });
}
for (const m of models.values()) m.delete();

const pad = (s, n) => String(s).padEnd(n);
console.log('');
console.log('| mode | words | output tokens/word | native µs/word (start-up excluded) | native incl. start-up | wasm µs/word | wasm / native | outputs agree |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
for (const r of rows) {
  console.log(`| ${pad(r.mode, 19)} | ${r.words} | ${r.tokens} | ${r.nativeUs.toFixed(0)} | ${r.nativeRawUs.toFixed(0)} | ${r.wasmUs.toFixed(0)} | ${(r.wasmUs / r.nativeUs).toFixed(2)}x | ${r.agree ? 'yes' : 'NO'} |`);
}
console.log('');
console.log(`native start-up (process + model load, no words): ${rows.map((r) => `${r.mode} ${r.startup.toFixed(0)} ms`).join(', ')}; load average ${loadavg()[0].toFixed(1)} at end`);
if (!rows.every((r) => r.agree)) {
  console.error('native and wasm outputs differ');
  process.exit(1);
}
