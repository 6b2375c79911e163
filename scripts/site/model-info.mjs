// A model file's facts as the engine states them: ModelInfo, the module's own info()
// (wasm/src/index.d.ts), read by loading the file with the package's module (its
// WebAssembly in wasm/dist/, which scripts/build-wasm.sh writes). The scripts read no
// safetensors header of their own: the engine's reading is the one.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let engine = null;

/** The engine's info() of the model file at `path` (a Seq2SeqError of kind ModelError for a file that is none). */
export async function modelInfo(path) {
  engine ??= import(join(root, 'wasm/src/index.js'));
  const { loadModel } = await engine;
  const model = await loadModel(new Uint8Array(readFileSync(path)));
  try {
    return structuredClone(model.info);
  } finally {
    model.delete();
  }
}
