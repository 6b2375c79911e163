#!/usr/bin/env node
// What a browser downloads, gzipped, to phonemize with seq2seq-wasm-models/g2p: the
// phonemizer's modules bundled and minified with the engine's (esbuild, as an app
// would: the lexicon is a chunk of its own, loaded when a phonemizer is made), the
// engine's .wasm, and the one model the phonemizer loads, as the package ships it
// (int8) and as any other copy given (a 4-bit re-storage of the same weights:
// `python3 -m models.train export MODEL.safetensors OUT.safetensors --q4`).
//
//   node bench/g2p-size.mjs [--model NAME=PATH ...] [--pruned N]
//
// With bench/g2p installed (npm ci --prefix bench/g2p), also what phonemize and
// phonemizer (eSpeak NG) cost a browser, bundled the same way.
// Each --model adds rows for that file in place of the shipped one (NAME is
// g2p-transformer or g2p-transformer-stress). --pruned N: also the lexicon without a
// share of its words, N the percentage the model reads right anyway (measure it with
// bench/g2p-lexicon-model.mjs), taken as that share of its words of one pronunciation.
// Bytes are gzip -9 of each file, summed; MB = 10^6 bytes.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MODELS = join(ROOT, 'models');
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const mb = (n) => (n / 1e6).toFixed(2);

const args = process.argv.slice(2);
const given = [];
let pruned = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--model') {
    const [name, path] = (args[++i] ?? '').split('=');
    if (!name || !path) throw new Error('--model NAME=PATH');
    given.push({ name, path });
  } else if (args[i] === '--pruned') pruned = Number(args[++i]);
  else throw new Error(`unknown argument ${args[i]}`);
}

/** The phonemizer's modules and the engine's, bundled as an app would: {entry, lexicon, other} gzipped bytes. */
async function modules(lexiconSource) {
  const out = await build({
    stdin: { contents: "export { createPhonemizer } from './g2p/index.js';", resolveDir: MODELS, loader: 'js' },
    bundle: true, minify: true, splitting: true, write: false, format: 'esm', platform: 'browser', outdir: '/out',
    logLevel: 'silent', alias: { 'seq2seq-wasm': join(ROOT, 'wasm/src/index.js') },
    // Node-only imports the engine makes behind an isNode() check: not in a browser bundle.
    external: ['node:*'],
    plugins: lexiconSource ? [{
      name: 'lexicon',
      setup(b) { b.onLoad({ filter: /lexicon-data\.js$/ }, () => ({ contents: lexiconSource, loader: 'js' })); },
    }] : [],
  });
  const sizes = { entry: 0, lexicon: 0, other: 0 };
  for (const f of out.outputFiles) {
    const n = gz(f.contents);
    if (f.text.includes('"cmu-pronouncing-dictionary"')) sizes.lexicon += n;
    else if (/\/stdin\.js$/.test(f.path)) sizes.entry += n;
    else sizes.other += n;
  }
  return sizes;
}

/**
 * lexicon-data.js (its layout: scripts/build-lexicon.mjs) without `share` of its words of
 * one pronunciation, evenly spread; the words of several (heteronyms) all kept.
 */
async function prunedLexicon(share) {
  const { parseLexicon } = await import(join(MODELS, 'g2p/lexicon.js'));
  const { encodeLexicon, moduleText } = await import(join(ROOT, 'scripts/build-lexicon.mjs'));
  const lexicon = parseLexicon(await import(join(MODELS, 'g2p/lexicon-data.js')));
  const kept = new Map();
  let single = 0;
  for (const w of lexicon.words()) {
    const prons = lexicon.lookup(w).map((p) => p.join(' '));
    if (prons.length > 1 || Math.floor((single + 1) * share) === Math.floor(single++ * share)) kept.set(w, prons);
  }
  return moduleText(encodeLexicon(kept, lexicon.source));
}

const wasm = gz(readFileSync(join(ROOT, 'wasm/dist/seq2seq_core.wasm')));
const code = await modules(null);
const lexiconKinds = [['CMUdict, whole', code.lexicon]];
if (pruned !== null) {
  const smaller = await modules(await prunedLexicon(pruned / 100));
  lexiconKinds.push([`without the ${pruned} % the model reads right`, smaller.lexicon]);
}

const shipped = JSON.parse(readFileSync(join(MODELS, 'manifest.json'), 'utf8')).models;
const rows = [];
for (const name of ['g2p-transformer', 'g2p-transformer-stress']) {
  const file = join(MODELS, shipped.find((m) => m.name === name).file);
  rows.push({ name, storage: 'int8 (shipped)', bytes: gz(readFileSync(file)) });
  for (const g of given.filter((x) => x.name === name)) rows.push({ name, storage: g.path.split('/').at(-1), bytes: gz(readFileSync(g.path)) });
}

console.log(`engine .wasm ${mb(wasm)} MB; modules (phonemizer and engine, minified) ${mb(code.entry + code.other)} MB; lexicon chunk ${mb(code.lexicon)} MB (gzipped)`);
console.log('| model (used for) | storage | model MB | lexicon | total MB |');
console.log('| --- | --- | ---: | --- | ---: |');
for (const r of rows) {
  const use = r.name === 'g2p-transformer' ? 'ipa, arpabet' : 'misaki, espeak';
  for (const [kind, lex] of lexiconKinds) {
    console.log(`| ${r.name} (${use}) | ${r.storage} | ${mb(r.bytes)} | ${kind} | ${mb(wasm + code.entry + code.other + lex + r.bytes)} |`);
  }
}
const benchDir = join(ROOT, 'bench/g2p');
if (existsSync(join(benchDir, 'node_modules'))) {
  for (const name of ['phonemize', 'phonemizer']) {
    const out = await build({
      stdin: { contents: `export { phonemize } from ${JSON.stringify(name)};`, resolveDir: benchDir, loader: 'js' },
      bundle: true, minify: true, splitting: true, write: false, format: 'esm', platform: 'browser', outdir: '/out', logLevel: 'silent', external: ['node:*'],
    });
    const version = JSON.parse(readFileSync(join(benchDir, 'node_modules', name, 'package.json'), 'utf8')).version;
    console.log(`| ${name} ${version} | — | — | its own | ${mb(out.outputFiles.reduce((n, f) => n + gz(f.contents), 0))} |`);
  }
}
console.log(`least possible without a smaller model: engine and modules ${mb(wasm + code.entry + code.other)} MB + the smallest model file ${mb(Math.min(...rows.map((r) => r.bytes)))} MB, no lexicon`);
