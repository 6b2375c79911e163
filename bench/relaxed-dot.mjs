#!/usr/bin/env node
// The int8 tile alone, three ways (bench/relaxed-dot/kernels.c): the simd128
// build's (int16 pairs), one i32x4.relaxed_dot_i8x16_i7x16_add_s per 16
// products, and i16x8.relaxed_dot_i8x16_i7x16_s followed by a pairwise int16
// dot by ones. It answers what the whole-decode timings cannot: how much faster
// the relaxed instructions make the kernel itself in each engine on this CPU.
//
//   node bench/relaxed-dot.mjs [--rounds R] [--engines chromium,deno,firefox]
//
// Compiles kernels.c with clang-19 and wasm-ld-19 (Debian: apt install clang-19
// lld-19; Emscripten 3.1.6's clang has no relaxed dot product) into
// build/relaxed-dot/kernels.wasm, checks in each engine that the three tiles give
// the exact sums of a JS reference, then times them interleaved and prints per
// tile shape (rows x panels of 8 outputs) µs per layer, GMAC/s and the ratios.
// Node 20 runs an earlier draft of the relaxed dot product, so it is not an engine here.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launch, startServer } from '../tests/browser/helpers.mjs';
import { firefox } from '../tests/browser/engines.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, engines: { type: 'string', default: 'chromium,deno,firefox' } } });
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer; got ${args.rounds}`);
const engines = args.engines.split(',');
for (const e of engines) if (!['chromium', 'deno', 'firefox'].includes(e)) throw new Error(`--engines: unknown engine ${e} (chromium, deno, firefox)`);

const out = join(root, 'build/relaxed-dot');
const wasm = join(out, 'kernels.wasm');
mkdirSync(out, { recursive: true });
const step = (cmd, argv) => {
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.error?.code === 'ENOENT') throw new Error(`${cmd} not found: the relaxed dot product needs clang-19 and lld-19 (apt install clang-19 lld-19)`);
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
};
// Compiled and linked as two steps: clang-19's driver, asked to link at -O3, runs the
// wasm-opt it finds on PATH, Debian's Binaryen 108, which misreads the relaxed dot.
step('clang-19', ['--target=wasm32', '-O3', '-msimd128', '-mrelaxed-simd', '-nostdlib', '-c', join(root, 'bench/relaxed-dot/kernels.c'), '-o', join(out, 'kernels.o')]);
step('wasm-ld-19', ['--no-entry', '--export-all', '-o', wasm, join(out, 'kernels.o')]);

// The page: index.html and measure.js beside the module, in a folder served alone.
for (const f of ['index.html', 'measure.js']) copyFileSync(join(root, 'bench/relaxed-dot', f), join(out, f));

async function inPage(open) {
  const server = await startServer(out);
  try {
    return await open(server.url, { wasmUrl: new URL('kernels.wasm', server.url).href, rounds });
  } finally {
    await server.stop();
  }
}

const inChromium = () => inPage(async (url, args) => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.ready === true);
    return { version: await page.evaluate(() => navigator.userAgent), results: await page.evaluate((a) => window.measure(a), args) };
  } finally {
    await browser.close();
  }
});

const inFirefox = () => inPage(async (url, args) => {
  const engine = await firefox();
  try {
    await engine.open(url);
    await engine.waitFor(() => window.ready === true, null, 'the bench page');
    return { version: engine.version, results: await engine.evaluate((a) => window.measure(a), args) };
  } finally {
    await engine.close();
  }
});

function inDeno() {
  const deno = join(root, 'node_modules/.bin/deno');
  const r = spawnSync(deno, ['run', '--allow-read', join(root, 'bench/relaxed-dot/deno.js'), wasm, String(rounds)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`deno failed (${r.status}): ${r.stderr.slice(0, 2000)}`);
  const version = spawnSync(deno, ['--version'], { encoding: 'utf8' }).stdout.split('\n').slice(0, 2).join(', ');
  return { version, results: JSON.parse(r.stdout.trim().split('\n').pop()) };
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`${cpus()[0].model}; ${rounds} rounds; load average before: ${load()}`);
console.log('engine\ttile\tpairs µs (GMAC/s)\tadd µs (GMAC/s)\ti16 µs (GMAC/s)\tpairs/add\tpairs/i16');
for (const engine of engines) {
  const { version, results } = engine === 'deno' ? inDeno() : engine === 'firefox' ? await inFirefox() : await inChromium();
  console.log(`# ${engine}: ${version}; the three tiles' sums equal the reference`);
  for (const { shape, us, gmacs } of results) {
    const cell = (t) => `${us[t].toFixed(1)} (${gmacs[t].toFixed(1)})`;
    console.log(`${engine}\t${shape}\t${cell('pairs')}\t${cell('add')}\t${cell('i16')}\t${(us.pairs / us.add).toFixed(2)}x\t${(us.pairs / us.i16).toFixed(2)}x`);
  }
}
console.log(`load average after: ${load()}`);
