#!/usr/bin/env node
// Realistic text, judged item by item (tests/fixtures/g2p/paragraphs.json): our
// phonemizer (the packed package, as a user installs it), npm `phonemize` and
// eSpeak NG (npm `phonemizer`, compare only) each read every paragraph; an item
// is right when the system's IPA of the paragraph, brought to one broad
// transcription (bench/g2p-broad.mjs), holds one of the item's readings. Writes
// the items each system got wrong into the fixture (`wrong`; the Node tests hold
// ours to it) and a table per category into docs/g2p-comparison.md (the
// section between the PARAGRAPHS markers).
//
//   node bench/g2p-paragraphs.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installPackage } from '../tests/node/helpers.mjs';
import { pronunciationsOf, readPackage } from '../scripts/build-lexicon.mjs';
import { broadString, readingPattern } from './g2p-broad.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'bench/g2p');
if (!existsSync(join(benchDir, 'node_modules/phonemize')) || !existsSync(join(benchDir, 'node_modules/phonemizer'))) {
  execFileSync('npm', ['install', '--prefix', benchDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
const benchRequire = createRequire(join(benchDir, 'package.json'));
const FIXTURE = join(root, 'tests/fixtures/g2p/paragraphs.json');
const DOC = join(root, 'docs/g2p-comparison.md');
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8'));

const pkg = installPackage();
const { arpabetToIpa, createPhonemizer } = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
const cmudict = pronunciationsOf((await readPackage()).dictionary);

const readingRegex = (reading) => readingPattern(reading, cmudict, arpabetToIpa);

// ---------------------------------------------------------------- the systems
const ours = await createPhonemizer();
const phonemize = benchRequire('phonemize');
const espeak = await import(pathToFileURL(benchRequire.resolve('phonemizer')).href);
const systems = {
  ours: async (text) => (await ours.phonemize(text)).ipa,
  phonemize: async (text) => phonemize.toIPA(text),
  espeak: async (text) => (await espeak.phonemize(text, 'en-us')).join(' '),
};
const NAMES = { ours: 'seq2seq-wasm-models/g2p', phonemize: 'phonemize', espeak: 'eSpeak NG (phonemizer)' };

const wrong = Object.fromEntries(Object.keys(systems).map((s) => [s, []]));
const totals = {};
for (const { text, items } of fixture.paragraphs) {
  const outputs = {};
  for (const [name, run] of Object.entries(systems)) outputs[name] = broadString(await run(text));
  for (const [category, span, reading] of items) {
    totals[category] = (totals[category] ?? 0) + 1;
    const re = readingRegex(reading);
    for (const name of Object.keys(systems)) if (!re.test(outputs[name])) wrong[name].push(`${category}: ${span}`);
  }
}
ours.delete();

// ---------------------------------------------------------------- write
fixture.wrong = wrong;
writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
const categories = Object.keys(totals);
const count = (name, c) => wrong[name].filter((w) => w.startsWith(`${c}: `)).length;
const lines = [
  '## Realistic text, per category',
  '',
  `${fixture.paragraphs.length} paragraphs written for this comparison (names, brands, acronyms, homographs, dates, times, money,`,
  `phone numbers, URLs, abbreviations, units), ${Object.values(totals).reduce((a, b) => a + b, 0)} items judged: \`tests/fixtures/g2p/paragraphs.json\`, written by`,
  '`node bench/g2p-paragraphs.mjs`. An item is right when the system\'s IPA of its paragraph, in the broad',
  'transcription above, holds one of the item\'s readings (CMUdict\'s pronunciations of the words said, letter',
  'names for spelled letters). Errors per category (fewer is better):',
  '',
  `| category | items | ${Object.keys(systems).map((s) => NAMES[s]).join(' | ')} |`,
  `| --- | ---: | ${Object.keys(systems).map(() => '---:').join(' | ')} |`,
  ...categories.map((c) => `| ${c} | ${totals[c]} | ${Object.keys(systems).map((s) => count(s, c)).join(' | ')} |`),
  `| all | ${Object.values(totals).reduce((a, b) => a + b, 0)} | ${Object.keys(systems).map((s) => wrong[s].length).join(' | ')} |`,
  '',
  `Ours wrong: ${wrong.ours.join('; ') || 'none'}.`,
  '',
];
const section = `<!-- PARAGRAPHS: written by bench/g2p-paragraphs.mjs -->\n${lines.join('\n')}<!-- /PARAGRAPHS -->\n`;
const doc = readFileSync(DOC, 'utf8');
const marked = /<!-- PARAGRAPHS:[\s\S]*?<!-- \/PARAGRAPHS -->\n/;
writeFileSync(DOC, marked.test(doc) ? doc.replace(marked, section) : `${doc.trimEnd()}\n\n${section}`);
console.log(lines.join('\n'));
