// The decoder worker: its protocol handler in-process (where cancelling in the
// middle of a run can be made exact), then real workers through the promise
// client: a Node worker_threads worker, and the same script in a worker dressed
// as a browser module worker (browser code paths: locateFile, fetch,
// instantiateStreaming, MessageChannel yields).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { installPackage, modelPath, serveFiles, stallingServer, wordsFor } from './helpers.mjs';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
const { createWorkerHandler, PROTOCOL_VERSION } = await pkg.importPackage('/worker-protocol');
const { createDecoderWorker, Seq2SeqError: ClientSeq2SeqError } = await pkg.importPackage('/worker');
const workerScript = await pkg.resolvePackage('/worker-script');

const AR = modelPath('ar');
const CMLM = modelPath('cmlm');
const arBytes = new Uint8Array(readFileSync(AR));
const cmlmBytes = new Uint8Array(readFileSync(CMLM));
let ar;
let cmlm;
let server;
before(async () => {
  ar = await loadModel(arBytes);
  cmlm = await loadModel(cmlmBytes);
  server = await serveFiles({ '/ar.safetensors': AR, '/cmlm.safetensors': CMLM });
});
after(async () => {
  ar.delete();
  cmlm.delete();
  await server.close();
});

// A decode with many steps: beam search held from EOS for a while.
const longOptions = (model) => ({ strategy: 'beam', beamSize: 4, minLength: 12, maxLength: Math.min(16, model.info.maxPositions - 1) });
const reference = (model, word, options) => model.decode(word, options);
// Snapshots compared as plain data (typed arrays as arrays).
const plain = (x) => JSON.parse(JSON.stringify(x, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));

test('the worker client re-exports the package error class (no wasm loaded for it)', () => {
  assert.equal(ClientSeq2SeqError, Seq2SeqError);
  assert.equal(PROTOCOL_VERSION, 1);
});

