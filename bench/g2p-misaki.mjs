#!/usr/bin/env node
// How often the phonemizer's `misaki` format agrees with misaki's own US lexicon
// (us_gold.json of the misaki repository, Apache-2.0: read from where you keep it,
// never committed here) on the words both have, and why the rest do not:
//
//   node bench/g2p-misaki.mjs PATH/us_gold.json [--examples N]
//
// Each shared word is written from CMUdict's first pronunciation, as phonemize()
// writes a word alone (a function word as a sentence reads it, and with the reading the
// format takes for it: functionReading), and compared with
// misaki's entry (its DEFAULT where it has one per part of speech). misaki's keys are
// case-sensitive: a lower-case key is taken before a capitalised one; all-capital keys
// (read as letters) are left out. Reported: exact agreement, agreement with secondary
// stress ignored, with all stress ignored, the symbol error rate (edits over misaki's
// length), and each disagreeing word in one class:
//   another CMUdict reading   one of CMUdict's other pronunciations gives misaki's exactly
//   CMUdict differs           the phonemes differ even with the conventions below set
//                             aside: CMUdict and misaki say the word differently (split by
//                             kind: ɑ/ɔ alone, a full or reduced unstressed vowel, other)
//   reduced vowels, ᵊ, flap   only ə ɪ ʌ ᵊ ᵻ, ɜɹ/əɹ, t/ɾ/ʔ differ
//   secondary stress          only a secondary stress mark differs
//   primary stress            the primary stress is elsewhere
// And the same by word in running text: every word of the sentences of the test fixtures
// (tests/fixtures/g2p/paragraphs.json, homographs.json) that both dictionaries have, each
// written alone as above, so a heteronym is read as CMUdict's first reading, not as the
// sentence wants it: how often a voice meets each kind of word, which the list of words
// does not weigh (most of the shared words are rare, many of them names).
import { readFileSync } from 'node:fs';
import { loadLexicon } from '../models/g2p/lexicon.js';
import { functionReading, functionWord, wordToMisaki } from '../models/g2p/formats.js';

