// The soak: mixed decodes through the installed package, with the wasm heap and
// the Embind handle count sampled as they go. Each round of eight calls decodes
// nine sources: greedy (a session per call), beam stepped in one reused session
// (attention on, every snapshot built), sampling (two samples), Mask-Predict by
// decode() and stepped in a reused session, decodeBatch of three texts, the RNN;
// and force-scores the beam's result (which must score as the decode did). Every
// tenth round also calls seven ways that must throw a Seq2SeqError.
//
// leak.test.mjs runs it at a size that fits CI; the long run is
//   node tests/node/soak.mjs [DECODES]     (default 100000)
// which prints the heap at each tenth and exits non-zero if it grew after the
// warm-up (docs/reliability.md records its result).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FIXTURES, installPackage, modelPath, wordsFor } from './helpers.mjs';

export const MB = 1024 * 1024;

/** The installed package, and the Emscripten module it uses (the same instance), for its heap and handle count. */
export async function packageWithCore() {
  const pkg = installPackage();
  const api = await pkg.importPackage();
  const { loadCore } = await import(pathToFileURL(join(pkg.packageDir, 'wasm/src/core.js')).href);
  const core = await loadCore();
  return { ...api, core, heapBytes: () => core.HEAPU8.length };
}

/**
 * Decodes at least `decodes` sources after `warmup` rounds. Returns the counts,
 * the time, the heap after the warm-up (`warm`) and at each tenth of the run
 * (`checkpoints`, bytes), and the Embind handles before and after.
 */
export async function soak({ loadModel, Seq2SeqError, core, heapBytes }, { decodes: wanted, warmup = 400 }) {
  const ar = await loadModel(new Uint8Array(readFileSync(modelPath('ar'))));
  const cmlm = await loadModel(new Uint8Array(readFileSync(modelPath('cmlm'))));
  const rnn = await loadModel(new Uint8Array(readFileSync(join(FIXTURES, 'rnn_additive.safetensors'))));
  const words = wordsFor(ar.info, cmlm.info, rnn.info).filter((w) => w.length <= 12);
  assert.ok(words.length >= 3, 'words every model reads');
  const beam = ar.createSession({ strategy: 'beam', beamSize: 3, maxLength: 8 });
  const nar = cmlm.createSession({ iterations: 3 });
  const throws = (f, kind) => assert.throws(f, (e) => e instanceof Seq2SeqError && e.kind === kind);
  const counts = { decodes: 0, scores: 0, errors: 0 };

  const round = (i) => {
    const w = words[i % words.length];
    const stepped = (session) => {
      session.start(w);
      let s;
      while (!session.done) s = session.step();
      return s.results;
    };
    assert.equal(ar.decode(w, { maxLength: 8 }).length, 1);
    const best = stepped(beam)[0];
    assert.equal(ar.decode(w, { strategy: 'sample', nBest: 2, seed: i, topK: 8, temperature: 0.9, maxLength: 8 }).length, 2);
    assert.equal(cmlm.decode(w, { iterations: 2 }).length, 1);
    assert.equal(stepped(nar).length, 1);
    const batch = [w, words[(i + 1) % words.length], words[(i + 2) % words.length]];
    assert.equal(ar.decodeBatch(batch, { strategy: 'beam', beamSize: 2, maxLength: 8 }).length, 3);
    assert.equal(rnn.decode(w).length, 1);
    counts.decodes += 9;
    const forced = beam.score(w, best.text);
    assert.ok(Math.abs(forced.score - best.score) <= 1e-9, `${w}: the beam's result scores ${forced.score}, decoded ${best.score}`);
    counts.scores += 1;
    if (i % 10 === 0) {
      throws(() => ar.decode(`${w}#`), 'InputError');
      throws(() => ar.createSession({ strategy: 'beam', beamSize: 0 }), 'UsageError');
      throws(() => beam.step(), 'UsageError');
      throws(() => nar.step(), 'UsageError');
      throws(() => ar.score(w, 'NOT-A-TOKEN'), 'InputError');
      throws(() => ar.decodeBatch([w, ' ']), 'InputError');
      throws(() => cmlm.decode(w, { strategy: 'greedy' }), 'UsageError');
      counts.errors += 7;
    }
  };

  for (let i = 0; i < warmup; ++i) round(i);
  const warm = heapBytes();
  const handles = core.count_emval_handles();
  counts.decodes = counts.scores = counts.errors = 0;
  const checkpoints = [];
  const tenth = Math.ceil(wanted / 10);
  const start = performance.now();
  for (let i = warmup; counts.decodes < wanted; ++i) {
    const before = counts.decodes;
    round(i);
    if (Math.floor(counts.decodes / tenth) > Math.floor(before / tenth)) checkpoints.push({ decodes: counts.decodes, heap: heapBytes() });
  }
  const ms = performance.now() - start;
  const result = { ...counts, ms, warm, checkpoints, handles, handlesAfter: core.count_emval_handles() };
  for (const x of [beam, nar, ar, cmlm, rnn]) x.delete();
  return result;
}

export function describe({ decodes, scores, errors, ms, warm, checkpoints }) {
  return `${decodes} decodes, ${scores} scores and ${errors} errors in ${(ms / 1000).toFixed(1)} s; ` +
    `wasm heap ${(warm / MB).toFixed(1)} MB after warm-up, then ${checkpoints.map((c) => (c.heap / MB).toFixed(1)).join(', ')} MB`;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const decodes = Number(process.argv[2] ?? 100000);
  const r = await soak(await packageWithCore(), { decodes });
  console.log(describe(r));
  const flat = r.checkpoints.every((c) => c.heap === r.warm) && r.handlesAfter === r.handles;
  console.log(flat ? 'heap flat, no handles left' : `heap or handles grew (handles ${r.handles} -> ${r.handlesAfter})`);
  process.exit(flat ? 0 : 1);
}
