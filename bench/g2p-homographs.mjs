#!/usr/bin/env node
// The phonemizer's choice among a heteronym's readings (models/g2p/homographs.js),
// with its own tagger and with three part-of-speech taggers from npm in its place:
// compromise, wink-nlp (with wink-eng-lite-web-model) and en-pos. Each tagger's
// tag of the heteronym is brought to the module's four (N noun, V verb, D past
// tense or participle, J adjective) and goes through the same TABLE and the same
// words-nearby rules, so that only the tagger differs. Prints, per tagger: the
// share of the homograph test set read right (tests/fixtures/g2p/homographs.json:
// the sentences the rules were shaped on, and those written afterwards), the
// time per sentence, and the size a browser downloads (esbuild bundle, minified,
// gzipped).
//
//   npm install --prefix bench/g2p     # the taggers, once
//   node bench/g2p-homographs.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'bench/g2p');
if (!['compromise', 'wink-nlp', 'wink-eng-lite-web-model', 'en-pos'].every((p) => existsSync(join(benchDir, 'node_modules', p)))) {
  console.error('installing bench/g2p…');
  execFileSync('npm', ['install', '--prefix', benchDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
const benchRequire = createRequire(join(benchDir, 'package.json'));
const g2pDir = join(root, 'models/g2p');
const { chooseReading, tagAt } = await import(pathToFileURL(join(g2pDir, 'homographs.js')).href);
const { readText } = await import(pathToFileURL(join(g2pDir, 'normalize.js')).href);
const { parseLexicon } = await import(pathToFileURL(join(g2pDir, 'lexicon.js')).href);
const lexicon = parseLexicon(await import(pathToFileURL(join(g2pDir, 'lexicon-data.js')).href));
const has = (k) => lexicon.has(k);
const fixture = JSON.parse(readFileSync(join(root, 'tests/fixtures/g2p/homographs.json'), 'utf8'));

// ---------------------------------------------------------------- the taggers, each: sentence, word → N | V | D | J
const nlp = benchRequire('compromise');
const winkNLP = benchRequire('wink-nlp');
const winkModel = benchRequire('wink-eng-lite-web-model');
const { Tag } = benchRequire('en-pos');
const wink = winkNLP(winkModel);

const taggers = {
  'ours (homographs.js)': null,
  compromise: (sentence, word) => {
    const term = nlp(sentence).json()[0].terms.find((t) => t.normal === word || t.text.toLowerCase() === word);
    const tags = new Set(term?.tags ?? []);
    if (tags.has('PastTense') || tags.has('Participle')) return 'D';
    if (tags.has('Verb')) return 'V';
    if (tags.has('Adjective')) return 'J';
    return 'N';
  },
  'wink-nlp': (sentence, word) => {
    const doc = wink.readDoc(sentence);
    const words = doc.tokens().out();
    const pos = doc.tokens().out(wink.its.pos);
    const tag = pos[words.findIndex((w) => w.toLowerCase() === word)];
    return tag === 'VERB' || tag === 'AUX' ? 'V' : tag === 'ADJ' ? 'J' : 'N';
  },
  'en-pos': (sentence, word) => {
    const words = sentence.replace(/([.,!?;:])/g, ' $1').split(/\s+/).filter(Boolean);
    const tags = new Tag(words).initial().smooth().tags;
    const tag = tags[words.findIndex((w) => w.toLowerCase() === word)] ?? '';
    return /^VB[DN]$/.test(tag) ? 'D' : /^VB/.test(tag) ? 'V' : /^JJ/.test(tag) ? 'J' : 'N';
  },
};

/** The share of sentences read right with this tagger, and ms per sentence. */
function score(sentences, tagger) {
  let right = 0;
  const t0 = performance.now();
  for (const [sentence, word, reading] of sentences) {
    const raw = readText(sentence, has);
    const words = raw.map((t) => (t.kind === 'word' ? t.key : t.kind === 'punctuation' ? null : t.text.toLowerCase()));
    const texts = raw.map((t) => t.text);
    const i = words.indexOf(word);
    const prons = lexicon.lookup(word);
    const tag = tagger ? (() => [tagger(sentence, word), 'tagger']) : tagAt;
    const choice = chooseReading(prons, words, texts, i, tag);
    if (choice && fixture.readings[word][reading].includes(prons[choice.index].join(' '))) right++;
  }
  return { right: right / sentences.length, ms: (performance.now() - t0) / sentences.length };
}

/** Bytes a browser downloads for a module: bundled, minified, gzipped. */
async function browserBytes(contents, resolveDir) {
  const out = await build({ stdin: { contents, resolveDir, loader: 'js' }, bundle: true, minify: true, write: false, format: 'esm', platform: 'browser', logLevel: 'silent' });
  return gzipSync(out.outputFiles[0].contents, { level: 9 }).length;
}
const sizes = {
  'ours (homographs.js)': await browserBytes(`export * from ${JSON.stringify(join(g2pDir, 'homographs.js'))};`, g2pDir),
  compromise: await browserBytes('export { default } from "compromise";', benchDir),
  'wink-nlp': await browserBytes('import w from "wink-nlp"; import m from "wink-eng-lite-web-model"; export default w(m);', benchDir),
  'en-pos': await browserBytes('export { Tag } from "en-pos";', benchDir),
};

console.log('| tagger | version | right (shaped on, 174) | right (written after, 71) | ms/sentence | browser, gzipped |');
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const [name, tagger] of Object.entries(taggers)) {
  score(fixture.sentences.slice(0, 5), tagger);   // warm-up
  const a = score(fixture.sentences, tagger);
  const b = score(fixture.held_out, tagger);
  const version = tagger ? JSON.parse(readFileSync(join(benchDir, 'node_modules', name, 'package.json'), 'utf8')).version : '';
  console.log(`| ${name} | ${version} | ${(100 * a.right).toFixed(1)} % | ${(100 * b.right).toFixed(1)} % | ${((a.ms + b.ms) / 2).toFixed(2)} | ${(sizes[name] / 1024).toFixed(0)} KB |`);
}
