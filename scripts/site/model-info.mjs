// A model file's facts as the engine states them: ModelInfo, the module's own info()
// (wasm/src/index.d.ts), read by loading the file with the package's module (its
// WebAssembly in wasm/dist/, which scripts/build-wasm.sh writes). The scripts read no
// safetensors header of their own: the engine's reading is the one.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let engine = null;

// The facts of ModelInfo (wasm/src/index.d.ts) the page reads that a module built before
// they were bound lacks, with the values each may take. A site built with such a module
// (a wasm/dist/ older than wasm/bindings.cpp) would fold no case: every lower-case word
// typed or linked would be refused as letters outside the alphabet.
const REQUIRED = {
  sourceCase: (v) => ['none', 'upper', 'lower'].includes(v),
  sourceSpecials: (v) => v !== null && typeof v === 'object',
};

/** Thrown for a module whose info() lacks a fact the site needs: no model file is to blame. */
export class StaleModuleError extends Error {
  constructor(message) {
    super(message);
    this.name = 'StaleModuleError';
  }
}

/** `info` as it is, or a StaleModuleError naming the facts it lacks (`path`: the model file read). */
export function checkedInfo(info, path) {
  const bad = Object.entries(REQUIRED).filter(([k, ok]) => !ok(info?.[k])).map(([k]) => `${k} (${JSON.stringify(info?.[k])})`);
  if (bad.length) {
    throw new StaleModuleError(`${path}: the module's info() lacks ${bad.join(', ')}: wasm/dist/ is older than wasm/bindings.cpp; rebuild it (scripts/build-wasm.sh)`);
  }
  return info;
}

/**
 * The engine's info() of the model file at `path` (a Seq2SeqError of kind ModelError for a
 * file that is none; a StaleModuleError when the module does not state every fact the site reads).
 */
export async function modelInfo(path) {
  engine ??= import(join(root, 'wasm/src/index.js'));
  const { loadModel } = await engine;
  const model = await loadModel(new Uint8Array(readFileSync(path)));
  let info;
  try {
    info = structuredClone(model.info);
  } finally {
    model.delete();
  }
  return checkedInfo(info, path);
}
