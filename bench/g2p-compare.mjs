#!/usr/bin/env node
// The phonemizer (seq2seq-wasm-models/g2p) against the English G2P a web developer
// finds on npm: `phonemize` (rules and a lexicon, MIT) and `phonemizer` (eSpeak NG
// in WebAssembly). Writes docs/g2p-comparison.md from one run:
//
//   node bench/g2p-compare.mjs [--words N] [--out docs/g2p-comparison.md]
//
// The two others are devDependencies of this benchmark only (bench/g2p/package.json),
// installed on demand into bench/g2p/node_modules; ours are the repository's two
// packages packed and installed as a user gets them (tests/node/helpers.mjs).
//
// Accuracy: the CMUdict 0.7b test split (models/data/cmudict-0.7b.test, 11,994
// words), each word given alone, in lower case, as the text. Our lexicon is built
// without the test words (scripts/build-lexicon.mjs, `exclude`), so that every
// test word goes through the model, as a word CMUdict lacks would. Scored two ways:
//   ARPAbet   stress-free, against the split's references (WER: the output is none
//             of them; PER: edits to the closest over its length: web/shared/metrics.js).
//             phonemize's ARPAbet has symbols CMUdict does not use, mapped by
//             PHONEMIZE_ARPABET below. eSpeak writes IPA only, and its IPA does not
//             map onto ARPAbet one to one (a flap ɾ is T or D, ᵻ is IH or AH, ʔ is a
//             T), so it is not scored this way.
//   IPA       each system's own IPA, against the references in IPA (ipa.js's table,
//             stress-free), both brought to one broad transcription (BROAD below:
//             no stress or length marks, ʌ as ə and ɝ as ɚ, since stress-free
//             references cannot tell them apart), where a flap matches t or d, ᵻ
//             matches ɪ or ə, ʔ matches t, and a syllabic n̩ is ən.
// Speed: ms per word, one word per call, in this Node process, after one warm-up
// word; each system's first call (loading) timed apart.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { installPackage } from '../tests/node/helpers.mjs';
import { buildLexicon } from '../scripts/build-lexicon.mjs';
import { measure, parseReferences, rates } from '../web/shared/metrics.js';
import { ALSO, broadIpa } from './g2p-broad.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { words: { type: 'string' }, out: { type: 'string', default: 'docs/g2p-comparison.md' } } });

