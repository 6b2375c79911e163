// Memory: the soak's mixed decodes (soak.mjs: every strategy, stepped sessions,
// decodeBatch, scores, error paths in between) leave the wasm heap where it was
// after a warm-up and no Embind handles behind; models loaded and
// deleted over and over do not pile up; and objects never deleted are freed by
// the FinalizationRegistry once collected.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { modelPath, wordsFor } from './helpers.mjs';
import { MB, describe, packageWithCore, soak } from './soak.mjs';

const { loadModel, Seq2SeqError, core, heapBytes } = await packageWithCore();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const settle = async () => {
  for (let i = 0; i < 4; ++i) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
};

const arBytes = new Uint8Array(readFileSync(modelPath('ar')));

// The soak at a size that fits CI; `node tests/node/soak.mjs` runs it at 100,000
// (docs/reliability.md).
const SOAK_DECODES = Number(process.env.SEQ2SEQ_SOAK_DECODES ?? 20000);

test('mixed decodes, scores and errors (soak.mjs): the wasm heap stays flat after warm-up and no handles are left', async (t) => {
  const r = await soak({ loadModel, Seq2SeqError, core, heapBytes }, { decodes: SOAK_DECODES });
  t.diagnostic(describe(r));
  assert.ok(r.decodes >= SOAK_DECODES && r.scores > 0 && r.errors > 0);
  assert.equal(r.checkpoints.length, 10);
  for (const c of r.checkpoints) assert.equal(c.heap, r.warm, `the wasm heap did not grow by ${c.decodes} decodes`);
  assert.equal(r.handlesAfter, r.handles, 'no Embind value handles left behind');
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
