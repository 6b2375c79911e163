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
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

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

async function inChromium() {
  const { url, stop } = await serve();
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.goto(new URL('bench/relaxed-dot/index.html', url).href);
    await page.waitForFunction(() => window.ready === true);
    const version = browser.version();
    return { version, results: await page.evaluate((a) => window.measure(a), { wasmUrl: new URL(relative(root, wasm), url).href, rounds }) };
  } finally {
    await browser.close();
    stop();
  }
}

async function inFirefox() {
  const { firefox } = await import('../tests/browser/engines.mjs');
  const { url, stop } = await serve();
  const engine = await firefox();
  try {
    await engine.open(new URL('bench/relaxed-dot/index.html', url).href);
    await engine.waitFor(() => window.ready === true, null, 'the bench page');
    const results = await engine.evaluate((a) => window.measure(a), { wasmUrl: new URL(relative(root, wasm), url).href, rounds });
    return { version: engine.version, results };
  } finally {
    await engine.close();
    stop();
  }
}

function inDeno() {
  const deno = join(root, 'node_modules/.bin/deno');
  const r = spawnSync(deno, ['run', '--allow-read', join(root, 'bench/relaxed-dot/deno.js'), wasm, String(rounds)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`deno failed (${r.status}): ${r.stderr.slice(0, 2000)}`);
  const version = spawnSync(deno, ['--version'], { encoding: 'utf8' }).stdout.split('\n').slice(0, 2).join(', ');
  return { version, results: JSON.parse(r.stdout.trim().split('\n').pop()) };
}

function serve() {
  const server = spawn(process.execPath, [join(root, 'scripts/serve.mjs'), root, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((res, rej) => {
    let buf = '';
    server.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/serving (http:\/\/\S+)/);
      if (m) res({ url: m[1], stop: () => server.kill('SIGTERM') });
    });
    server.on('exit', (c) => rej(new Error(`server exited with ${c}`)));
  });
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
