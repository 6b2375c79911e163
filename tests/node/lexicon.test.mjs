// The phonemizer's lexicon (models/g2p/lexicon-data.js): the file committed is
// what scripts/build-lexicon.mjs writes from the npm package it names; every
// CMUdict word of that package comes back from the installed lexicon with all
// its pronunciations, stress included, in the dictionary's order; it is small
// enough to fetch, and only loadLexicon() imports it.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { MODELS_PACKAGE, installPackage } from './helpers.mjs';
import { LEXICON_PATH, buildLexicon, moduleText, pronunciationsOf, readPackage } from '../../scripts/build-lexicon.mjs';

const pkg = installPackage();
const { loadLexicon } = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
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

test('at most 1 MB gzipped', (t) => {
  const bytes = readFileSync(join(pkg.modelsDir, 'g2p/lexicon-data.js'));
  const gz = gzipSync(bytes, { level: 9 }).length;
  t.diagnostic(`lexicon-data.js: ${bytes.length} bytes, ${gz} gzipped`);
  assert.ok(gz <= 1_000_000, `${gz} bytes gzipped`);
});

test('only loadLexicon() imports it, and only when called: no module imports it statically', () => {
  const dir = join(pkg.modelsDir, 'g2p');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.js') && x !== 'lexicon-data.js')) {
    const text = readFileSync(join(dir, f), 'utf8');
    assert.doesNotMatch(text, /^[ \t]*(import|export)\b[^;\n]*lexicon-data\.js/m, `${f} imports the lexicon statically`);
    if (f === 'lexicon.js') assert.match(text, /import\('\.\/lexicon-data\.js'\)/);
  }
});
