#!/usr/bin/env node
// Where decoding time goes, per strategy, natively and in WebAssembly. From the
// root of a checkout, one command (it builds what it needs; about 8 minutes
// on a 2-core machine):
//
//   node bench/profile.mjs [--root DIR] [--words N] [--repeat R] [--top K] [--face native|wasm] [--out DIR]
//
// Decodes N (1000) words of the CMUdict test split (bench/words.mjs) with the
// shipped models: g2p-transformer greedy and beam 5; g2p-cmlm Mask-Predict T=1
// and T=10 at the predicted length, and T=10 at the fixed maximum length. For
// each it prints ms per word natively and in wasm, self time grouped into
// buckets (our linear kernel, attention, layer norm, ...; Eigen's GEMM packing
// and gebp kernel for a checkout from before the packed kernels), and the top K
// functions of each face.
//
// Native: the checkout's CLI (build/native; configured if missing, always
// brought up to date), `seq2seq decode --model M [flags]` with the words on
// stdin. ms/word = (best of R runs with the words - best of R with no words)
// / N, CPU time (perf stat's task-clock; wall time beside it): on a shared
// machine the CPU time of a single-threaded run moves less than its wall time.
// Profile: `perf record -e cpu-clock` (a software clock, so it works in VMs
// without hardware counters; no -g: self time needs no call graph), `perf
// report --no-children`, minus the samples of the same command with no words
// (start-up, model load), function by function.
// WebAssembly: the npm module's wasm linked with function names kept
// (build/wasm-profile, `--profiling-funcs`), loaded through the checkout's own
// wasm/src/*.js (copied beside it), decoding the same words with
// session.decode() (attention off, as the CLI): after a 50-word warm-up, R
// timed passes (process CPU time, wall beside it; best pass), then, in
// another process under `node --cpu-prof`, one pass whose samples are kept.
//
// --root DIR profiles another checkout (default: the one this file is in).
// Raw data (perf.data, .cpuprofile, results.json) goes to --out (ROOT/build/profile).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { shortName } from './symbols.mjs';
import { testWords } from './words.mjs';

const { values: opt } = parseArgs({
  options: {
    root: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
    words: { type: 'string', default: '1000' },
    repeat: { type: 'string', default: '3' },
    top: { type: 'string', default: '6' },
    face: { type: 'string' },
    out: { type: 'string' },
    'wasm-child': { type: 'string' },
  },
});

// --- Child: one strategy's wasm decode passes (the profiled one under --cpu-prof).
if (opt['wasm-child']) {
  const job = JSON.parse(opt['wasm-child']);
  const { loadModel } = await import(pathToFileURL(job.index));
  const words = readFileSync(job.words, 'utf8').split('\n').filter(Boolean);
  const model = await loadModel(readFileSync(job.model));
  const session = model.createSession({ ...job.options, attention: false });
  for (const w of words.slice(0, 50)) session.decode(w);
  // process.hrtime is the monotonic clock of the profile's timestamps (µs there).
  const t0 = Number(process.hrtime.bigint() / 1000n);
  const passes = Array.from({ length: job.passes }, () => {
    const [wall, cpu] = [performance.now(), process.cpuUsage()];
    for (const w of words) session.decode(w);
    const c = process.cpuUsage(cpu);
    return { wall: performance.now() - wall, cpu: (c.user + c.system) / 1000 };
  });
  const t1 = Number(process.hrtime.bigint() / 1000n);
  console.log(JSON.stringify({ t0, t1, passes }));
  process.exit(0);
}

const ROOT = resolve(opt.root);
const N = Number(opt.words);
const R = Number(opt.repeat);
const TOP = Number(opt.top);
const OUT = resolve(opt.out ?? join(ROOT, 'build/profile'));
const FACES = opt.face ? [opt.face] : ['native', 'wasm'];
const AR = join(ROOT, 'models/g2p-transformer.safetensors');
const CMLM = join(ROOT, 'models/g2p-cmlm.safetensors');
const STRATEGIES = [
  { name: 'AR greedy', model: AR, flags: ['--greedy'], options: { strategy: 'greedy' } },
  { name: 'AR beam 5', model: AR, flags: ['--beam', '5'], options: { strategy: 'beam', beamSize: 5 } },
  { name: 'CMLM T=1', model: CMLM, flags: ['--iterations', '1'], options: { strategy: 'nar', iterations: 1 } },
  { name: 'CMLM T=10', model: CMLM, flags: ['--iterations', '10'], options: { strategy: 'nar', iterations: 10 } },
  { name: 'CMLM fixed length T=10', model: CMLM, flags: ['--fixed-length', '--iterations', '10'], options: { strategy: 'nar', narLength: 'fixed', iterations: 10 } },
];

