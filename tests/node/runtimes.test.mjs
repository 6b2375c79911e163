// Bun and Deno (devDependencies, their npm packages' binaries) run what the
// README promises Node users, from the installed tarballs: every Node example of
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

function run(runtime, name, code) {
  const file = join(pkg.project, `runtime-${runtime}-${name}.mjs`);
  writeFileSync(file, code);
  const { bin, args } = RUNTIMES[runtime];
  return spawnSync(bin, args(file), { cwd: pkg.project, encoding: 'utf8', timeout: 110000, env: { ...process.env, NO_COLOR: '1' } });
}

for (const runtime of Object.keys(RUNTIMES)) {
  describe(runtime, () => {
    test('installed (a devDependency of the repository)', () => {
      assert.ok(existsSync(RUNTIMES[runtime].bin), `${RUNTIMES[runtime].bin}: run npm ci`);
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
