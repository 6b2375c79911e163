// Loads the Emscripten module once per JS realm (page, worker or Node process).
//
// The module is built for web and workers (ES6, -sENVIRONMENT=web,worker).
// Node gets the same file: Emscripten 3.1.6 would fetch() the wasm by file path
// there, which Node's fetch refuses, so on Node we read the bytes ourselves and
// hand them over as `wasmBinary`. Bundlers see the `new URL(..., import.meta.url)`
// below and ship the .wasm as an asset.
import createSeq2SeqCore from '../dist/seq2seq_core.mjs';
import { Seq2SeqError } from './errors.js';

export const isNode = typeof process === 'object' && typeof process.versions === 'object' && !!process.versions.node;

const wasmUrl = new URL('../dist/seq2seq_core.wasm', import.meta.url);
let corePromise = null;

// Node-only modules, by a name bundlers do not follow (browsers never take these paths).
const nodeImport = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);

export function loadCore() {
  if (!corePromise) {
    corePromise = (async () => {
      if (isNode) {
        const { readFile } = await nodeImport('node:fs/promises');
        return createSeq2SeqCore({ wasmBinary: await readFile(wasmUrl) });
      }
      return createSeq2SeqCore({ locateFile: () => wasmUrl.href });
    })();
    corePromise.catch(() => { corePromise = null; });  // a failed load may be retried
  }
  return corePromise;
}

// Model bytes from a URL (string or URL), a path (Node), a Response, an
// ArrayBuffer or a typed array.
export async function readBytes(source) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (typeof Response !== 'undefined' && source instanceof Response) return readResponse(source, source.url);
  if (typeof source === 'string' || source instanceof URL) {
    const url = source instanceof URL ? source : tryUrl(source);
    if (isNode && (!url || url.protocol === 'file:')) return readModelFile(url ?? source);
    const response = await fetch(source);
    return readResponse(response, String(source));
  }
  throw new TypeError('a model source must be a URL, a path, a Response, an ArrayBuffer or a Uint8Array');
}

function tryUrl(s) {
  try {
    return new URL(s);
  } catch {
    if (!isNode && typeof location !== 'undefined') return new URL(s, location.href);
    return null;
  }
}

// A model file by path (Node), with the native loader's messages: only a regular
// file is read, so that a directory is a ModelError rather than Node's EISDIR, and
// a device or pipe (/dev/zero) is refused rather than read until memory runs out.
// The error keeps Node's code (ENOENT, EISDIR) for callers that test it.
async function readModelFile(path) {
  const { readFile, stat } = await nodeImport('node:fs/promises');
  const name = path instanceof URL ? decodeURIComponent(path.pathname) : path;
  const fail = (message, code) => Object.assign(new Seq2SeqError(`model file: ${message}`, 'ModelError'), code ? { code } : {});
  let stats;
  try {
    stats = await stat(path);
  } catch (e) {
    throw fail(`cannot open '${name}': ${e.message}`, e.code);
  }
  if (stats.isDirectory()) throw fail(`'${name}' is a directory, not a model file`, 'EISDIR');
  if (!stats.isFile()) throw fail(`'${name}' is not a regular file (a device, a pipe or a socket)`);
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    throw fail(`cannot read '${name}': ${e.message}`, e.code);
  }
}

async function readResponse(response, what) {
  // As the worker client says it (worker-client.js).
  if (!response.ok) throw new Seq2SeqError(`cannot load model from ${what}: HTTP ${response.status}`, 'ModelError');
  return new Uint8Array(await response.arrayBuffer());
}
