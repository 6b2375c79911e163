// Batch decoding through the installed package: Model.decodeBatch against a
// loop of decode() (shipped models, several strategies), its argument and text
// errors; the worker's decodeBatch (protocol handler in-process, where
// cancelling mid-batch is exact, then a real worker through the client) with
// progress and cancel; and progress callbacks that throw (run's onStep,
// decodeBatch's onProgress), which reject their request and stop it in the worker.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { after, before, describe, test } from 'node:test';
import { FIXTURES, ROOT, installPackage, join, modelPath, seqErrorOf, wordsFor } from './helpers.mjs';

const pkg = installPackage();
const { LIMITS, loadModel, Seq2SeqError } = await pkg.importPackage();
const { createWorkerHandler } = await pkg.importPackage('/worker-protocol');
const { createDecoderWorker } = await pkg.importPackage('/worker');

const shippedRnn = join(ROOT, 'models/g2p-rnn-additive.safetensors');
const PATHS = { ar: modelPath('ar'), cmlm: modelPath('cmlm'), rnn: existsSync(shippedRnn) ? shippedRnn : join(FIXTURES, 'rnn_additive.safetensors') };
const bytes = Object.fromEntries(Object.entries(PATHS).map(([k, p]) => [k, new Uint8Array(readFileSync(p))]));
const models = {};
before(async () => {
  for (const [kind, b] of Object.entries(bytes)) models[kind] = await loadModel(b);
});
after(() => {
  for (const m of Object.values(models)) m.delete();
});

const seqError = seqErrorOf(Seq2SeqError);

// Options for each kind of model, each strategy and what changes its search.
const STRATEGIES = {
  ar: [{}, { strategy: 'beam', beamSize: 4, nBest: 3 }, { strategy: 'beam', beamSize: 3, lengthNorm: 'gnmt', minLength: 3 },
    { strategy: 'sample', nBest: 2, seed: 7, topK: 5, temperature: 0.8 }, { strategy: 'greedy', maxLengthRatio: 2, prefix: 'K' }],
  cmlm: [{}, { lengthCandidates: 3, iterations: 4 }, { narLength: 'fixed', iterations: 2, earlyStop: false }, { narLength: 'given', narGivenLength: 5 }],
  rnn: [{}, { strategy: 'beam', beamSize: 5, nBest: 2 }, { strategy: 'sample', nBest: 3, seed: 11 }],
};

