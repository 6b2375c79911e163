// Loads the trainer's Emscripten module (seq2seq_train.wasm) once per JS realm and
// per URL: a module apart from the decoder's seq2seq_core.wasm, which decoding
// alone never downloads. Started as the decoder's is (core.js), so a failure is a
// Seq2SeqError of kind 'WasmError' naming the URL and the cause.
import createSeq2SeqTrain from '../dist/seq2seq_train.mjs';
import { startModule } from './core.js';
import { resolveWasmUrl } from './env.js';

const HINT = "Pass createTrainer(config, { wasmUrl }) (import { createTrainer } from 'seq2seq-wasm/train') the URL where seq2seq_train.wasm is served "
  + '(a bundler that does not copy the file, such as esbuild or Rollup, needs this: copy node_modules/seq2seq-wasm/wasm/dist/seq2seq_train.wasm '
  + 'to your assets), or createTrainerWorker({ wasmUrl })';

const started = new Map();   // href -> the module's promise

/** The trainer's module from `wasmUrl` (undefined: the .wasm next to this package's modules). */
export function loadTrainCore(wasmUrl) {
  const href = wasmUrl === undefined ? new URL('../dist/seq2seq_train.wasm', import.meta.url).href : resolveWasmUrl(wasmUrl);
  let p = started.get(href);
  if (!p) {
    p = startModule(createSeq2SeqTrain, href, HINT);
    started.set(href, p);
    p.catch(() => started.delete(href));   // a failed load may be retried
  }
  return p;
}
