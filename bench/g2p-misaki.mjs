#!/usr/bin/env node
// How often the phonemizer's `misaki` format agrees with misaki's own US lexicon
// (us_gold.json of the misaki repository, Apache-2.0: read from where you keep it,
// never committed here) on the words both have:
//
//   node bench/g2p-misaki.mjs PATH/us_gold.json [--examples N]
//
// Each shared word is written from CMUdict's first pronunciation, as phonemize()
// writes a word alone, and compared with misaki's entry (its DEFAULT where it has
// one per part of speech). misaki's keys are case-sensitive: a lower-case key is
// taken before a capitalised one; all-capital keys (read as letters) are left out.
// Reported: exact agreement, agreement with secondary stress ignored, with all
// stress ignored, and the symbol error rate (edits over misaki's length).
import { readFileSync } from 'node:fs';
import { loadLexicon } from '../models/g2p/lexicon.js';
import { wordToMisaki, FUNCTION_WORDS } from '../models/g2p/formats.js';

const path = process.argv[2];
if (!path) {
  console.error('usage: node bench/g2p-misaki.mjs PATH/us_gold.json [--examples N]');
  process.exit(2);
}
const at = process.argv.indexOf('--examples');
const examples = at > 0 ? Number(process.argv[at + 1]) : 0;
const gold = JSON.parse(readFileSync(path, 'utf8'));
const lexicon = await loadLexicon();

const byWord = new Map();
for (const [key, value] of Object.entries(gold)) {
  if (key.length > 1 && key === key.toUpperCase() && /[A-Z]/.test(key)) continue;
  const reading = typeof value === 'string' ? value : value?.DEFAULT;
  if (!reading) continue;
  const word = key.toLowerCase();
  if (key === word || !byWord.has(word)) byWord.set(word, reading);
}

function edits(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

let shared = 0, exact = 0, noSecondary = 0, noStress = 0, errors = 0, length = 0;
const wrong = [];
for (const [word, reading] of byWord) {
  const prons = lexicon.lookup(word);
  if (!prons) continue;
  shared++;
  const ours = wordToMisaki(prons[0], Object.hasOwn(FUNCTION_WORDS, word) ? FUNCTION_WORDS[word] : undefined);
  if (ours === reading) exact++;
  else wrong.push([word, prons[0].join(' '), ours, reading]);
  if (ours.replace(/ˌ/g, '') === reading.replace(/ˌ/g, '')) noSecondary++;
  if (ours.replace(/[ˈˌ]/g, '') === reading.replace(/[ˈˌ]/g, '')) noStress++;
  errors += edits([...ours], [...reading]);
  length += [...reading].length;
}
const pct = (n, d) => `${((100 * n) / d).toFixed(2)} %`;
console.log(`misaki's US gold lexicon: ${byWord.size} words; ${shared} also in CMUdict (${lexicon.source.package}@${lexicon.source.version})`);
console.log(`exact ${pct(exact, shared)}; secondary stress ignored ${pct(noSecondary, shared)}; all stress ignored ${pct(noStress, shared)}; symbol error rate ${pct(errors, length)}`);
for (const w of wrong.filter((_, i) => i % Math.max(1, Math.floor(wrong.length / Math.max(examples, 1))) === 0).slice(0, examples)) console.log(w.join(' | '));