test('an error a worker reports without a kind is a Seq2SeqError; a TypeError there is a UsageError', async () => {
  // A port speaking the protocol, failing every request with the error the text names.
  const listeners = {};
  const errors = { type: { name: 'TypeError', message: 'bad argument' }, range: { name: 'RangeError', message: 'too deep' } };
  const port = {
    on(event, f) { listeners[event] = f; },
    postMessage(m) { queueMicrotask(() => listeners.message({ id: m.id, ok: false, error: errors[m.text] })); },
  };
  const decoder = createDecoderWorker(port);
  await assert.rejects(decoder.start('type'), (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && e.message === 'bad argument');
  await assert.rejects(decoder.start('range'), (e) => e instanceof Seq2SeqError && e.kind === 'Error' && e.message === 'too deep');
});

describe('protocol handler, in-process', () => {
  // A handler whose replies are collected; request(msg) resolves to the reply.
  function harness(onPost) {
    const posts = [];
    let nextId = 1;
    const handle = createWorkerHandler((message, transfer) => {
      posts.push({ message, transfer });
      onPost?.(message, transfer);
    });
    const request = async (msg) => {
      const id = nextId++;
      await handle({ ...msg, id });
      return posts.find((p) => p.message.id === id && !('progress' in p.message));
    };
    return { handle, posts, request, nextId: () => nextId++ };
  }

  test('load, start, step and run give what the in-process API gives', async () => {
    const { request, posts } = harness();
    const loaded = await request({ type: 'load', source: arBytes });
    assert.equal(loaded.message.ok, true);
    assert.deepEqual(loaded.message.value, plain(ar.info));
    const word = wordsFor(ar.info)[0];
    const options = { strategy: 'beam', beamSize: 3, nBest: 2 };
    const started = await request({ type: 'start', text: word, options });
    assert.deepEqual(started.message.value, { sourceLength: ar.tokenize(word).length, maxLength: (() => { const s = ar.createSession(options); s.start(word); const m = s.maxLength; s.delete(); return m; })() });

    const session = ar.createSession(options);
    session.start(word);
    const expected = session.step();
    const stepped = await request({ type: 'step' });
    assert.deepEqual(plain(stepped.message.value), plain(expected));
    // The snapshot's typed arrays travel as transfers, not copies.
    const { live, finished, encoderAttention } = stepped.message.value;
    const buffers = [...live, ...finished].flatMap((h) => [h.attention.buffer, h.attentionHeads.buffer, h.selfAttention.buffer]);
    assert.ok(buffers.length > 0);
    assert.ok(encoderAttention instanceof Float32Array, 'step 1 carries the encoder self-attention');
    buffers.push(encoderAttention.buffer);
    assert.deepEqual(new Set(stepped.transfer), new Set(buffers));

    const before = posts.length;
    const ran = await request({ type: 'run', progress: true });
    const progress = posts.slice(before).filter((p) => 'progress' in p.message).map((p) => p.message.progress);
    const rest = [];
    while (!session.done) rest.push(session.step());
    assert.deepEqual(plain(progress), plain(rest), 'one progress message per step, the last one included');
    assert.deepEqual(ran.message.value, rest.at(-1).results);
    assert.deepEqual(ran.message.value, reference(ar, word, options));
    session.delete();
  });

  test('cancel stops a run between steps; the session stays where it stopped', async () => {
    let cancelReply = null;
    const word = wordsFor(ar.info)[0];
    const h = harness((message) => {
      // The first progress message: cancel, as a page would on a click.
      if ('progress' in message && message.progress.step === 1) {
        const id = 1000;
        h.handle({ type: 'cancel', id });
        cancelReply = h.posts.find((p) => p.message.id === id).message;
      }
    });
    await h.request({ type: 'load', source: arBytes });
    await h.request({ type: 'start', text: word, options: longOptions(ar) });
    const ran = await h.request({ type: 'run', progress: true, sliceMs: 0 });
    assert.equal(ran.message.ok, false);
    assert.deepEqual(ran.message.error, { name: 'Seq2SeqError', message: 'the run was cancelled', kind: 'Cancelled' });
    assert.deepEqual(cancelReply, { id: 1000, ok: true, value: { cancelled: true } });
    const progressed = h.posts.filter((p) => 'progress' in p.message).length;
    assert.equal(progressed, 1, 'stopped after the step during which cancel arrived');
    const next = await h.request({ type: 'step' });
    assert.equal(next.message.value.step, 2, 'the session continues from where the run stopped');
    const finish = await h.request({ type: 'run' });
    assert.deepEqual(finish.message.value, reference(ar, word, longOptions(ar)));
  });

  test('a run still queued when cancel arrives is cancelled too; cancel with nothing running says so', async () => {
    const h = harness();
    await h.request({ type: 'load', source: arBytes });
    await h.request({ type: 'start', text: wordsFor(ar.info)[0], options: longOptions(ar) });
    const runId = h.nextId();
    const running = h.handle({ type: 'run', id: runId, progress: true });
    h.handle({ type: 'cancel', id: h.nextId() });
    await running;
    const reply = h.posts.find((p) => p.message.id === runId && !('progress' in p.message)).message;
    assert.equal(reply.error.kind, 'Cancelled');
    assert.equal(h.posts.filter((p) => 'progress' in p.message).length, 0, 'no step was taken');
    const idle = await h.request({ type: 'cancel' });
    assert.deepEqual(idle.message.value, { cancelled: false });
  });

  test('requests are handled in order: start waits for a load in flight', async () => {
    const h = harness();
    const ids = [h.nextId(), h.nextId(), h.nextId()];
    const word = wordsFor(cmlm.info)[0];
    await Promise.all([
      h.handle({ type: 'load', id: ids[0], source: cmlmBytes }),
      h.handle({ type: 'start', id: ids[1], text: word }),
      h.handle({ type: 'run', id: ids[2] }),
    ]);
    const replies = ids.map((id) => h.posts.find((p) => p.message.id === id).message);
    assert.ok(replies.every((r) => r.ok), JSON.stringify(replies.map((r) => r.error)));
    assert.deepEqual(replies[2].value, reference(cmlm, word, {}));
  });

  test('errors come back as {name, message, kind} and leave the state as it was', async () => {
    const h = harness();
    const err = async (msg) => (await h.request(msg)).message.error;
    assert.deepEqual(await err({ type: 'frobnicate' }), { name: 'Seq2SeqError', message: 'unknown request "frobnicate" (known: hello, load, start, step, run, decodeBatch, score, inspect, cancel)', kind: 'UsageError' });
    assert.equal((await err({ type: 'step' })).message, 'step() before load(): load a model first');
    assert.equal((await err({ type: 'start', text: 'ABC' })).message, 'start() before load(): load a model first');
    assert.equal((await err({ type: 'load', source: new Uint8Array(3) })).kind, 'ModelError');
    await h.request({ type: 'load', source: arBytes });
    assert.equal((await err({ type: 'step' })).message, 'step() before start(): give the session a source first');
    assert.equal((await err({ type: 'run' })).message, 'run() before start(): give the session a source first');
    const word = wordsFor(ar.info)[0];
    await h.request({ type: 'start', text: word });
    assert.deepEqual(await err({ type: 'start', text: word, options: { beamSize: 'x' } }), { name: 'Seq2SeqError', message: 'option beamSize must be an integer; got the string "x"', kind: 'UsageError' });
    assert.equal((await err({ type: 'start', text: word, options: { strategy: 'beam', beamSize: 0 } })).message, 'option beamSize = 0 is outside [1, 256]');
    assert.equal((await err({ type: 'start', text: '#' })).kind, 'InputError');
    assert.deepEqual(await err({ type: 'start', text: 42 }), { name: 'Seq2SeqError', message: 'start(text, options) needs a string; got the number 42', kind: 'UsageError' });
    assert.deepEqual(await err({ type: 'run', sliceMs: -1 }), { name: 'Seq2SeqError', message: 'run: sliceMs must be a number >= 0; got the number -1', kind: 'UsageError' });
    // The session started before the failures is still there.
    const ran = await h.request({ type: 'run' });
    assert.deepEqual(ran.message.value, reference(ar, word, {}));
    assert.equal((await err({ type: 'step' })).message, 'the decode has finished: start a new one');
    assert.equal((await err({ type: 'run' })).message, 'the decode has finished: start a new one');
    assert.equal((await err({ type: 'load', source: '/no/such/model.safetensors' })).message.includes('ENOENT'), true);
  });
});

/**
 * A server for one file that it sends only once release() is called: a load of it
 * holds the worker's queue. `requested` settles once the worker has asked for it.
 */
async function heldFile(bytes) {
  let release;
  let asked;
  const released = new Promise((resolve) => { release = resolve; });
  const requested = new Promise((resolve) => { asked = resolve; });
  const server = createServer(async (req, res) => {
    asked();
    await released;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length }).end(bytes);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/held.safetensors`,
    requested,
    release,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}

// The same checks against a real worker, whichever way it was made.
async function exerciseWorker(decoder, { modelUrl }) {
  const info = await decoder.load(modelUrl);
  assert.deepEqual(info, plain(ar.info));
  const words = wordsFor(ar.info, 4);
  for (const [i, word] of words.entries()) {
    const options = i % 2 ? { strategy: 'beam', beamSize: 4, nBest: 2 } : {};
    const started = await decoder.start(word, options);
    assert.equal(started.sourceLength, ar.tokenize(word).length);
    const first = await decoder.step();
    assert.equal(first.step, 1);
    assert.ok(first.live[0].attention instanceof Float32Array);
    const seen = [];
    const results = await decoder.run({ onStep: (s) => seen.push(s.step) });
    assert.deepEqual(results, reference(ar, word, options));
    assert.deepEqual(seen, seen.map((_, k) => k + 2), 'every later step, in order');
  }
  // Bytes, and a CMLM.
  assert.equal((await decoder.load(cmlmBytes)).arch, 'cmlm');
  const word = wordsFor(cmlm.info)[0];
  await decoder.start(word, { iterations: 4 });
  assert.deepEqual(await decoder.run(), reference(cmlm, word, { iterations: 4 }));
  // Cancel a run queued behind a load that cannot end before the cancel is answered
  // (the server holds the model back until then): exact however busy the machine.
  const held = await heldFile(arBytes);
  try {
    const loading = decoder.load(held.url);
    await held.requested;   // the load is under way: what follows queues behind it
    const starting = decoder.start(words[0], longOptions(ar));
    const queued = decoder.run({ sliceMs: 0 }).then(() => null, (e) => e);
    assert.equal(await decoder.cancel(), true, 'the cancel found the queued run');
    held.release();
    assert.equal((await loading).arch, 'transformer');
    await starting;
    const e = await queued;
    assert.ok(e instanceof Seq2SeqError && e.kind === 'Cancelled' && e.message === 'the run was cancelled', String(e));
    assert.deepEqual(await decoder.run(), reference(ar, words[0], longOptions(ar)), 'the run can be resumed');
  } finally {
    held.release();
    await held.close();
  }
  // Cancel a run in progress: run and cancel sent together. The worker does not wait
  // for this thread, so on a busy machine the cancel can arrive after the run's end
  // (and in the browser-like worker, Node's MessagePort delivers the run's
  // MessageChannel yields back to back, so a cancel that comes once the run is
  // stepping waits for its end). In-process, above, a cancel in mid-run is exact.
  // Here exactly one of: stopped (and resumable), or the whole run's results with
  // nothing stopped.
  await decoder.start(words[0], longOptions(ar));
  const run = decoder.run({ sliceMs: 0 }).then((results) => ({ results }), (error) => ({ error }));
  const cancelled = await decoder.cancel();
  const outcome = await run;
  if (cancelled) {
    const e = outcome.error;
    assert.ok(e instanceof Seq2SeqError && e.kind === 'Cancelled' && e.message === 'the run was cancelled', String(e ?? 'the run ended'));
    assert.deepEqual(await decoder.run(), reference(ar, words[0], longOptions(ar)), 'the run can be resumed');
  } else {
    assert.equal(outcome.error, undefined, 'a cancel that stopped nothing leaves the run to end');
    assert.deepEqual(outcome.results, reference(ar, words[0], longOptions(ar)));
  }
  assert.equal(await decoder.cancel(), false);
  // Errors cross with their class and kind.
  await assert.rejects(decoder.start('#'), (e) => e instanceof Seq2SeqError && e.kind === 'InputError');
  const usage = (message) => (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && message.test(e.message);
  await assert.rejects(decoder.start(words[0], { nope: 1 }), usage(/unknown decoding option 'nope'/));
  await assert.rejects(decoder.start(words[0], { beamSize: '3' }), usage(/^option beamSize must be an integer; got the string "3"$/));
  await assert.rejects(decoder.start(words[0], { strategy: 'beam', beamSize: 0 }), (e) => e.kind === 'UsageError' && /beamSize = 0/.test(e.message));
  await assert.rejects(decoder.load(new Uint8Array(10)), (e) => e.kind === 'ModelError');
  await assert.rejects(decoder.load(`${server.base}/missing.safetensors`), (e) => e.kind === 'NetworkError' && /HTTP 404/.test(e.message));
  await assert.rejects(decoder.load(42), usage(/^a model source must be .*; got the number 42$/));
  await assert.rejects(decoder.start(7), usage(/^start\(text, options\) needs a string; got the number 7$/));
  await assert.rejects(decoder.run({ onStep: 'x' }), usage(/^run\(\{onStep\}\): onStep must be a function; got the string "x"$/));
  // Still usable after all that.
  await decoder.start(words[1]);
  assert.deepEqual(await decoder.run(), reference(ar, words[1], {}));
}

describe('real workers through createDecoderWorker()', () => {
  test('the default worker (worker_threads on the package\'s worker script), model by path and by http URL', async () => {
    const decoder = createDecoderWorker();
    try {
      await exerciseWorker(decoder, { modelUrl: AR });
      assert.equal((await decoder.load(`${server.base}/cmlm.safetensors`)).arch, 'cmlm');
    } finally {
      await decoder.terminate();
    }
  });

  test('a worker given by URL, and one given as a Worker', async () => {
    const byUrl = createDecoderWorker(workerScript);
    const byWorker = createDecoderWorker(new Worker(new URL(workerScript)));
    try {
      assert.equal((await byUrl.load(`${server.base}/ar.safetensors`)).arch, 'transformer');
      await exerciseWorker(byWorker, { modelUrl: pathToFileURL(AR) });
    } finally {
      await byUrl.terminate();
      await byWorker.terminate();
    }
  });

  test('requests leave the client in the order they are made: what follows an unawaited load runs on its model', async () => {
    // A Blob is read on this thread before the load is posted; the requests made meanwhile
    // once went ahead of it and ran on the model before (HELLO decoded by the other model).
    const decoder = createDecoderWorker();
    try {
      await decoder.load(arBytes);
      const words = wordsFor(ar.info, cmlm.info, 6);
      const toCmlm = decoder.load(new Blob([cmlmBytes]));
      const batch = decoder.decodeBatch(words);
      const scored = decoder.score(words[0], cmlm.decode(words[0])[0].tokens.map((t) => cmlm.info.targetVocab[t]));
      assert.equal((await toCmlm).arch, 'cmlm');
      assert.deepEqual(await batch, cmlm.decodeBatch(words));
      assert.equal((await scored).logprob, cmlm.score(words[0], cmlm.decode(words[0])[0].tokens.map((t) => cmlm.info.targetVocab[t])).logprob);
      // And back, a Response this time, with start and run behind it.
      const toAr = decoder.load(new Response(arBytes));
      const started = decoder.start(words[1]);
      const ran = decoder.run();
      assert.equal((await toAr).arch, 'transformer');
      await started;
      assert.deepEqual(await ran, ar.decode(words[1]));
    } finally {
      await decoder.terminate();
    }
  });

  test('load(url) from a server that stalls: a NetworkError after stallTimeout; an AbortSignal gives it up at once; the model stays', async () => {
    const decoder = createDecoderWorker();
    const first = await stallingServer();
    const second = await stallingServer();
    try {
      await decoder.load(arBytes);
      const words = wordsFor(ar.info, 4);
      await assert.rejects(decoder.load(first.url, { stallTimeout: 300 }), (e) => e instanceof ClientSeq2SeqError && e.kind === 'NetworkError'
        && e.message === `the download of the model from ${first.url} stalled: no data for 300 ms after 1000 bytes; try again (loadModel(source, { stallTimeout }) allows a slower server more time)`);
      await first.closed;
      const controller = new AbortController();
      const loading = decoder.load(second.url, { signal: controller.signal });
      const batch = decoder.decodeBatch(words);   // behind the load, in the worker's queue
      await second.requested;
      controller.abort();
      await assert.rejects(loading, (e) => e.kind === 'Cancelled' && e.message === 'the load was cancelled (its signal was aborted)');
      await second.closed;   // the worker's download was aborted too
      assert.deepEqual(await batch, ar.decodeBatch(words), 'the model it had');
      await assert.rejects(decoder.load(cmlmBytes, { signal: AbortSignal.abort() }), (e) => e.kind === 'Cancelled');
      await assert.rejects(decoder.load(cmlmBytes, { stallTimeout: -1 }), (e) => e.kind === 'UsageError' && /^load: stallTimeout must be/.test(e.message));
      assert.deepEqual(await decoder.decodeBatch(words), ar.decodeBatch(words));
      assert.equal((await decoder.load(cmlmBytes, { signal: new AbortController().signal, stallTimeout: 5000 })).arch, 'cmlm');
    } finally {
      await decoder.terminate();
      await first.close();
      await second.close();
    }
  });

  test('terminate rejects what is pending and everything after', async () => {
    const decoder = createDecoderWorker();
    await decoder.load(arBytes);
    await decoder.start(wordsFor(ar.info)[0], longOptions(ar));
    const pending = decoder.run({ sliceMs: 0 }).then(() => null, (e) => e);
    await decoder.terminate();
    const e = await pending;
    assert.ok(e instanceof Seq2SeqError && e.kind === 'Cancelled' && /terminated/.test(e.message), String(e));
    await assert.rejects(decoder.step(), (e) => e.kind === 'Cancelled' && /terminated/.test(e.message));
  });

  test('what cannot be sent to the worker (a function) is a UsageError naming it; a text too long is refused before it is posted', async () => {
    const decoder = createDecoderWorker();
    try {
      await decoder.load(arBytes);
      const word = wordsFor(ar.info)[0];
      const usage = (message) => (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && message.test(e.message);
      // Decoding options: the UsageError decode() gives in the page's thread, before anything is posted.
      const strategy = () => 'beam';
      await assert.rejects(decoder.start(word, { strategy }), usage(/^option strategy must be one of greedy, beam, sample, nar; got a function \(strategy\)$/));
      await assert.rejects(decoder.decodeBatch([word], { onStep: () => {} }), usage(/^unknown decoding option 'onStep'/));
      await assert.rejects(decoder.score(word, 'A', { temperature: () => 1 }), usage(/^option temperature must be a finite number; got a function/));
      // Anything else the structured clone refuses: named by its place in the request.
      await decoder.start(word);
      await assert.rejects(decoder.run({ sliceMs: () => 8 }), usage(/^run: sliceMs is a function \(sliceMs\), which cannot be sent to the worker \(.+\)$/));
      await assert.rejects(decoder.decodeBatch([word], {}, { sliceMs: Symbol('fast') }), usage(/^decodeBatch: sliceMs is a symbol, which cannot be sent to the worker/));
      // A text over LIMITS.maxTextBytes: refused here, not copied to the worker.
      const huge = Buffer.alloc(20_000_000, 'A').toString('latin1');
      const t0 = performance.now();
      const tooLong = (e) => e instanceof Seq2SeqError && e.kind === 'InputError' && /the longest accepted is 65536 bytes/.test(e.message);
      await assert.rejects(decoder.start(huge), tooLong);
      await assert.rejects(decoder.score(word, huge), tooLong);
      await assert.rejects(decoder.inspect(huge), tooLong);
      await assert.rejects(decoder.decodeBatch([word, huge]), (e) => tooLong(e) && e.message.startsWith('texts[1] "'));
      // A bad text before it is the one named (the worker checks those, decoding nothing); bad options first.
      await assert.rejects(decoder.decodeBatch([word, '', huge]), (e) => e.kind === 'InputError' && e.message === 'texts[1] "": input: the source text is empty');
      await assert.rejects(decoder.decodeBatch([word, huge], { strategy: 'beam', beamSize: 0 }), (e) => e.kind === 'UsageError' && /beamSize = 0/.test(e.message));
      assert.ok(performance.now() - t0 < 1000, `${(performance.now() - t0).toFixed(0)} ms`);
      // The worker goes on.
      assert.deepEqual(await decoder.decodeBatch([word]), [ar.decode(word, { attention: false })]);
    } finally {
      await decoder.terminate();
    }
  });

  test('a worker script that does not exist fails every request', async () => {
    const decoder = createDecoderWorker(pathToFileURL('/nonexistent/worker.js'));
    await assert.rejects(decoder.load(arBytes), (e) => e instanceof Seq2SeqError && e.kind === 'WorkerError');
    await assert.rejects(decoder.step(), (e) => e.kind === 'WorkerError');
    await decoder.terminate();
  });

  test('start-up: a worker whose import is missing fails at once, naming it; one that never answers fails at its startTimeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seq2seq-worker-'));
    try {
      const broken = join(dir, 'broken-worker.mjs');
      writeFileSync(broken, "import './missing-protocol.js';\n");
      let decoder = createDecoderWorker(pathToFileURL(broken));
      let t0 = performance.now();
      await assert.rejects(decoder.load(arBytes), (e) => e instanceof ClientSeq2SeqError && e.kind === 'WorkerError' && /missing-protocol\.js/.test(e.message));
      assert.ok(performance.now() - t0 < 10_000, `${(performance.now() - t0).toFixed(0)} ms`);
      await decoder.terminate();
      // A script that loads and stays alive but is not the decoder: no answer to the handshake.
      const silent = join(dir, 'silent-worker.mjs');
      writeFileSync(silent, 'setInterval(() => {}, 1000);\n');
      decoder = createDecoderWorker({ workerUrl: pathToFileURL(silent), startTimeout: 300 });
      t0 = performance.now();
      await assert.rejects(decoder.load(arBytes), (e) => e.kind === 'WorkerError'
        && /^the decoder worker did not answer within 300 ms of starting: the worker script file:.*silent-worker\.mjs /.test(e.message));
      const waited = performance.now() - t0;
      assert.ok(waited >= 250 && waited < 5_000, `${waited.toFixed(0)} ms`);
      await assert.rejects(decoder.step(), (e) => e.kind === 'WorkerError');
      await decoder.terminate();
      // The real script answers well inside a short timeout, and decodes.
      decoder = createDecoderWorker({ workerUrl: workerScript, startTimeout: 10_000 });
      assert.equal((await decoder.load(arBytes)).name, ar.info.name);
      await decoder.terminate();
      for (const bad of [0, -1, Infinity, NaN, '100', 2 ** 31]) {
        assert.throws(() => createDecoderWorker({ startTimeout: bad }), (e) => e.kind === 'UsageError' && /startTimeout must be a number of milliseconds/.test(e.message));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the worker script in a worker_threads worker that also has a Web Worker\'s self, as Bun\'s has: it listens on parentPort', async () => {
    const worker = new Worker(new URL('./bun-like-worker.mjs', import.meta.url), { workerData: { script: workerScript } });
    const decoder = createDecoderWorker(worker);
    try {
      const answered = decoder.load(arBytes).then((info) => info, (e) => e);
      const late = new Promise((resolve) => { setTimeout(resolve, 20_000, 'no answer in 20 s'); });
      const info = await Promise.race([answered, late]);
      assert.deepEqual(info, plain(ar.info), 'the worker answered its first request');
      await exerciseWorker(decoder, { modelUrl: pathToFileURL(AR).href });
    } finally {
      await decoder.terminate();
    }
  });

  test('the worker script in a browser-like module worker (no process; locateFile + fetch + instantiateStreaming)', async () => {
    const worker = new Worker(new URL('./browser-like-worker.mjs', import.meta.url), { workerData: { script: workerScript } });
    const decoder = createDecoderWorker(worker);
    try {
      await exerciseWorker(decoder, { modelUrl: pathToFileURL(AR).href });
      const fetched = await new Promise((resolve) => {
        const onMessage = (m) => { if (m && m.__fetched) { worker.off('message', onMessage); resolve(m.__fetched); } };
        worker.on('message', onMessage);
        worker.postMessage({ type: '__fetched' });
      });
      const wasm = new URL('../dist/seq2seq_core.wasm', workerScript).href;
      assert.deepEqual(fetched.filter((u) => u.endsWith('.wasm')), [wasm], 'the wasm was fetched once, from next to the module');
      assert.ok(fetched.includes(pathToFileURL(AR).href), 'the model was fetched by URL');
      assert.ok(fileURLToPath(wasm).startsWith(pkg.packageDir));
    } finally {
      await decoder.terminate();
    }
  });
});
