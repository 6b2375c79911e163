// Training off the main thread: a promise API over the trainer worker
// (train-worker.js, protocol in train-worker-protocol.js).
//
//   import { createTrainerWorker } from 'seq2seq-wasm/train-worker';
//   const worker = createTrainerWorker();               // or (urlOfTrainWorkerScript), (aWorker), or ({ workerUrl, wasmUrl })
//   const info = await worker.create({ task: 'reverse', seed: 1 });
//   const end = await worker.train({ onProgress: (record) => draw(record), probe: true });
//   // worker.pause() ends train() with status 'paused' at its next record; worker.resume() goes on;
//   // worker.cancel() makes it reject with kind 'Cancelled' and disposes the trainer
//   const bytes = await worker.export();                // for loadModel()
//   worker.terminate();
//
// This module loads no WebAssembly: the worker loads seq2seq_train.wasm, from the
// URL given here or from next to its script.
import { Seq2SeqError, describe, named, usageError } from './errors.js';
import { checkWasmUrl, isNode, resolveWasmUrl } from './env.js';
import { checkTrainingConfig } from './training-config.js';

export { Seq2SeqError };

const OPTIONS = ['workerUrl', 'wasmUrl', 'startTimeout'];
const DEFAULT_START_TIMEOUT_MS = 30_000;

function target(t) {
  if (t === undefined || typeof t === 'string' || t instanceof URL) return { script: t, startTimeout: DEFAULT_START_TIMEOUT_MS };
  if (t !== null && typeof t === 'object' && typeof t.postMessage === 'function') return { script: t, startTimeout: DEFAULT_START_TIMEOUT_MS };
  if (t === null || typeof t !== 'object' || Array.isArray(t)) {
    throw usageError(`createTrainerWorker(target): target must be the worker script's URL, a Worker, or { ${OPTIONS.join(', ')} }; got ${describe(t)}`);
  }
  for (const key of Object.keys(t)) if (!OPTIONS.includes(key)) throw usageError(`createTrainerWorker: unknown option ${named(key)} (known: ${OPTIONS.join(', ')})`);
  const { workerUrl, wasmUrl, startTimeout = DEFAULT_START_TIMEOUT_MS } = t;
  checkWasmUrl(workerUrl, 'createTrainerWorker: workerUrl');
  checkWasmUrl(wasmUrl, 'createTrainerWorker: wasmUrl');
  if (!(typeof startTimeout === 'number' && startTimeout > 0 && startTimeout <= 2 ** 31 - 1)) {
    throw usageError(`createTrainerWorker: startTimeout must be a number of milliseconds in (0, 2147483647]; got ${describe(startTimeout)}`);
  }
  return { script: workerUrl, wasmUrl: wasmUrl === undefined ? undefined : resolveWasmUrl(wasmUrl), startTimeout };
}

