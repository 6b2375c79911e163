#!/usr/bin/env node
// Side-by-side decode latency of the shipped G2P models: our engine (native CLI
// and WebAssembly under Node) against onnxruntime-node, onnxruntime-web (wasm,
// SIMD) and PyTorch eager, on the same words, one thread each, in one run.
//
//   node bench/compare-runtimes.mjs [--words N] [--rounds R] [--json FILE]
//
//   --words N    words of the CMUdict test split (models/data/cmudict-0.7b.test,
//                first column, unique, spread evenly over the file) [1000]
//   --rounds R   interleaved rounds; medians are over rounds [3]
//   --json FILE  also write the per-round times, medians, ratios and agreement
//
// Needs build/native/seq2seq (or $SEQ2SEQ_CLI), wasm/dist (scripts/build-wasm.sh),
// onnxruntime-node/-web (bench/runtimes/package.json: installed there on the first
// run, not with the repository's devDependencies), and /usr/bin/python3 with
// torch for PyTorch and for exporting the ONNX graphs (bench/export_onnx.py, from
// models/g2p-transformer.safetensors into build/bench-onnx/, redone when the model
// or the exporter changes). Without torch the PyTorch column is skipped, and so
// are the onnxruntime ones unless graphs were exported before.
//
// Strategies: greedy and beam 5 (g2p-transformer) everywhere; for ours also
// Mask-Predict (g2p-cmlm) at T=1 and T=10, one predicted length. onnxruntime and
// PyTorch run a KV-cache decoder step over the k live hypotheses of a word in one
// call, the cache gathered by parent each step, and search() below (PyTorch:
// bench/torch_decode.py) repeats src/ar_search.cpp's rules (length norm
// "average", 2k candidates per row, EOS kept in the top k, stop when no live
// hypothesis can beat the best finished one) so outputs can be compared.
//
// Timing, per word: native = wall time of `seq2seq decode` with the words on
// stdin minus the same command with no words (process start and model load);
// wasm = session.decode() over the words (attention off, as the CLI has it);
// onnxruntime = encoder + steps + search over the words; PyTorch = the same,
// timed inside the Python process. In-process systems decode 20 words untimed
// first. Each round runs every system once on all words, the order rotating
// between rounds, so load on a shared machine falls on all alike; ratios are
// medians of per-round ratios.
//
// Prints ms per word (medians over rounds) per system and strategy, the ratios
// the project tracks against their targets, output agreement, and the CPU, Node
// version and load average at start and end.
//
// Checks: ours native = ours wasm (every strategy) and onnxruntime greedy = ours,
// token for token, on every word, else exit 1; beam 5 and PyTorch agreement and
// score differences are reported (ours computes int8-stored weights in int8 by
// default, onnxruntime and PyTorch the dequantized weights in f32).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, cliPath, runCli } from '../tests/node/helpers.mjs';
import { testWords } from './words.mjs';
import { DEFAULT_OPTIONS, loadModel } from '../wasm/src/index.js';

// The other runtimes: devDependencies of this benchmark only, installed on demand.
const runtimesDir = join(ROOT, 'bench/runtimes');
if (!existsSync(join(runtimesDir, 'node_modules/onnxruntime-node')) || !existsSync(join(runtimesDir, 'node_modules/onnxruntime-web'))) {
  console.error('installing bench/runtimes (onnxruntime-node, onnxruntime-web)…');
  execFileSync('npm', ['install', '--prefix', runtimesDir, '--no-audit', '--no-fund'], { stdio: 'inherit', env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });
}
const runtimesRequire = createRequire(join(runtimesDir, 'package.json'));
const ortNode = await import(pathToFileURL(runtimesRequire.resolve('onnxruntime-node')).href);
const ortWeb = await import(pathToFileURL(runtimesRequire.resolve('onnxruntime-web')).href);

