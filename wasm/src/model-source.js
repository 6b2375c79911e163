// Model bytes from wherever they are: a URL (fetched, with progress, through
// the browser's Cache API if asked), a path (Node), a Response, a Blob or the
// bytes themselves; checked against a SHA-256 if one is given. Also the load
// options' checks. No Emscripten in here: the worker client uses it on the
// page's thread, where the engine is never loaded.
import { Seq2SeqError, describe, named, usageError } from './errors.js';
import { isNode } from './env.js';
import { LIMITS } from './limits.js';

export { isNode };   // core.js takes it from here

// Node-only modules, by a name bundlers do not follow (browsers never take these paths).
export const nodeImport = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);

const DEFAULT_CACHE_NAME = 'seq2seq-wasm-models';
const LOAD_OPTIONS = ['compute', 'onProgress', 'cache', 'sha256', 'signal', 'stallTimeout'];

// How long a download may go without a byte (the answer's headers, then each chunk of
// its body) before it is given up as stalled: a server that sends a Content-Length and
// then nothing would otherwise keep the load pending for ever.
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;   // setTimeout's largest delay
const COMPUTES = ['auto', 'f32'];

const HINT_URL = 'check the URL; from an installed package, resolve the model file with import.meta.resolve() (Node) '
  + "or your bundler's ?url import (Vite: import url from 'seq2seq-wasm-models/g2p-transformer.safetensors?url')";

/**
 * Load options, checked: { compute: 'auto' | 'f32', onProgress: function | undefined,
 * cache: false | a cache name, sha256: lowercase hex | undefined, signal: an AbortSignal |
 * undefined, stallTimeout: milliseconds }. `call` names the function in messages (loadModel, load).
 */
export function loadOptions(options, call = 'loadModel') {
  if (options === undefined) {
    return { compute: 'auto', onProgress: undefined, cache: false, sha256: undefined, signal: undefined, stallTimeout: DEFAULT_STALL_TIMEOUT_MS };
  }
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw usageError(`${call}(source, options): options must be an object; got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!LOAD_OPTIONS.includes(key)) throw usageError(`${call}: unknown option ${named(key)} (known: ${LOAD_OPTIONS.join(', ')})`);
  }
  const { compute = 'auto', onProgress, cache = false, sha256, signal, stallTimeout = DEFAULT_STALL_TIMEOUT_MS } = options;
  if (!COMPUTES.includes(compute)) {
    throw usageError(`${call}: compute must be 'auto' or 'f32'; got ${typeof compute === 'string' ? named(compute) : describe(compute)}`);
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw usageError(`${call}: onProgress must be a function; got ${describe(onProgress)}`);
  }
  if (!(typeof cache === 'boolean' || (typeof cache === 'string' && cache !== ''))) {
    throw usageError(`${call}: cache must be true, false or a cache name (a non-empty string); got ${describe(cache)}`);
  }
  if (sha256 !== undefined && !(typeof sha256 === 'string' && /^[0-9a-f]{64}$/i.test(sha256))) {
    throw usageError(`${call}: sha256 must be the file's SHA-256 as 64 hexadecimal digits; got ${describe(sha256)}`);
  }
  // Any object an AbortController gives (the global class may be another realm's, or absent).
  if (signal !== undefined && !(signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean'
    && typeof signal.addEventListener === 'function' && typeof signal.removeEventListener === 'function')) {
    throw usageError(`${call}: signal must be an AbortSignal (an AbortController's signal); got ${describe(signal)}`);
  }
  if (!(typeof stallTimeout === 'number' && stallTimeout > 0 && stallTimeout <= MAX_TIMEOUT_MS)) {
    throw usageError(`${call}: stallTimeout must be a number of milliseconds in (0, ${MAX_TIMEOUT_MS}]; got ${describe(stallTimeout)}`);
  }
  return { compute, onProgress, cache: cache === true ? DEFAULT_CACHE_NAME : cache, sha256: sha256?.toLowerCase(), signal, stallTimeout };
}

/** The error of a load given up by its signal. */
export function loadCancelled(signal) {
  const why = signal?.reason instanceof Error && signal.reason.name !== 'AbortError' ? `: ${signal.reason.message}` : '';
  return new Seq2SeqError(`the load was cancelled (its signal was aborted)${why}`, 'Cancelled');
}

