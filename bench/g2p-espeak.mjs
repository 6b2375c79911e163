#!/usr/bin/env node
// The phonemizer's `espeak` format against eSpeak NG's own en-us output (the npm
// `phonemizer`, eSpeak NG in WebAssembly: a devDependency of this benchmark only,
// bench/g2p/package.json; compared with, never shipped), word by word:
//
//   npm ci --prefix bench/g2p && node bench/g2p-espeak.mjs [--words N] [--seed S] [--examples N] [--words-from PATH]
//
// N words drawn (seeded) from CMUdict's plain-letter words (many of them names eSpeak
// reads by its spelling rules), or with --words-from from those CMUdict shares with a
// word list (a text file, a word a line, or a JSON object keyed by words, such as
// misaki's us_gold.json: everyday vocabulary); each written from its first
// pronunciation as phonemize() writes a word alone, and each given alone to eSpeak.
// Reported: exact agreement, agreement with stress marks ignored, and the symbol
// error rate (edits over eSpeak's length).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadLexicon } from '../models/g2p/lexicon.js';
import { functionWord, wordToEspeak } from '../models/g2p/formats.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const require = createRequire(new URL('./g2p/package.json', import.meta.url));
const { phonemize: espeak } = await import(require.resolve('phonemizer'));
const lexicon = await loadLexicon();

let seed = arg('seed', 55) >>> 0;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const from = process.argv.indexOf('--words-from');
let all = [...lexicon.words()].filter((w) => /^[a-z]{2,}$/.test(w));
if (from > 0) {
  const text = readFileSync(process.argv[from + 1], 'utf8');
  const listed = new Set((text.trimStart().startsWith('{') ? Object.keys(JSON.parse(text)) : text.split(/\s+/)).map((w) => w.toLowerCase()));
  all = all.filter((w) => listed.has(w));
}
const words = Array.from({ length: arg('words', 2000) }, () => all[Math.floor(rnd() * all.length)]);

function edits(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
let exact = 0, noStress = 0, errors = 0, length = 0;
const wrong = [];
for (const w of words) {
  const ours = wordToEspeak(lexicon.lookup(w)[0], functionWord('espeak', w), w);
  const theirs = (await espeak(w, 'en-us')).join(' ').trim();
  if (ours === theirs) exact++;
  else wrong.push([w, ours, theirs]);
  if (ours.replace(/[ˈˌ]/g, '') === theirs.replace(/[ˈˌ]/g, '')) noStress++;
  errors += edits([...ours], [...theirs]);
  length += [...theirs].length;
}
const pct = (n, d) => `${((100 * n) / d).toFixed(2)} %`;
console.log(`${words.length} CMUdict words${from > 0 ? ` also in ${process.argv[from + 1]}` : ''} (seed ${arg('seed', 55)}): exact ${pct(exact, words.length)}; stress ignored ${pct(noStress, words.length)}; symbol error rate ${pct(errors, length)}`);
const n = arg('examples', 0);
for (const x of wrong.slice(0, n)) console.log(x.join(' | '));
