#!/usr/bin/env node
// How many of the lexicon's words the phonemizer's model reads right anyway: those a
// lexicon for the browser could leave out (bench/g2p-size.mjs --pruned N). A word the
// lexicon has one pronunciation for, drawn (seeded) from all of them, decoded by the
// model as the phonemizer decodes (the manifest's decoding), right when the output is
// that pronunciation: with its stress for a stressed model (the voice formats read it);
// for the plain model, stress aside (but a lexicon word read by the plain model would
// then lose its stress marks in the IPA, which the phonemizer writes from the lexicon).
//
//   node bench/g2p-lexicon-model.mjs [--model PATH] [--stress] [--words N] [--seed S]
//
// Words with more than one pronunciation (the heteronyms the phonemizer chooses among)
// stay in any lexicon and are not drawn.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../wasm/src/index.js';
import { loadLexicon } from '../models/g2p/lexicon.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const stress = process.argv.includes('--stress');
const name = stress ? 'g2p-transformer-stress' : 'g2p-transformer';
const entry = JSON.parse(readFileSync(join(ROOT, 'models/manifest.json'), 'utf8')).models.find((m) => m.name === name);
const path = arg('model', join(ROOT, 'models', entry.file));
const n = Number(arg('words', 2000));

const lexicon = await loadLexicon();
const model = await loadModel(readFileSync(path));
const { sourceVocab, maxPositions } = model.info;
const letters = new Set(sourceVocab);
const single = [...lexicon.words()].filter((w) => lexicon.lookup(w).length === 1 && w.length <= maxPositions
  && [...w.toUpperCase()].every((c) => letters.has(c)));
let seed = Number(arg('seed', 55)) >>> 0;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const words = [...new Set(Array.from({ length: n }, () => single[Math.floor(rnd() * single.length)]))];

const t0 = performance.now();
const lists = await model.decodeBatch(words.map((w) => w.toUpperCase()), entry.decoding);
const plain = (p) => p.replace(/[012]/g, '');
let right = 0;
words.forEach((w, i) => {
  const want = lexicon.lookup(w)[0].join(' ');
  const got = lists[i][0]?.text ?? '';
  if (stress ? got === want : plain(got) === plain(want)) right++;
});
model.delete();
console.log(`${name} (${path.split('/').at(-1)}): ${words.length} of the lexicon's ${single.length} single-pronunciation words, `
  + `${((100 * right) / words.length).toFixed(1)} % read right${stress ? ' with their stress' : ', stress aside'} `
  + `(${((performance.now() - t0) / words.length).toFixed(1)} ms a word)`);