// Watches one read of a model (a download, a body, a file): it is stopped when the
// signal aborts (the signal's Cancelled error) or when no byte has come for stallMs (a
// NetworkError; `arm(loaded)` restarts that clock; undefined: no clock). Stopping runs
// what onStop(f) was given (abort the fetch, cancel the reader: the awaited call then
// ends) and sets `error`, which the reader throws in place of what that call gave:
// check() throws it if set. race(p) is p, or the error if that comes first, for a read
// nothing can cancel (a Blob's). end() lets go of the signal and the clock.
function watchdog(signal, stallMs, what) {
  let timer;
  let fail;
  const stopping = new Promise((_, reject) => { fail = reject; });
  stopping.catch(() => {});
  const stops = [];
  let loaded = 0;
  const watch = {
    error: null,
    race: (p) => Promise.race([p, stopping]),
    arm(bytes = loaded) {
      loaded = bytes;
      if (stallMs === undefined || watch.error) return;
      clearTimeout(timer);
      timer = setTimeout(() => stop(stalled()), stallMs);
    },
    onStop: (f) => { stops.push(f); },
    check() {
      if (watch.error) throw watch.error;
    },
    end() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
  const stop = (error) => {
    if (watch.error) return;
    watch.error = error;
    watch.end();
    fail(error);
    for (const f of stops) {
      try { f(); } catch { /* a reader already closed */ }
    }
  };
  const onAbort = () => stop(loadCancelled(signal));
  const stalled = () => new Seq2SeqError(`the download of the model from ${what} stalled: no data for ${stallMs} ms after ${loaded} bytes; `
    + 'try again (loadModel(source, { stallTimeout }) allows a slower server more time)', 'NetworkError');
  if (signal?.aborted) onAbort(); else signal?.addEventListener('abort', onAbort);
  watch.arm(0);
  return watch;
}

const isResponse = (x) => typeof Response === 'function' && x instanceof Response;
const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;

function bytesOf(source) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return null;
}

function badSource(source) {
  return usageError(`a model source must be a URL, a path (Node), a Response, a Blob, an ArrayBuffer or a typed array; got ${describe(source)}`);
}

// A URL or path in a message: a data: URL can be megabytes long.
const shown = (where) => (where.length <= 200 ? where : `${where.slice(0, 200)}… (${where.length} characters)`);
// A system error's message, which quotes the path again.
const why = (e) => (String(e?.message).length <= 300 ? String(e?.message) : e.code ?? `${String(e.message).slice(0, 300)}…`);

// Refused by size: the engine's limit (LIMITS.maxModelBytes), the C++ loader's
// words. readModel()'s maxBytes is that limit; a test may pass a smaller one.
const tooLarge = (what, size, maxBytes, how = '') => new Seq2SeqError(`model file: ${what} has ${size} bytes${how}, more than the largest model accepted (${maxBytes} bytes)`, 'ModelError');

/** A string source as a URL (relative ones against the page), or null for a Node path. */
function urlOf(source) {
  if (source instanceof URL) return source;
  try {
    return new URL(source);
  } catch {
    if (!isNode && typeof location !== 'undefined') return new URL(source, location.href);
    return null;
  }
}

/**
 * The model's bytes. Resolves to { bytes, fromCache, keep(), drop() }: keep()
 * stores a download in the cache (called once the bytes made a model, so that
 * a bad file is never cached), drop() deletes a cache entry that did not.
 * onProgress({loaded, total}) sees the download; its last call has loaded === total.
 */
export async function readModel(source, { onProgress, cache = false, sha256, signal, stallTimeout = DEFAULT_STALL_TIMEOUT_MS } = {},
  { skipCache = false, maxBytes = LIMITS.maxModelBytes } = {}) {
  if (signal?.aborted) throw loadCancelled(signal);
  const report = progressReporter(onProgress);
  // A local read (a Blob, a file) has no clock: it stalls on nothing a server does.
  const local = (read) => {
    const watch = watchdog(signal, undefined, '');
    return watch.race(read()).finally(() => watch.end());
  };
  const done = async (bytes, what, extra = {}) => {
    report.end(bytes.length);
    if (sha256) await checkSha256(bytes, sha256, what);
    return { bytes, fromCache: false, keep: async () => {}, drop: async () => {}, ...extra };
  };
  const direct = bytesOf(source);
  if (direct) return done(direct, 'bytes');
  if (isBlob(source)) {
    if (source.size > maxBytes) throw tooLarge('the Blob', source.size, maxBytes);
    return done(new Uint8Array(await local(() => source.arrayBuffer())), 'Blob');
  }
  if (isResponse(source)) {
    const what = shown(source.url || 'a Response');
    const watch = watchdog(signal, stallTimeout, what);
    try {
      return done(await readResponse(source, what, report, maxBytes, watch), source.url || 'Response');
    } finally {
      watch.end();
    }
  }
  if (typeof source !== 'string' && !(source instanceof URL)) throw badSource(source);

  const url = urlOf(source);
  if (isNode && (!url || url.protocol === 'file:')) return done(await local(() => readModelFile(url ?? source, maxBytes)), String(source));
  if (!url) throw usageError(`cannot resolve the model URL ${named(source)}: there is no page to resolve it against; pass an absolute URL`);
  const href = url.href;
  const store = cache && url.protocol.startsWith('http') ? await openCache(cache) : null;
  if (store && !skipCache) {
    const hit = await cached(store, href, sha256);
    if (hit) {
      report.end(hit.length);
      return { bytes: hit, fromCache: true, keep: async () => {}, drop: () => store.delete(href).catch(() => {}) };
    }
  }
  const bytes = await download(href, report, maxBytes, signal, stallTimeout);
  return done(bytes, href, {
    keep: store ? () => store.put(href, new Response(bytes, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) } })).catch(() => {}) : async () => {},
  });
}

