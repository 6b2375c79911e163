// The decoder worker's protocol as a pure message handler: no Worker API in
// here, so the same code runs in a Web Worker (worker.js), a Node worker_threads
// worker (worker.js too) or in-process (tests).
//
//   const handle = createWorkerHandler((message, transfer) => postMessage(message, transfer));
//   onmessage = (e) => handle(e.data);
//
// Requests carry an id the replies repeat:
//   {id, type: 'load', source, options, progress, wasmUrl}
//                                          -> value: ModelInfo  (source: URL/path string, ArrayBuffer, typed array or Blob;
//                                             options: {compute, cache, sha256}; with progress, {id, progress: {loaded, total}}
//                                             while the model downloads; wasmUrl: where the engine's .wasm is, null for beside the worker)
//   {id, type: 'start', text, options}     -> value: {sourceLength, maxLength}  (options: a fresh set, defaults for the rest)
//   {id, type: 'step'}                     -> value: Snapshot
//   {id, type: 'run', progress, sliceMs}   -> value: Result[]; with progress, {id, progress: Snapshot} per step first
//   {id, type: 'decodeBatch', texts, options, progress, sliceMs}
//                                          -> value: Result[][] (Model.decodeBatch); with progress, {id, progress:
//                                             {done, total}} after each slice, the last with done = total
//   {id, type: 'score', text, target, options}
//                                          -> value: ForcedScore (Model.score: the loaded model, a fresh session of
//                                             these options; the session of start/step/run is left as it was)
//   {id, type: 'cancel', request}          -> value: {cancelled}: whether a run or batch was stopped; request (an id):
//                                             only that one, or that load (which then fails, the model unchanged)
// Replies: {id, ok: true, value} or {id, ok: false, error: {name, message, kind}}.
//
// Requests are handled one at a time, in order, except cancel, which acts at
// once: a run or batch in progress (or queued) stops at its next step or slice
// boundary and fails with kind 'Cancelled'; the session stays where it stopped.
// A run steps for sliceMs (default 8 ms) at a time and then yields to the event
// loop, which is how a cancel (or anything else the worker must hear) gets in;
// a batch decodes slices of texts sized to take about sliceMs each, yielding
// after each. A batch leaves the session of start/step/run as it was.
import { loadModel, Seq2SeqError } from './index.js';
import { describe, usageError } from './errors.js';
import { env } from './env.js';
import { checkTexts } from './batch.js';

export const PROTOCOL_VERSION = 1;
const REQUEST_TYPES = new Set(['load', 'start', 'step', 'run', 'decodeBatch', 'score', 'cancel']);