// ---------------------------------------------------------------- the systems
const benchDir = join(root, 'bench/g2p');
if (!existsSync(join(benchDir, 'node_modules/phonemize')) || !existsSync(join(benchDir, 'node_modules/phonemizer'))) {
  console.error('installing bench/g2p (phonemize, phonemizer)…');
  execFileSync('npm', ['install', '--prefix', benchDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
const benchRequire = createRequire(join(benchDir, 'package.json'));
const installed = (name) => join(benchDir, 'node_modules', name);
const versionOf = (name) => JSON.parse(readFileSync(join(installed(name), 'package.json'), 'utf8')).version;

const pkg = installPackage();
const g2pUrl = await pkg.resolve('seq2seq-wasm-models/g2p');
const { parseLexicon } = await import(new URL('./lexicon.js', g2pUrl).href);

const testText = readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8');
const refs = parseReferences(testText);
const words = [...refs.keys()].slice(0, args.words ? Number(args.words) : undefined);

// phonemize's ARPAbet symbols outside CMUdict's 39, as CMUdict writes the sounds.
const PHONEMIZE_ARPABET = { AX: ['AH'], AXR: ['ER'], IX: ['IH'], UX: ['UW'], EL: ['L'], EM: ['AH', 'M'], EN: ['AH', 'N'], NX: ['N'], TS: ['T', 'S'], WH: ['W'], DX: ['T'], Q: [] };

// ---------------------------------------------------------------- IPA, broad: bench/g2p-broad.mjs

function ipaMeasure(output, references) {
  const h = broadIpa(output);
  let best = null;
  let right = false;
  for (const r of references) {
    const t = broadIpa(r);
    const d = distance(h, t);
    if (d === 0 && h.length === t.length) right = true;
    if (!best || d < best.edits || (d === best.edits && t.length < best.length)) best = { edits: d, length: t.length };
  }
  return { right, ...best };
}
function distance(h, r) {
  const same = (a, b) => a === b || (ALSO[a]?.includes(b) ?? false);
  let prev = Array.from({ length: r.length + 1 }, (_, j) => j);
  for (let i = 1; i <= h.length; i++) {
    const cur = [i];
    for (let j = 1; j <= r.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same(h[i - 1], r[j - 1]) ? 0 : 1));
    prev = cur;
  }
  return prev[r.length];
}

// ---------------------------------------------------------------- run
const { arpabetToIpa, createPhonemizer, stripStress } = await import(g2pUrl);
const refIpa = new Map([...refs].map(([w, list]) => [w, list.map((p) => p.map((x) => arpabetToIpa([x])).join(''))]));

function timed(f) {
  const t0 = performance.now();
  const v = f();
  return v instanceof Promise ? v.then((x) => [x, performance.now() - t0]) : [v, performance.now() - t0];
}

const systems = [];

// Ours: the phonemizer, its lexicon built without the test words.
{
  const testWords = new Set(words.map((w) => w.toLowerCase()));
  const data = await buildLexicon({ exclude: testWords });
  const lexicon = parseLexicon(data);
  const [g2p, loadMs] = await timed(() => createPhonemizer({ lexicon }));
  const full = await createPhonemizer();
  const run = async (w) => {
    const r = await g2p.phonemize(w);
    const spoken = r.tokens.filter((t) => t.phonemes.length);
    return { arpabet: stripStress(spoken.flatMap((t) => t.phonemes)), ipa: spoken.map((t) => t.ipa).join(''), fromLexicon: spoken.some((t) => t.source !== 'model') };
  };
  systems.push({
    name: 'seq2seq-wasm-models/g2p', short: 'ours', version: JSON.parse(readFileSync(join(pkg.modelsDir, 'package.json'), 'utf8')).version,
    licence: 'MIT engine, BSD-2-Clause models and CMUdict', loadMs, run, arpabet: true,
    paragraph: async (text) => { const r = await full.phonemize(text); return { arpabet: r.arpabet, ipa: r.ipa }; },
    // The words as texts of at most 50,000 characters: one decodeBatch call each.
    batch: async (list) => {
      const texts = [];
      for (const w of list) {
        if (!texts.length || texts.at(-1).length + w.length + 1 > 50_000) texts.push(w);
        else texts[texts.length - 1] += ` ${w}`;
      }
      const t0 = performance.now();
      for (const text of texts) await g2p.phonemize(text);
      return (performance.now() - t0) / list.length;
    },
    size: installSize([pkg.packageDir, pkg.modelsDir]),
    note: `lexicon without the ${words.length} test words: ${lexicon.size} of ${full.lexicon.size} words`,
  });
}

// phonemize: its CommonJS build (the ES module build does not load in Node 20: a JSON import without attributes).
{
  const [phonemize, loadMs] = timed(() => benchRequire('phonemize'));
  const arpabetOf = (text) => phonemize.toARPABET(text).split(/\s+/).filter(Boolean)
    .flatMap((p) => { const b = p.replace(/\d$/, ''); return PHONEMIZE_ARPABET[b] ?? [b]; });
  // Its "mined exception lexicon" (word → IPA), which the words it holds are read from.
  const seen = new Set(Object.keys(JSON.parse(readFileSync(join(installed('phonemize'), 'dist/en/exceptions.json'), 'utf8'))).map((w) => w.toLowerCase()));
  systems.push({
    name: 'phonemize', short: 'phonemize', seen, version: versionOf('phonemize'), licence: 'MIT', loadMs, arpabet: true,
    run: (w) => ({ arpabet: arpabetOf(w), ipa: phonemize.toIPA(w) }),
    paragraph: (text) => ({ arpabet: phonemize.toARPABET(text), ipa: phonemize.toIPA(text) }),
    size: installSize(['phonemize', 'number-to-words', 'pinyin-pro'].map(installed)),
  });
}

// phonemizer: eSpeak NG compiled to WebAssembly, American English.
{
  const [espeak, loadMs] = await timed(async () => {
    const m = await import(pathToFileURL(benchRequire.resolve('phonemizer')).href);
    await m.phonemize('a', 'en-us');   // the WebAssembly is instantiated on the first call
    return m;
  });
  systems.push({
    name: 'phonemizer (eSpeak NG)', short: 'eSpeak', version: versionOf('phonemizer'), licence: 'Apache-2.0 wrapper around eSpeak NG (GPL-3.0-or-later)', loadMs, arpabet: false,
    run: async (w) => ({ ipa: (await espeak.phonemize(w, 'en-us')).join(' ') }),
    paragraph: async (text) => ({ ipa: (await espeak.phonemize(text, 'en-us')).join(' ') }),
    size: installSize([installed('phonemizer')]),
  });
}

function installSize(dirs) {
  const walk = (d) => readdirSync(d, { withFileTypes: true }).reduce((a, e) => a + (e.isDirectory() ? walk(join(d, e.name)) : statSync(join(d, e.name)).size), 0);
  return dirs.reduce((a, d) => a + walk(d), 0);
}

for (const s of systems) {
  console.error(`${s.name}: ${words.length} words…`);
  const arpa = [];
  const ipa = [];
  let errors = 0;
  let lexiconWords = 0;
  await s.run('warm');
  const t0 = performance.now();
  for (const w of words) {
    let out;
    try {
      out = await s.run(w.toLowerCase());
    } catch {
      errors++;
      out = { arpabet: [], ipa: '' };
    }
    if (out.fromLexicon) lexiconWords++;
    if (s.arpabet) arpa.push(measure(out.arpabet, refs.get(w)));
    ipa.push(ipaMeasure(out.ipa, refIpa.get(w)));
  }
  s.msPerWord = (performance.now() - t0) / words.length;
  s.arpabetRates = s.arpabet ? rates(arpa) : null;
  s.ipaRates = rates(ipa);
  if (s.seen) {
    const unseen = words.map((w, i) => !s.seen.has(w.toLowerCase()) && i).filter((i) => i !== false);
    s.unseen = { words: unseen.length, arpabet: rates(unseen.map((i) => arpa[i])), ipa: rates(unseen.map((i) => ipa[i])) };
  }
  if (s.batch) s.batchMsPerWord = await s.batch(words.map((w) => w.toLowerCase()));
  s.errors = errors;
  s.lexiconWords = lexiconWords;
  console.error(`  ${s.msPerWord.toFixed(3)} ms/word, ARPAbet ${s.arpabetRates ? `${s.arpabetRates.wer.toFixed(2)} / ${s.arpabetRates.per.toFixed(2)}` : '-'}, IPA ${s.ipaRates.wer.toFixed(2)} / ${s.ipaRates.per.toFixed(2)}, ${errors} threw`);
}

const PARAGRAPH = 'Hello, world! It\'s 2026 and the colonel\'s Kubernetes cluster is down. Dr. O\'Brien paid $3.50 for 2 lattes on May 21st; '
  + 'that\'s 15% more than in 1999. Don\'t read the README: it\'ll only confuse Ms. Nguyen\'s students.';
for (const s of systems) {
  try {
    s.paragraphOut = await s.paragraph(PARAGRAPH);
  } catch (e) {
    s.paragraphOut = { error: `${e.name}: ${e.message}` };
  }
}

// The part of our install the phonemizer reads: the engine, g2p/ and its model.
const phonemizerSize = installSize([pkg.packageDir, join(pkg.modelsDir, 'g2p')]) + statSync(join(pkg.modelsDir, 'g2p-transformer.safetensors')).size;
const modelCount = readdirSync(pkg.modelsDir).filter((f) => f.endsWith('.safetensors')).length;

// ---------------------------------------------------------------- the page
const fmt = (x, d = 2) => (x == null ? '—' : x.toFixed(d));
const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const ph = systems.find((x) => x.short === 'phonemize');
const phonemizeSeen = `phonemize's exception lexicon (\`dist/en/exceptions.json\`, ${ph.seen.size.toLocaleString('en-US')} words with their IPA) holds ${(words.length - ph.unseen.words).toLocaleString('en-US')} of them; on the other ${ph.unseen.words.toLocaleString('en-US')} it scores ARPAbet WER ${fmt(ph.unseen.arpabet.wer)} % (PER ${fmt(ph.unseen.arpabet.per)} %), IPA WER ${fmt(ph.unseen.ipa.wer)} % (PER ${fmt(ph.unseen.ipa.per)} %)`;
const rows = systems.map((s) => `| ${s.name} ${s.version} | ${fmt(s.arpabetRates?.wer)} | ${fmt(s.arpabetRates?.per)} | ${fmt(s.ipaRates.wer)} | ${fmt(s.ipaRates.per)} | ${fmt(s.msPerWord, 3)} | ${Math.round(s.loadMs)} | ${mb(s.size)} | ${s.licence} |`);
const out = [];
for (const s of systems) {
  const p = s.paragraphOut;
  out.push(`**${s.name}**`, '', ...(p.error ? [`throws: \`${p.error}\``] : [
    ...(p.arpabet ? ['```text', p.arpabet, '```'] : []), '```text', p.ipa, '```',
  ]), '');
}
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const doc = `# Our phonemizer against the G2P on npm

Written by \`bench/g2p-compare.mjs\` from one run; rerun it with

\`\`\`sh
node bench/g2p-compare.mjs    # installs bench/g2p (phonemize, phonemizer) on first use, packs ours as a user gets it
\`\`\`

Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} × ${cpu}, load average ${loadavg()[0].toFixed(1)} at the end
(a shared machine: the times are this run's, within perhaps 30 % of another's).

## Accuracy and cost

The CMUdict 0.7b test split: ${words.length.toLocaleString('en-US')} words, each given alone in lower case. **Ours
never sees a test word in its lexicon**: the lexicon is built without them (${systems[0].note}),
so every test word is decoded by g2p-transformer (beam 5)${systems[0].lexiconWords ? `, but for ${systems[0].lexiconWords} read in part from the lexicon (a possessive of a word it has, a part of a hyphenated word)` : ''}.
The others have lexicons of their own that hold test words: ${phonemizeSeen}; eSpeak NG has its own
dictionary and rules, not measured here. On words a system has stored, its score is a lookup, not
a prediction; and what phonemize's rules were fitted on is not said in its README ("rules + mined
exception lexicon + phonotactics"), so its score on the other words may be one too.

| system | ARPAbet WER % | ARPAbet PER % | IPA WER % | IPA PER % | ms/word | load ms | installed | licence |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows.join('\n')}

- **ARPAbet**: stress-free, against the split's references (a word is wrong if its output is none of
  them; PER is the edits to the closest over its length, as the model cards score). phonemize's
  symbols outside CMUdict's 39 are mapped first: ${Object.entries(PHONEMIZE_ARPABET).map(([k, v]) => `${k} → ${v.join(' ') || 'nothing'}`).join(', ')};
  its stress digits (which it also puts on consonants) are dropped. eSpeak writes only IPA, whose
  symbols do not map onto ARPAbet one to one (the flap ɾ is T or D, ᵻ is IH or AH, the glottal
  stop ʔ is a T), so it has no ARPAbet score.
- **IPA**: each system's own IPA against the references in IPA (our ARPAbet→IPA table), both
  broad: no stress, length or syllable marks; ʌ as ə and ɝ as ɚ (stress-free references cannot
  tell them apart); ɫ as l, r as ɹ, ɐ as ə, eSpeak's oː (before ɹ) as ɔ, an r-coloured vowel
  with ɹ after it (ɚɹ, ɜːɹ) as ɚ; a syllabic n̩ as ən; and a candidate's ɾ matches t or
  d, ᵻ matches ɪ or ə, ʔ matches t.
- **ms/word**: one word per call in this process, the ${words.length.toLocaleString('en-US')} words one after another
  (ours: one \`phonemize\`, so one \`decodeBatch\` of one word, per call; the same words as
  texts of 50,000 characters, one batch each, take ${fmt(systems[0].batchMsPerWord, 3)} ms/word). **load**: the first call,
  model and lexicon included.
- **installed**: the packages on disk: ours is the engine and the whole models package (${modelCount}
  models; the phonemizer needs the engine, \`g2p/\` and g2p-transformer, ${mb(phonemizerSize)}).
  phonemize with its dependencies (number-to-words, pinyin-pro).
- Thrown: ${systems.map((s) => `${s.short} ${s.errors}`).join(', ')} of the test words (a throw counts as a wrong, empty output).

## A paragraph of mixed text

\`${PARAGRAPH}\`

${out.join('\n')}`;

// The sections other benchmarks write (bench/g2p-paragraphs.mjs) and what follows them are kept.
const previous = existsSync(resolve(root, args.out)) ? readFileSync(resolve(root, args.out), 'utf8') : '';
const kept = previous.indexOf('<!-- PARAGRAPHS');
writeFileSync(resolve(root, args.out), kept < 0 ? doc : `${doc.trimEnd()}\n\n${previous.slice(kept)}`);
console.error(`wrote ${args.out}`);
