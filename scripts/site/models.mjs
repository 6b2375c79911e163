// The site's models: each model file of models/ (or of $SEQ2SEQ_WEB_MODELS) copied into
// models/, and its entry in models.json: the engine's own info() (ModelInfo, read by
// loading the file: model-info.mjs) with what the site adds, its id, file, whether it is
// a random-weight fixture, the example words it reads, the test WERs the models
// package measured (models/manifest.json), and how it was trained (its recipe's
// config: trainedBy below). A kind the folder lacks (autoregressive,
// CMLM, RNN) is filled in with the repository's test fixtures, so that every lane type
// has a model to decode with.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ATTENTION_SCORES, foldCase, sourceLetters } from '../../web/shared/lane-models.js';
import { StaleModuleError, modelInfo } from './model-info.mjs';
import { modelEntry } from '../../web/shared/model-entry.js';

// Example words, shown as buttons when every letter is in the model's alphabet.
// Chosen to show something: silent letters, one spelling for several sounds,
// two pronunciations, held-out test words, made-up words. The first is the page's
// default: MIRAGE, a test word on which the default lanes disagree (greedy's
// M IH R AA ZH, beam's M ER AA ZH, the reference) at the notes' A/B step, alike in the
// shipped 4-bit file and the int8 file it was re-stored from (scripts/find-tour-words.mjs).
const EXAMPLES = ['MIRAGE', 'DELETE', 'PHONEME', 'KNIGHT', 'THROUGH', 'COLONEL', 'QUEUE', 'READ', 'CHARACTER', 'TOMATO',
  'ABBENHAUS', 'ZAKARIAN', 'BLORPTASTIC', 'SEQUENCE', 'WEBASSEMBLY',
  'CAFE', 'BADGE', 'FACADE', 'CABBAGE', 'DECADE', 'EGG', 'GAFFE', 'BEADED'];

/**
 * Copies the models into `out`/models and returns their entries, in the pickers' order.
 * `rules`: the training recipe's data rules (a model whose outputs carry stress digits
 * stays off the page, whose references are stress-free); `log` and `warn` say what was done.
 */
export async function siteModels(root, out, rules, { log = () => {}, warn = console.warn } = {}) {
  const dir = process.env.SEQ2SEQ_WEB_MODELS ?? join(root, 'models');
  const fixtures = {
    ar: join(root, 'tests/fixtures/ar_post_sin_tied_relu.safetensors'),
    nar: join(root, 'tests/fixtures/cmlm_pre_sin_tied_relu.safetensors'),
    // The RNN encoder-decoder, one per attention score.
    rnn: ATTENTION_SCORES.map((score) => join(root, `tests/fixtures/rnn_${score}.safetensors`)),
  };
  // What the package measured of each shipped model (written by scripts/make-models-manifest.mjs).
  const manifestPath = join(root, 'models/manifest.json');
  const measured = new Map(existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')).models.map((m) => [m.sha256, m]) : []);
  const recipes = trainedBy(root);
  const stress = new RegExp(rules.stress);
  const models = [];
  const add = async (path, fixture) => {
    let info;
    try {
      info = await modelInfo(path);
    } catch (e) {
      // A stale module is no bad model file: skipping every model would hide it.
      if (e instanceof StaleModuleError) throw e;
      warn(`build-web: skipping ${path}: ${e.message}`);
      return;
    }
    if (info.targetVocab.some((t) => stress.test(t))) {
      log(`models: ${basename(path)} left out (stress kept)`);
      return;
    }
    const id = basename(path, '.safetensors');
    const file = `models/${id}.safetensors`;
    mkdirSync(join(out, 'models'), { recursive: true });
    copyFileSync(path, join(out, file));
    const bytes = readFileSync(path);
    const alphabet = new Set(sourceLetters(info));
    const sha = createHash('sha256').update(bytes).digest('hex');
    const m = measured.get(sha);
    models.push(modelEntry(info, {
      id,
      file,
      fixture,
      examples: EXAMPLES.map((w) => foldCase(info, w)).filter((w) => [...w].every((c) => alphabet.has(c))),
      ...(m ? { testWer: m.testWer, testWerByLength: m.testWerByLength } : {}),
      ...(recipes.has(sha) ? { training: recipes.get(sha) } : {}),
    }));
  };
  const real = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.safetensors')).sort() : [];
  for (const f of real) await add(join(dir, f), false);
  if (!models.some((m) => m.autoregressive)) await add(fixtures.ar, true);
  if (!models.some((m) => !m.autoregressive)) await add(fixtures.nar, true);
  // The RNN fixtures (random weights, one per attention score) only when the folder has no
  // RNN at all: a comparison of trained and random models would teach nothing
  // (tests/browser/compare.test.mjs checks they are never mixed).
  if (!models.some((m) => m.arch === 'rnn')) for (const path of fixtures.rnn) if (existsSync(path)) await add(path, true);
  // Transformer, CMLM, then the RNNs in the order of their scores (one without
  // attention after the four); real models before fixtures.
  const archOrder = { transformer: 0, cmlm: 1, rnn: 2 };
  const scoreOrder = (m) => (m.attentionScore ? (ATTENTION_SCORES.indexOf(m.attentionScore) + ATTENTION_SCORES.length + 1) % (ATTENTION_SCORES.length + 1) : -1);
  models.sort((a, b) => (a.fixture - b.fixture) || ((archOrder[a.arch] ?? 9) - (archOrder[b.arch] ?? 9))
    || (scoreOrder(a) - scoreOrder(b)) || a.id.localeCompare(b.id));
  for (const m of models) log(`model ${m.id} (${m.arch}${m.fixture ? ', random-weight fixture' : ''}): ${m.fileBytes} bytes`);
  return models;
}

/**
 * How each shipped model was trained, by the sha256 of the file its recipe's chain
 * ships (models/train/configs/NAME.json): the training step's label smoothing, and for
 * a student of teachers the weight of distillation in its loss. The output block of
 * "Inside this step" explains the model's capped confidence by them.
 */
function trainedBy(root) {
  const recipes = new Map();
  const dir = join(root, 'models/train/configs');
  for (const f of existsSync(dir) ? readdirSync(dir).filter((x) => x.endsWith('.json')).sort() : []) {
    const c = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const train = (c.steps ?? []).filter((s) => (s.run ?? []).includes('--label-smoothing')).at(-1);
    if (!c.sha256 || !train) continue;
    const arg = (k) => (train.run.includes(k) ? Number(train.run[train.run.indexOf(k) + 1]) : undefined);
    const student = train.run[0] === 'train-student' || train.run.includes('--kd-targets');
    if (student && arg('--kd-weight') === undefined) throw new Error(`models/train/configs/${f}: a student's training step names no --kd-weight`);
    recipes.set(c.sha256, {
      config: `models/train/configs/${f}`,
      labelSmoothing: arg('--label-smoothing'),
      ...(student ? { distillWeight: arg('--kd-weight') } : {}),
    });
  }
  return recipes;
}
