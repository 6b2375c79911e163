// The decoder pool (createDecoderPool, seq2seq-wasm/worker) through the installed
// package, on real worker_threads workers: its lists are Model.decodeBatch's, in
// input order, for every kind of model and strategy and however the texts are cut
// into chunks; a bad text is named by its index in the whole list, as decodeBatch
// names it; progress, cancelling (signal, cancel()), terminate, a worker that dies
// and bad options.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { FIXTURES, ROOT, installPackage, join, modelPath, seqErrorOf, wordsFor } from './helpers.mjs';

const pkg = installPackage();
const { LIMITS, loadModel, Seq2SeqError } = await pkg.importPackage();
const { createDecoderPool } = await pkg.importPackage('/worker');

const shippedRnn = join(ROOT, 'models/g2p-rnn-additive.safetensors');
const PATHS = { ar: modelPath('ar'), cmlm: modelPath('cmlm'), rnn: existsSync(shippedRnn) ? shippedRnn : join(FIXTURES, 'rnn_additive.safetensors') };
const bytes = Object.fromEntries(Object.entries(PATHS).map(([k, p]) => [k, new Uint8Array(readFileSync(p))]));
const models = {};
const pools = {};
before(async () => {
  for (const [kind, b] of Object.entries(bytes)) models[kind] = await loadModel(b);
  // Two workers each: the lists must not depend on which worker decoded what.
  await Promise.all(Object.keys(PATHS).map(async (kind) => {
    pools[kind] = createDecoderPool({ size: 2 });
    await pools[kind].load(PATHS[kind]);
  }));
});
after(async () => {
  for (const m of Object.values(models)) m.delete();
  await Promise.all(Object.values(pools).map((p) => p.terminate()));
});

const seqError = seqErrorOf(Seq2SeqError);

const STRATEGIES = {
  ar: [{}, { strategy: 'beam', beamSize: 4, nBest: 3 }, { strategy: 'sample', nBest: 2, seed: 7, topK: 5 }],
  cmlm: [{}, { lengthCandidates: 3, iterations: 4 }],
  rnn: [{}, { strategy: 'beam', beamSize: 5, nBest: 2 }],
};

// Words of uneven length, short and long in turn, so that chunks take unequal time.
function uneven(info) {
  const words = wordsFor(info);
  const byLength = words.slice().sort((a, b) => a.length - b.length);
  const mixed = [];
  for (let i = 0, j = byLength.length - 1; i <= j; i++, j--) mixed.push(byLength[j], ...(i < j ? [byLength[i]] : []));
  return [...mixed, ...words];
}

describe('createDecoderPool: the lists of Model.decodeBatch, in input order', () => {
  for (const kind of Object.keys(STRATEGIES)) {
    test(`${kind}: every strategy, chunks of 1, 3 and the default`, async () => {
      const texts = uneven(models[kind].info);
      assert.ok(texts.length >= 20, `${texts.length} texts`);
      for (const options of STRATEGIES[kind]) {
        const expected = models[kind].decodeBatch(texts, options);
        for (const chunkSize of [1, 3, undefined]) {
          const got = await pools[kind].decodeBatch(texts, options, chunkSize ? { chunkSize } : {});
          assert.deepEqual(got, expected, `${JSON.stringify(options)} chunkSize ${chunkSize}`);
        }
      }
    });
  }

  test('progress after each chunk, in order, to the total', async () => {
    const words = wordsFor(models.ar.info);
    const many = Array.from({ length: 6 }, () => words).flat();
    const seen = [];
    const got = await pools.ar.decodeBatch(many, { strategy: 'beam', beamSize: 4 }, { chunkSize: 2, onProgress: (p) => seen.push(p) });
    assert.deepEqual(got, models.ar.decodeBatch(many, { strategy: 'beam', beamSize: 4 }));
    assert.equal(pools.ar.size, 2);
    assert.equal(seen.length, Math.ceil(many.length / 2));
    assert.ok(seen.every((p, i) => p.total === many.length && (i === 0 || p.done > seen[i - 1].done)), JSON.stringify(seen));
    assert.equal(seen.at(-1).done, many.length);
  });

  test('batches made at once are each answered with their own lists', async () => {
    const words = wordsFor(models.rnn.info);
    const a = words.slice(0, 9);
    const b = words.slice(5).reverse();
    const [ga, gb] = await Promise.all([pools.rnn.decodeBatch(a, {}, { chunkSize: 2 }), pools.rnn.decodeBatch(b, { strategy: 'beam', beamSize: 3 }, { chunkSize: 1 })]);
    assert.deepEqual(ga, models.rnn.decodeBatch(a));
    assert.deepEqual(gb, models.rnn.decodeBatch(b, { strategy: 'beam', beamSize: 3 }));
  });

  test('an empty list: [], and one progress call with 0 of 0', async () => {
    const seen = [];
    assert.deepEqual(await pools.ar.decodeBatch([], {}, { onProgress: (p) => seen.push(p) }), []);
    assert.deepEqual(seen, [{ done: 0, total: 0 }]);
  });
});

