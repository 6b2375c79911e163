// Decoding off the main thread: a promise API over the decoder worker
// (worker.js, protocol in worker-protocol.js).
//
//   import { createDecoderWorker } from 'seq2seq-wasm/worker';
//   const decoder = createDecoderWorker();            // or (urlOfWorkerScript), (aWorker), or ({ workerUrl, wasmUrl, startTimeout })
//   const info = await decoder.load('/models/g2p-transformer.safetensors', { onProgress, cache, sha256 });   // URL, path (Node), Response, Blob or bytes
//   await decoder.start('PHONEME', { strategy: 'beam', beamSize: 5 });
//   const snapshot = await decoder.step();            // one decoder pass
//   const nbest = await decoder.run({ onStep: draw });  // the rest; decoder.cancel() stops it between steps
//   const lists = await decoder.decodeBatch(words, { strategy: 'beam' }, { onProgress: ({ done, total }) => {} });
//   const forced = await decoder.score('PHONEME', 'F OW N IY M');   // log P(target | text), as results are scored
//   decoder.terminate();
//
// This module does not load the WebAssembly itself: the worker does, from the
// URL given here (createDecoderWorker({ wasmUrl }), else env.wasmUrl if set),
// else from the .wasm next to the worker's script.
import { Seq2SeqError, describe, named, usageError } from './errors.js';
import { env, isNode, resolveWasmUrl } from './env.js';
import { loadCancelled, loadOptions, readModel } from './model-source.js';
import { firstTooLong, tooLongError } from './batch.js';
import { inspectTokens, targetText } from './target.js';
import { BATCH_OPTIONS, batchArguments, batchCancelled, checkedOptions, workerTarget } from './worker-options.js';
import { checkText } from './text.js';
import { DecoderPool, POOL_MIN_TEXTS } from './pool.js';

// env too: a page that decodes only in workers sets env.wasmUrl without importing
// seq2seq-wasm itself (and with it the Emscripten glue).
export { Seq2SeqError, env };
// Many texts across several workers: createDecoderPool() below.
export { DecoderPool, POOL_MIN_TEXTS };

// A uniform face over a Web Worker, a Node worker_threads Worker, or anything
// with postMessage and message events (a MessagePort, a SharedWorker's port).
function endpoint(worker, owned, script) {
  const nodeStyle = typeof worker.on === 'function';
  return {
    worker,
    owned,
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onError, onExit) {
      if (nodeStyle) {
        worker.on('message', onMessage);
        worker.on('error', (e) => onError(e));
        worker.on('messageerror', (e) => onError(e));
        worker.on('exit', (code) => onExit(code));
      } else {
        worker.addEventListener('message', (e) => onMessage(e.data));
        worker.addEventListener('error', (e) => {
          e.preventDefault?.();
          if (e.error) onError(e.error);
          // Loaded only when a worker fails to start.
          else import('./worker-start-failure.js').then(({ startFailure }) => startFailure(script, e.message)).then(onError);
        });
        worker.addEventListener('messageerror', () => onError(new Error('a message from the worker could not be read')));
        worker.start?.();   // a MessagePort needs starting when listened to with addEventListener
      }
    },
    // Node: a worker with nothing in flight does not keep the process alive.
    hold(busy) {
      if (!nodeStyle) return;
      if (busy) worker.ref?.(); else worker.unref?.();
    },
    terminate() { return worker.terminate?.(); },
  };
}

async function spawn(target) {
  if (target && typeof target === 'object' && typeof target.postMessage === 'function') return endpoint(target, false);
  if (isNode) {
    const specifier = 'node:worker_threads';
    const { Worker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
    // Not new URL('./worker.js', import.meta.url) spelt out: bundlers would take it for
    // a second worker and emit a dead copy of the script; they never run this path.
    const here = import.meta.url;
    const where = target === undefined ? new URL('./worker.js', here)
      : target instanceof URL ? target : /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? new URL(target) : target;
    return endpoint(new Worker(where), true);
  }
  if (typeof Worker !== 'function') throw new Seq2SeqError('this environment has no Web Workers', 'WorkerError');
  // Written out in full so that bundlers (Vite, webpack 5, Parcel) find and emit the worker script.
  const worker = target === undefined
    ? new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })
    : new Worker(target, { type: 'module' });
  // Not new URL('./worker.js', import.meta.url) again: bundlers would emit a second copy of the script.
  const base = typeof document === 'object' && document?.baseURI ? document.baseURI : globalThis.location?.href;
  return endpoint(worker, true, target === undefined ? { described: "(seq2seq-wasm/worker-script, next to seq2seq-wasm/worker's module)" }
    : { url: new URL(String(target), base).href });
}

