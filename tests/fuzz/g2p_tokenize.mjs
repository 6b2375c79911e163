// Fuzzing the phonemizer's tokenizer (models/g2p/tokenize.js), in JavaScript:
// seeded random texts and mutations of a committed corpus
// (tests/fuzz/corpus/g2p_tokenize/, one text a file), each tokenized with three
// lexicons (CMUdict, none, one that has every word, so that the branches that
// ask the lexicon are all taken) and held to the tokenizer's invariants
// (checkTokens). A finding is written to the findings folder, one file a text.
//
//   node tests/fuzz/g2p_tokenize.mjs [--executions N] [--seconds S] [--seed S] [--findings DIR]
//
// tests/node/g2p-tokenize.test.mjs runs it briefly in every test run;
// docs/reliability.md records the long runs.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tokenize } from '../../models/g2p/tokenize.js';
import { loadLexicon } from '../../models/g2p/lexicon.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const CORPUS = join(HERE, 'corpus/g2p_tokenize');

const KINDS = new Set(['word', 'number', 'punctuation', 'unreadable']);
const GAP = /^[\s\p{Cc}\p{Cf}-]*$/u;
const isHigh = (u) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u) => u >= 0xdc00 && u <= 0xdfff;
/** Whether offset i falls between the two halves of a surrogate pair. */
const splitsPair = (text, i) => i > 0 && i < text.length && isHigh(text.charCodeAt(i - 1)) && isLow(text.charCodeAt(i));

/**
 * What the tokens of `text` break of the tokenizer's promises, or null: each token's
 * offsets lie in the text, slice back to its text and split no surrogate pair; tokens
 * come in order without overlap; what lies between them (and before the first and
 * after the last) is white space, invisible format characters, or hyphens joining two
 * tokens; each kind carries what it should (a word a lower-case key with
 * a letter, a number its words).
 */
