// The code blocks of the packages' READMEs (README.md for seq2seq-wasm,
// models/README.md for seq2seq-wasm-models), each with what it is, told by its
// info string. tests/node/readme.test.mjs runs the Node and shell ones,
// tests/browser/readme.test.mjs the browser ones; a block whose info string is
// not one of KINDS fails both, so that no example goes untested by accident.
//
// In a block, a comment `// → TEXT` says what the example prints (in Node: on
// stdout; in a browser: on the console or in the page); the tests wait for TEXT.
// A comment `// $ COMMAND` is a shell command that builds the example; the
// tests run it in the example's folder, but for `npm install --save-dev NAMES`:
// there the named packages, which must be devDependencies of the repository,
// are linked from its node_modules (no registry is reached).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MODELS_PACKAGE, ROOT } from './helpers.mjs';

export const KINDS = {
  // Run: `npm install --offline` of the two tarballs in a fresh project, the
  // block's package names standing for them (they are not on any registry here).
  'sh install': { run: 'install' },
  // Run with node as a module of the scratch project where both packages are installed.
  'js node': { run: 'node' },
  // Served as a page from the scratch project's root and opened in Chromium.
  'html browser': { run: 'page' },
  // A module of a page: served from the scratch project's root and loaded by a
  // page with the import map of the same README's `html browser` block.
  'js browser': { run: 'module' },
  // A page's main.js in a folder of the scratch project, built by `vite build`
  // (the repository's Vite) and opened in Chromium.
  'js vite': { run: 'vite' },
  // A page's main.js in a folder of the scratch project whose `// $` commands
  // build it (the bundler installed from the repository's devDependencies and
  // run with npx); then the page is opened in Chromium. `script`: the built
  // file a page in that folder loads; or, for a bundler that builds from the
  // page, `page`: the built page, from an index.html that loads ./main.js.
  'js esbuild': { run: 'build', script: 'out/main.js' },
  'js webpack': { run: 'build', script: 'dist/main.js' },
  'js parcel': { run: 'build', page: 'dist/index.html' },
  'js rollup': { run: 'build', script: 'out/main.js' },
  // A model card's metadata, in Hugging Face's YAML shape: parsed and held to
  // manifest.json by tests/node/model-cards.test.mjs.
  'yaml model-card': { run: 'card' },
  // A recipe that feeds the phonemizer's output to a voice: run by
  // tests/node/g2p-formats.test.mjs with the voice's tokenizer or phoneme map
  // stood in for (the voices themselves are downloads from no registry here).
  'js kokoro': { run: 'voice' },
  'js piper': { run: 'voice' },
  'sh repository': {
    notRun: 'commands for a clone of the repository (they install Debian packages and build for minutes); '
      + 'scripts/test.sh runs the same builds and tests',
  },
};

/** The READMEs the packages carry: [{ name, path, id }] (id: a file-name-safe tag). */
export const READMES = [
  { name: 'README.md', path: join(ROOT, 'README.md'), id: 'engine', models: false },
  { name: 'models/README.md', path: join(MODELS_PACKAGE, 'README.md'), id: 'models', models: true },
];

/** Every fenced code block of a README: { name, line, info, kind, code, expected, commands }. */
export function readmeBlocks(path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks = [];
  let open = null;
  lines.forEach((line, i) => {
    const fence = /^```(.*)$/.exec(line);
    if (!fence) {
      if (open) open.lines.push(line);
      return;
    }
    if (open) {
      const code = open.lines.join('\n') + '\n';
      const expected = [...code.matchAll(/\/\/ → (.+)$/gm)].map((m) => m[1].trim());
      const commands = [...code.matchAll(/^\/\/ \$ (.+)$/gm)].map((m) => m[1].trim());
      blocks.push({ name: `${relative(ROOT, path)}:${open.line} (${open.info || 'no info string'})`, line: open.line, info: open.info, kind: KINDS[open.info], code, expected, commands });
      open = null;
    } else {
      open = { info: fence[1].trim().replace(/\s+/g, ' '), line: i + 1, lines: [] };
    }
  });
  if (open) throw new Error(`${path}:${open.line}: a code block is never closed`);
  return blocks;
}

/** The import map of a README's page example, for running its browser modules. */
export function importMapOf(blocks) {
  for (const b of blocks.filter((x) => x.kind?.run === 'page')) {
    const m = /<script type="importmap">[\s\S]*?<\/script>/.exec(b.code);
    if (m) return m[0];
  }
  return null;
}

/** Markdown links that are not absolute URLs or anchors: [text, target]. */
export function relativeLinks(path) {
  const text = readFileSync(path, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(t));
}