// Self time is put in the first bucket whose pattern matches the function name.
// Our kernel is the packed linear_kernel_* (src/linear_kernel.h), which every
// linear layer runs on; in wasm Binaryen inlines it into run_linear and
// seq2seq::linear, which therefore count with it. gemv_rowmajor_simd, the GEMV
// it replaced (up to 4 rows, more to Eigen), and the Eigen buckets are kept for
// --root on an older checkout (docs/performance.md compares one).
const BUCKETS = [
  ['model load', /WeightLoader|Model::from_file|stack_linears|pack_linear|safetensors|Safetensors/],
  ['our GEMV / linear kernel + linear()', /gemv_rowmajor|linear_kernel|f32_tile|i8_tile|quantize_row|^seq2seq::linear\b|run_linear/],
  ['Eigen GEMM packing (gemm_pack_lhs/rhs)', /gemm_pack_(lhs|rhs)/],
  ['Eigen gebp_kernel', /gebp_kernel/],
  ['Eigen, other (GEMV, copies, expressions)', /^Eigen::|general_matrix_(vector|matrix)_product/],
  ['attention kernel', /attention_head|scores_row|weighted_sum_row|multi_head/],
  ['layer norm', /layer_norm/],
  ['softmax / log-softmax', /softmax/],
  ['malloc / free / memcpy / memset', /malloc|free\b|cfree|_int_free|unlink_chunk|sbrk|memmove|memset|memcpy|operator new|operator delete/],
  ['search (AR beam, Mask-Predict)', /ArSearch|NarSearch|TokenProb|__adjust_heap|__introsort|__insertion_sort|nth_element|partial_sort/],
  ['snapshots, results, bindings', /[Ss]napshot|Session::fill_text|emscripten::|_embind_|emval/],
  ['rest of the model code', /^seq2seq::/],
];
const KERNEL = 'OS kernel';
const JS = 'JS glue (Embind, invoke_* for exceptions)';
const GC = 'garbage collection';
const bucketOf = (name, where) => {
  if (where === 'kernel') return KERNEL;
  if (where === 'js') return name === '(garbage collector)' ? GC : /^\((program|idle)\)$/.test(name) ? 'other' : JS;
  if (/^(wasm-to-js|js-to-wasm)|JSToWasm|WasmToJS/.test(name)) return JS;
  return BUCKETS.find(([, re]) => re.test(name))?.[0] ?? 'other';
};

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'], ...options });
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.error ?? r.stderr}`);
  return r;
}
// Best of R runs: {wall, cpu} in ms, each the least seen.
const best = (runs) => ({ wall: Math.min(...runs.map((r) => r.wall)), cpu: Math.min(...runs.map((r) => r.cpu)) });

// Configures a build directory once, then brings its target up to date.
function build(dir, configure, target, env = process.env) {
  if (!existsSync(join(ROOT, dir, 'CMakeCache.txt'))) run(configure[0], configure.slice(1), { cwd: ROOT, env, stdio: 'inherit' });
  run('cmake', ['--build', dir, '-j', String(cpus().length), '--target', target], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
}

// Samples per function name: name -> {samples, where}.
function tally(entries) {
  const m = new Map();
  for (const { name, where, samples } of entries) {
    const e = m.get(name) ?? { samples: 0, where };
    e.samples += samples;
    m.set(name, e);
  }
  return m;
}

function summarize(fns) {
  const total = [...fns.values()].reduce((a, f) => a + f.samples, 0) || 1;
  const buckets = new Map();
  for (const [name, f] of fns) {
    const b = bucketOf(name, f.where);
    buckets.set(b, (buckets.get(b) ?? 0) + f.samples);
  }
  const pct = (n) => (100 * n) / total;
  return {
    samples: total,
    buckets: Object.fromEntries([...buckets].sort((a, b) => b[1] - a[1]).map(([b, n]) => [b, pct(n)])),
    top: [...fns].sort((a, b) => b[1].samples - a[1].samples).slice(0, TOP).map(([name, f]) => ({ name: shortName(name), pct: pct(f.samples) })),
  };
}

// --- Native ---------------------------------------------------------------------
function perfProfile(cli, args, input, file) {
  rmSync(file, { force: true });   // else perf keeps the last one as .old
  run('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '4000', '-o', file, '--', cli, ...args], { input, stdio: ['pipe', 'ignore', 'pipe'] });
  const report = run('perf', ['report', '-i', file, '--stdio', '--no-children', '-F', 'overhead,sample,sym']).stdout;
  const entries = [];
  for (const line of report.split('\n')) {
    const m = /^\s*[\d.]+%\s+(\d+)\s+\[(.)\]\s+(.*\S)\s*$/.exec(line);
    if (m) entries.push({ name: m[3], where: m[2] === 'k' ? 'kernel' : 'user', samples: Number(m[1]) });
  }
  return tally(entries);
}

function profileNative(s, words, slug) {
  const cli = join(ROOT, 'build/native/seq2seq');
  const args = ['decode', '--model', s.model, ...s.flags];
  const input = `${words.join('\n')}\n`;
  // CPU time from perf stat's task-clock, wall time around it.
  const plain = (stdin) => {
    const t0 = performance.now();
    const r = run('perf', ['stat', '-x,', '-e', 'task-clock', '--', cli, ...args], { input: stdin, stdio: ['pipe', 'ignore', 'pipe'] });
    return { wall: performance.now() - t0, cpu: Number(/^([\d.]+),msec,task-clock/m.exec(r.stderr)[1]) };
  };
  const times = (stdin) => best(Array.from({ length: R }, () => plain(stdin)));
  const startup = times('');
  const full = times(input);
  const perWord = (k) => (full[k] - startup[k]) / words.length;
  const all = perfProfile(cli, args, input, join(OUT, `native-${slug}.perf.data`));
  const load = perfProfile(cli, args, '', join(OUT, `native-${slug}-load.perf.data`));
  const decode = new Map();
  for (const [name, f] of all) {
    const n = f.samples - (load.get(name)?.samples ?? 0);
    if (n > 0) decode.set(name, { ...f, samples: n });
  }
  const loadSamples = [...load.values()].reduce((a, f) => a + f.samples, 0);
  return { msPerWord: perWord('cpu'), wallMsPerWord: perWord('wall'), startupMs: startup.cpu, loadSamples, ...summarize(decode) };
}

// --- WebAssembly ----------------------------------------------------------------
function profileWasm(s, wordsFile, pkg, slug) {
  const dir = join(OUT, `wasm-${slug}.cpuprofile.d`);
  rmSync(dir, { recursive: true, force: true });
  const child = (passes, node = []) => {
    const job = JSON.stringify({ index: join(pkg, 'src/index.js'), words: wordsFile, model: s.model, options: s.options, passes });
    return JSON.parse(run(process.execPath, [...node, fileURLToPath(import.meta.url), '--wasm-child', job]).stdout.trim().split('\n').pop());
  };
  const { passes } = child(R);   // timed without the profiler, which costs 5-10 %
  const { t0, t1 } = child(1, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval', '500']);
  const profile = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]), 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const entries = [];
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    if (t < t0 || t > t1) return;   // loading, compiling, warm-up, exit
    const { functionName, url } = nodes.get(id).callFrame;
    entries.push({ name: functionName || '(anonymous)', where: url.startsWith('wasm://') ? 'wasm' : 'js', samples: 1 });
  });
  const nWords = readFileSync(wordsFile, 'utf8').split('\n').filter(Boolean).length;
  const { wall, cpu } = best(passes);
  return { msPerWord: cpu / nWords, wallMsPerWord: wall / nWords, ...summarize(tally(entries)) };
}

// The checkout's package JS with the profiling build's .mjs/.wasm as its dist/.
function wasmPackage() {
  const env = { ...process.env, NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' };
  build('build/wasm-profile', ['emcmake', 'cmake', '-S', '.', '-B', 'build/wasm-profile', '-DCMAKE_BUILD_TYPE=Release',
    '-DSEQ2SEQ_BUILD_TESTS=OFF', '-DSEQ2SEQ_BUILD_BENCH=OFF', '-DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs'], 'seq2seq_module', env);
  const pkg = join(OUT, 'wasm-package');
  rmSync(pkg, { recursive: true, force: true });
  cpSync(join(ROOT, 'wasm/src'), join(pkg, 'src'), { recursive: true });
  mkdirSync(join(pkg, 'dist'));
  for (const f of ['seq2seq_core.mjs', 'seq2seq_core.wasm']) copyFileSync(join(ROOT, 'build/wasm-profile', f), join(pkg, 'dist', f));
  writeFileSync(join(pkg, 'package.json'), '{"type": "module"}\n');
  return pkg;
}

// --- Main ---------------------------------------------------------------------
mkdirSync(OUT, { recursive: true });
const words = testWords(ROOT, N);
const wordsFile = join(OUT, 'words.txt');
writeFileSync(wordsFile, `${words.join('\n')}\n`);
if (FACES.includes('native')) build('build/native', ['cmake', '-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release', '-DSEQ2SEQ_NATIVE_ARCH=OFF'], 'seq2seq');
const pkg = FACES.includes('wasm') ? wasmPackage() : null;

const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
const flags = new Set((/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1] ?? '').trim().split(/\s+/));
const commit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
console.log(`# profile of ${ROOT} (${commit || 'no git'}), ${N} words of the CMUdict test split, times best of ${R} (CPU time: other jobs on the machine count less)`);
console.log(`${cpus()[0]?.model} x${cpus().length}; ${['avx2', 'fma', 'avx512f'].map((f) => `${f} ${flags.has(f) ? 'yes' : 'no'}`).join(', ')}; Node ${process.versions.node}; load average ${loadavg()[0].toFixed(2)} at start`);

