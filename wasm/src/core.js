// Loads the Emscripten module once per JS realm (page, worker or Node process).
//
// The WebAssembly is fetched and compiled here, through the glue's
// instantiateWasm hook, rather than by the glue itself: Emscripten 3.1.6 prints
// its failures to the console and rejects with "Aborted(both async and sync
// fetching of the wasm failed)", naming neither the URL nor the cause; here a
// failure is a Seq2SeqError of kind 'WasmError' that says both, and a later
// load may try again (after env.wasmUrl is fixed). The URL is env.wasmUrl's
// (env.js): by default the .wasm next to this package's modules. In Node a
// path or file: URL is read from disk (Node's fetch refuses file: URLs).
import createSeq2SeqCore from '../dist/seq2seq_core.mjs';
import { Seq2SeqError } from './errors.js';
import { releaseWasmUrl, takeWasmUrl } from './env.js';
import { isNode, nodeImport } from './model-source.js';

export { isNode };

let corePromise = null;

export function loadCore() {
  if (!corePromise) {
    corePromise = startCore(takeWasmUrl());
    corePromise.catch(() => {
      corePromise = null;   // a failed load may be retried, from another env.wasmUrl too
      releaseWasmUrl();
    });
  }
  return corePromise;
}

const startCore = (url) => startModule(createSeq2SeqCore, url);

// Also the trainer's module (train-core.js); `hint` ends a failure's message.
export async function startModule(factory, url, hint = CORE_HINT) {
  let failed;
  const failure = new Promise((_, reject) => { failed = reject; });
  let ready;
  try {
    ready = factory({
      instantiateWasm(imports, receiveInstance) {
        instantiate(url, imports, hint).then(({ instance, module }) => receiveInstance(instance, module)).catch(failed);
        return {};   // exports arrive through receiveInstance
      },
    });
  } catch (e) {
    failed(e);
  }
  // The glue's own promise stays pending when instantiate() fails: the race ends at ours.
  try {
    return await Promise.race([ready, failure].filter(Boolean));
  } catch (e) {
    if (e instanceof Seq2SeqError) throw e;
    throw wasmError(url, `the engine did not start: ${e?.message ?? String(e)}`, e, hint);
  }
}

const CORE_HINT = "Set env.wasmUrl (import { env } from 'seq2seq-wasm') to where seq2seq_core.wasm is served before the first loadModel() "
  + '(a bundler that does not copy the file, such as esbuild or Rollup, needs this: copy node_modules/seq2seq-wasm/wasm/dist/seq2seq_core.wasm '
  + 'to your assets), or pass createDecoderWorker({ wasmUrl })';

function wasmError(url, problem, cause, hint) {
  return Object.assign(new Seq2SeqError(`cannot load the engine's WebAssembly from ${url}: ${problem}. ${hint}`, 'WasmError'), cause ? { cause } : {});
}

const isFileUrl = (url) => /^file:/i.test(url);
const isPath = (url) => !/^[a-z][a-z0-9+.-]*:/i.test(url);

async function instantiate(url, imports, hint) {
  let bytes = null;
  let response = null;
  if (isNode && (isFileUrl(url) || isPath(url))) {
    const { readFile } = await nodeImport('node:fs/promises');
    try {
      bytes = await readFile(isFileUrl(url) ? new URL(url) : url);
    } catch (e) {
      throw wasmError(url, e.message, e, hint);
    }
  } else {
    try {
      response = await fetch(url, { credentials: 'same-origin' });
    } catch (e) {
      const cause = e?.cause?.message ?? e?.cause?.code;
      throw wasmError(url, `${e?.message ?? String(e)}${cause ? ` (${cause})` : ''}`, e, hint);
    }
    if (!response.ok) throw wasmError(url, `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, undefined, hint);
  }
  const type = response?.headers.get('content-type') ?? '';
  try {
    // Streaming compiles while the bytes arrive; it needs the application/wasm type.
    if (response && typeof WebAssembly.instantiateStreaming === 'function' && /^application\/wasm\b/i.test(type)) {
      return await WebAssembly.instantiateStreaming(response, imports);
    }
    bytes ??= await response.arrayBuffer();
    return await WebAssembly.instantiate(bytes, imports);
  } catch (e) {
    if (e instanceof WebAssembly.CompileError) {
      const html = /html/i.test(type) ? ` (the server sent ${type.split(';')[0]}: a page, not the file, as servers and dev servers answer for a file they do not have)` : '';
      throw wasmError(url, `not WebAssembly${html}: ${e.message}`, e, hint);
    }
    if (e instanceof WebAssembly.LinkError) {
      throw wasmError(url, `a WebAssembly file that does not fit this version of seq2seq-wasm's JS (serve the seq2seq_core.wasm of the same package): ${e.message}`, e, hint);
    }
    throw wasmError(url, e?.message ?? String(e), e, hint);
  }
}