/**
 * `use(bytes)` on a read of the model (readModel's, `read`), keeping a download in the
 * cache once it made a model. A cached copy that is no model (damaged in the cache:
 * `use` throws a ModelError) is dropped, and the model read again past the cache.
 * Resolves to what `use` gave.
 */
export async function useModelBytes(read, source, reading, use) {
  let made;
  try {
    made = await use(read.bytes);
  } catch (e) {
    if (!read.fromCache || e?.kind !== 'ModelError') throw e;
    await read.drop();
    const fresh = await readModel(source, reading, { skipCache: true });
    made = await use(fresh.bytes);
    await fresh.keep();
    return made;
  }
  await read.keep();
  return made;
}

// onProgress with the promise kept: the last call says loaded === total.
function progressReporter(onProgress) {
  let last = null;
  return {
    step(loaded, total) {
      if (!onProgress) return;
      last = { loaded, total };
      onProgress({ loaded, total });
    },
    end(size) {
      if (!onProgress || (last && last.loaded === size && last.total === size)) return;
      onProgress({ loaded: size, total: size });
    },
  };
}

async function openCache(name) {
  // No Cache API in Node, on insecure origins, or in some private modes: the option then does nothing.
  if (typeof caches !== 'object' || caches === null) return null;
  try {
    return await caches.open(name);
  } catch {
    return null;
  }
}

// A cache entry's bytes, or null: a missing entry, one that cannot be read and
// one whose SHA-256 is not the expected one (deleted, so that the download replaces it).
async function cached(store, href, sha256) {
  let bytes;
  try {
    const hit = await store.match(href);
    if (!hit) return null;
    bytes = new Uint8Array(await hit.arrayBuffer());
    if (!sha256 || (await sha256Hex(bytes)) === sha256) return bytes;
  } catch (e) {
    if (e instanceof Seq2SeqError) throw e;
  }
  await store.delete(href).catch(() => {});
  return null;
}

function reason(e) {
  const cause = e?.cause?.message ?? e?.cause?.code;
  return `${e?.message ?? String(e)}${cause ? ` (${cause})` : ''}`;
}

async function download(href, report, maxBytes, signal, stallTimeout) {
  const watch = watchdog(signal, stallTimeout, shown(href));
  // The request is aborted when the load is given up: the connection closes.
  const controller = typeof AbortController === 'function' ? new AbortController() : null;
  watch.onStop(() => controller?.abort());
  try {
    let response;
    try {
      response = await fetch(href, controller ? { signal: controller.signal } : undefined);
    } catch (e) {
      watch.check();   // aborted by the watch: its error, not the AbortError
      throw Object.assign(new Seq2SeqError(`cannot fetch the model from ${shown(href)}: ${reason(e)}; check the URL: the server may be down `
        + 'or unreachable, or (from another origin) not send CORS headers', 'NetworkError'), { cause: e });
    }
    watch.check();
    return await readResponse(response, shown(href), report, maxBytes, watch);
  } finally {
    watch.end();
  }
}

// The body is read into a buffer that grows as bytes arrive (doubling, so that
// the copies add up to less than the model), up to the Content-Length when one
// is sent: an honest one gives a buffer of exactly its size, a lying one no
// more memory than the bytes that came. Past `maxBytes` the download stops,
// whatever the Content-Length said; a Content-Length over it is refused before
// a byte is read.
const FIRST_BUFFER = 64 * 1024;
const LARGEST_FIRST_BUFFER = 16 * 1024 * 1024;

