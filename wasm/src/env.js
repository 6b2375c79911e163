// Where the engine's WebAssembly comes from, in a module of its own: index.js
// (which loads the engine) and worker-client.js (which must not load it, only
// pass the setting on to its worker) share this one object.
//
//   import { env } from 'seq2seq-wasm';
//   env.wasmUrl = '/assets/seq2seq_core.wasm';   // before the first loadModel()
//
// Unset (undefined), the engine loads the seq2seq_core.wasm next to the
// package's own modules: new URL('../dist/seq2seq_core.wasm', import.meta.url),
// which Vite, webpack 5 and Parcel follow and emit. esbuild, Rollup and a copied module
// do not: there the page points env.wasmUrl at the file it serves.
import { describe, usageError } from './errors.js';

/**
 * Running in Node: a path is a file to read and a worker is a worker_threads
 * Worker. Not where a `window` exists, though a bundler or a test may give a
 * page a `process` (a page fetches, and starts Web Workers).
 */
export const isNode = typeof process === 'object' && typeof process.versions === 'object' && !!process.versions.node
  && typeof window === 'undefined';

/** The .wasm next to this module: the default. */
const defaultWasmUrl = () => new URL('../dist/seq2seq_core.wasm', import.meta.url);

let wasmUrl;        // as set: undefined, a string or a URL
let engineUrl = null;   // the href the engine loaded (or is loading) from; fixed once in use

/** A wasm URL as an absolute href: a relative one is resolved against the page (or, in a worker, its script). */
export function resolveWasmUrl(url) {
  if (url instanceof URL) return url.href;
  const base = typeof document === 'object' && document?.baseURI ? document.baseURI
    : typeof location === 'object' && location?.href ? location.href : undefined;
  try {
    return new URL(url, base).href;
  } catch {
    return url;   // a Node path: core.js reads it as one
  }
}

export function checkWasmUrl(url, what) {
  if (url === undefined || typeof url === 'string' || url instanceof URL) return;
  throw usageError(`${what} must be a string or a URL; got ${describe(url)}`);
}

export const env = {
  /**
   * The URL (or, in Node, path) of seq2seq_core.wasm; undefined for the file
   * next to the package's modules. Set it before the engine loads: once it has
   * loaded from one URL, setting another is a UsageError.
   */
  get wasmUrl() { return wasmUrl; },
  set wasmUrl(url) {
    checkWasmUrl(url, 'env.wasmUrl');
    if (engineUrl !== null) {
      const next = url === undefined ? defaultWasmUrl().href : resolveWasmUrl(url);
      if (next !== engineUrl) {
        throw usageError(`env.wasmUrl: the engine has already loaded from ${engineUrl}; set env.wasmUrl before the first loadModel() (a worker takes its own: createDecoderWorker({ wasmUrl }))`);
      }
    }
    wasmUrl = url;
  },
};
Object.seal(env);

/** core.js: the href to load the engine from, fixed from now on (until released). */
export function takeWasmUrl() {
  engineUrl = wasmUrl === undefined ? defaultWasmUrl().href : resolveWasmUrl(wasmUrl);
  return engineUrl;
}

/** core.js: the engine failed to load; another URL may be tried. */
export function releaseWasmUrl() {
  engineUrl = null;
}