// The first value in `value` that a structured clone refuses (a function, a
// symbol) with its path ('options.strategy'), or null.
function uncloneable(value, path, seen = new Set()) {
  if (typeof value === 'function' || typeof value === 'symbol') return { path, value };
  if (value === null || typeof value !== 'object' || seen.has(value) || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return null;
  seen.add(value);
  for (const key of Object.keys(value)) {
    const found = uncloneable(value[key], Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, seen);
    if (found) return found;
  }
  return null;
}

// A request that postMessage cannot send (an option is a function, say): a
// UsageError naming the request and the value, not the DataCloneError.
function cloneError(message, e) {
  const { id, type, ...fields } = message;
  let found = null;
  for (const [key, value] of Object.entries(fields)) found ??= uncloneable(value, key);
  const what = found ? `${found.path} is ${describe(found.value)}, which` : 'an argument';
  return Object.assign(usageError(`${type}: ${what} cannot be sent to the worker (${e?.message ?? String(e)})`), { cause: e });
}

function rebuildError(data) {
  const message = data?.message ?? 'the worker failed';
  // A TypeError in the worker is a bad argument that got past the checks here.
  return new Seq2SeqError(message, data?.kind ?? (data?.name === 'TypeError' ? 'UsageError' : 'Error'));
}

// Model bytes or a URL the worker can reach: relative URLs are resolved here,
// against the page, not against the worker script. A Response or a Blob is read
// here (with onProgress) and its bytes transferred: {source, transfer, read}.
async function portableSource(source, onProgress, signal, stallTimeout) {
  if (typeof source === 'string') {
    if (!isNode && typeof location === 'object' && !/^[a-z][a-z0-9+.-]*:/i.test(source)) {
      const base = typeof document === 'object' && document?.baseURI ? document.baseURI : location.href;
      return { source: new URL(source, base).href, transfer: [], read: false };
    }
    return { source, transfer: [], read: false };
  }
  if (source instanceof URL) return { source: source.href, transfer: [], read: false };
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return { source, transfer: [], read: false };
  // readModel refuses any other source with a UsageError.
  const { bytes } = await readModel(source, { onProgress, signal, stallTimeout });
  return { source: bytes, transfer: [bytes.buffer], read: true };
}

export class DecoderWorker {
  #spawned;              // the worker, started
  #endpoint;             // the worker, once it has answered the handshake
  #pending = new Map();   // id -> {resolve, reject, onProgress}
  #nextId = 1;
  #posted = Promise.resolve();   // settles once the last request made has been posted (or has failed)
  #failure = null;        // once set, every request fails with it
  #wasmUrl;               // createDecoderWorker({ wasmUrl }), resolved

  constructor(target) {
    const { script, wasmUrl, startTimeout } = workerTarget(target);
    this.#wasmUrl = wasmUrl;
    this.#spawned = spawn(script);
    this.#endpoint = this.#spawned.then((ep) => {
      ep.listen((m) => this.#receive(m), (e) => this.#fail(e), (code) => this.#exited(code));
      return this.#handshake(ep, startTimeout, script);
    });
    this.#endpoint.catch((e) => this.#fail(e));
  }

  // Every request waits for the worker's answer to a 'hello': a worker that
  // cannot start (its script or an import missing, a script that is not this
  // package's) becomes a WorkerError, by its error event or at the timeout,
  // never a request left waiting for ever.
  #handshake(ep, timeoutMs, script) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        if (ep.owned) ep.terminate();   // of no use now, and a Node process would wait on it
        const what = script === undefined ? "seq2seq-wasm's worker script" : typeof script === 'object' && !(script instanceof URL) ? 'the worker given'
          : `the worker script ${String(script)}`;
        reject(new Seq2SeqError(`the decoder worker did not answer within ${timeoutMs} ms of starting: ${what} is still loading, `
          + 'or is not seq2seq-wasm/worker-script (or a bundle of it); createDecoderWorker({ startTimeout }) allows more time', 'WorkerError'));
      }, timeoutMs);
      // Any answer, even an error from an older script that does not know 'hello', shows it runs.
      const settle = (done) => (value) => { clearTimeout(timer); done(value); };
      this.#pending.set(id, { resolve: settle(() => resolve(ep)), reject: settle(reject), handshake: true });
      ep.hold(true);
      ep.post({ type: 'hello', id });
    });
  }

  #receive(message) {
    const entry = message && this.#pending.get(message.id);
    if (!entry) return;
    if ('progress' in message) {
      try {
        entry.onProgress?.(message.progress);
      } catch (e) {
        // A progress callback that throws fails its request with that exception,
        // and the worker is told to drop the request: a run or batch stops; a load
        // leaves the model it had, if the cancel gets there before the new one is
        // in place. Its reply is ignored.
        this.#pending.delete(message.id);
        entry.reject(e);
        this.#request({ type: 'cancel', request: message.id }).catch(() => {});
        this.#idle();
      }
      return;
    }
    this.#pending.delete(message.id);
    if (message.ok || entry.handshake) entry.resolve(message.value); else entry.reject(rebuildError(message.error));
    this.#idle();
  }

  #idle() {
    // Checked again when it runs: a request made in between keeps the hold.
    this.#endpoint.then((ep) => { if (this.#pending.size === 0) ep.hold(false); }, () => {});
  }

  #fail(e) {
    const error = e instanceof Error ? (e instanceof Seq2SeqError ? e : Object.assign(new Seq2SeqError(`decoder worker: ${e.message}`, 'WorkerError'), { cause: e }))
      : new Seq2SeqError(`decoder worker: ${String(e)}`, 'WorkerError');
    this.#failure ??= error;
    for (const entry of this.#pending.values()) entry.reject(error);
    this.#pending.clear();
  }

  #exited(code) {
    this.#fail(new Seq2SeqError(`the decoder worker exited (code ${code})`, 'WorkerError'));
  }

  #request(message, { transfer = [], onProgress } = {}) {
    return this.#send(() => ({ message, transfer, onProgress }));
  }

  // Requests leave in the order they were made, as the worker handles them: each is posted
  // once the one before it has been, so that a load whose bytes are still being read here
  // (a Blob, a Response) holds back the requests made after it, which are meant for its
  // model. prepare() gives {message, transfer, onProgress}, or throws to fail the request
  // alone; posted(id) hears the id it was posted under.
  #send(prepare, posted) {
    let settle;
    const reply = new Promise((resolve, reject) => { settle = { resolve, reject }; });
    this.#posted = this.#posted.then(async () => {
      if (this.#failure) throw this.#failure;
      const ep = await this.#endpoint;
      const { message, transfer = [], onProgress } = await prepare();
      if (this.#failure) throw this.#failure;
      const id = this.#nextId++;
      this.#pending.set(id, { ...settle, onProgress });
      ep.hold(true);
      try {
        ep.post({ ...message, id }, transfer);
      } catch (e) {
        this.#pending.delete(id);
        this.#idle();
        throw e?.name === 'DataCloneError' ? cloneError(message, e) : e;
      }
      posted?.(id);
    }).catch((e) => settle.reject(e));
    return reply;
  }

  /**
   * Loads a model in the worker (replacing the previous one); resolves to its info.
   * Options as loadModel's; onProgress hears the download (made in the worker for a URL).
   */
  load(source, options) {
    let checked;
    try {
      checked = loadOptions(options, 'load');
    } catch (e) {
      return Promise.reject(e);
    }
    const { compute, onProgress, cache, sha256, signal, stallTimeout } = checked;
    if (signal?.aborted) return Promise.reject(loadCancelled(signal));
    // The signal cannot be sent: its abort is a cancel of this load, told to the worker,
    // and the load rejects at once (the worker keeps the model it had, unless the new one
    // was in place before the cancel arrived).
    let sent = null;
    const onAbort = () => {
      if (sent === null) return;   // not posted yet: prepare() below fails it
      const entry = this.#pending.get(sent);
      if (!entry) return;
      this.#pending.delete(sent);
      entry.reject(loadCancelled(signal));
      this.#request({ type: 'cancel', request: sent }).catch(() => {});
      this.#idle();
    };
    signal?.addEventListener('abort', onAbort);
    const loaded = this.#send(async () => {
      // A Blob or a Response is read here, watched by the signal and the stall clock.
      const { source: portable, transfer, read } = await portableSource(source, onProgress, signal, stallTimeout);
      if (signal?.aborted) throw loadCancelled(signal);
      const message = { type: 'load', source: portable, options: { compute, cache, stallTimeout }, progress: !!onProgress && !read };
      if (sha256 !== undefined) message.options.sha256 = sha256;
      // Always said, null for the worker's own default, so that a URL sent before does not linger there.
      message.wasmUrl = this.#wasmUrl ?? (env.wasmUrl === undefined ? null : resolveWasmUrl(env.wasmUrl));
      return { message, transfer, onProgress: read ? undefined : onProgress };
    }, (id) => {
      sent = id;
      if (signal?.aborted) onAbort();   // aborted while the message was being made
    });
    const release = () => signal?.removeEventListener('abort', onAbort);
    loaded.then(release, release);
    return loaded;
  }

  /** Starts decoding `text` with `options` (defaults for what is missing). */
  start(text, options = {}) {
    try {
      if (typeof text !== 'string') throw usageError(`start(text, options) needs a string; got ${describe(text)}`);
      return this.#request({ type: 'start', text: checkText(text), options: checkedOptions(options) });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** One decoder pass; resolves to its snapshot. */
  step() { return this.#request({ type: 'step' }); }

  /**
   * Steps to the end; resolves to the n-best results. onStep, if given,
   * receives every snapshot (the last one included). cancel() makes it reject
   * with a Seq2SeqError of kind 'Cancelled'.
   */
  run({ onStep, sliceMs } = {}) {
    if (onStep !== undefined && typeof onStep !== 'function') return Promise.reject(usageError(`run({onStep}): onStep must be a function; got ${describe(onStep)}`));
    const message = { type: 'run', progress: typeof onStep === 'function' };
    if (sliceMs !== undefined) message.sliceMs = sliceMs;
    return this.#request(message, { onProgress: onStep });
  }

  /**
   * Model.decodeBatch in the worker: one n-best list per text, in order.
   * onProgress, if given, hears {done, total} after each slice of texts (the
   * worker decodes slices of about sliceMs, default 8 ms, yielding between
   * them), the last time with done = total. cancel() makes it reject with a
   * Seq2SeqError of kind 'Cancelled', and so does its signal's abort (this batch
   * alone); a throwing onProgress, with its exception.
   */
  decodeBatch(texts, options = {}, progressOptions = {}) {
    let checked;
    try {
      checked = batchArguments(texts, options, progressOptions, BATCH_OPTIONS);
    } catch (e) {
      return Promise.reject(e);
    }
    const { onProgress, sliceMs, signal } = checked;
    // A text too long is not posted: copied to the worker, it would take as much memory as
    // it is long. A text before it may be bad too, and the first bad one is named: the
    // worker checks those (and the options) as the batch would, decoding nothing.
    if (firstTooLong(texts) >= 0) return this._checkBatch(texts, options, signal);
    const message = { type: 'decodeBatch', texts, options, progress: typeof onProgress === 'function' };
    if (sliceMs !== undefined) message.sliceMs = sliceMs;
    return this.#cancellable(message, onProgress, signal);
  }

  // What decodeBatch checks, decoding nothing: resolves once every text and the options are
  // found usable, else rejects with the error decodeBatch would give (the pool's first look,
  // and decodeBatch's whole answer when a text is too long to post).
  _checkBatch(texts, options, signal) {
    const long = firstTooLong(texts);
    return this.#cancellable({ type: 'decodeBatch', texts: long >= 0 ? texts.slice(0, long) : texts, options, check: true }, undefined, signal)
      .then(() => { if (long >= 0) throw tooLongError(texts, long); });
  }

  // A request that the abort of `signal` cancels (it alone: the worker is told its id) and
  // rejects at once with kind 'Cancelled'.
  #cancellable(message, onProgress, signal) {
    if (!signal) return this.#request(message, { onProgress });
    if (signal.aborted) return Promise.reject(batchCancelled());
    let sent = null;
    let rejectEarly;
    const early = new Promise((_, reject) => { rejectEarly = reject; });
    const onAbort = () => {
      if (sent === null) return rejectEarly(batchCancelled());   // not posted yet: posted, it is cancelled at once
      const entry = this.#pending.get(sent);
      if (!entry) return;
      this.#pending.delete(sent);
      entry.reject(batchCancelled());
      this.#request({ type: 'cancel', request: sent }).catch(() => {});
      this.#idle();
    };
    signal.addEventListener('abort', onAbort);
    const reply = this.#send(() => ({ message, onProgress }), (id) => {
      sent = id;
      if (signal.aborted) onAbort();
    });
    const release = () => signal.removeEventListener('abort', onAbort);
    const settled = Promise.race([reply, early]);
    settled.then(release, release);
    return settled;
  }

  /**
   * Model.score in the worker: the forced score of `target` ('F OW N IY M' or an array of tokens)
   * for `text` under `options`. The session of start/step/run is left as it was.
   */
  score(text, target, options = {}) {
    try {
      if (typeof text !== 'string') throw usageError(`score(text, target, options) needs a string; got ${describe(text)}`);
      const t = checkText(targetText(target, 'score(text, target, options)'), 'the target');
      return this.#request({ type: 'score', text: checkText(text), target: t, options: checkedOptions(options) });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Model.inspect in the worker: every intermediate of one decoder pass for `text` (an
   * autoregressive model: the pass after the output so far `tokens`; a CMLM: over the draft
   * `tokens`), its typed arrays transferred.
   */
  inspect(text, tokens = []) {
    try {
      if (typeof text !== 'string') throw usageError(`inspect(text, tokens) needs a string; got ${describe(text)}`);
      const ids = inspectTokens(tokens, 'inspect(text, tokens)');
      return this.#request({ type: 'inspect', text: checkText(text), tokens: typeof ids === 'string' ? checkText(ids, 'the target') : ids });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Stops a run or batch in progress (or queued) at its next step or slice; resolves to whether there was one. */
  async cancel() {
    const { cancelled } = await this.#request({ type: 'cancel' });
    return cancelled;
  }

  /** Stops the worker; requests still pending reject. */
  async terminate() {
    if (!this.#failure) this.#fail(new Seq2SeqError('the decoder worker was terminated', 'Cancelled'));
    // The worker as started: one that never answered the handshake is stopped too.
    const ep = await this.#spawned.catch(() => null);
    await ep?.terminate();
  }
}

/**
 * A decoder in a worker. `target`: nothing (this package's worker script), the
 * URL of the worker script (seq2seq-wasm/worker-script), a Worker you made, or
 * { workerUrl, wasmUrl, startTimeout }: where the worker script and the engine's
 * .wasm are served, for bundlers that do not emit them (wasmUrl defaults to
 * env.wasmUrl, if set, else the .wasm next to the worker script), and how many
 * milliseconds the worker has to start (30,000) before every request fails with
 * a WorkerError.
 */
export function createDecoderWorker(target) {
  return new DecoderWorker(target);
}

/**
 * A pool of decoder workers (pool.js). options: { size } (the number of workers, 1 to 64;
 * default the machine's parallelism, at most 8) and createDecoderWorker's { workerUrl,
 * wasmUrl, startTimeout }, given to each worker. Bad options throw a UsageError.
 */
export function createDecoderPool(options) {
  return new DecoderPool(options, (target) => new DecoderWorker(target));
}
