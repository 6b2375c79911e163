#!/usr/bin/env node
// Side-by-side decode latency of the shipped G2P models: our engine (native CLI
// and WebAssembly under Node) against onnxruntime-node, onnxruntime-web (wasm,
// SIMD) and PyTorch eager, on the same words, one thread each, in one run.
//
//   node bench/compare-runtimes.mjs [--words N] [--rounds R] [--json FILE] [--batch B1,B2,...]
//
//   --words N    words of the CMUdict test split (models/data/cmudict-0.7b.test,
//                first column, unique, spread evenly over the file) [1000]
//   --rounds R   interleaved rounds; medians are over rounds [3]
//   --json FILE  also write the per-round times, medians, ratios and agreement
//   --batch LIST throughput instead of latency (below), at these batch sizes
//   --workers LIST  the decoder pool's throughput with these numbers of workers
//                (e.g. 1,2,all) against onnxruntime-web's multithreaded one at
//                batch 32 (below); --ort-threads N sets onnxruntime-web's
//                threads [its default]. With --batch too: the throughput table
//                gains the pools and `decode --threads` with these counts, and
//                onnxruntime-node and -web run at their default threads
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
// bench/ort-search.mjs holds that search, for one word or several at once.
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
//
// Throughput (--batch 1,8,32,128): words per second (N words over the wall time,
// median over rounds) at each batch size B, g2p-transformer, greedy and beam 5,
// ours against onnxruntime fed the same batches, one thread each:
//   ours wasm         model.decodeBatch() over the words in calls of B (the
//                     engine steps up to a window of them together:
//                     Session::run_batch, src/session_batch.cpp)
//   ours native       the CLI with all N words on stdin, once per round, so one
//                     rate for every B (it decodes stdin in chunks of 256 words
//                     with run_batch); start-up subtracted as above
//   onnxruntime-node, onnxruntime-web
//                     the batched graphs (export_onnx.py: *_batch.onnx), B words
//                     a call: the encoder over the B sources padded to the
//                     longest (a key padding mask, so padding changes no
//                     result), then each decoder step over the live hypotheses
//                     of all unfinished words of the call in one run, each row
//                     reading its own word's cross-attention K/V; a word leaves
//                     the call's steps when it finishes; the search rules per
//                     word are the ones above.
// Every in-process system runs one call of each B untimed first; each round runs
// every system at every B, the system order rotating between rounds. Prints
// words/s per batch size, system and strategy, and the ratios ours wasm /
// onnxruntime-web and ours native / onnxruntime-node per batch size (medians of
// per-round ratios; above 1: ours is faster). Checks against ours wasm at the
// first batch size: ours wasm at every other B and ours native identical on every
// word and strategy, onnxruntime greedy identical at every B (else exit 1), beam 5
// agreement and score differences reported.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT, cliPath, runCli } from '../tests/node/helpers.mjs';
import { searchBatch } from './ort-search.mjs';
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

const { values: opt } = parseArgs({
  options: {
    words: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' }, json: { type: 'string' }, batch: { type: 'string' },
    workers: { type: 'string' }, 'ort-threads': { type: 'string' },
  },
});
const N = Number(opt.words);
const ROUNDS = Number(opt.rounds);
const BATCHES = opt.batch?.split(',').map(Number);
if (BATCHES?.some((b) => !Number.isInteger(b) || b < 1)) {
  console.error(`--batch ${opt.batch}: batch sizes are whole numbers of at least 1, comma-separated (e.g. 1,8,32,128)`);
  process.exit(2);
}
const WORKERS = opt.workers?.split(',').map((w) => (w === 'all' ? 'all' : Number(w)));
if (WORKERS?.some((w) => w !== 'all' && (!Number.isInteger(w) || w < 1 || w > 64))) {
  console.error(`--workers ${opt.workers}: numbers of workers in [1, 64] or 'all', comma-separated (e.g. 1,2,all)`);
  process.exit(2);
}
const ORT_THREADS = opt['ort-threads'] === undefined ? undefined : Number(opt['ort-threads']);
if (ORT_THREADS !== undefined && !(Number.isInteger(ORT_THREADS) && ORT_THREADS >= 1)) {
  console.error(`--ort-threads ${opt['ort-threads']}: a whole number of threads >= 1`);
  process.exit(2);
}
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
// bench/ort-search.mjs: src/ar_search.cpp's rules over one word or several stepped together.
const SEARCH = { maxLen: MAX_LEN, specials: SP, vocabSize: VOCAB.length };
const result = ({ tokens, score }) => ({ text: text(tokens.slice(0, -1)), score });

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

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const timed = async (fn) => {
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, out };
};

