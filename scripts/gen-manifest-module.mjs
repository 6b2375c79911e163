#!/usr/bin/env node
// Writes models/manifest.js, models/manifest.json as a JavaScript module: the
// package's main entry (`import manifest from 'seq2seq-wasm-models'`), which the
// phonemizer reads its models' decoding settings from. A module, because a JSON
// import needs import attributes that Node 18 and older browsers lack.
// scripts/make-models-manifest.mjs runs it after writing manifest.json.
//
//   node scripts/gen-manifest-module.mjs            # write models/manifest.js
//   node scripts/gen-manifest-module.mjs --check    # fail if it is stale
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './write-generated.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const jsonPath = join(root, 'models/manifest.json');
const jsPath = join(root, 'models/manifest.js');

/** The module's text for the manifest in models/manifest.json. */
export function manifestModule() {
  const manifest = JSON.parse(readFileSync(jsonPath, 'utf8'));
  return `// manifest.json as a module (the package's main entry). Written by
// scripts/gen-manifest-module.mjs from manifest.json; do not edit.
function freeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') freeze(v);
  return Object.freeze(o);
}
export default freeze(${JSON.stringify(manifest, null, 2)});
`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeOrCheck(import.meta.url, jsPath, manifestModule());
}
