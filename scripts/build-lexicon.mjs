#!/usr/bin/env node
// Writes models/g2p/lexicon-data.js, the phonemizer's lexicon: every word of
// CMUdict as the npm package cmu-pronouncing-dictionary carries it (the newest
// CMUdict on npm, crawled from CMU's cmusphinx/cmudict), with all its
// pronunciations, stress digits kept, in the dictionary's order.
//
//   node scripts/build-lexicon.mjs            # write models/g2p/lexicon-data.js
//   node scripts/build-lexicon.mjs --check    # fail if the committed file differs
//
// The file is a JavaScript module (a page, a worker, Node and bundlers all load
// it with import(), nothing else), compact to be fetched: ~1.5 MB, ~0.62 MB gzipped.
//   phones          the phone set, space-separated (AA0 … ZH)
//   codes           one character per phone, in the same order: a pronunciation
//                   is written as a run of codes, one per phone
//   block           the lines of a block (32): the first line of each is written whole
//   words           the words, lower case, sorted by UTF-16 code units (as JavaScript
//                   compares strings), one a line, front-coded: a line is a mark, the
//                   number of leading characters the word shares with the one before
//                   (wordMarks[n]; 0 on a block's first line), then the rest of the word
//   pronunciations  line i: word i's pronunciations, space-separated, as runs of codes,
//                   front-coded the same way (pronMarks: characters that are no code)
//   wordMarks, pronMarks  the marks, n = 0, 1, …; a longer shared part is cut to the last
// Words and pronunciations are kept apart because each column compresses
// better alone (gzip: 0.77 MB against 0.92 MB as `word  PH ON ES` lines). Front coding
// saves 0.14 MB gzipped (0.62 MB against 0.76 MB), and the blocks keep it from costing
// time when the lexicon loads: the lines are split (as fast as before), a word is found
// by binary search over the blocks' first lines, and only its block is undone (at most
// 31 lines); undoing every line at load would save 0.06 MB more but take ~0.15 s.
// models/g2p/lexicon.js reads it.
//
// What is changed from the package's data: a variant's key `word(2)` becomes the
// word's second pronunciation (in the order of the numbers), and the comments
// 22 entries carry after `#` ("# place, danish") are dropped.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeOrCheck } from './write-generated.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const LEXICON_PATH = join(root, 'models/g2p/lexicon-data.js');
export const PACKAGE = 'cmu-pronouncing-dictionary';

// Printable ASCII a JSON string holds as it is, but for the separators (space,
// newline) and the characters JSON escapes (" and \).
const CODE_CHARS = [...Array(95)].map((_, i) => String.fromCharCode(32 + i)).filter((c) => !' "\\'.includes(c)).join('');

/** The package's version and dictionary ({ "word": "PH ON ES", "word(2)": … }). */
export async function readPackage() {
  const require = createRequire(join(root, 'package.json'));
  const dir = dirname(require.resolve(`${PACKAGE}/package.json`));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const { dictionary } = await import(pathToFileURL(join(dir, 'index.js')).href);
  return { version, dictionary };
}

/**
 * The dictionary as word → its pronunciations (strings, 'K ER1 N AH0 L'), in the
 * order of their variant numbers (the plain key first), comments dropped.
 */
export function pronunciationsOf(dictionary) {
  const byWord = new Map();
  for (const [key, value] of Object.entries(dictionary)) {
    const m = /^(.*)\((\d+)\)$/.exec(key);
    const word = m ? m[1] : key;
    const n = m ? Number(m[2]) : 1;
    const pron = value.split('#')[0].trim().split(/\s+/).join(' ');
    if (!byWord.has(word)) byWord.set(word, []);
    byWord.get(word).push([n, pron]);
  }
  return new Map([...byWord].map(([w, list]) => [w, list.sort((a, b) => a[0] - b[0]).map(([, p]) => p)]));
}

/** The lines of a block, the first of which is written whole. */
export const BLOCK = 32;
const WORD_MARKS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** `lines` front-coded: each line a mark (marks[n]: n leading characters as the line before's) and its rest. */
function frontCode(lines, marks) {
  return lines.map((line, i) => {
    let n = 0;
    if (i % BLOCK !== 0) {
      const prev = lines[i - 1];
      while (n < marks.length - 1 && n < prev.length && n < line.length && prev[n] === line[n]) n++;
    }
    return marks[n] + line.slice(n);
  }).join('\n');
}

/** The lexicon's data (the module's exports) for a map word → pronunciations. */
export function encodeLexicon(byWord, source) {
  const phones = [...new Set([...byWord.values()].flat().flatMap((p) => p.split(' ')))].sort();
  if (phones.length > CODE_CHARS.length) throw new Error(`${phones.length} phones: more than ${CODE_CHARS.length} codes`);
  const code = new Map(phones.map((p, i) => [p, CODE_CHARS[i]]));
  const words = [...byWord.keys()].sort();
  for (const w of words) if (/\s/.test(w) || !w || w !== w.toLowerCase()) throw new Error(`a word the format cannot hold: ${JSON.stringify(w)}`);
  // The marks of the pronunciations: characters that are no phone's code (a mark is a line's first character, so this is for gzip).
  const pronMarks = CODE_CHARS.slice(phones.length);
  if (pronMarks.length < 2) throw new Error(`${phones.length} phones leave too few characters to mark the pronunciations' lines`);
  return {
    source: { package: PACKAGE, version: source.version, words: words.length, pronunciations: words.reduce((a, w) => a + byWord.get(w).length, 0) },
    phones: phones.join(' '),
    codes: CODE_CHARS.slice(0, phones.length),
    block: BLOCK,
    wordMarks: WORD_MARKS,
    pronMarks,
    words: frontCode(words, WORD_MARKS),
    pronunciations: frontCode(words.map((w) => byWord.get(w).map((p) => p.split(' ').map((x) => code.get(x)).join('')).join(' ')), pronMarks),
  };
}

/** The module's text. */
export function moduleText(data) {
  return `// The phonemizer's lexicon: CMUdict from the npm package ${data.source.package}@${data.source.version}
// (CMU's notice: data/LICENSE-CMUDICT). Written by scripts/build-lexicon.mjs, which
// says how it is laid out; do not edit: run the script.
export const source = ${JSON.stringify(data.source)};
export const phones = ${JSON.stringify(data.phones)};
export const codes = ${JSON.stringify(data.codes)};
export const block = ${JSON.stringify(data.block)};
export const wordMarks = ${JSON.stringify(data.wordMarks)};
export const pronMarks = ${JSON.stringify(data.pronMarks)};
export const words = ${JSON.stringify(data.words)};
export const pronunciations = ${JSON.stringify(data.pronunciations)};
`;
}

/** The lexicon's module text, from the installed package (`exclude`: words to leave out). */
export async function buildLexicon({ exclude } = {}) {
  const { version, dictionary } = await readPackage();
  const byWord = pronunciationsOf(dictionary);
  if (exclude) for (const w of exclude) byWord.delete(w);
  return encodeLexicon(byWord, { version });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeOrCheck(import.meta.url, LEXICON_PATH, moduleText(await buildLexicon()));
}
