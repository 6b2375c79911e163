// Decoding off the main thread: a promise API over the decoder worker
// (worker.js, protocol in worker-protocol.js).
//
//   import { createDecoderWorker } from 'seq2seq-wasm/worker';
//   const decoder = createDecoderWorker();            // or (urlOfWorkerScript), or (aWorker)
//   const info = await decoder.load('/models/g2p-transformer.safetensors');   // URL, path (Node) or bytes
//   await decoder.start('PHONEME', { strategy: 'beam', beamSize: 5 });
//   const snapshot = await decoder.step();            // one decoder pass
//   const nbest = await decoder.run({ onStep: draw });  // the rest; decoder.cancel() stops it between steps
//   decoder.terminate();
//
// This module does not load the WebAssembly itself: the worker does.
import { Seq2SeqError, describeValue, usageError } from './errors.js';

export { Seq2SeqError };

const isNode = typeof process === 'object' && typeof process.versions === 'object' && !!process.versions.node
  && typeof window === 'undefined';

// A uniform face over a Web Worker, a Node worker_threads Worker, or anything
// with postMessage and message events (a MessagePort, a SharedWorker's port).
function endpoint(worker, owned) {
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
          onError(e.error ?? new Error(e.message || 'the worker script failed (it may not exist, or not be a module)'));
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
    const where = target === undefined ? new URL('./worker.js', import.meta.url)
      : target instanceof URL ? target : /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? new URL(target) : target;
    return endpoint(new Worker(where), true);
  }
  if (typeof Worker !== 'function') throw new Seq2SeqError('this environment has no Web Workers', 'WorkerError');
  // Written out in full so that bundlers (Vite, webpack 5, Parcel) find and emit the worker script.
  const worker = target === undefined
    ? new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })
    : new Worker(target, { type: 'module' });
  return endpoint(worker, true);
}

function rebuildError(data) {
  const message = data?.message ?? 'the worker failed';
  // A TypeError in the worker is a bad argument that got past the checks here.
  return new Seq2SeqError(message, data?.kind ?? (data?.name === 'TypeError' ? 'UsageError' : 'Error'));
}

// Model bytes or a URL the worker can reach: relative URLs are resolved here,
// against the page, not against the worker script.
async function portableSource(source) {
  if (typeof source === 'string') {
    if (!isNode && typeof location === 'object' && !/^[a-z][a-z0-9+.-]*:/i.test(source)) {
      const base = typeof document === 'object' && document?.baseURI ? document.baseURI : location.href;
      return new URL(source, base).href;
    }
    return source;
  }
  if (source instanceof URL) return source.href;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (typeof Response === 'function' && source instanceof Response) {
    if (!source.ok) throw new Seq2SeqError(`cannot load model from ${source.url}: HTTP ${source.status}`, 'ModelError');
    return new Uint8Array(await source.arrayBuffer());
  }
  if (typeof Blob === 'function' && source instanceof Blob) return new Uint8Array(await source.arrayBuffer());
  throw usageError(`a model source must be a URL, a path, a Response, a Blob, an ArrayBuffer or a Uint8Array; got ${describeValue(source)}`);
}

export class DecoderWorker {
  #endpoint;
  #pending = new Map();   // id -> {resolve, reject, onProgress}
  #nextId = 1;
  #failure = null;        // once set, every request fails with it

  constructor(target) {
    this.#endpoint = spawn(target).then((ep) => {
      ep.listen((m) => this.#receive(m), (e) => this.#fail(e), (code) => this.#exited(code));
      ep.hold(this.#pending.size > 0);
      return ep;
    });
    this.#endpoint.catch((e) => this.#fail(e));
  }

  #receive(message) {
    const entry = message && this.#pending.get(message.id);
    if (!entry) return;
    if ('progress' in message) {
      entry.onProgress?.(message.progress);
      return;
    }
    this.#pending.delete(message.id);
    if (message.ok) entry.resolve(message.value); else entry.reject(rebuildError(message.error));
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

  async #request(message, { transfer = [], onProgress } = {}) {
    if (this.#failure) throw this.#failure;
    const ep = await this.#endpoint;
    if (this.#failure) throw this.#failure;
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onProgress });
      ep.hold(true);
      try {
        ep.post({ ...message, id }, transfer);
      } catch (e) {
        this.#pending.delete(id);
        this.#idle();
        reject(e);
      }
    });
  }

  /** Loads a model in the worker (replacing the previous one); resolves to its info. */
  async load(source, options) {
    return this.#request({ type: 'load', source: await portableSource(source), options });
  }

  /** Starts decoding `text` with `options` (defaults for what is missing). */
  start(text, options = {}) {
    if (typeof text !== 'string') return Promise.reject(usageError(`start(text, options) needs a string; got ${describeValue(text)}`));
    return this.#request({ type: 'start', text, options });
  }

  /** One decoder pass; resolves to its snapshot. */
  step() { return this.#request({ type: 'step' }); }

  /**
   * Steps to the end; resolves to the n-best results. onStep, if given,
   * receives every snapshot (the last one included). cancel() makes it reject
   * with a Seq2SeqError of kind 'Cancelled'.
   */
  run({ onStep, sliceMs } = {}) {
    if (onStep !== undefined && typeof onStep !== 'function') return Promise.reject(usageError(`run({onStep}): onStep must be a function; got ${describeValue(onStep)}`));
    const message = { type: 'run', progress: typeof onStep === 'function' };
    if (sliceMs !== undefined) message.sliceMs = sliceMs;
    return this.#request(message, { onProgress: onStep });
  }

  /** Stops a run in progress (or queued) at its next step; resolves to whether there was one. */
  async cancel() {
    const { cancelled } = await this.#request({ type: 'cancel' });
    return cancelled;
  }

  /** Stops the worker; requests still pending reject. */
  async terminate() {
    if (!this.#failure) this.#fail(new Seq2SeqError('the decoder worker was terminated', 'Cancelled'));
    const ep = await this.#endpoint.catch(() => null);
    await ep?.terminate();
  }
}

/**
 * A decoder in a worker. `target`: nothing (this package's worker script), the
 * URL of the worker script (seq2seq-wasm/worker-script), or a Worker you made.
 */
export function createDecoderWorker(target) {
  return new DecoderWorker(target);
}