describe('createDecoderPool: errors as decodeBatch gives them', () => {
  test("a bad text fails the batch with decodeBatch's error, named by its index in the whole list", async () => {
    const words = wordsFor(models.ar.info);
    const texts = [...words, ...words, '', ...words, 'A\u0000'];
    const expected = (() => { try { models.ar.decodeBatch(texts); } catch (e) { return e; } })();
    assert.equal(expected.kind, 'InputError');
    // The empty text sits in a late chunk: its index is its place in `texts`, not in the chunk.
    await assert.rejects(pools.ar.decodeBatch(texts, {}, { chunkSize: 3 }), (e) => {
      assert.ok(e instanceof Seq2SeqError);
      assert.equal(e.kind, expected.kind);
      assert.equal(e.message, expected.message);
      assert.match(e.message, new RegExp(`^texts\\[${2 * words.length}\\] "": `));
      return true;
    });
    const long = [...words, 'A'.repeat(LIMITS.maxTextBytes + 1)];
    const tooLong = (() => { try { models.ar.decodeBatch(long); } catch (e) { return e; } })();
    await assert.rejects(pools.ar.decodeBatch(long, {}, { chunkSize: 2 }), (e) => e.kind === tooLong.kind && e.message === tooLong.message);
    // The pool goes on.
    assert.deepEqual(await pools.ar.decodeBatch(words.slice(0, 3)), models.ar.decodeBatch(words.slice(0, 3)));
  });

  test('bad arguments: a UsageError, before anything is decoded', async () => {
    await assert.rejects(pools.ar.decodeBatch('A'), seqError('UsageError', /texts must be an array of strings/));
    await assert.rejects(pools.ar.decodeBatch(['A', 3]), seqError('UsageError', /texts\[1\] must be a string/));
    await assert.rejects(pools.ar.decodeBatch(['A'], { strategy: 'nar' }), seqError('UsageError', /needs a non-autoregressive/));
    await assert.rejects(pools.ar.decodeBatch([], { beamSize: 0, strategy: 'beam' }), seqError('UsageError'));
    await assert.rejects(pools.ar.decodeBatch(['A'], { beemSize: 2 }), seqError('UsageError', /beemSize/));
    await assert.rejects(pools.ar.decodeBatch(['A'], {}, { onProgress: 1 }), seqError('UsageError', /onProgress must be a function/));
    await assert.rejects(pools.ar.decodeBatch(['A'], {}, { signal: {} }), seqError('UsageError', /signal must be an AbortSignal/));
    await assert.rejects(pools.ar.decodeBatch(['A'], {}, { chunkSize: 0 }), seqError('UsageError', /chunkSize must be a whole number/));
    await assert.rejects(pools.ar.decodeBatch(['A'], {}, { sliceMs: 4 }), seqError('UsageError', /unknown option 'sliceMs'/));
  });

  test('bad pool options: a UsageError at once', () => {
    for (const size of [0, -1, 1.5, 65, '2', null, NaN]) {
      assert.throws(() => createDecoderPool({ size }), seqError('UsageError', /createDecoderPool: size must be a whole number of workers in \[1, 64\]/), String(size));
    }
    assert.throws(() => createDecoderPool({ workers: 2 }), seqError('UsageError', /createDecoderPool: unknown option 'workers' \(known: size, workerUrl, wasmUrl, startTimeout\)/));
    assert.throws(() => createDecoderPool({ startTimeout: 0 }), seqError('UsageError', /createDecoderPool: startTimeout must be/));
    assert.throws(() => createDecoderPool({ workerUrl: 5 }), seqError('UsageError', /createDecoderPool: workerUrl must be a string or a URL/));
    assert.throws(() => createDecoderPool(4), seqError('UsageError', /options must be an object/));
  });

  test('decodeBatch before load: the worker\'s error', async () => {
    const pool = createDecoderPool({ size: 1 });
    try {
      await assert.rejects(pool.decodeBatch(['A']), seqError('UsageError', /decodeBatch\(\) before load\(\)/));
    } finally {
      await pool.terminate();
    }
  });
});