const results = [];
for (const s of STRATEGIES) {
  const slug = s.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const r = { strategy: s.name, model: s.model.replace(`${ROOT}/`, ''), flags: s.flags.join(' '), options: s.options };
  if (FACES.includes('native')) r.native = profileNative(s, words, slug);
  if (FACES.includes('wasm')) r.wasm = profileWasm(s, wordsFile, pkg, slug);
  results.push(r);

  console.log(`\n## ${s.name}: ${r.model}, CLI ${r.flags}, npm ${JSON.stringify(s.options)}\n`);
  if (r.native) console.log(`native: ${r.native.msPerWord.toFixed(3)} ms/word CPU (wall ${r.native.wallMsPerWord.toFixed(3)}; start-up and model load, ${r.native.startupMs.toFixed(0)} ms CPU, excluded); profile ${r.native.samples} samples, ${r.native.loadSamples} of the no-words run subtracted`);
  if (r.wasm) console.log(`wasm:   ${r.wasm.msPerWord.toFixed(3)} ms/word CPU (wall ${r.wasm.wallMsPerWord.toFixed(3)}); profile ${r.wasm.samples} samples`);
  if (r.native && r.wasm) console.log(`wasm / native: ${(r.wasm.msPerWord / r.native.msPerWord).toFixed(2)}x`);
  const faces = FACES.filter((f) => r[f]);
  const names = [...new Set(faces.flatMap((f) => Object.keys(r[f].buckets)))].filter((b) => faces.some((f) => r[f].buckets[b] >= 0.05));
  const share = (f, b) => r[f].buckets[b] ?? 0;
  names.sort((a, b) => Math.max(...faces.map((f) => share(f, b))) - Math.max(...faces.map((f) => share(f, a))));
  console.log(`\n| self time | ${faces.join(' | ')} |\n| --- |${faces.map(() => ' ---: |').join('')}`);
  for (const b of names) console.log(`| ${b} | ${faces.map((f) => `${share(f, b).toFixed(1)} %`).join(' | ')} |`);
  for (const f of faces) console.log(`\ntop ${f}: ${r[f].top.map((t) => `${t.name} ${t.pct.toFixed(1)} %`).join('; ')}`);
}

if (FACES.length === 2) {
  const first = (b) => Object.entries(b).slice(0, 2).map(([k, v]) => `${k} ${v.toFixed(0)} %`).join(', ');
  console.log('\n## Summary (CPU ms/word)\n\n| strategy | native ms/word | wasm ms/word | wasm / native | native: top buckets | wasm: top buckets |\n| --- | ---: | ---: | ---: | --- | --- |');
  for (const r of results) {
    console.log(`| ${r.strategy} | ${r.native.msPerWord.toFixed(2)} | ${r.wasm.msPerWord.toFixed(2)} | ${(r.wasm.msPerWord / r.native.msPerWord).toFixed(2)}x | ${first(r.native.buckets)} | ${first(r.wasm.buckets)} |`);
  }
}
writeFileSync(join(OUT, 'results.json'), `${JSON.stringify({ root: ROOT, commit, words: N, cpu: cpus()[0]?.model, results }, null, 2)}\n`);
console.log(`\nload average ${loadavg()[0].toFixed(2)} at end; raw profiles and results.json in ${OUT}`);
