// The page's own files and the code it imports, copied into the site as the page's
// relative imports expect them: web/* at the root (index.html, style.css, js/, shared/,
// i18n/), the npm module's wasm/src/*.js and wasm/dist/*, and the models package's
// phonemizer (g2p/*.js beside manifest.js, as the package lays it out: it imports '../manifest.js').
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// The decoder's module, and the trainer's (the Train mode's worker loads it).
export const WASM_FILES = ['seq2seq_core.mjs', 'seq2seq_core.wasm', 'seq2seq_train.mjs', 'seq2seq_train.wasm'];

/** Copies the page and what it imports from `root` into `out`; throws naming what is missing. */
export function copyPageFiles(root, out) {
  for (const f of WASM_FILES) {
    if (!existsSync(join(root, 'wasm/dist', f))) throw new Error(`missing wasm/dist/${f}: run scripts/build-wasm.sh first`);
  }
  cpSync(join(root, 'web'), out, { recursive: true });
  const copyJs = (from, to) => {
    mkdirSync(join(out, to), { recursive: true });
    for (const f of readdirSync(join(root, from))) if (f.endsWith('.js')) copyFileSync(join(root, from, f), join(out, to, f));
  };
  copyJs('wasm/src', 'wasm/src');
  mkdirSync(join(out, 'wasm/dist'), { recursive: true });
  for (const f of WASM_FILES) copyFileSync(join(root, 'wasm/dist', f), join(out, 'wasm/dist', f));
  copyJs('models/g2p', 'g2p');
  copyFileSync(join(root, 'models/manifest.js'), join(out, 'manifest.js'));
}