// A Node worker_threads Worker, or a module Web Worker, on the script; or the worker given.
async function spawn(script) {
  if (script && typeof script === 'object' && typeof script.postMessage === 'function') return { worker: script, owned: false };
  if (isNode) {
    const specifier = 'node:worker_threads';
    const { Worker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
    const here = import.meta.url;
    return { worker: new Worker(script === undefined ? new URL('./train-worker.js', here) : script), owned: true };
  }
  if (typeof Worker !== 'function') throw new Seq2SeqError('this environment has no Web Workers', 'WorkerError');
  return { worker: script === undefined ? new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' }) : new Worker(script, { type: 'module' }), owned: true };
}

function rebuildError(data) {
  const e = new Seq2SeqError(data?.message ?? 'the trainer worker failed', data?.kind ?? 'Error');
  for (const k of ['option', 'range', 'step']) if (data?.[k] !== undefined) e[k] = data[k];
  return e;
}

export class TrainerWorker {
  #ready;                 // the worker, once it has answered the handshake
  #spawned;
  #pending = new Map();    // id -> {resolve, reject, onProgress}
  #nextId = 1;
  #failure = null;
  #wasmUrl;

  constructor(t) {
    const { script, wasmUrl, startTimeout } = target(t);
    this.#wasmUrl = wasmUrl;
    this.#spawned = spawn(script);
    this.#ready = this.#spawned.then(({ worker }) => {
      const onMessage = (m) => this.#receive(m);
      const onError = (e) => this.#fail(e);
      if (typeof worker.on === 'function') {
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', (code) => this.#fail(new Seq2SeqError(`the trainer worker exited (code ${code})`, 'WorkerError')));
      } else {
        worker.addEventListener('message', (e) => onMessage(e.data));
        worker.addEventListener('error', (e) => { e.preventDefault?.(); onError(e.error ?? new Error(e.message ?? 'the worker failed to start')); });
        worker.start?.();
      }
      return this.#handshake(worker, startTimeout);
    });
    this.#ready.catch((e) => this.#fail(e));
  }

  #handshake(worker, timeoutMs) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Seq2SeqError(`the trainer worker did not answer within ${timeoutMs} ms of starting; createTrainerWorker({ startTimeout }) allows more time`, 'WorkerError'));
      }, timeoutMs);
      const settle = (done) => () => { clearTimeout(timer); done(worker); };
      this.#pending.set(id, { resolve: settle(resolve), reject: settle(resolve), handshake: true });
      worker.postMessage({ id, type: 'hello' });
    });
  }

  #receive(message) {
    const entry = message && this.#pending.get(message.id);
    if (!entry) return;
    if ('progress' in message) {
      try {
        entry.onProgress?.(message.progress);
      } catch (e) {
        // A progress callback that throws fails its request with that exception and pauses the run.
        this.#pending.delete(message.id);
        entry.reject(e);
        this.#request({ type: 'pause' }).catch(() => {});
      }
      return;
    }
    this.#pending.delete(message.id);
    if (message.ok || entry.handshake) entry.resolve(message.value); else entry.reject(rebuildError(message.error));
    this.#hold();
  }

  // Node: a worker with nothing in flight does not keep the process alive.
  #hold() {
    this.#ready.then((w) => { if (typeof w.unref === 'function') { if (this.#pending.size === 0) w.unref(); else w.ref(); } }, () => {});
  }

  #fail(e) {
    const error = e instanceof Seq2SeqError ? e : Object.assign(new Seq2SeqError(`trainer worker: ${e?.message ?? String(e)}`, 'WorkerError'), { cause: e });
    this.#failure ??= error;
    for (const entry of this.#pending.values()) entry.reject(error);
    this.#pending.clear();
  }

  async #request(message, onProgress) {
    if (this.#failure) throw this.#failure;
    const worker = await this.#ready;
    if (this.#failure) throw this.#failure;
    const id = this.#nextId++;
    const reply = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onProgress }));
    this.#hold();
    worker.postMessage({ ...message, id });
    return reply;
  }

  /** createTrainer(config) in the worker (the trainer it had is disposed); resolves to its info. */
  create(config) {
    try {
      checkTrainingConfig(config);   // names and types, here: the same UsageError as on the main thread
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#request({ type: 'create', config, wasmUrl: this.#wasmUrl ?? null });
  }

  /**
   * Trains to the end, a record every `every` steps (default logEvery) to onProgress (with
   * record.probe if asked: true or a held-out example's index). Resolves to {status:
   * 'done' | 'paused', record}: pause() ends it at its next record; cancel() makes it
   * reject with kind 'Cancelled'.
   */
  train({ onProgress, probe, every } = {}) {
    if (onProgress !== undefined && typeof onProgress !== 'function') return Promise.reject(usageError(`train({ onProgress }): onProgress must be a function; got ${describe(onProgress)}`));
    return this.#request({ type: 'train', probe, every }, onProgress);
  }

  /** Goes on with a paused run: train() again. */
  resume(options) { return this.train(options); }

  /** Ends a train() in progress at its next record, with status 'paused'; resolves to whether one was running. */
  async pause() { return (await this.#request({ type: 'pause' })).paused; }

  /** Stops a train() in progress (it rejects with kind 'Cancelled') and disposes the trainer; resolves to whether one was running. */
  async cancel() { return (await this.#request({ type: 'cancel' })).cancelled; }

  step(n, { probe } = {}) { return this.#request({ type: 'step', n, probe }); }
  probe(index = 0) { return this.#request({ type: 'probe', index }); }
  info() { return this.#request({ type: 'info' }); }
  evaluate() { return this.#request({ type: 'evaluate' }); }
  heldOut() { return this.#request({ type: 'heldOut' }); }
  export({ int8 = false } = {}) { return this.#request({ type: 'export', int8 }); }
  checkpoint() { return this.#request({ type: 'checkpoint' }); }
  dispose() { return this.#request({ type: 'dispose' }); }

  /** Stops the worker; requests still pending reject. */
  async terminate() {
    if (!this.#failure) this.#fail(new Seq2SeqError('the trainer worker was terminated', 'Cancelled'));
    const spawned = await this.#spawned.catch(() => null);
    if (spawned?.owned) await spawned.worker.terminate?.();
  }
}

/**
 * A trainer in a worker. `target`: nothing (this package's trainer worker script), the
 * URL of the script (seq2seq-wasm/train-worker-script), a Worker you made, or
 * { workerUrl, wasmUrl, startTimeout }.
 */
export function createTrainerWorker(t) {
  return new TrainerWorker(t);
}
