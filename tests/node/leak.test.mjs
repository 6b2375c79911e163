// Memory: 10,000 decodes (greedy, beam step by step with snapshots, Mask-Predict,
// sessions made and deleted, error paths in between) leave the wasm heap where
// it was after a warm-up and no Embind handles behind; models loaded and
// deleted over and over do not pile up; and objects never deleted are freed by
// the FinalizationRegistry once collected.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { installPackage, modelPath, wordsFor } from './helpers.mjs';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
// The Emscripten module the installed package uses (the same module instance:
// the same file URL as index.js imports), for its heap and handle count.
const { loadCore } = await import(pathToFileURL(join(pkg.packageDir, 'wasm/src/core.js')).href);
const core = await loadCore();
const heapBytes = () => core.HEAPU8.length;
const MB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const settle = async () => {
  for (let i = 0; i < 4; ++i) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
};

const arBytes = new Uint8Array(readFileSync(modelPath('ar')));
const cmlmBytes = new Uint8Array(readFileSync(modelPath('cmlm')));

test('10,000 decodes: the wasm heap stays bounded and no handles are left', async (t) => {
  const ar = await loadModel(arBytes);
  const cmlm = await loadModel(cmlmBytes);
  const words = wordsFor(ar.info, cmlm.info).filter((w) => w.length <= 12);
  assert.ok(words.length > 0, 'words both models read');
  const beam = ar.createSession({ strategy: 'beam', beamSize: 3, maxLength: 6 });
  const handles = core.count_emval_handles();
  let decodes = 0;
  let errors = 0;
  const round = (n) => {
    for (let i = 0; i < n; ++i) {
      const w = words[i % words.length];
      switch (i % 3) {
        case 0:   // a session made and deleted per decode
          assert.equal(ar.decode(w, { maxLength: 6 }).length, 1);
          break;
        case 1: { // one session reused, stepped, every snapshot built
          beam.start(w);
          let s;
          while (!beam.done) s = beam.step();
          assert.equal(s.results.length, 1);
          break;
        }
        default:
          assert.equal(cmlm.decode(w, { iterations: 2 }).length, 1);
      }
      decodes += 1;
      if (i % 10 === 0) {   // error paths on the way
        assert.throws(() => ar.decode(`${w}#`), Seq2SeqError);
        assert.throws(() => ar.createSession({ strategy: 'beam', beamSize: 0 }), Seq2SeqError);
        assert.throws(() => beam.step(), Seq2SeqError);
        errors += 3;
      }
    }
  };
  round(300);
  const warm = heapBytes();
  decodes = 0;
  const start = performance.now();
  round(10000);
  const ms = performance.now() - start;
  t.diagnostic(`${decodes} decodes and ${errors} errors in ${(ms / 1000).toFixed(1)} s; wasm heap ${(warm / MB).toFixed(1)} MB after warm-up, ${(heapBytes() / MB).toFixed(1)} MB after`);
  assert.equal(decodes, 10000);
  assert.equal(heapBytes(), warm, 'the wasm heap did not grow');
  assert.equal(core.count_emval_handles(), handles, 'no Embind value handles left behind');
  beam.delete();
  ar.delete();
  cmlm.delete();
  assert.ok(beam.deleted && ar.deleted && cmlm.deleted);
});

test('models loaded and deleted 40 times do not pile up', async (t) => {
  const cycle = async () => {
    const m = await loadModel(arBytes);
    const s = m.createSession();
    s.decode(wordsFor(m.info)[0]);
    s.delete();
    m.delete();
  };
  await cycle();
  const after1 = heapBytes();
  for (let i = 0; i < 40; ++i) await cycle();
  t.diagnostic(`model file ${(arBytes.length / MB).toFixed(2)} MB; heap ${(after1 / MB).toFixed(1)} MB after one cycle, ${(heapBytes() / MB).toFixed(1)} MB after 41`);
  assert.equal(heapBytes(), after1);
});

test('models never deleted are freed once garbage-collected (FinalizationRegistry)', async (t) => {
  const probe = await loadModel(arBytes);
  const weights = probe.info.parameters * 4;   // f32 in memory, whatever the file stores
  probe.delete();
  // Enough forgotten models that keeping them would need 64 MB more heap.
  const n = Math.max(8, Math.ceil((64 * MB) / weights));
  const before = heapBytes();
  let ref = null;
  for (let r = 0; r < 4; ++r) {
    for (let i = 0; i < n / 4; ++i) {
      const m = await loadModel(arBytes);
      m.decode(wordsFor(m.info)[0]);
      ref ??= new WeakRef(m);
    }
    await settle();
  }
  const grown = heapBytes() - before;
  t.diagnostic(`${n} forgotten models of ${(weights / MB).toFixed(2)} MB: the heap grew by ${(grown / MB).toFixed(1)} MB (${((n * weights) / MB).toFixed(0)} MB if none were freed)`);
  assert.equal(ref.deref(), undefined, 'the forgotten Model was collected');
  // At most the models of the round in progress, one more not yet collected, and slack.
  const allowed = (Math.ceil(n / 4) + 1) * weights + 8 * MB;
  assert.ok(grown < allowed, `forgotten models are freed (grew ${(grown / MB).toFixed(1)} MB, allowed ${(allowed / MB).toFixed(1)} MB)`);
});

test('sessions never deleted are freed once garbage-collected (FinalizationRegistry)', async (t) => {
  const ar = await loadModel(arBytes);
  const words = wordsFor(ar.info);
  let probe = null;
  const litter = (n) => {
    for (let i = 0; i < n; ++i) {
      const s = ar.createSession({ strategy: 'beam', beamSize: 4 });
      s.start(words[i % words.length]);
      s.step();
      probe ??= new WeakRef(s);
    }
  };
  const sizes = [];
  // A synchronous loop never yields to the registry, so every session of a round lives
  // until the round ends: 500 beam-4 sessions of the 4 M Transformer fit under the heap's
  // 1 GB cap (1,500 did not; the error was a clean 'out of memory' Seq2SeqError).
  for (let r = 0; r < 4; ++r) {
    litter(500);
    await settle();
    sizes.push(heapBytes());
  }
  t.diagnostic(`heap after each round of 500 forgotten sessions: ${sizes.map((b) => (b / MB).toFixed(1)).join(', ')} MB`);
  assert.equal(probe.deref(), undefined, 'the forgotten Session was collected');
  assert.equal(sizes[3], sizes[1], 'later rounds reuse the memory freed by the registry');
  ar.delete();
});
