// Node at the package's lower bound (18.20, tests/runtimes), Bun and Deno
// (devDependencies, their npm packages' binaries) run what the README promises
// Node users, from the installed tarballs: every Node example of
// both READMEs prints what its `// →` comments say, and the decoder worker
// (createDecoderWorker(): a worker_threads worker in Bun, a module Web Worker in
// Deno) loads a model, decodes and stops.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { installPackage } from './helpers.mjs';
import { READMES, readmeBlocks } from './readme-blocks.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = installPackage();

const RUNTIMES = {
  // The lower bound of "engines" (>= 18; import.meta.resolve, which the examples use, from 18.19).
  node18: { bin: join(ROOT, 'tests/runtimes/node_modules/node18/bin/node'), args: (file) => [file] },
  bun: { bin: join(ROOT, 'node_modules/.bin/bun'), args: (file) => ['run', file] },
  // -A: the examples read the models from node_modules and the worker spawns.
  deno: { bin: join(ROOT, 'node_modules/.bin/deno'), args: (file) => ['run', '-A', '--quiet', file] },
};

const WORKER_EXAMPLE = `import { createDecoderWorker } from 'seq2seq-wasm/worker';

const decoder = createDecoderWorker({ startTimeout: 20000 });
await decoder.load(new URL(import.meta.resolve('seq2seq-wasm-models/g2p-transformer.safetensors')));
await decoder.start('PHONEME', { strategy: 'beam', beamSize: 5 });
const first = await decoder.step();
console.log('step', first.step);
console.log((await decoder.run())[0].text);
console.log((await decoder.decodeBatch(['HELLO', 'WORLD'])).map(([b]) => b.text).join(' | '));
await decoder.terminate();
`;

// The pool: two workers (worker_threads in Bun and Node, module Web Workers in Deno), the
// model read once and sent to each; the lists are one worker's, in order; a bad word is
// named by its place in the list; the default size is the machine's cores (at most 8).
const POOL_EXAMPLE = `import { createDecoderPool, createDecoderWorker } from 'seq2seq-wasm/worker';

const model = new URL(import.meta.resolve('seq2seq-wasm-models/g2p-transformer.safetensors'));
const words = ['HELLO', 'WORLD', 'PHONEME', 'A', 'QUEUE', 'KNIGHT', 'SEQUENCE', 'TO', 'SEQUENCE', 'ABACUS', 'XYLOPHONE', 'BOOK'];
const pool = createDecoderPool({ size: 2, startTimeout: 20000 });
await pool.load(model);
const one = createDecoderWorker({ startTimeout: 20000 });
await one.load(model);
const progress = [];
const lists = await pool.decodeBatch(words, { strategy: 'beam', beamSize: 3 }, { chunkSize: 2, onProgress: ({ done }) => progress.push(done) });
console.log(JSON.stringify(lists) === JSON.stringify(await one.decodeBatch(words, { strategy: 'beam', beamSize: 3 })), progress.at(-1));
console.log(lists.slice(0, 2).map(([b]) => b.text).join(' | '));
await pool.decodeBatch([...words, ''], {}, { chunkSize: 1 }).catch((e) => console.log(e.kind, e.message));
await pool.terminate();
await one.terminate();
const auto = createDecoderPool();
await auto.load(model);
console.log(auto.size === Math.min(8, navigator.hardwareConcurrency));
await auto.terminate();
`;

function run(runtime, name, code) {
  const file = join(pkg.project, `runtime-${runtime}-${name}.mjs`);
  writeFileSync(file, code);
  const { bin, args } = RUNTIMES[runtime];
  return spawnSync(bin, args(file), { cwd: pkg.project, encoding: 'utf8', timeout: 110000, env: { ...process.env, NO_COLOR: '1' } });
}

for (const runtime of Object.keys(RUNTIMES)) {
  describe(runtime, () => {
    test('installed (a devDependency of the repository, or of tests/runtimes)', () => {
      assert.ok(existsSync(RUNTIMES[runtime].bin), `${RUNTIMES[runtime].bin}: run npm ci (and npm ci --prefix tests/runtimes)`);
      const r = spawnSync(RUNTIMES[runtime].bin, ['--version'], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    });

    for (const readme of READMES) {
      for (const block of readmeBlocks(readme.path).filter((b) => b.kind?.run === 'node')) {
        test(`${readme.name}: ${block.name}`, { timeout: 120000 }, () => {
          const r = run(runtime, `${readme.id}-${block.line}`, block.code);
          assert.equal(r.status, 0, `exit ${r.status}: ${r.stderr}`);
          for (const text of block.expected) assert.ok(r.stdout.includes(text), `prints '${text}'; printed:\n${r.stdout}\n${r.stderr}`);
        });
      }
    }

    test('the decoder worker: load, step, run, decodeBatch, terminate', { timeout: 120000 }, () => {
      const r = run(runtime, 'worker', WORKER_EXAMPLE);
      assert.equal(r.status, 0, `exit ${r.status}: ${r.stderr}`);
      assert.deepEqual(r.stdout.trim().split('\n'), ['step 1', 'F OW N IY M', 'HH EH L OW | W ER L D']);
    });

    test('the decoder pool: two workers give one worker\'s lists, in order; errors by index; terminate', { timeout: 120000 }, () => {
      // Node 18 has no navigator: the default size comes from os.availableParallelism() there.
      const code = runtime === 'node18' ? POOL_EXAMPLE.replace('navigator.hardwareConcurrency', "(await import('node:os')).cpus().length") : POOL_EXAMPLE;
      const r = run(runtime, 'pool', code);
      assert.equal(r.status, 0, `exit ${r.status}: ${r.stderr}`);
      assert.deepEqual(r.stdout.trim().split('\n'), ['true 12', 'HH EH L OW | W ER L D', 'InputError texts[12] "": input: the source text is empty', 'true']);
    });

    if (runtime === 'deno') {
      test('a module Web Worker on the worker script, made by hand', { timeout: 120000 }, () => {
        const code = WORKER_EXAMPLE.replace('createDecoderWorker({ startTimeout: 20000 })',
          "createDecoderWorker(new Worker(import.meta.resolve('seq2seq-wasm/worker-script'), { type: 'module' }))");
        assert.notEqual(code, WORKER_EXAMPLE);
        const r = run(runtime, 'web-worker', code);
        assert.equal(r.status, 0, `exit ${r.status}: ${r.stderr}`);
        assert.deepEqual(r.stdout.trim().split('\n'), ['step 1', 'F OW N IY M', 'HH EH L OW | W ER L D']);
      });
    }
  });
}

test('require() from CommonJS: ERR_REQUIRE_ESM on Node 18, the module from Node 20.19 (as the README says)', () => {
  const file = join(pkg.project, 'runtime-require.cjs');
  writeFileSync(file, "const { loadModel, LIMITS } = require('seq2seq-wasm');\nconsole.log(typeof loadModel, typeof LIMITS);\n");
  const old = spawnSync(RUNTIMES.node18.bin, [file], { cwd: pkg.project, encoding: 'utf8' });
  assert.notEqual(old.status, 0);
  assert.match(old.stderr, /ERR_REQUIRE_ESM/);
  const [major, minor] = process.versions.node.split('.').map(Number);
  assert.ok(major > 20 || (major === 20 && minor >= 19), `this test runs on Node ${process.versions.node}`);
  const now = spawnSync(process.execPath, [file], { cwd: pkg.project, encoding: 'utf8' });
  assert.equal(now.status, 0, now.stderr);
  assert.equal(now.stdout.trim(), 'function object');
});