// A macrotask turn: setImmediate in Node (after pending I/O, so messages from
// the parent get in), a MessageChannel in browsers (setTimeout is clamped to
// 4 ms when nested), setTimeout elsewhere.
function makeYield() {
  if (typeof setImmediate === 'function') return () => new Promise((resolve) => setImmediate(resolve));
  if (typeof MessageChannel === 'function') {
    const channel = new MessageChannel();
    const waiting = [];
    channel.port1.onmessage = () => waiting.shift()?.();
    return () => new Promise((resolve) => {
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
  }
  return () => new Promise((resolve) => setTimeout(resolve, 0));
}

// The typed arrays of a snapshot own their buffers (copies out of the wasm
// heap), so they can be transferred rather than copied.
function transferables(snapshot) {
  const buffers = new Set();
  const add = (a) => { if (ArrayBuffer.isView(a)) buffers.add(a.buffer); };
  add(snapshot.encoderAttention);
  if (snapshot.autoregressive) {
    for (const h of [...snapshot.live, ...snapshot.finished]) {
      add(h.attention);
      add(h.attentionHeads);
      add(h.selfAttention);
    }
  } else {
    add(snapshot.lengthLogprobs);
    for (const d of snapshot.drafts) {
      add(d.probs);
      add(d.masked);
      add(d.attention);
      add(d.selfAttention);
    }
  }
  return [...buffers];
}

function errorData(e) {
  if (e && typeof e === 'object') {
    return { name: String(e.name ?? 'Error'), message: String(e.message ?? e), kind: typeof e.kind === 'string' ? e.kind : undefined };
  }
  return { name: 'Error', message: String(e), kind: undefined };
}

/**
 * A message handler for the decoder worker. `post(message, transfer)` sends a
 * reply; `handle(request)` returns a promise that settles once the request's
 * reply has been posted (handy in tests; workers may ignore it).
 */
export function createWorkerHandler(post, { defaultSliceMs = 8, load = loadModel } = {}) {
  if (typeof post !== 'function') throw usageError(`createWorkerHandler(post) needs a function to post replies with; got ${describe(post)}`);
  const yieldTurn = makeYield();
  let model = null;
  let session = null;
  let queue = Promise.resolve();
  let cancelGeneration = 0;   // bumped by each cancel; a run started under an older one stops
  const active = new Set();   // ids of the runs and batches queued or running
  const loads = new Set();    // ids of the loads queued or running
  const cancelledIds = new Set();  // those of them a cancel named

  const reply = (id, value, transfer = []) => post({ id, ok: true, value }, transfer);
  const fail = (id, e) => post({ id, ok: false, error: errorData(e) }, []);

  function requireModel(what) {
    if (!model) throw usageError(`${what}() before load(): load a model first`);
    return model;
  }

  function requireSession(what) {
    requireModel(what);
    if (!session) throw usageError(`${what}() before start(): give the session a source first`);
    return session;
  }

  async function doLoad(id, { source, options, progress = false, wasmUrl }) {
    // The client's wasm URL (createDecoderWorker({ wasmUrl }) or its page's env.wasmUrl),
    // resolved against the page; null: the worker's own default, the .wasm next to its script.
    if (wasmUrl !== undefined) env.wasmUrl = wasmUrl ?? undefined;
    const onProgress = progress ? (p) => post({ id, progress: p }, []) : undefined;
    const withProgress = onProgress && (options === undefined || (options !== null && typeof options === 'object'));
    const next = await load(source, withProgress ? { ...options, onProgress } : options);
    if (cancelledIds.has(id)) {
      // The client gave up on this load (its onProgress threw): the model it had stays.
      next.delete();
      throw new Seq2SeqError('the load was cancelled', 'Cancelled');
    }
    session?.delete();
    session = null;
    model?.delete();
    model = next;
    return model.info;
  }

  function doStart({ text, options }) {
    requireModel('start');
    if (typeof text !== 'string') throw usageError(`start(text, options) needs a string; got ${describe(text)}`);
    const next = model.createSession(options ?? {});   // throws on bad options, leaving the old session as it was
    try {
      next.start(text);
    } catch (e) {
      next.delete();
      throw e;
    }
    session?.delete();
    session = next;
    return { sourceLength: model.tokenize(text).length, maxLength: session.maxLength };
  }

  const now = () => (typeof performance === 'object' ? performance.now() : Date.now());

  function checkSliceMs(what, sliceMs) {
    if (typeof sliceMs !== 'number' || !(sliceMs >= 0)) throw usageError(`${what}: sliceMs must be a number >= 0; got ${describe(sliceMs)}`);
  }

  async function doRun(id, { progress = false, sliceMs = defaultSliceMs } = {}, cancelled) {
    const s = requireSession('run');
    if (!s.started) throw usageError('run() before start(): give the session a source first');
    if (s.done) throw usageError('the decode has finished: start a new one');
    checkSliceMs('run', sliceMs);
    let last = null;
    let sliceStart = now();
    for (;;) {
      if (cancelled()) throw new Seq2SeqError('the run was cancelled', 'Cancelled');
      last = s.step();
      if (last.done) break;
      if (progress) post({ id, progress: last }, transferables(last));
      if (now() - sliceStart >= sliceMs) {
        await yieldTurn();
        sliceStart = now();
      }
    }
    const results = last.results;
    if (progress) post({ id, progress: last }, transferables(last));
    return results;
  }

  async function doBatch(id, { texts, options, progress = false, sliceMs = defaultSliceMs }, cancelled) {
    requireModel('decodeBatch');
    checkTexts(texts, 'decodeBatch(texts, options)');
    checkSliceMs('decodeBatch', sliceMs);
    const batch = model._batchDecoder(options ?? {});
    try {
      batch.check(texts);
      const total = texts.length;
      const lists = [];
      let size = 1;   // texts in the next slice: as many as the last ones' pace fits in sliceMs
      while (lists.length < total) {
        if (cancelled()) throw new Seq2SeqError('the batch decode was cancelled', 'Cancelled');
        const from = lists.length;
        const to = Math.min(total, from + size);
        const sliceStart = now();
        for (const list of batch.decode(texts, from, to)) lists.push(list);
        const msPerText = Math.max(now() - sliceStart, 1e-3) / (to - from);
        // At most doubling: one fast slice (short words) says little about the next.
        size = Math.max(1, Math.min(2 * size, Math.floor(sliceMs / msPerText)));
        if (progress) post({ id, progress: { done: lists.length, total } }, []);
        if (lists.length < total) await yieldTurn();
      }
      if (progress && total === 0) post({ id, progress: { done: 0, total } }, []);
      return lists;
    } finally {
      batch.delete();
    }
  }

  function enqueue(task) {
    const result = queue.then(task);
    queue = result.catch(() => {});
    return result;
  }

  return function handle(message) {
    const id = message && typeof message === 'object' ? message.id : undefined;
    const type = message && typeof message === 'object' ? message.type : undefined;
    if (!REQUEST_TYPES.has(type)) {
      fail(id, usageError(`unknown request ${JSON.stringify(type)} (known: ${[...REQUEST_TYPES].join(', ')})`));
      return Promise.resolve();
    }
    if (type === 'cancel') {
      // {request: id} stops that run or batch only, or keeps that load from replacing the model
      // (the client cancels a request whose progress callback threw).
      const target = message.request;
      const cancelled = target === undefined ? active.size > 0 : active.has(target) || loads.has(target);
      if (target === undefined) cancelGeneration += 1; else if (cancelled) cancelledIds.add(target);
      reply(id, { cancelled });
      return Promise.resolve();
    }
    if (type === 'run' || type === 'decodeBatch') {
      active.add(id);
      const generation = cancelGeneration;
      const cancelled = () => generation !== cancelGeneration || cancelledIds.has(id);
      const task = type === 'run' ? () => doRun(id, message, cancelled) : () => doBatch(id, message, cancelled);
      return enqueue(task)
        .then((value) => reply(id, value), (e) => fail(id, e))
        .finally(() => {
          active.delete(id);
          cancelledIds.delete(id);
        });
    }
    if (type === 'load') {
      loads.add(id);
      return enqueue(() => doLoad(id, message))
        .then((info) => reply(id, info), (e) => fail(id, e))
        .finally(() => {
          loads.delete(id);
          cancelledIds.delete(id);
        });
    }
    return enqueue(async () => {
      if (type === 'start') return reply(id, doStart(message));
      if (type === 'score') {
        return reply(id, requireModel('score').score(message.text, message.target, message.options ?? {}));
      }
      const snapshot = requireSession('step').step();
      return reply(id, snapshot, transferables(snapshot));
    }).catch((e) => fail(id, e));
  };
}