// The lines both modes end with, and --json's file: the run's conditions and `results`.
function footer(startupTimes, systems, loadEnd, notes, results) {
  const startup = Object.entries(startupTimes).map(([s, v]) => `${s} ${median(v).toFixed(0)} ms`).join(', ');
  console.log('');
  console.log(`native start-up subtracted (process + model load, median): ${startup}`);
  console.log(`versions: ${systems.filter((x) => x.version).map((x) => `${x.name} ${x.version}`).join(', ')}; load average ${loadEnd.toFixed(2)} at end`);
  for (const n of notes) console.log(`note: ${n}`);
  if (!opt.json) return;
  writeFileSync(opt.json, `${JSON.stringify({
    cpu: cpus()[0]?.model, cores: cpus().length, node: process.versions.node, loadAverage: { start: loadStart, end: loadEnd },
    words: N, rounds: ROUNDS, ...results, notes,
  }, null, 2)}\n`);
}

// threads: the CLI's --threads (decode --threads N); left out, its default (one).
function nativeSystem(threads) {
  const startup = {};
  return {
    name: threads ? `ours native --threads ${threads}` : 'ours native',
    strategies: Object.keys(STRATEGIES),
    async run(s, n) {
      const args = ['decode', '--model', STRATEGIES[s].model, ...STRATEGIES[s].flags, ...(threads ? ['--threads', String(threads)] : [])];
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

// batched: the *_batch graphs, run(s, B, n) decoding the first n words in calls of B.
async function ortSystem(name, ort, sessionOptions, dir, batched = false) {
  const graph = (g) => ort.InferenceSession.create(join(dir, `${g}${batched ? '_batch' : ''}.onnx`), sessionOptions);
  const enc = await graph('encoder');
  const dec = await graph('decoder');
  const { decoderLayers, heads, dModel } = ar.info;
  const empty = (rows) => new ort.Tensor('float32', new Float32Array(0), [decoderLayers, rows, heads, 0, dModel / heads]);
  const ids = (a, dims = [a.length]) => new ort.Tensor('int64', BigInt64Array.from(a, BigInt), dims);
  async function decode(src, greedy) {
    const { cross_k, cross_v } = await enc.run({ src: ids(src, [1, src.length]) });
    let past = { past_k: empty(1), past_v: empty(1) };
    const [best] = await searchBatch(async (fed, t, origin) => {
      const r = await dec.run({ tokens: ids(fed), position: ids([t], []), origin: ids(origin), ...past, cross_k, cross_v });
      past = { past_k: r.present_k, past_v: r.present_v };
      return r.logits.data;
    }, 1, { ...SEARCH, greedy });
    return result(best);
  }
  // The words padded to the longest, the encoder run once over them, then each
  // step over the live hypotheses of every unfinished word.
  async function decodeTogether(sources, greedy) {
    const B = sources.length;
    const S = Math.max(...sources.map((x) => x.length));
    const src = new BigInt64Array(B * S);  // padding: id 0, masked out
    const pad = new Uint8Array(B * S).fill(1);
    sources.forEach((x, i) => x.forEach((v, j) => {
      src[i * S + j] = BigInt(v);
      pad[i * S + j] = 0;
    }));
    const srcPad = new ort.Tensor('bool', pad, [B, S]);
    const { cross_k, cross_v } = await enc.run({ src: new ort.Tensor('int64', src, [B, S]), src_pad: srcPad });
    let past = { past_k: empty(B), past_v: empty(B) };
    const best = await searchBatch(async (fed, t, origin, word) => {
      const r = await dec.run({ tokens: ids(fed), position: ids([t], []), origin: ids(origin), word: ids(word), ...past, cross_k, cross_v, src_pad: srcPad });
      past = { past_k: r.present_k, past_v: r.present_v };
      return r.logits.data;
    }, B, { ...SEARCH, greedy });
    return best.map(result);
  }
  return {
    name,
    version: ort.env.versions?.web ?? ort.env.versions?.node ?? ort.env.versions?.common,
    strategies: AR_ONLY,
    warm: true,
    batched,
    run: batched
      ? (s, B, n) => timed(async () => {
        const out = [];
        for (let i = 0; i < n; i += B) out.push(...await decodeTogether(SOURCES.slice(i, Math.min(i + B, n)), s === 'greedy'));
        return out;
      })
      : (s, n) => timed(async () => {
        const out = [];
        for (const src of SOURCES.slice(0, n)) out.push(await decode(src, s === 'greedy'));
        return out;
      }),
  };
}

// The npm module's decodeBatch over the first n words in calls of B.
function wasmBatchSystem() {
  return {
    name: 'ours wasm',
    strategies: AR_ONLY,
    warm: true,
    batched: true,
    run: (s, B, n) => timed(() => {
      const out = [];
      for (let i = 0; i < n; i += B) out.push(...ar.decodeBatch(WORDS.slice(i, Math.min(i + B, n)), STRATEGIES[s].options).map((r) => r[0]));
      return out;
    }),
  };
}

// The decoder pool (createDecoderPool) with `size` workers, the first n words in calls of B.
async function poolBatchSystem(size) {
  const { createDecoderPool } = await poolModule();
  const pool = createDecoderPool({ size });
  await pool.load(AR);
  return {
    name: `ours wasm pool x${size}`,
    strategies: AR_ONLY,
    warm: true,
    batched: true,
    run: (s, B, n) => timed(async () => {
      const out = [];
      for (let i = 0; i < n; i += B) out.push(...(await pool.decodeBatch(WORDS.slice(i, Math.min(i + B, n)), STRATEGIES[s].options)).map((r) => r[0]));
      return out;
    }),
    close: () => pool.terminate(),
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

// ---------------------------------------------------------------- throughput (--batch)
// Words per second at each batch size: ours through decodeBatch in calls of B
// words and the native CLI over the whole list (once per round), onnxruntime
// through the batched graphs, B words a call. Greedy and beam 5.
// With --workers too: ours also across cores (the pool with each number of workers,
// the CLI with as many --threads) and onnxruntime at its default thread counts.
async function throughputMode(dir) {
  const native = nativeSystem();
  const cores = WORKERS ? (await poolModule()).defaultCores : 1;
  const counts = WORKERS ? [...new Set(WORKERS.map((w) => (w === 'all' ? cores : w)))].filter((w) => w > 1) : [];
  const natives = [native, ...counts.map((t) => nativeSystem(t))];
  const pools = [];
  for (const size of counts) pools.push(await poolBatchSystem(size));
  const systems = [...natives, wasmBatchSystem(), ...pools, ...(dir ? await ortSystems(dir, true) : [])];
  const ALL = 'whole list';  // the native CLI's batch: it decodes stdin in chunks of 256 words with run_batch
  const isNative = (sys) => natives.includes(sys);
  const batchesOf = (sys) => (isNative(sys) ? [ALL] : BATCHES);
  for (const sys of systems.filter((x) => x.warm)) for (const s of AR_ONLY) for (const B of BATCHES) await sys.run(s, B, Math.min(B, N));
  const rate = {};     // system -> strategy -> batch -> words per second, one per round
  const outputs = {};  // system -> strategy -> batch -> [{text, score}] (round 1)
  for (let r = 0; r < ROUNDS; ++r) {
    const order = systems.map((_, i) => systems[(i + r) % systems.length]);
    process.stderr.write(`round ${r + 1}/${ROUNDS}: ${order.map((x) => x.name).join(', ')}\n`);
    for (const sys of order) {
      for (const s of AR_ONLY) {
        for (const B of batchesOf(sys)) {
          const { ms, out } = await (isNative(sys) ? sys.run(s, N) : sys.run(s, B, N));
          (((rate[sys.name] ??= {})[s] ??= {})[B] ??= []).push(N / (ms / 1000));
          if (r === 0) ((outputs[sys.name] ??= {})[s] ??= {})[B] = out;
        }
      }
    }
  }
  const loadEnd = loadavg()[0];
  for (const p of pools) await p.close();

  const names = systems.map((x) => x.name);
  const med = (sys, s, B) => (rate[sys]?.[s]?.[B] ? median(rate[sys][s][B]) : undefined);
  // Ratios from the same round, then the median over rounds.
  const ratio = (a, sa, Ba, b, sb, Bb) => (rate[a]?.[sa]?.[Ba] && rate[b]?.[sb]?.[Bb] ? median(rate[a][sa][Ba].map((x, r) => x / rate[b][sb][Bb][r])) : undefined);
  const ratios = AR_ONLY.flatMap((s) => BATCHES.map((B) => ({
    strategy: s, batch: B,
    wasmOverWeb: ratio('ours wasm', s, B, 'onnxruntime-web', s, B),
    nativeOverNode: ratio('ours native', s, ALL, 'onnxruntime-node', s, B),
  })));
  const fmt = (x, d = 0) => (x === undefined ? '—' : x.toFixed(d));
  console.log('');
  console.log(`| words/s (median of ${ROUNDS}) | batch | ${names.map((n) => (n === native.name ? `${n} (${ALL})` : n)).join(' | ')} | ours wasm / onnxruntime-web | ours native / onnxruntime-node |`);
  console.log(`| --- | ---: | ${names.map(() => '---:').join(' | ')} | ---: | ---: |`);
  for (const x of ratios) {
    const cells = names.map((n) => fmt(med(n, x.strategy, natives.some((v) => v.name === n) ? ALL : x.batch)));
    console.log(`| ${x.strategy} | ${x.batch} | ${cells.join(' | ')} | ${fmt(x.wasmOverWeb, 2)}x | ${fmt(x.nativeOverNode, 2)}x |`);
  }
  if (counts.length) {
    // Across cores: each pool against onnxruntime-web, each --threads against onnxruntime-node, both at their default threads.
    const across = AR_ONLY.flatMap((s) => BATCHES.map((B) => ({
      strategy: s, batch: B,
      pools: pools.map((p) => ratio(p.name, s, B, 'onnxruntime-web', s, B)),
      poolOverOne: pools.map((p) => ratio(p.name, s, B, 'ours wasm', s, B)),
      natives: natives.slice(1).map((v) => ratio(v.name, s, ALL, 'onnxruntime-node', s, B)),
    })));
    ratios.push(...across.map((x) => ({ ...x, across: true })));
    console.log('');
    console.log(`| ratio (median of per-round ratios) | batch | ${pools.map((p) => `${p.name} / ours wasm`).join(' | ')} | ${pools.map((p) => `${p.name} / onnxruntime-web`).join(' | ')} | ${natives.slice(1).map((v) => `${v.name} / onnxruntime-node`).join(' | ')} |`);
    console.log(`| --- | ---: | ${[...pools, ...pools, ...natives.slice(1)].map(() => '---:').join(' | ')} |`);
    for (const x of across) console.log(`| ${x.strategy} | ${x.batch} | ${[...x.poolOverOne, ...x.pools, ...x.natives].map((v) => `${fmt(v, 2)}x`).join(' | ')} |`);
    console.log(`\nthreads: pool sizes and --threads ${counts.join(', ')} (all cores: ${cores}); onnxruntime-web numThreads ${ortWeb.env.wasm.numThreads} (0: its default), onnxruntime-node its default intra-op threads`);
  }

  // Agreement with ours wasm at the first batch size.
  const ref = (s) => outputs['ours wasm'][s][BATCHES[0]];
  const agreement = [];
  for (const sys of names) {
    for (const s of AR_ONLY) {
      for (const B of batchesOf(systems.find((x) => x.name === sys))) {
        if (sys === 'ours wasm' && B === BATCHES[0]) continue;
        const ours = ref(s);
        const theirs = outputs[sys][s][B];
        const differ = WORDS.map((w, i) => ({ w, ours: ours[i], theirs: theirs[i] })).filter((d) => d.ours.text !== d.theirs?.text);
        const maxScoreDiff = Math.max(...WORDS.map((_, i) => (ours[i].text === theirs[i]?.text ? Math.abs(ours[i].score - theirs[i].score) : 0)));
        const strict = sys.startsWith('ours') || s === 'greedy';
        agreement.push({ system: sys, strategy: s, batch: B, mismatches: differ.length, maxScoreDiff, strict, failed: strict && differ.length > 0, examples: differ.slice(0, 10) });
      }
    }
  }
  console.log('');
  console.log(`| outputs vs ours wasm at batch ${BATCHES[0]} | strategy | batch: words differing of ${N} | max score difference (same output) | required |`);
  console.log('| --- | --- | --- | ---: | --- |');
  for (const sys of names) {
    for (const s of AR_ONLY) {
      const rows = agreement.filter((a) => a.system === sys && a.strategy === s);
      if (!rows.length) continue;
      console.log(`| ${sys} | ${s} | ${rows.map((a) => `${a.batch}: ${a.mismatches}`).join(', ')} | ${Math.max(...rows.map((a) => a.maxScoreDiff)).toExponential(1)} | ${rows[0].strict ? 'identical' : 'reported'} |`);
    }
  }
  for (const a of agreement.filter((x) => x.mismatches)) {
    console.log(`\n${a.system}, ${a.strategy}, batch ${a.batch}: ${a.mismatches} word(s) differ${a.mismatches > a.examples.length ? ` (first ${a.examples.length})` : ''}:`);
    for (const d of a.examples) console.log(`  ${d.w}: ours "${d.ours.text}" (${d.ours.score.toFixed(5)}), ${a.system} "${d.theirs?.text}" (${d.theirs?.score.toFixed(5)})`);
  }

  footer(native.startup, systems, loadEnd, notes, { batches: BATCHES, wordsPerSecond: rate, ratios, agreement });
  const failed = agreement.filter((a) => a.failed);
  if (failed.length) {
    console.error(`outputs differ where they must not: ${failed.map((a) => `${a.system} ${a.strategy} batch ${a.batch}`).join(', ')}`);
    process.exitCode = 1;
  }
}

// ---------------------------------------------------------------- many words across cores (--workers)
// Words per second of the decoder pool (createDecoderPool, seq2seq-wasm/worker) with
// each number of workers, the whole list in one pool.decodeBatch, against
// onnxruntime-web with its threads (numThreads; its default unless --ort-threads)
// over the batched graphs, 32 words a call. Greedy and beam 5, the systems in a
// rotating order each round; the ratios are taken per round, then the median.
async function workersMode(dir) {
  const { defaultCores } = await poolModule();
  const sizes = WORKERS.map((w) => (w === 'all' ? defaultCores : w));
  const pools = [];
  for (const size of [...new Set(sizes)]) {
    const pool = await poolBatchSystem(size);
    // The whole list in one call.
    pools.push({ ...pool, name: `pool x${size}`, size, run: (s, n) => pool.run(s, n, n) });
  }
  const ORT_BATCH = 32;
  const web = dir ? await ortSystem('onnxruntime-web', ortWeb, { executionProviders: ['wasm'] }, dir, true) : null;
  const systems = [...pools, ...(web ? [{ ...web, name: `onnxruntime-web (batch ${ORT_BATCH})`, run: (s, n) => web.run(s, ORT_BATCH, n) }] : [])];
  const webThreads = ortWeb.env.wasm.numThreads;
  for (const sys of systems) for (const s of AR_ONLY) await sys.run(s, Math.min(N, 64));
  const rate = {};   // system -> strategy -> words per second, one per round
  const outputs = {};
  for (let r = 0; r < ROUNDS; ++r) {
    const order = systems.map((_, i) => systems[(i + r) % systems.length]);
    process.stderr.write(`round ${r + 1}/${ROUNDS}: ${order.map((x) => x.name).join(', ')}\n`);
    for (const sys of order) {
      for (const s of AR_ONLY) {
        const { ms, out } = await sys.run(s, N);
        ((rate[sys.name] ??= {})[s] ??= []).push(N / (ms / 1000));
        if (r === 0) (outputs[sys.name] ??= {})[s] = out;
      }
    }
  }
  const loadEnd = loadavg()[0];
  for (const p of pools) await p.close();
  const ratio = (a, b, s) => median(rate[a][s].map((x, r) => x / rate[b][s][r]));
  const names = systems.map((x) => x.name);
  console.log('');
  console.log(`| words/s (median of ${ROUNDS}) | ${names.join(' | ')} |`);
  console.log(`| --- | ${names.map(() => '---:').join(' | ')} |`);
  for (const s of AR_ONLY) console.log(`| ${s} | ${names.map((n) => median(rate[n][s]).toFixed(0)).join(' | ')} |`);
  const base = pools.find((p) => p.size === 1)?.name;
  const ratios = [];
  for (const s of AR_ONLY) {
    for (const p of pools) {
      if (base && p.name !== base) ratios.push({ what: `${p.name} / ${base}, ${s}`, value: ratio(p.name, base, s), target: p.size === 2 ? '>= 1.7' : undefined });
      if (web) ratios.push({ what: `${p.name} / onnxruntime-web (${webThreads || 'default'} threads, batch ${ORT_BATCH}), ${s}`, value: ratio(p.name, systems.at(-1).name, s), target: p.size > 1 && p.size === defaultCores ? '>= 1' : undefined });
    }
  }
  console.log('');
  console.log('| ratio (median of per-round ratios) | value | target |');
  console.log('| --- | ---: | --- |');
  for (const x of ratios) console.log(`| ${x.what} | ${x.value.toFixed(2)}x | ${x.target ?? ''} |`);
  // The pools' outputs are one decode's, whatever the number of workers.
  const mismatched = [];
  for (const p of pools.slice(1)) for (const s of AR_ONLY) if (JSON.stringify(outputs[p.name][s]) !== JSON.stringify(outputs[pools[0].name][s])) mismatched.push(`${p.name} ${s}`);
  console.log('');
  console.log(`cores: ${cpus().length} (pool default ${defaultCores}); onnxruntime-web numThreads ${webThreads} (0: its default, min(4, ceil(cores / 2)) in a browser); load average ${loadStart.toFixed(2)} at start, ${loadEnd.toFixed(2)} at end`);
  if (!web) console.log('note: onnxruntime-web skipped (no exported graphs)');
  if (opt.json) writeFileSync(opt.json, `${JSON.stringify({ cpu: cpus()[0]?.model, cores: cpus().length, loadAverage: { start: loadStart, end: loadEnd }, words: N, rounds: ROUNDS, ortWebThreads: webThreads, rate, ratios }, null, 2)}\n`);
  if (mismatched.length) {
    console.error(`the pools' outputs differ: ${mismatched.join(', ')}`);
    process.exitCode = 1;
  }
}

async function poolModule() {
  const mod = await import('../wasm/src/worker-client.js');
  const { defaultPoolSize } = await import('../wasm/src/pool.js');
  return { ...mod, defaultCores: await defaultPoolSize() };
}

// One thread: intra-op and inter-op pools of one; onnxruntime-web's wasm build is
// SIMD-only (env.wasm.simd is gone), and numThreads 1 keeps it off worker threads.
// --workers: its own thread count (numThreads 0 lets it choose), set before its first session.
Object.assign(ortWeb.env.wasm, { numThreads: WORKERS ? (ORT_THREADS ?? 0) : 1, proxy: false });
// With --workers, onnxruntime-node at its default threads too (intra-op: one per physical core).
const ortSystems = async (dir, batched) => [
  await ortSystem('onnxruntime-node', ortNode, WORKERS ? { executionProviders: ['cpu'] } : { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' }, dir, batched),
  await ortSystem('onnxruntime-web', ortWeb, { executionProviders: ['wasm'] }, dir, batched),
];
const graphs = onnxGraphs();
if (!graphs) notes.push('onnxruntime skipped: no exported graphs in build/bench-onnx and no torch to export them (scripts/install-deps.sh --train)');

console.log(`compare-runtimes: ${N} words, ${ROUNDS} rounds; ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}; Node ${process.versions.node}; load average ${loadStart.toFixed(2)} at start`);
// What ours computes in (the CLI's info line), against the f32 graphs the others run.
const storage = runCli(['info', AR]).match(/\(([^)]*storage[^)]*)\)/)?.[1] ?? 'unknown';
console.log(`ours: ${storage} (g2p-transformer); onnxruntime and PyTorch: f32, the dequantized weights`);

if (BATCHES) {
  await throughputMode(graphs);
  process.exit();
}
if (WORKERS) {
  await workersMode(graphs);
  process.exit();
}

const systems = [nativeSystem(), wasmSystem()];
if (graphs) systems.push(...await ortSystems(graphs, false));
if (TORCH) systems.push(torchSystem());
else notes.push(`PyTorch skipped: ${PY} cannot import torch (scripts/install-deps.sh --train installs it)`);

// ---------------------------------------------------------------- rounds
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

footer(systems[0].startup, systems, loadEnd, notes, { msPerWord: times, medians, ratios: RATIOS.map(({ what, value, target }) => ({ what, value, target })), agreement });
const failed = agreement.filter((a) => a.failed);
if (failed.length) {
  console.error(`outputs differ where they must not: ${failed.map((a) => `${a.system} ${a.strategy}`).join(', ')}`);
  process.exit(1);
}