export function checkTokens(text, tokens) {
  if (!Array.isArray(tokens)) return 'tokens are not an array';
  let covered = 0;
  const ends = new Set(tokens.map((t) => t?.end));
  const starts = new Set(tokens.map((t) => t?.start));
  const gap = (from, to) => {
    const between = text.slice(from, to);
    if (!GAP.test(between)) return `characters outside every token at ${from}..${to}: ${JSON.stringify(between)}`;
    // A hyphen outside every token joins the token it follows to the one after it.
    for (let i = from; i < to; i++) {
      if (text[i] === '-' && !(ends.has(i) && starts.has(i + 1))) return `a hyphen at ${i} outside every token joins nothing`;
    }
    return null;
  };
  for (const [n, t] of tokens.entries()) {
    const where = `token ${n} ${JSON.stringify(t?.text)}`;
    if (!KINDS.has(t?.kind)) return `${where}: kind ${JSON.stringify(t?.kind)}`;
    if (!Number.isInteger(t.start) || !Number.isInteger(t.end)) return `${where}: offsets ${t.start}, ${t.end} are not integers`;
    if (t.start < covered) return `${where}: starts at ${t.start}, before the previous token's end ${covered}`;
    if (t.end <= t.start) return `${where}: empty or reversed (${t.start}..${t.end})`;
    if (t.end > text.length) return `${where}: ends at ${t.end}, past the text's end ${text.length}`;
    if (text.slice(t.start, t.end) !== t.text) return `${where}: offsets ${t.start}..${t.end} slice ${JSON.stringify(text.slice(t.start, t.end))}`;
    if (splitsPair(text, t.start) || splitsPair(text, t.end)) return `${where}: splits a surrogate pair`;
    const g = gap(covered, t.start);
    if (g) return g;
    if (t.kind === 'word' && !(typeof t.key === 'string' && /^[a-z'.-]+$/.test(t.key) && /[a-z]/.test(t.key))) return `${where}: word key ${JSON.stringify(t.key)} has no letter`;
    if (t.kind === 'number' && !(Array.isArray(t.words) && t.words.length && t.words.every((w) => /^[a-z]+(?:-[a-z]+)*$/.test(w)))) return `${where}: number words ${JSON.stringify(t.words)}`;
    if (t.kind === 'punctuation' && [...t.text].some((c) => c !== t.text[0])) return `${where}: punctuation mixes characters`;
    covered = t.end;
  }
  return gap(covered, text.length);
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// What texts are made of: words the lexicon has and lacks, contractions, titles,
// numbers of every form the tokenizer reads, punctuation, apostrophes of every
// kind, letters of other alphabets, marks, emoji, lone surrogates, white space,
// controls and invisible format characters.
const PIECES = {
  word: ['hello', 'world', 'Kubernetes', 'colonel', 'it\'s', 'don\'t', 'O\'Brien', 'students', 'em', 'cause', 'goin', 'x', 'ray', 'co', 'op',
    'state', 'of', 'the', 'art', 'Dr', 'St', 'Mr', 'Mrs', 'Prof', 'vs', 'Ave', 'a', 'I', 'u', 's', 'am', 'pm', 'naïve', 'café', 'HELLO',
    'zorblax', 'st', 'nd', 'rd', 'th', 'e', 'toString', 'constructor', '__proto__', 'z'.repeat(50)],
  number: ['0', '7', '42', '007', '1,234', '1,234,567', '12,34', '3.14', '.25', '1.', '$5', '$5.50', '£2.5', '€1', '$', '1st', '2nd', '21st',
    '4th', '1990s', '80\'s', '50%', '-7', '-1st', '1000000000000000', '99999999999999999999', '2026', '1e5', '0x1F'],
  punctuation: ['.', ',', '!', '?', '...', ';', ':', '(', ')', '"', '“', '”', '«', '»', '–', '—', '-', '--', '/', '+', '=', '&', '@', '#', '*', '_', '<', '>', '¥', '©', '°'],
  apostrophe: ['\'', '’', 'ʼ', 'ʻ', '‘', '`', '´', 'ʼʼ', '\'\''],
  unicode: ['é', 'ß', 'ﬁ', '日本語', 'Привет', 'Ω', '𝐀', '𝟙', '\u0301', 'e\u0301', '😀', '👩‍💻', '\uD800', '\uDC00', '\uDBFF\uDFFF', 'ǅ', 'İ', 'ı', '١٢'],
  space: [' ', '  ', '\n', '\t', '\r\n', '\u00A0', '\u2028', '\u200B', '\u00AD', '\u200C', '\u200D', '\u2060', '\u200E', '\uFEFF', '\0', '\x7F'],
};
const GROUPS = Object.keys(PIECES);

/** One random piece of text. */
export function piece(rnd) {
  const pool = PIECES[GROUPS[Math.floor(rnd() * GROUPS.length)]];
  return pool[Math.floor(rnd() * pool.length)];
}

/** A random text of up to `max` pieces, usually separated by spaces. */
export function randomText(rnd, max = 24) {
  let out = '';
  const n = Math.floor(rnd() * (max + 1));
  for (let i = 0; i < n; i++) out += (rnd() < 0.5 ? ' ' : '') + piece(rnd);
  return out;
}

/** A text changed in one to four places: pieces inserted, ranges deleted, duplicated or spliced from another text, case changed. */
export function mutate(rnd, text, others) {
  let t = text;
  const at = () => Math.floor(rnd() * (t.length + 1));
  for (let k = 1 + Math.floor(rnd() * 4); k > 0; k--) {
    const i = at();
    const j = Math.min(t.length, i + Math.floor(rnd() * 8));
    switch (Math.floor(rnd() * 7)) {
      case 0: t = t.slice(0, i) + piece(rnd) + t.slice(i); break;
      case 1: t = t.slice(0, i) + t.slice(j); break;
      case 2: t = t.slice(0, j) + t.slice(i, j) + t.slice(j); break;
      case 3: {
        const o = others[Math.floor(rnd() * others.length)] ?? '';
        const s = Math.floor(rnd() * (o.length + 1));
        t = t.slice(0, i) + o.slice(s, s + 1 + Math.floor(rnd() * 16)) + t.slice(i);
        break;
      }
      case 4: t = t.slice(0, i) + t.slice(i, j).toUpperCase() + t.slice(j); break;
      case 5: t = t.slice(0, i) + String.fromCharCode(Math.floor(rnd() * 0x10000)) + t.slice(i + 1); break;
      default: t = t.slice(0, i) + t.slice(i, j).split('').reverse().join('') + t.slice(j);
    }
  }
  return t.length > 4096 ? t.slice(0, 4096) : t;
}

/** The committed corpus's texts. */
export function readCorpus(dir = CORPUS) {
  return readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), 'utf8'));
}

/** One text tokenized with each lexicon: the first broken promise, or null. */
export function checkText(text, lexicons) {
  for (const [name, has] of lexicons) {
    let tokens;
    try {
      tokens = tokenize(text, has);
    } catch (e) {
      // The tokenizer promises no error at all; a typed one (a kind) would at least be an answer.
      if (typeof e?.kind === 'string') continue;
      return `with ${name}: threw ${e?.stack ?? e}`;
    }
    const broken = checkTokens(text, tokens);
    if (broken) return `with ${name}: ${broken}`;
  }
  return null;
}

/** The three lexicons each text is tokenized with. */
export async function lexicons() {
  const cmudict = await loadLexicon();
  return [['CMUdict', (k) => cmudict.has(k)], ['no lexicon', () => false], ['every word', () => true]];
}

/**
 * Runs until `executions` texts (each tokenized three times) or `seconds` have
 * passed; half are random, half mutations of the corpus or of earlier texts.
 * Resolves to { executions, ms, findings: [{ text, problem }] }.
 */
export async function fuzz({ executions = Infinity, seconds = Infinity, seed = 1, corpus = readCorpus(), onFinding } = {}) {
  const rnd = random(seed);
  const lex = await lexicons();
  const findings = [];
  const pool = [...corpus];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let n = 0;
  const test = (text) => {
    n++;
    const problem = checkText(text, lex);
    if (problem) {
      findings.push({ text, problem });
      onFinding?.({ text, problem });
    }
  };
  for (const text of corpus) test(text);
  while (n < executions && (n % 256 || performance.now() < deadline)) {
    const text = rnd() < 0.5 || !pool.length ? randomText(rnd) : mutate(rnd, pool[Math.floor(rnd() * pool.length)], pool);
    test(text);
    // Keep some mutants as parents: mutations build on mutations.
    if (rnd() < 0.01) {
      if (pool.length < corpus.length + 256) pool.push(text);
      else pool[corpus.length + Math.floor(rnd() * 256)] = text;
    }
  }
  return { executions: n, ms: performance.now() - started, findings };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const dir = arg('findings', 'build/fuzz-findings');
  const result = await fuzz({
    executions: Number(arg('executions', Infinity)),
    seconds: Number(arg('seconds', Infinity)),
    seed: Number(arg('seed', 1)),
    onFinding: ({ text, problem }) => {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `g2p_tokenize-${Date.now()}-${Math.random().toString(16).slice(2, 8)}.txt`);
      writeFileSync(file, text);
      console.log(`finding: ${problem}\n  text ${JSON.stringify(text)} → ${file}`);
    },
  });
  console.log(`g2p_tokenize: ${result.executions.toLocaleString('en')} executions in ${(result.ms / 1000).toFixed(1)} s, `
    + `${result.findings.length} finding(s)`);
  process.exitCode = result.findings.length ? 1 : 0;
}
