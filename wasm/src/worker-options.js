// The worker client's argument checks, shared by one worker (worker-client.js)
// and the pool (pool.js): where a worker comes from, and decodeBatch's arguments.
import { Seq2SeqError, describe, named, usageError } from './errors.js';
import { checkWasmUrl, resolveWasmUrl } from './env.js';
import { checkTexts } from './batch.js';
import { normalizeOptions } from './options.js';

// How long a new worker has to answer the start-up handshake: its script and
// imports loaded (the engine's wasm comes later, with the first load).
const DEFAULT_START_TIMEOUT_MS = 30_000;
export const WORKER_OPTIONS = ['workerUrl', 'wasmUrl', 'startTimeout'];

// createDecoderWorker(target): nothing, the worker script's URL (or Node path),
// a worker, or { workerUrl, wasmUrl, startTimeout }.
export function workerTarget(target, call = 'createDecoderWorker') {
  const plain = { wasmUrl: undefined, startTimeout: DEFAULT_START_TIMEOUT_MS };
  if (target === undefined || typeof target === 'string' || target instanceof URL) return { ...plain, script: target };
  if (target !== null && typeof target === 'object' && typeof target.postMessage === 'function') return { ...plain, script: target };
  if (target === null || typeof target !== 'object' || Array.isArray(target)) {
    throw usageError(`createDecoderWorker(target): target must be the worker script's URL, a Worker, or { ${WORKER_OPTIONS.join(', ')} }; got ${describe(target)}`);
  }
  for (const key of Object.keys(target)) {
    if (!WORKER_OPTIONS.includes(key)) throw usageError(`${call}: unknown option ${named(key)} (known: ${WORKER_OPTIONS.join(', ')})`);
  }
  const { workerUrl, wasmUrl, startTimeout = DEFAULT_START_TIMEOUT_MS } = target;
  if (!(workerUrl === undefined || typeof workerUrl === 'string' || workerUrl instanceof URL)) {
    throw usageError(`${call}: workerUrl must be a string or a URL; got ${describe(workerUrl)}`);
  }
  if (!(typeof startTimeout === 'number' && startTimeout > 0 && startTimeout <= 2 ** 31 - 1)) {
    throw usageError(`${call}: startTimeout must be a number of milliseconds in (0, 2147483647]; got ${describe(startTimeout)}`);
  }
  checkWasmUrl(wasmUrl, `${call}: wasmUrl`);
  return { script: workerUrl, wasmUrl: wasmUrl === undefined ? undefined : resolveWasmUrl(wasmUrl), startTimeout };
}

// Decoding options checked here as the worker will check them (names and types;
// the ranges are the engine's), so that a mistake is the same UsageError as in
// the page's thread, before anything is posted; the options are sent as given.
export function checkedOptions(options) {
  normalizeOptions(options, true);
  return options;
}

export const BATCH_OPTIONS = ['onProgress', 'sliceMs', 'signal'];

/** The error of a batch decode that was cancelled (the worker's own words). */
export function batchCancelled() {
  return new Seq2SeqError('the batch decode was cancelled', 'Cancelled');
}

/**
 * decodeBatch(texts, options, {onProgress, sliceMs, signal, ...}) checked as the worker and the
 * pool take it: `known` names the third argument's options. Returns the third argument's values.
 */
export function batchArguments(texts, options, progressOptions, known) {
  checkTexts(texts, 'decodeBatch(texts, options, {onProgress})');
  if (progressOptions === null || typeof progressOptions !== 'object' || Array.isArray(progressOptions)) {
    throw usageError(`decodeBatch(texts, options, {onProgress}): the third argument must be an object; got ${describe(progressOptions)}`);
  }
  for (const key of Object.keys(progressOptions)) {
    if (!known.includes(key)) throw usageError(`decodeBatch: unknown option ${named(key)} (known: ${known.join(', ')})`);
  }
  const { onProgress, signal } = progressOptions;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw usageError(`decodeBatch: onProgress must be a function; got ${describe(onProgress)}`);
  }
  if (signal !== undefined && !(signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean'
    && typeof signal.addEventListener === 'function' && typeof signal.removeEventListener === 'function')) {
    throw usageError(`decodeBatch: signal must be an AbortSignal (an AbortController's signal); got ${describe(signal)}`);
  }
  checkedOptions(options);
  return progressOptions;
}