describe('Model.decodeBatch', () => {
  for (const kind of Object.keys(STRATEGIES)) {
    test(`${kind}: the results of a loop of decode(), for every strategy`, () => {
      const model = models[kind];
      // Words twice over, so that the session is reused across different lengths and back.
      const words = wordsFor(model.info);
      const texts = [...words, ...words.slice().reverse()];
      assert.ok(words.length >= 10, `${words.length} words`);
      for (const options of STRATEGIES[kind]) {
        if (options.prefix && !model.info.targetVocab.includes(options.prefix)) continue;
        const lists = model.decodeBatch(texts, options);
        assert.equal(lists.length, texts.length);
        assert.deepEqual(lists, texts.map((t) => model.decode(t, options)), JSON.stringify(options));
        assert.ok(lists.every((l) => l.length >= 1 && typeof l[0].text === 'string'));
      }
    });
  }

  test('an empty list gives an empty list; the options are still checked', () => {
    for (const model of Object.values(models)) assert.deepEqual(model.decodeBatch([]), []);
    assert.throws(() => models.ar.decodeBatch([], { strategy: 'beam', beamSize: 0 }), seqError('UsageError', /beamSize = 0/));
  });

  test('options are refused exactly as decode() refuses them', () => {
    const bad = [
      [models.ar, { strategy: 'beam', beamSize: 0 }],
      [models.ar, { topCandidates: 99 }],        // topCandidates and attention do not change results: checked all the same
      [models.ar, { attention: 'yes' }],
      [models.ar, { nope: 1 }],
      [models.ar, { strategy: 'nar' }],
      [models.ar, { minLength: 100 }],
      [models.ar, { prefix: 'NOT-A-PHONEME' }],
      [models.cmlm, { strategy: 'greedy' }],
      [models.cmlm, { iterations: 0 }],
      [models.rnn, 'beam'],
    ];
    for (const [model, options] of bad) {
      let expected;
      try {
        model.decode('ABC', options);
      } catch (e) {
        expected = e;
      }
      assert.ok(expected, `decode() refuses ${JSON.stringify(options)}`);
      // A bad prefix is only found on a text (it is parsed at start()): named by that text.
      const prefix = /target token/.test(expected.message) ? 'texts\\[0\\] "ABC": ' : '';
      assert.throws(() => model.decodeBatch(['ABC'], options), (e) => {
        assert.equal(e.name, expected.name);
        assert.equal(e.kind, expected.kind);
        assert.match(e.message, new RegExp(`^${prefix}${expected.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
        return true;
      }, JSON.stringify(options));
    }
  });

  test('texts must be an array of strings: a UsageError naming what was given', () => {
    const m = models.ar;
    assert.throws(() => m.decodeBatch('HELLO'), seqError('UsageError', /^decodeBatch\(texts, options\): texts must be an array of strings; got the string "HELLO"$/));
    assert.throws(() => m.decodeBatch(), seqError('UsageError', /got undefined$/));
    assert.throws(() => m.decodeBatch(new Set(['A'])), seqError('UsageError', /got a Set$/));
    assert.throws(() => m.decodeBatch(['A', 'B', 7]), seqError('UsageError', /^decodeBatch\(texts, options\): texts\[2\] must be a string; got the number 7$/));
    // eslint-disable-next-line no-sparse-arrays
    assert.throws(() => m.decodeBatch(['A', , 'B']), seqError('UsageError', /texts\[1\] must be a string; got undefined$/));
  });

  test('a bad text fails the whole call with its InputError, named by index and text', () => {
    const m = models.ar;
    const words = wordsFor(m.info, 4);
    assert.throws(() => m.decodeBatch([...words, '', 'HELLO']), seqError('InputError', /^texts\[4\] "": input: the source text is empty$/));
    const long = 'A'.repeat(m.info.maxPositions + 20);
    assert.throws(() => m.decodeBatch([words[0], long]),
      seqError('InputError', new RegExp(`^texts\\[1\\] "A{40}"… \\(${long.length} characters\\): input: the source has ${long.length} characters; this model reads at most`)));
    // A lone surrogate is refused in JS, the rest in C++: the first bad text wins either way.
    assert.throws(() => m.decodeBatch(['AB', 'C\uD800', '']), seqError('InputError', /^texts\[1\] "C\\ud800": input: the text holds a lone UTF-16 surrogate \(U\+D800\) at index 1$/));
    assert.throws(() => m.decodeBatch(['AB', '', 'C\uD800']), seqError('InputError', /^texts\[1\] "": /));
    // And one too long to convert: the first bad text is named, not the long one after it.
    const huge = 'A'.repeat(LIMITS.maxTextBytes + 1);
    assert.throws(() => m.decodeBatch(['AB', '', huge]), seqError('InputError', /^texts\[1\] "": input: the source text is empty$/));
    assert.throws(() => m.decodeBatch(['AB', 'A#', huge]), seqError('InputError', /^texts\[1\] "A#": /));
    assert.throws(() => m.decodeBatch(['AB', huge, '']), seqError('InputError', /^texts\[1\] "A{40}"… \(65537 characters\): input: the text has 65537 characters; the longest accepted is 65536 bytes/));
    // What the options leave no room for, for this source only, is found before decoding too, in order.
    const options = { maxLengthRatio: 0.5, minLength: 2 };
    assert.throws(() => m.decodeBatch(['ABCDEF', 'AB', long], options),
      seqError('InputError', /^texts\[1\] "AB": input: maxLengthRatio allows this source of length 2 at most 1 output tokens .*no room for minLength = 2$/));
    // The model is unharmed.
    assert.deepEqual(m.decodeBatch(words), words.map((w) => m.decode(w)));
  });

  test('1,500 batches, a third of them failing: the wasm heap stays where it was and no handles are left', async () => {
    // The Emscripten module the installed package uses, for its heap and handle count.
    const { loadCore } = await import(pathToFileURL(join(pkg.packageDir, 'wasm/src/core.js')).href);
    const core = await loadCore();
    const m = models.ar;
    const words = wordsFor(m.info, 6);
    const round = (n) => {
      for (let i = 0; i < n; ++i) {
        const texts = words.slice(i % 3, (i % 3) + 4);
        if (i % 3 === 0) assert.equal(m.decodeBatch(texts, { strategy: 'beam', beamSize: 3 }).length, 4);
        else if (i % 3 === 1) assert.throws(() => m.decodeBatch([...texts, ''], { maxLength: 6 }), seqError('InputError'));
        else assert.throws(() => m.decodeBatch([...texts, 'A\uDC00']), seqError('InputError'));
      }
    };
    round(150);
    const heap = core.HEAPU8.length;
    const handles = core.count_emval_handles();
    round(1500);
    assert.equal(core.HEAPU8.length, heap, 'the wasm heap did not grow');
    assert.equal(core.count_emval_handles(), handles, 'no Embind value handles left behind');
  });

  test('a deleted model refuses', async () => {
    const m = await loadModel(bytes.ar);
    m.delete();
    assert.throws(() => m.decodeBatch(['A']), seqError('UsageError', /deleted/));
  });
});

// The protocol handler with its posts collected; request(msg) resolves to the reply.
function harness(onPost) {
  const posts = [];
  let nextId = 1;
  const handle = createWorkerHandler((message, transfer) => {
    posts.push(message);
    onPost?.(message, transfer);
  });
  const request = async (msg) => {
    const id = msg.id ?? nextId++;
    await handle({ ...msg, id });
    return posts.find((m) => m.id === id && !('progress' in m));
  };
  return { handle, posts, request, nextId: () => nextId++, progressOf: (id) => posts.filter((m) => m.id === id && 'progress' in m).map((m) => m.progress) };
}

describe('the worker protocol: decodeBatch', () => {
  test('the results of Model.decodeBatch, progress {done, total} rising to total, the session untouched', async () => {
    const h = harness();
    await h.request({ type: 'load', source: bytes.ar });
    const words = wordsFor(models.ar.info);
    const options = { strategy: 'beam', beamSize: 3, nBest: 2 };
    const started = await h.request({ type: 'start', text: words[0], options: {} });
    assert.equal(started.ok, true);
    const id = h.nextId();
    const reply = await h.request({ type: 'decodeBatch', id, texts: words, options, progress: true, sliceMs: 0 });
    assert.equal(reply.ok, true, JSON.stringify(reply.error));
    assert.deepEqual(reply.value, models.ar.decodeBatch(words, options));
    const progress = h.progressOf(id);
    // sliceMs 0: one text per slice.
    assert.deepEqual(progress, words.map((_, i) => ({ done: i + 1, total: words.length })));
    // The session of start/step/run goes on as if nothing happened.
    const ran = await h.request({ type: 'run' });
    assert.deepEqual(ran.value, models.ar.decode(words[0]));
  });

  test('slices of several texts with a longer sliceMs; an empty list reports 0 of 0 once', async () => {
    const h = harness();
    await h.request({ type: 'load', source: bytes.cmlm });
    const words = wordsFor(models.cmlm.info);
    const texts = [...words, ...words, ...words];
    const id = h.nextId();
    const reply = await h.request({ type: 'decodeBatch', id, texts, progress: true, sliceMs: 1e9 });
    assert.deepEqual(reply.value, models.cmlm.decodeBatch(texts));
    const done = h.progressOf(id).map((p) => p.done);
    assert.ok(done.every((d, i) => i === 0 || d > done[i - 1]), `rising: ${done}`);
    assert.equal(done.at(-1), texts.length);
    // Slices double while each takes less than sliceMs: 1, 2, 4, ...
    assert.deepEqual(done.slice(0, 3), [1, 3, 7]);
    const emptyId = h.nextId();
    const empty = await h.request({ type: 'decodeBatch', id: emptyId, texts: [], progress: true });
    assert.deepEqual(empty.value, []);
    assert.deepEqual(h.progressOf(emptyId), [{ done: 0, total: 0 }]);
  });

  test('errors: before load, not an array, a bad text, bad options, bad sliceMs', async () => {
    const h = harness();
    const early = await h.request({ type: 'decodeBatch', texts: ['A'] });
    assert.deepEqual(early.error, { name: 'Seq2SeqError', kind: 'UsageError', message: 'decodeBatch() before load(): load a model first' });
    await h.request({ type: 'load', source: bytes.ar });
    const notArray = await h.request({ type: 'decodeBatch', texts: 'A' });
    assert.equal(notArray.error.kind, 'UsageError');
    assert.match(notArray.error.message, /texts must be an array of strings; got the string "A"/);
    const id = h.nextId();
    const bad = await h.request({ type: 'decodeBatch', id, texts: ['A', 'B', ''], progress: true });
    assert.deepEqual(bad.error, { name: 'Seq2SeqError', kind: 'InputError', message: 'texts[2] "": input: the source text is empty' });
    assert.deepEqual(h.progressOf(id), [], 'checked before any text is decoded');
    const options = await h.request({ type: 'decodeBatch', texts: ['A'], options: { strategy: 'beam', beamSize: 0 } });
    assert.equal(options.error.kind, 'UsageError');
    const slice = await h.request({ type: 'decodeBatch', texts: ['A'], sliceMs: -1 });
    assert.equal(slice.error.kind, 'UsageError');
  });

  test('cancel stops a batch between slices; a cancel naming a request stops that one only', async () => {
    const words = wordsFor(models.ar.info);
    let cancelReply = null;
    const h = harness((message) => {
      if ('progress' in message && message.progress.done === 2) {
        h.handle({ type: 'cancel', id: 1000 });
        cancelReply = h.posts.find((m) => m.id === 1000);
      }
    });
    await h.request({ type: 'load', source: bytes.ar });
    const id = h.nextId();
    const reply = await h.request({ type: 'decodeBatch', id, texts: words, progress: true, sliceMs: 0 });
    assert.deepEqual(reply.error, { name: 'Seq2SeqError', message: 'the batch decode was cancelled', kind: 'Cancelled' });
    assert.deepEqual(cancelReply, { id: 1000, ok: true, value: { cancelled: true } });
    assert.equal(h.progressOf(id).length, 2, 'stopped after the slice during which cancel arrived');

    // Two batches queued; the first one is cancelled by id, the second runs to the end.
    const [first, second] = [h.nextId(), h.nextId()];
    const a = h.handle({ type: 'decodeBatch', id: first, texts: words, sliceMs: 0 });
    const b = h.handle({ type: 'decodeBatch', id: second, texts: words.slice(0, 3), sliceMs: 0 });
    const targeted = await h.request({ type: 'cancel', request: first });
    assert.deepEqual(targeted.value, { cancelled: true });
    const unknown = await h.request({ type: 'cancel', request: 12345 });
    assert.deepEqual(unknown.value, { cancelled: false });
    await Promise.all([a, b]);
    assert.equal(h.posts.find((m) => m.id === first).error.kind, 'Cancelled');
    assert.deepEqual(h.posts.find((m) => m.id === second).value, models.ar.decodeBatch(words.slice(0, 3)));
    const idle = await h.request({ type: 'cancel' });
    assert.deepEqual(idle.value, { cancelled: false });
  });
});

// A DecoderWorker over a MessageChannel whose other end is the protocol
// handler in this thread: every request the client posts is seen (and told
// to onRequest).
function clientOverChannel(handlerOptions, onRequest) {
  const { port1, port2 } = new MessageChannel();
  const requests = [];
  const replies = [];
  const handle = createWorkerHandler((message, transfer) => {
    replies.push(message);
    port2.postMessage(message, transfer);
  }, handlerOptions);
  port2.on('message', (m) => {
    requests.push(m);
    onRequest?.(m);
    handle(m);
  });
  const decoder = createDecoderWorker(port1);
  const close = () => {
    port1.close();
    port2.close();
  };
  return { decoder, requests, replies, close };
}

describe('the worker client: decodeBatch', () => {
  test('a real worker: results, progress, errors and cancel', async () => {
    const decoder = createDecoderWorker();
    try {
      await decoder.load(PATHS.rnn);
      const words = wordsFor(models.rnn.info);
      const options = { strategy: 'beam', beamSize: 3 };
      const seen = [];
      const lists = await decoder.decodeBatch(words, options, { onProgress: (p) => seen.push(p) });
      assert.deepEqual(lists, models.rnn.decodeBatch(words, options));
      assert.ok(seen.length >= 1);
      assert.ok(seen.every((p, i) => p.total === words.length && (i === 0 || p.done > seen[i - 1].done)), JSON.stringify(seen));
      assert.equal(seen.at(-1).done, words.length);
      assert.deepEqual(await decoder.decodeBatch([]), []);

      await assert.rejects(decoder.decodeBatch(['A', '']), seqError('InputError', /^texts\[1\] "": input: the source text is empty$/));
      await assert.rejects(decoder.decodeBatch('A'), seqError('UsageError', /^decodeBatch\(texts, options, \{onProgress\}\): texts must be an array of strings/));
      await assert.rejects(decoder.decodeBatch(['A'], {}, { onProgress: 1 }), seqError('UsageError', /onProgress must be a function/));
      await assert.rejects(decoder.decodeBatch(['A'], {}, null), seqError('UsageError', /third argument must be an object/));
      await assert.rejects(decoder.decodeBatch(['A'], { strategy: 'nar' }), seqError('UsageError', /needs a non-autoregressive/));

      // Cancel on the first progress: a batch of many texts stops long before its end.
      const many = Array.from({ length: 20 }, () => words).flat();
      let cancelled;
      const progress = [];
      const running = decoder.decodeBatch(many, { strategy: 'beam', beamSize: 5 }, {
        sliceMs: 0,
        onProgress: (p) => {
          progress.push(p);
          cancelled ??= decoder.cancel();
        },
      });
      await assert.rejects(running, seqError('Cancelled', /the batch decode was cancelled/));
      assert.equal(await cancelled, true);
      assert.ok(progress.at(-1).done < many.length, `stopped at ${progress.at(-1).done} of ${many.length}`);
      // The worker goes on.
      assert.deepEqual(await decoder.decodeBatch(words.slice(0, 2)), models.rnn.decodeBatch(words.slice(0, 2)));
    } finally {
      await decoder.terminate();
    }
  });
});

describe('progress callbacks that throw', () => {
  test('run({onStep}): run() rejects with the exception, and the run stops in the worker', async () => {
    const { decoder, requests, replies, close } = clientOverChannel();
    try {
      await decoder.load(bytes.ar);
      const word = wordsFor(models.ar.info)[0];
      const options = { strategy: 'beam', beamSize: 4, minLength: 12, maxLength: Math.min(16, models.ar.info.maxPositions - 1) };
      await decoder.start(word, options);
      const boom = new Error('drawing failed');
      let calls = 0;
      await assert.rejects(decoder.run({ sliceMs: 0, onStep: () => { calls += 1; throw boom; } }), (e) => e === boom);
      assert.equal(calls, 1, 'onStep is not called again');
      // The worker's run ends cancelled (its reply, which the client ignores), after fewer steps than the decode has.
      const decoded = models.ar.createSession(options);
      decoded.start(word);
      let steps = 0;
      while (!decoded.done) { decoded.step(); steps += 1; }
      decoded.delete();
      await decoder.decodeBatch([]);   // queued behind the run: answered once the run has ended
      const run = requests.find((m) => m.type === 'run');
      assert.ok(requests.some((m) => m.type === 'cancel' && m.request === run.id), 'the client cancelled that run');
      const ended = replies.find((m) => m.id === run.id && !('progress' in m));
      assert.equal(ended?.error?.kind, 'Cancelled');
      assert.ok(replies.filter((m) => m.id === run.id && 'progress' in m).length < steps);
      // The client works on: the session continues from where the run stopped.
      assert.deepEqual(await decoder.run(), models.ar.decode(word, options));
    } finally {
      await decoder.terminate();
      close();
    }
  });

  test('decodeBatch({onProgress}): rejects with the exception, and the batch stops in the worker', async () => {
    const { decoder, requests, replies, close } = clientOverChannel();
    try {
      await decoder.load(bytes.cmlm);
      const words = wordsFor(models.cmlm.info);
      const boom = new RangeError('progress bar overflow');
      const seen = [];
      await assert.rejects(decoder.decodeBatch(words, {}, { sliceMs: 0, onProgress: (p) => { seen.push(p); if (p.done === 2) throw boom; } }), (e) => e === boom);
      assert.deepEqual(seen, [{ done: 1, total: words.length }, { done: 2, total: words.length }]);
      assert.deepEqual(await decoder.decodeBatch(words.slice(0, 2)), models.cmlm.decodeBatch(words.slice(0, 2)));
      const batch = requests.find((m) => m.type === 'decodeBatch');
      assert.ok(requests.some((m) => m.type === 'cancel' && m.request === batch.id), 'the client cancelled that batch');
      const ended = replies.find((m) => m.id === batch.id && !('progress' in m));
      assert.equal(ended.error.kind, 'Cancelled');
      assert.ok(replies.filter((m) => m.id === batch.id && 'progress' in m).length < words.length);
    } finally {
      await decoder.terminate();
      close();
    }
  });

  test('load({onProgress}): rejects with the exception, and the worker keeps the model it had', async () => {
    // A load that reports progress, then waits until the client's cancel has reached the handler.
    let cancelArrived;
    const cancelSeen = new Promise((resolve) => { cancelArrived = resolve; });
    const load = async (source, { onProgress, ...options } = {}) => {
      onProgress?.({ loaded: 1, total: 2 });
      if (onProgress) await cancelSeen;
      return loadModel(source, options);
    };
    const { decoder, requests, replies, close } = clientOverChannel({ load }, (m) => { if (m.type === 'cancel') cancelArrived(); });
    try {
      await decoder.load(bytes.ar);
      const boom = new Error('no room for a progress bar');
      await assert.rejects(decoder.load(bytes.cmlm, { onProgress: () => { throw boom; } }), (e) => e === boom);
      const words = wordsFor(models.ar.info, 3);
      // Queued behind the load: decoded by the model loaded first.
      assert.deepEqual(await decoder.decodeBatch(words), models.ar.decodeBatch(words));
      const second = requests.filter((m) => m.type === 'load')[1];
      assert.ok(requests.some((m) => m.type === 'cancel' && m.request === second.id), 'the client cancelled that load');
      assert.deepEqual(replies.find((m) => m.id === second.id && !('progress' in m)).error,
        { name: 'Seq2SeqError', message: 'the load was cancelled', kind: 'Cancelled' });
    } finally {
      await decoder.terminate();
      close();
    }
  });
});