describe('createDecoderPool: cancel and terminate', () => {
  const many = () => Array.from({ length: 30 }, () => wordsFor(models.ar.info)).flat();

  test("a signal's abort stops its batch (Cancelled), not another's; the pool goes on", async () => {
    const words = many();
    const controller = new AbortController();
    const seen = [];
    const options = { strategy: 'beam', beamSize: 5 };
    const running = pools.ar.decodeBatch(words, options, { chunkSize: 2, signal: controller.signal, onProgress: (p) => { seen.push(p.done); controller.abort(); } });
    const other = pools.ar.decodeBatch(words.slice(0, 8), {}, { chunkSize: 1 });
    await assert.rejects(running, seqError('Cancelled', /the batch decode was cancelled/));
    assert.ok(seen.at(-1) < words.length, `stopped at ${seen.at(-1)} of ${words.length}`);
    assert.deepEqual(await other, models.ar.decodeBatch(words.slice(0, 8)));
    await assert.rejects(pools.ar.decodeBatch(['A'], {}, { signal: AbortSignal.abort() }), seqError('Cancelled'));
    assert.deepEqual(await pools.ar.decodeBatch(words.slice(0, 4), options), models.ar.decodeBatch(words.slice(0, 4), options));
  });

  test('an onProgress that throws fails its batch with the exception', async () => {
    const boom = new Error('no room for a bar');
    await assert.rejects(pools.ar.decodeBatch(many(), {}, { chunkSize: 1, onProgress: () => { throw boom; } }), (e) => e === boom);
  });

  test('cancel() stops every batch in progress; terminate() fails the rest and the pool is closed', async () => {
    const running = pools.cmlm.decodeBatch(many().slice(0, 200), {}, { chunkSize: 1 });
    assert.equal(await pools.cmlm.cancel(), true);
    await assert.rejects(running, seqError('Cancelled'));
    assert.equal(await pools.cmlm.cancel(), false);

    const pool = createDecoderPool({ size: 2 });
    await pool.load(bytes.rnn);
    const pending = assert.rejects(pool.decodeBatch(many().slice(0, 200), {}, { chunkSize: 1 }), seqError('Cancelled', /the decoder pool was terminated/));
    await pool.terminate();
    await pending;
    await assert.rejects(pool.decodeBatch(['A']), seqError('Cancelled', /the decoder pool was terminated/));
    await assert.rejects(pool.load(bytes.rnn), seqError('Cancelled', /terminated/));
  });

  test('a worker that dies mid-batch fails that batch with a WorkerError, and the batches after it; none hangs', { timeout: 60_000 }, async () => {
    // A worker script that runs the real one and exits when a chunk (not the whole
    // list's check) holds the word CRASH.
    const dir = mkdtempSync(join(tmpdir(), 'seq2seq-pool-'));
    const script = join(dir, 'dying-worker.mjs');
    writeFileSync(script, `import { parentPort } from 'node:worker_threads';
// The decoder's own listener, wrapped (a listener of this script's own would start
// the port before the decoder listens, and the decoder would miss its first message).
const on = parentPort.on;
parentPort.on = function (event, listener) {
  const dying = (m) => { if (m?.type === 'decodeBatch' && !m.check && m.texts?.includes('CRASH')) process.exit(7); listener(m); };
  return on.call(this, event, event === 'message' ? dying : listener);
};
await import(${JSON.stringify(await pkg.resolvePackage('/worker-script'))});
`);
    const pool = createDecoderPool({ size: 2, workerUrl: pathToFileURL(script) });
    try {
      await pool.load(bytes.ar);
      const words = wordsFor(models.ar.info);
      assert.deepEqual(await pool.decodeBatch(words, {}, { chunkSize: 1 }), models.ar.decodeBatch(words));
      const t0 = performance.now();
      await assert.rejects(pool.decodeBatch([...words, 'CRASH', ...words], {}, { chunkSize: 1 }), seqError('WorkerError', /the decoder worker exited \(code 7\)/));
      // One worker is gone: a batch that reaches it fails the same way.
      await assert.rejects(pool.decodeBatch(words.slice(0, 4), {}, { chunkSize: 1 }), seqError('WorkerError', /exited \(code 7\)/));
      assert.ok(performance.now() - t0 < 10_000, `${(performance.now() - t0).toFixed(0)} ms`);
    } finally {
      await pool.terminate();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the default size is the machine\'s parallelism, at most 8', async () => {
    const { availableParallelism, cpus } = await import('node:os');
    const cores = availableParallelism?.() ?? cpus().length;
    const pool = createDecoderPool();
    try {
      assert.equal(pool.size, undefined);
      await pool.load(bytes.cmlm);
      assert.equal(pool.size, Math.min(8, cores));
    } finally {
      await pool.terminate();
    }
  });
});
