// The phonemizer's lexicon (models/g2p/lexicon-data.js): the file committed is
// what scripts/build-lexicon.mjs writes from the npm package it names; every
// CMUdict word of that package comes back from the installed lexicon with all
// its pronunciations, stress included, in the dictionary's order; front-coded in
// blocks, it is small enough to fetch, and only loadLexicon() imports it.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { MODELS_PACKAGE, installPackage } from './helpers.mjs';
import { BLOCK, LEXICON_PATH, buildLexicon, encodeLexicon, moduleText, pronunciationsOf, readPackage } from '../../scripts/build-lexicon.mjs';

const pkg = installPackage();
const { loadLexicon } = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
const { parseLexicon } = await import(join(pkg.modelsDir, 'g2p/lexicon.js'));
const { version, dictionary } = await readPackage();

test('the committed lexicon is what scripts/build-lexicon.mjs writes from the installed package', async () => {
  assert.equal(readFileSync(LEXICON_PATH, 'utf8'), moduleText(await buildLexicon()), 'stale: run node scripts/build-lexicon.mjs');
  const root = JSON.parse(readFileSync(join(MODELS_PACKAGE, '../package.json'), 'utf8'));
  assert.equal(root.devDependencies['cmu-pronouncing-dictionary'], version, 'the version built from is the one the repository pins');
});

test('every CMUdict word round-trips: all its pronunciations, stress included, in order', async () => {
  const lexicon = await loadLexicon();
  const expected = pronunciationsOf(dictionary);
  assert.equal(lexicon.size, expected.size);
  assert.deepEqual(lexicon.source, { package: 'cmu-pronouncing-dictionary', version, words: expected.size, pronunciations: Object.keys(dictionary).length });
  let checked = 0;
  for (const [word, prons] of expected) {
    const got = lexicon.lookup(word);
    if (!got || got.length !== prons.length || got.some((p, i) => p.join(' ') !== prons[i])) {
      assert.fail(`${JSON.stringify(word)}: ${JSON.stringify(got)} against ${JSON.stringify(prons)}`);
    }
    checked += prons.length;
  }
  assert.equal(checked, Object.keys(dictionary).length, 'every entry of the package, variants included');
  // The package's own keys, variants and comments as written there.
  assert.deepEqual(lexicon.lookup('unnaturally').map((p) => p.join(' ')),
    ['unnaturally', 'unnaturally(2)', 'unnaturally(3)', 'unnaturally(4)'].map((k) => dictionary[k]));
  assert.match(dictionary.aalborg, /#/);
  assert.deepEqual(lexicon.lookup('aalborg')[0], dictionary.aalborg.split('#')[0].trim().split(' '), 'the comment after # dropped');
  assert.deepEqual([...lexicon.words()].length, expected.size);
  assert.deepEqual(lexicon.lookup('COLONEL'), lexicon.lookup('colonel'), 'case is ignored');
  for (const w of ['__proto__', 'hasOwnProperty', 'toString', 'valueOf', 'zzzzzz', '']) {
    assert.deepEqual(lexicon.lookup(w)?.map((p) => p.join(' ')), expected.get(w.toLowerCase()), w);
  }
  assert.ok(lexicon.has('constructor'));
  assert.deepEqual(lexicon.lookup('constructor'), [dictionary.constructor.split(' ')]);
  assert.equal(await loadLexicon(), lexicon, 'loaded once');
});

test('front-coded in blocks: every word found across the blocks\' edges, none that is not there', () => {
  // Words that share long beginnings, over three blocks and a part, each with a pronunciation of its own.
  const words = Array.from({ length: 3 * BLOCK + 5 }, (_, i) => `abc${String(i).padStart(3, '0')}${'x'.repeat(i % 4)}`);
  const byWord = new Map(words.map((w, i) => [w, i % 7 === 0 ? [`K AE1 T${' S'.repeat(i % 3)}`, 'D AO1 G'] : [`K AE1 T ${['S', 'Z', 'IH0 NG'][i % 3]}`]]));
  const data = encodeLexicon(byWord, { version: 'test' });
  assert.equal(data.words.split('\n').length, words.length);
  assert.ok(data.words.length < words.join('\n').length * 0.6, 'the words are front-coded');
  const lexicon = parseLexicon(data);
  assert.equal(lexicon.size, words.length);
  assert.deepEqual([...lexicon.words()], words);
  for (const w of words) assert.deepEqual(lexicon.lookup(w).map((p) => p.join(' ')), byWord.get(w), w);
  for (const w of ['abc', 'abc031', 'abc032x', 'abc101', 'abd', '', 'ab', 'zzz']) {
    assert.equal(lexicon.lookup(w), undefined, w);
    assert.equal(lexicon.has(w), false, w);
  }
});

test('at most 0.65 MB gzipped', (t) => {
  const bytes = readFileSync(join(pkg.modelsDir, 'g2p/lexicon-data.js'));
  const gz = gzipSync(bytes, { level: 9 }).length;
  t.diagnostic(`lexicon-data.js: ${bytes.length} bytes, ${gz} gzipped`);
  assert.ok(gz <= 650_000, `${gz} bytes gzipped`);
});

test('only loadLexicon() imports it, and only when called: no module imports it statically', () => {
  const dir = join(pkg.modelsDir, 'g2p');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.js') && x !== 'lexicon-data.js')) {
    const text = readFileSync(join(dir, f), 'utf8');
    assert.doesNotMatch(text, /^[ \t]*(import|export)\b[^;\n]*lexicon-data\.js/m, `${f} imports the lexicon statically`);
    if (f === 'lexicon.js') assert.match(text, /import\('\.\/lexicon-data\.js'\)/);
  }
});