const { values: opt } = parseArgs({ options: { words: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' }, json: { type: 'string' } } });
const N = Number(opt.words);
const ROUNDS = Number(opt.rounds);
const WARMUP = 20;
const AR = join(ROOT, 'models/g2p-transformer.safetensors');
const CMLM = join(ROOT, 'models/g2p-cmlm.safetensors');
const PY = '/usr/bin/python3';
const loadStart = loadavg()[0];

try {
  cliPath();  // runCli's binary: say how to build it rather than fail mid-run
} catch (e) {
  console.error(e.message);
  process.exit(2);
}
const ar = await loadModel(readFileSync(AR)).catch((e) => {
  console.error(`${e.message}\n(the npm module's wasm is built by scripts/build-wasm.sh)`);
  process.exit(2);
});
const cmlm = await loadModel(readFileSync(CMLM));
const { targetVocab: VOCAB, targetSpecials: SP } = ar.info;
// src/session.cpp: an autoregressive decode is capped at min(max_length, max_pos) tokens, EOS included.
const MAX_LEN = Math.min(DEFAULT_OPTIONS.maxLength, ar.info.maxPositions);

// Test-split words both models can read, spread over the alphabet (not just A...).
const fits = (w) => [ar.info, cmlm.info].every((i) => w.length <= i.maxPositions && [...w].every((c) => i.sourceVocab.includes(c)));
const WORDS = testWords(ROOT, N, fits);
const SOURCES = WORDS.map((w) => Array.from(ar.tokenize(w)));
const text = (tokens) => tokens.map((t) => VOCAB[t]).join(' ');

const STRATEGIES = {
  greedy: { model: AR, flags: ['--greedy'], options: { strategy: 'greedy' } },
  'beam 5': { model: AR, flags: ['--beam', '5'], options: { strategy: 'beam', beamSize: 5 } },
  'NAR T=1': { model: CMLM, flags: ['--nar', '--iterations', '1', '--length-candidates', '1'], options: { strategy: 'nar', iterations: 1, lengthCandidates: 1 } },
  'NAR T=10': { model: CMLM, flags: ['--nar', '--iterations', '10', '--length-candidates', '1'], options: { strategy: 'nar', iterations: 10, lengthCandidates: 1 } },
};
const AR_ONLY = ['greedy', 'beam 5'];

// ---------------------------------------------------------------- search
const NEVER = new Set([SP.pad, SP.unk, SP.bos, SP.mask]);  // tokens the engine never emits

function logSoftmax(x) {
  let m = -Infinity;
  for (const v of x) m = Math.max(m, v);
  let s = 0;
  for (const v of x) s += Math.exp(v - m);
  const lse = m + Math.log(s);
  return Array.from(x, (v) => Math.fround(v - lse));  // the engine keeps log-probabilities as float
}

// One word, src/ar_search.cpp's greedy/beam search (length norm "average",
// n-best 1, no prefix, min length 0). step(fed, t, origin) -> logits [k*V] for
// the k live hypotheses, fed their last tokens, continuing past rows `origin`.
async function search(step, greedy, beam = 5) {
  const k = greedy ? 1 : beam;
  const want = greedy ? 1 : 2 * beam;  // beam takes 2k per row so that finishing hypotheses do not shrink the beam
  const V = VOCAB.length;
  let live = [{ logprob: 0, tokens: [] }];
  let origin = [0];
  let best = null;
  for (let t = 0; t < MAX_LEN; ++t) {
    const logits = await step(live.map((h) => h.tokens.at(-1) ?? SP.bos), t, origin);
    const pool = [];
    live.forEach((h, row) => {
      const lp = logSoftmax(logits.subarray(row * V, (row + 1) * V));
      const allowed = t + 1 >= MAX_LEN ? [SP.eos] : [...lp.keys()].filter((v) => !NEVER.has(v));  // the last position can only end
      allowed.sort((a, b) => lp[b] - lp[a] || a - b);
      for (const v of allowed.slice(0, want)) pool.push({ logprob: h.logprob + lp[v], row, v });
    });
    pool.sort((a, b) => b.logprob - a.logprob || a.row - b.row || a.v - b.v);
    const next = [];
    origin = [];
    pool.forEach((c, rank) => {
      if (c.v === SP.eos ? rank >= k : next.length >= k) return;
      const h = { logprob: c.logprob, tokens: [...live[c.row].tokens, c.v] };
      if (c.v !== SP.eos) {
        next.push(h);
        origin.push(c.row);
        return;
      }
      h.score = h.logprob / h.tokens.length;
      if (!best || h.score > best.score || (h.score === best.score && h.logprob > best.logprob)) best = h;  // ties: the earlier
    });
    live = next;
    // Done when nothing is live or no live hypothesis can still beat the best finished one.
    if (!live.length || (best && Math.max(...live.map((h) => Math.min(h.logprob, 0) / MAX_LEN)) <= best.score)) break;
  }
  return { text: text(best.tokens.slice(0, -1)), score: best.score };
}

// ---------------------------------------------------------------- systems
const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');
const TORCH = spawnSync(PY, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
const notes = [];

// build/bench-onnx/<model>/{encoder,decoder}.onnx, exported again when the model or the exporter changes.
function onnxGraphs() {
  const dir = join(ROOT, 'build/bench-onnx/g2p-transformer');
  const exporter = join(ROOT, 'bench/export_onnx.py');
  const stampFile = join(dir, 'source.sha256');
  const stamp = `${sha256(AR)} ${sha256(exporter)}\n`;
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return dir;
  if (!TORCH) return null;
  const r = spawnSync(PY, [exporter, AR, dir], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error('bench/export_onnx.py failed');
  writeFileSync(stampFile, stamp);
  return dir;
}

const timed = async (fn) => {
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, out };
};

function nativeSystem() {
  const startup = {};
  return {
    name: 'ours native',
    strategies: Object.keys(STRATEGIES),
    async run(s, n) {
      const args = ['decode', '--model', STRATEGIES[s].model, ...STRATEGIES[s].flags];
      const empty = await timed(() => runCli(args, ''));
      const full = await timed(() => runCli(args, `${WORDS.slice(0, n).join('\n')}\n`));
      (startup[s] ??= []).push(empty.ms);
      const out = full.out.trim().split('\n').map((l) => l.split('\t')).map(([, t, score]) => ({ text: t, score: Number(score) }));
      return { ms: full.ms - empty.ms, out };
    },
    startup,
  };
}

function wasmSystem() {
  const sessions = Object.fromEntries(Object.entries(STRATEGIES).map(([s, { model, options }]) =>
    [s, (model === AR ? ar : cmlm).createSession({ ...options, attention: false })]));
  return {
    name: 'ours wasm',
    strategies: Object.keys(STRATEGIES),
    warm: true,
    run: (s, n) => timed(() => WORDS.slice(0, n).map((w) => sessions[s].decode(w)[0])),
  };
}

async function ortSystem(name, ort, sessionOptions, dir) {
  const enc = await ort.InferenceSession.create(join(dir, 'encoder.onnx'), sessionOptions);
  const dec = await ort.InferenceSession.create(join(dir, 'decoder.onnx'), sessionOptions);
  const { decoderLayers, heads, dModel } = ar.info;
  const empty = new ort.Tensor('float32', new Float32Array(0), [decoderLayers, 1, heads, 0, dModel / heads]);
  const ids = (a, dims = [a.length]) => new ort.Tensor('int64', BigInt64Array.from(a, BigInt), dims);
  async function decode(src, greedy) {
    const { cross_k, cross_v } = await enc.run({ src: ids(src, [1, src.length]) });
    let past = { past_k: empty, past_v: empty };
    return search(async (fed, t, origin) => {
      const r = await dec.run({ tokens: ids(fed), position: ids([t], []), origin: ids(origin), ...past, cross_k, cross_v });
      past = { past_k: r.present_k, past_v: r.present_v };
      return r.logits.data;
    }, greedy);
  }
  return {
    name,
    version: ort.env.versions?.web ?? ort.env.versions?.node ?? ort.env.versions?.common,
    strategies: AR_ONLY,
    warm: true,
    run: (s, n) => timed(async () => {
      const out = [];
      for (const src of SOURCES.slice(0, n)) out.push(await decode(src, s === 'greedy'));
      return out;
    }),
  };
}

function torchSystem() {
  return {
    name: 'PyTorch eager',
    strategies: AR_ONLY,
    async run(s, n) {
      const req = { strategy: s === 'greedy' ? 'greedy' : 'beam', beam: 5, max_len: MAX_LEN, warmup: WARMUP, specials: SP, sources: SOURCES.slice(0, n) };
      const r = spawnSync(PY, [join(ROOT, 'bench/torch_decode.py'), AR], { input: JSON.stringify(req), encoding: 'utf8', maxBuffer: 1 << 28 });
      if (r.status !== 0) throw new Error(`bench/torch_decode.py failed: ${r.stderr}`);
      const reply = JSON.parse(r.stdout);
      this.version = reply.torch;
      return { ms: reply.ms, out: reply.results.map((x) => ({ text: text(x.tokens), score: x.score })) };
    },
  };
}

const systems = [nativeSystem(), wasmSystem()];
const graphs = onnxGraphs();
if (graphs) {
  // One thread: intra-op and inter-op pools of one; onnxruntime-web's wasm build is
  // SIMD-only (env.wasm.simd is gone), and numThreads 1 keeps it off worker threads.
  systems.push(await ortSystem('onnxruntime-node', ortNode, { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' }, graphs));
  Object.assign(ortWeb.env.wasm, { numThreads: 1, proxy: false });
  systems.push(await ortSystem('onnxruntime-web', ortWeb, { executionProviders: ['wasm'] }, graphs));
} else {
  notes.push('onnxruntime skipped: no exported graphs in build/bench-onnx and no torch to export them (scripts/install-deps.sh --train)');
}
if (TORCH) systems.push(torchSystem());
else notes.push(`PyTorch skipped: ${PY} cannot import torch (scripts/install-deps.sh --train installs it)`);

// ---------------------------------------------------------------- rounds
console.log(`compare-runtimes: ${N} words, ${ROUNDS} rounds; ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}; Node ${process.versions.node}; load average ${loadStart.toFixed(2)} at start`);
// What ours computes in (the CLI's info line), against the f32 graphs the others run.
const storage = runCli(['info', AR]).match(/\(([^)]*storage[^)]*)\)/)?.[1] ?? 'unknown';
console.log(`ours: ${storage} (g2p-transformer); onnxruntime and PyTorch: f32, the dequantized weights`);
for (const sys of systems.filter((x) => x.warm)) for (const s of sys.strategies) await sys.run(s, WARMUP);
const times = {};    // system -> strategy -> ms per word, one per round
const outputs = {};  // system -> strategy -> [{text, score}] (round 1)
for (let r = 0; r < ROUNDS; ++r) {
  const order = systems.map((_, i) => systems[(i + r) % systems.length]);
  process.stderr.write(`round ${r + 1}/${ROUNDS}: ${order.map((x) => x.name).join(', ')}\n`);
  for (const sys of order) {
    for (const s of sys.strategies) {
      const { ms, out } = await sys.run(s, N);
      ((times[sys.name] ??= {})[s] ??= []).push(ms / N);
      if (r === 0) (outputs[sys.name] ??= {})[s] = out;
    }
  }
}
const loadEnd = loadavg()[0];

// ---------------------------------------------------------------- report
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const has = (sys, s) => times[sys]?.[s] !== undefined;
const medians = Object.fromEntries(Object.entries(times).map(([sys, t]) => [sys, Object.fromEntries(Object.entries(t).map(([s, v]) => [s, median(v)]))]));

const names = systems.map((x) => x.name);
const tokensPerWord = (s) => outputs['ours wasm'][s].reduce((a, o) => a + o.text.split(' ').length, 0) / N;
console.log('');
console.log(`| ms per word (median of ${ROUNDS}) | ${names.join(' | ')} | output tokens/word |`);
console.log(`| --- | ${names.map(() => '---:').join(' | ')} | ---: |`);
for (const s of Object.keys(STRATEGIES)) {
  console.log(`| ${s} | ${names.map((n) => (has(n, s) ? medians[n][s].toFixed(3) : '—')).join(' | ')} | ${tokensPerWord(s).toFixed(1)} |`);
}

// Ratios from the same round, then the median over rounds: drift between rounds cancels.
const ratio = (a, sa, b, sb) => median(times[a][sa].map((x, r) => x / times[b][sb][r]));
const RATIOS = [
  ...AR_ONLY.map((s) => ({ what: `onnxruntime-web / ours wasm, ${s}`, a: ['onnxruntime-web', s], b: ['ours wasm', s], target: '>= 2', ok: (x) => x >= 2 })),
  ...AR_ONLY.map((s) => ({ what: `onnxruntime-node / ours native, ${s}`, a: ['onnxruntime-node', s], b: ['ours native', s], target: '>= 1.5', ok: (x) => x >= 1.5 })),
  ...Object.keys(STRATEGIES).map((s) => ({ what: `ours wasm / ours native, ${s}`, a: ['ours wasm', s], b: ['ours native', s], target: '<= 1.5', ok: (x) => x <= 1.5 })),
  { what: 'ours wasm, AR greedy / NAR T=1', a: ['ours wasm', 'greedy'], b: ['ours wasm', 'NAR T=1'], target: '>= 3', ok: (x) => x >= 3 },
  { what: 'ours wasm, AR greedy / NAR T=10', a: ['ours wasm', 'greedy'], b: ['ours wasm', 'NAR T=10'] },
  ...AR_ONLY.map((s) => ({ what: `PyTorch eager / ours native, ${s}`, a: ['PyTorch eager', s], b: ['ours native', s] })),
].filter((x) => has(...x.a) && has(...x.b)).map((x) => ({ ...x, value: ratio(...x.a, ...x.b) }));
console.log('');
console.log('| ratio (median of per-round ratios) | value | target | met |');
console.log('| --- | ---: | --- | --- |');
for (const x of RATIOS) console.log(`| ${x.what} | ${x.value.toFixed(2)}x | ${x.target ?? '—'} | ${x.ok ? (x.ok(x.value) ? 'yes' : 'NO') : ''} |`);

// Agreement with ours (wasm; native is checked against it too).
const agreement = [];
for (const sys of names.filter((n) => n !== 'ours wasm')) {
  for (const s of Object.keys(outputs[sys])) {
    const ours = outputs['ours wasm'][s];
    const theirs = outputs[sys][s];
    const differ = WORDS.map((w, i) => ({ w, ours: ours[i], theirs: theirs[i] })).filter((d) => d.ours.text !== d.theirs?.text);
    const maxScoreDiff = Math.max(...WORDS.map((_, i) => (ours[i].text === theirs[i]?.text ? Math.abs(ours[i].score - theirs[i].score) : 0)));
    const strict = sys === 'ours native' || (sys.startsWith('onnxruntime') && s === 'greedy');
    agreement.push({ system: sys, strategy: s, mismatches: differ.length, maxScoreDiff, strict, failed: strict && differ.length > 0, examples: differ.slice(0, 10) });
  }
}
console.log('');
console.log('| outputs vs ours wasm | strategy | words differing | max score difference (same output) | required |');
console.log('| --- | --- | ---: | ---: | --- |');
for (const a of agreement) console.log(`| ${a.system} | ${a.strategy} | ${a.mismatches} / ${N} | ${a.maxScoreDiff.toExponential(1)} | ${a.strict ? 'identical' : 'reported'} |`);
for (const a of agreement.filter((x) => x.mismatches)) {
  console.log(`\n${a.system}, ${a.strategy}: ${a.mismatches} word(s) differ${a.mismatches > a.examples.length ? ` (first ${a.examples.length})` : ''}:`);
  for (const d of a.examples) console.log(`  ${d.w}: ours "${d.ours.text}" (${d.ours.score.toFixed(5)}), ${a.system} "${d.theirs?.text}" (${d.theirs?.score.toFixed(5)})`);
}

const startup = Object.entries(systems[0].startup).map(([s, v]) => `${s} ${median(v).toFixed(0)} ms`).join(', ');
console.log('');
console.log(`native start-up subtracted (process + model load, median): ${startup}`);
console.log(`versions: ${systems.filter((x) => x.version).map((x) => `${x.name} ${x.version}`).join(', ')}; load average ${loadEnd.toFixed(2)} at end`);
for (const n of notes) console.log(`note: ${n}`);

if (opt.json) {
  writeFileSync(opt.json, `${JSON.stringify({
    cpu: cpus()[0]?.model, cores: cpus().length, node: process.versions.node, loadAverage: { start: loadStart, end: loadEnd },
    words: N, rounds: ROUNDS, msPerWord: times, medians, ratios: RATIOS.map(({ what, value, target }) => ({ what, value, target })),
    agreement, notes,
  }, null, 2)}\n`);
}
const failed = agreement.filter((a) => a.failed);
if (failed.length) {
  console.error(`outputs differ where they must not: ${failed.map((a) => `${a.system} ${a.strategy}`).join(', ')}`);
  process.exit(1);
}