async function readResponse(response, what, report, maxBytes, watch) {
  if (!response.ok) {
    const status = `HTTP ${response.status}${response.statusText ? ` ${shown(response.statusText)}` : ''}`;
    throw new Seq2SeqError(`cannot load the model from ${what}: ${status}; ${HINT_URL}`, 'NetworkError');
  }
  if (response.bodyUsed) throw usageError(`the Response for ${what} has already been read: pass a fresh one (or response.clone())`);
  // Content-Length counts the bytes sent: with a Content-Encoding that is not what the body yields.
  const encoding = response.headers.get('content-encoding');
  const declared = response.headers.get('content-length') ?? '';
  const length = /^\d+$/.test(declared.trim()) ? Number(declared.trim()) : NaN;
  const total = Number.isSafeInteger(length) && (!encoding || encoding === 'identity') ? length : undefined;
  if (total !== undefined && total > maxBytes) {
    response.body?.cancel().catch(() => {});
    throw tooLarge(what, total, maxBytes, ' by its Content-Length');
  }
  if (!response.body) return new Uint8Array(0);   // a Response made without a body (new Response(null)) has none
  const reader = response.body.getReader();
  watch.onStop(() => reader.cancel().catch(() => {}));
  let buffer = new Uint8Array(Math.min(total ?? FIRST_BUFFER, LARGEST_FIRST_BUFFER));
  let loaded = 0;
  const stop = (error) => {
    reader.cancel().catch(() => {});
    return error;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      watch.check();   // stopped: the reader was cancelled, which ended this read
      if (done) break;
      // A stream made by hand can give anything; Uint8Array.set would read a string as zeros.
      if (!ArrayBuffer.isView(value)) {
        throw stop(new Seq2SeqError(`model file: the body of ${what} gave ${describe(value)} after ${loaded} bytes, where a body gives bytes `
          + '(a ReadableStream of a Response must give Uint8Array chunks)', 'ModelError'));
      }
      const chunk = value instanceof Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      const needed = loaded + chunk.length;
      if (needed > maxBytes) {
        throw stop(new Seq2SeqError(`model file: ${what} sent more than the largest model accepted (${maxBytes} bytes): `
          + `the download was stopped after ${loaded} bytes`, 'ModelError'));
      }
      if (needed > buffer.length) {
        let size = Math.max(needed, 2 * buffer.length);
        if (total !== undefined && needed <= total) size = Math.min(size, total);
        const grown = new Uint8Array(Math.min(size, maxBytes));
        grown.set(buffer.subarray(0, loaded));
        buffer = grown;
      }
      buffer.set(chunk, loaded);
      loaded = needed;
      watch.arm(loaded);
      report.step(loaded, total !== undefined && loaded <= total ? total : undefined);
    }
    return loaded === buffer.length ? buffer : buffer.slice(0, loaded);
  } catch (e) {
    watch.check();
    if (e instanceof Seq2SeqError) throw e;
    throw Object.assign(new Seq2SeqError(`the download of the model from ${what} broke off after ${loaded} bytes: ${reason(e)}; try again`, 'NetworkError'), { cause: e });
  }
}

async function sha256Hex(bytes) {
  const subtle = globalThis.crypto?.subtle ?? (isNode ? (await nodeImport('node:crypto')).webcrypto.subtle : undefined);
  if (!subtle) {
    throw usageError('sha256: this page has no crypto.subtle (browsers give it to secure contexts only: https, localhost); '
      + 'serve the page over https, or leave sha256 out');
  }
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function checkSha256(bytes, expected, what) {
  const actual = await sha256Hex(bytes);
  if (actual !== expected) {
    throw new Seq2SeqError(`model from ${what}: sha256 mismatch: expected ${expected}, got ${actual} (${bytes.length} bytes); `
      + 'the file is not the one expected (another version, or damaged on the way)', 'ModelError');
  }
}

// A model file by path (Node), with the native loader's messages: only a regular
// file is read, so that a directory is a ModelError rather than Node's EISDIR, and
// a device or pipe (/dev/zero) is refused rather than read until memory runs out.
// The error keeps Node's code (ENOENT, EISDIR) for callers that test it.
async function readModelFile(path, maxBytes) {
  const { readFile, stat } = await nodeImport('node:fs/promises');
  const name = shown(path instanceof URL ? decodeURIComponent(path.pathname) : path);
  const fail = (message, code) => Object.assign(new Seq2SeqError(`model file: ${message}`, 'ModelError'), code ? { code } : {});
  let stats;
  try {
    stats = await stat(path);
  } catch (e) {
    throw fail(`cannot open '${name}': ${why(e)}`, e.code);
  }
  if (stats.isDirectory()) throw fail(`'${name}' is a directory, not a model file`, 'EISDIR');
  if (!stats.isFile()) throw fail(`'${name}' is not a regular file (a device, a pipe or a socket)`);
  if (stats.size > maxBytes) throw tooLarge(`'${name}'`, stats.size, maxBytes);
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    throw fail(`cannot read '${name}': ${why(e)}`, e.code);
  }
}