const path = process.argv[2];
if (!path || path.startsWith('--')) {
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

const noStress = (s) => s.replace(/[ˈˌ]/g, '');
// The phonemes with misaki's conventions set aside: stress, the reduced vowels, ᵊ, ɜɹ/əɹ, the flap and glottal t.
const phonemic = (s) => noStress(s).replace(/ʔᵊn|ʔn/g, 'tən').replace(/[ɾʔ]/g, 't').replace(/[ᵊᵻɪʌ]/g, 'ə').replace(/ɜɹ/g, 'əɹ');
// Further: ɑ and ɔ one vowel; every unstressed vowel one (V); an r-coloured vowel one (R).
const lot = (s) => phonemic(s).replace(/ɔ/g, 'ɑ');
function unstressedAsOne(s) {
  let out = '';
  let marked = false;
  for (const c of s) {
    if (c === 'ˈ' || c === 'ˌ') marked = true;
    else if ('AIOWYiuæɑɔəɛɜɪʊʌᵻᵊ'.includes(c)) {
      out += marked ? c.replace('ɔ', 'ɑ') : 'V';
      marked = false;
    } else out += c === 'ɾ' || c === 'ʔ' ? 't' : c;
  }
  return out.replace(/Vɹ|ɜɹ/g, 'R');
}

const CLASSES = ['exact', 'another CMUdict reading', 'CMUdict differs: ɑ/ɔ alone', 'CMUdict differs: an unstressed vowel full or reduced',
  'CMUdict differs: other phonemes', 'reduced vowels, ᵊ, flap', 'secondary stress', 'primary stress'];
const count = Object.fromEntries(CLASSES.map((c) => [c, 0]));
const wrong = Object.fromEntries(CLASSES.map((c) => [c, []]));
let shared = 0, noSecondary = 0, stressFree = 0, errors = 0, length = 0;
// The rules were shaped on this lexicon: its two halves, split by a hash of the word, show how evenly they hold.
const half = (w) => [...w].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261) % 2;
const halves = [[0, 0], [0, 0]];
for (const [word, reading] of byWord) {
  const prons = lexicon.lookup(word);
  if (!prons) continue;
  shared++;
  const write = (p) => wordToMisaki(p, functionWord('misaki', word), word);
  const ours = write(functionReading('misaki', word) ?? prons[0]);
  let c;
  if (ours === reading) c = 'exact';
  else if (prons.slice(1).some((p) => write(p) === reading)) c = 'another CMUdict reading';
  else if (phonemic(ours) !== phonemic(reading)) {
    c = lot(ours) === lot(reading) ? 'CMUdict differs: ɑ/ɔ alone'
      : unstressedAsOne(ours) === unstressedAsOne(reading) ? 'CMUdict differs: an unstressed vowel full or reduced'
        : 'CMUdict differs: other phonemes';
  } else if (noStress(ours) !== noStress(reading)) c = 'reduced vowels, ᵊ, flap';
  else if (ours.replace(/ˌ/g, '') === reading.replace(/ˌ/g, '')) c = 'secondary stress';
  else c = 'primary stress';
  count[c]++;
  halves[half(word)][0]++;
  if (c === 'exact') halves[half(word)][1]++;
  if (c !== 'exact') wrong[c].push([word, prons[0].join(' '), ours, reading]);
  if (ours.replace(/ˌ/g, '') === reading.replace(/ˌ/g, '')) noSecondary++;
  if (noStress(ours) === noStress(reading)) stressFree++;
  errors += edits([...ours], [...reading]);
  length += [...reading].length;
}
const pct = (n, d) => `${((100 * n) / d).toFixed(2)} %`;
console.log(`misaki's US gold lexicon: ${byWord.size} words; ${shared} also in CMUdict (${lexicon.source.package}@${lexicon.source.version})`);
console.log(`exact ${pct(count.exact, shared)}; secondary stress ignored ${pct(noSecondary, shared)}; all stress ignored ${pct(stressFree, shared)}; symbol error rate ${pct(errors, length)}`);
console.log(`exact in the two halves of the words (by a hash): ${halves.map(([n, e]) => pct(e, n)).join(', ')}`);
for (const c of CLASSES) console.log(`  ${c.padEnd(54)} ${String(count[c]).padStart(6)}  ${pct(count[c], shared)}`);
// Running text: each word's share of the fixtures' sentences.
const fixtures = new URL('../tests/fixtures/g2p/', import.meta.url);
const texts = [
  ...JSON.parse(readFileSync(new URL('paragraphs.json', fixtures), 'utf8')).paragraphs.map((p) => p.text),
  ...['sentences', 'held_out'].flatMap((k) => JSON.parse(readFileSync(new URL('homographs.json', fixtures), 'utf8'))[k].map((x) => x[0])),
];
let tokens = 0, tokensExact = 0, tokensNoSecondary = 0, tokensNoStress = 0;
for (const text of texts) {
  for (const [w] of text.matchAll(/[A-Za-z]+(?:'[A-Za-z]+)*/g)) {
    const word = w.toLowerCase();
    const reading = byWord.get(word);
    const prons = reading && lexicon.lookup(word);
    if (!prons) continue;
    const ours = wordToMisaki(functionReading('misaki', word) ?? prons[0], functionWord('misaki', word), word);
    tokens++;
    if (ours === reading) tokensExact++;
    if (ours.replace(/ˌ/g, '') === reading.replace(/ˌ/g, '')) tokensNoSecondary++;
    if (noStress(ours) === noStress(reading)) tokensNoStress++;
  }
}
console.log(`running text (the ${texts.length} sentences and paragraphs of the test fixtures): ${tokens} words both have; exact ${pct(tokensExact, tokens)}; secondary stress ignored ${pct(tokensNoSecondary, tokens)}; all stress ignored ${pct(tokensNoStress, tokens)}`);
if (examples) {
  for (const c of CLASSES.slice(1)) {
    console.log(`\n${c}: word | CMUdict | ours | misaki`);
    const list = wrong[c];
    for (let i = 0; i < Math.min(examples, list.length); i++) console.log(list[Math.floor((i * list.length) / Math.min(examples, list.length))].join(' | '));
  }
}
