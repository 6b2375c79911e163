// Loads the Emscripten module once per JS realm (page, worker or Node process).
//
// The module is built for web and workers (ES6, -sENVIRONMENT=web,worker).
// Node gets the same file: Emscripten 3.1.6 would fetch() the wasm by file path
// there, which Node's fetch refuses, so on Node we read the bytes ourselves and
// hand them over as `wasmBinary`. Bundlers see the `new URL(..., import.meta.url)`
// below and ship the .wasm as an asset.
import createSeq2SeqCore from '../dist/seq2seq_core.mjs';

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
    if (isNode && (!url || url.protocol === 'file:')) {
      const { readFile } = await nodeImport('node:fs/promises');
      return new Uint8Array(await readFile(url ?? source));
    }
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

async function readResponse(response, what) {
  if (!response.ok) throw new Error(`cannot load model from ${what}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}
