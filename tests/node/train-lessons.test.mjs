// The Train mode's lessons (web/js/train-lessons.js) against real runs: each lesson's two
// runs trained by the packed package's trainer (seq2seq-wasm/train), their records, probes
// and info handed to measureLesson as the page hands them, and every number of every
// sentence held to the record or probe it came from; the sentence's key follows the
// numbers (records that say the opposite give the other key). The runs take the lessons'
// own configs, with fewer steps (and a smaller held-out set for the G2P ones) where the
// test needs only the sentence held to its numbers; the copy lesson runs whole and its
// claim is held: held-out names copied, none written without the copy mechanism. Also the
// tiny G2P data the G2P lessons train on (scripts/site/g2p-tiny.mjs): training-split
// words only.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { before, describe, test } from 'node:test';
import { ROOT, installPackage, join } from './helpers.mjs';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { DIAGONAL_THRESHOLD, LESSONS, REVERSE_TARGET, measureLesson, runConfig, trainingRate } from '../../web/js/train-lessons.js';
import { G2P_DATA } from '../../web/shared/train-data.js';
import { TINY_G2P, tinyG2pRows, writeTinyG2p } from '../../scripts/site/g2p-tiny.mjs';
import { dataRules, findCmudict } from '../../scripts/cmudict.mjs';

const pkg = installPackage();
let createTrainer;
let TRAINING_OPTION_TABLE;
before(async () => ({ createTrainer, TRAINING_OPTION_TABLE } = await pkg.importPackage('/train')));

const rules = dataRules(ROOT);
let rowsCache = null;
const g2pRows = () => (rowsCache ??= tinyG2pRows(ROOT, rules));
const g2pData = () => g2pRows().map(([w, p]) => `${w}\t${p}`);

const pct = (x) => Math.round(x * 1000) / 10;
const evals = (records) => records.filter((r) => typeof r.wordAccuracy === 'number');

// A run as the page keeps it: records without their probe, the probes in order, the info.
const runs = new Map();
async function train(config) {
  const key = JSON.stringify(config);
  if (!runs.has(key)) {
    const trainer = await createTrainer(config.task === 'g2p' ? { ...config, data: g2pData() } : config);
    const records = [];
    const probes = [];
    while (!trainer.done) {
      const { probe, ...record } = trainer.step(undefined, { probe: true });
      records.push(record);
      probes.push(probe);
    }
    const info = trainer.info;
    trainer.dispose();
    runs.set(key, { records, probes, info });
  }
  return runs.get(key);
}
/** A lesson's two runs, its configs with `change` over them. */
async function lessonRuns(id, change = {}) {
  const [a, b] = LESSONS[id].runs.map((r) => ({ ...runConfig(r), ...change }));
  return [await train(a), await train(b)];
}
// Fewer steps: enough for the curves to move, not for the lesson's end.
const SHORT_REVERSE = { steps: 400 };
const SHORT_G2P = { steps: 200, evalSize: 60 };

/** Every placeholder of the sentence's strings filled by a number or a word from params. */
function assertSentence(s) {
  assert.ok(Object.hasOwn(en, s.key) && Object.hasOwn(zh, s.key), `${s.key}: a string in both languages`);
  for (const name of [...en[s.key].matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
    const v = s.params[name];
    assert.ok((typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length > 0), `${s.key}: {${name}} = ${v}`);
  }
}
const keys = (m) => m.sentences.map((s) => s.key);
/** Records with `fields` replaced at the records `which` picks. */
const edit = (records, which, fields) => records.map((r) => (which(r) ? { ...r, ...fields } : r));

describe('the lessons', () => {
  test('each is two runs of one task, seed and step count that the trainer accepts, with the keys its page draws', async () => {
    const known = new Set(TRAINING_OPTION_TABLE.map((o) => o.js));
    for (const [id, lesson] of Object.entries(LESSONS)) {
      assert.equal(lesson.runs.length, 2, id);
      assert.ok(Object.hasOwn(en, lesson.titleKey), `${id} title`);
      for (const run of lesson.runs) {
        assert.ok(Object.hasOwn(en, run.labelKey), `${id} ${run.labelKey}`);
        const config = runConfig(run);
        assert.deepEqual(Object.keys(config).filter((k) => !known.has(k)), [], `${id}: options the trainer knows`);
        assert.equal(config.task, lesson.task);
        assert.equal(config.steps, lesson.steps);
        const trainer = await createTrainer(config.task === 'g2p' ? { ...config, data: g2pData() } : config);
        assert.equal(trainer.info.steps, lesson.steps);
        trainer.dispose();
      }
      assert.equal(lesson.data, lesson.task === 'g2p' ? G2P_DATA : undefined, `${id} data`);
      assert.throws(() => measureLesson(id, { records: 'no' }, { records: [] }), TypeError);
    }
    assert.throws(() => measureLesson('nope', { records: [] }, { records: [] }), /no lesson 'nope'/);
  });

  test('teacher forcing vs free running: the first mistake\'s aftermath and the gap, from run A\'s and B\'s evaluations', async () => {
    const [a, b] = await lessonRuns('forcing', SHORT_REVERSE);
    // Trained free-running: after the schedule's second step the decoder reads its own tokens.
    assert.ok(b.records.at(-1).trueTokenProbability === 0 && b.records.at(-1).ownTokenShare > 0, 'run B reads its own tokens');
    for (const r of evals(a.records).concat(evals(b.records))) {
      // Every held-out output that is not exact has a first wrong position, and only those.
      assert.equal(r.firstErrorCount, Math.round(r.heldOut * (1 - r.wordAccuracy)), `step ${r.step}`);
      for (const k of ['heldOutTokenAccuracy', 'freeTokenAccuracy', 'wrongAfterFirstError', 'forcedWrongAfterFirstError']) assert.ok(r[k] >= 0 && r[k] <= 1, `${k} ${r[k]}`);
    }
    const m = measureLesson('forcing', a, b);
    assert.equal(m.sentence, m.sentences[0]);
    m.sentences.forEach(assertSentence);
    const at = evals(a.records).find((r) => r.wordAccuracy >= 0.5) ?? evals(a.records).at(-1);
    assert.equal(m.step, at.step);
    assert.equal(m.exact, pct(at.wordAccuracy));
    assert.equal(m.errors, at.firstErrorCount);
    assert.ok(at.firstErrorCount > 0, 'run A still has wrong outputs where it first reaches half right');
    assert.equal(m.after, pct(at.wrongAfterFirstError));
    assert.equal(m.forced, pct(at.forcedWrongAfterFirstError));
    assert.equal(m.sentence.key, at.wrongAfterFirstError > at.forcedWrongAfterFirstError ? 'lesson.forcing.cascade' : 'lesson.forcing.noCascade');
    const gap = (records) => pct(evals(records).reduce((s, r) => s + r.heldOutTokenAccuracy - r.freeTokenAccuracy, 0) / evals(records).length);
    assert.equal(m.gapA, gap(a.records));
    assert.equal(m.gapB, gap(b.records));
    assert.equal(keys(m)[1], m.gapB < m.gapA ? 'lesson.forcing.gapNarrower' : 'lesson.forcing.gapNotNarrower');
    assert.equal(m.exactA, pct(evals(a.records).at(-1).wordAccuracy));
    for (const [run, records, step] of [['A', a.records, m.reachedStepA], ['B', b.records, m.reachedStepB]]) {
      const first = evals(records).find((r) => r.wordAccuracy >= REVERSE_TARGET);
      assert.equal(step, first?.step ?? null, run);
      assert.ok(keys(m).includes(first ? 'lesson.reached' : 'lesson.notReached'), run);
    }

    // The opposite numbers, the other sentences.
    const swapped = edit(a.records, (r) => r === at, { wrongAfterFirstError: at.forcedWrongAfterFirstError, forcedWrongAfterFirstError: at.wrongAfterFirstError });
    if (at.wrongAfterFirstError !== at.forcedWrongAfterFirstError) {
      assert.notEqual(measureLesson('forcing', { ...a, records: swapped }, b).sentence.key, m.sentence.key);
    }
    if (m.gapA !== m.gapB) assert.notEqual(keys(measureLesson('forcing', b, a))[1], keys(m)[1]);
    const allRight = edit(a.records, (r) => r === at, { firstErrorCount: 0 });
    assert.equal(measureLesson('forcing', { ...a, records: allRight }, b).sentence.key, 'lesson.forcing.noErrors');
    const never = a.records.map((r) => (typeof r.wordAccuracy === 'number' ? { ...r, wordAccuracy: Math.min(r.wordAccuracy, 0.9) } : r));
    assert.ok(keys(measureLesson('forcing', { ...a, records: never }, b)).includes('lesson.notReached'));
    // The page's form: the parts one by one.
    assert.deepEqual(measureLesson('forcing', a.records, b.records, a.probes, b.probes, a.info, b.info), m);
  });

  for (const id of ['scheduledSampling', 'scheduledSamplingRnn']) {
    test(`${id}: the gap and free-running accuracy at the last evaluation, and the steps per second`, async () => {
      const [a, b] = await lessonRuns(id, SHORT_G2P);
      assert.ok(b.records.at(-1).trueTokenProbability < 1 && b.records.at(-1).ownTokenShare > 0, 'run B reads some of its own tokens');
      assert.equal(a.records.at(-1).trueTokenProbability, undefined);
      const m = measureLesson(id, a, b);
      m.sentences.forEach(assertSentence);
      const [la, lb] = [evals(a.records).at(-1), evals(b.records).at(-1)];
      assert.equal(m.gapA, pct(la.heldOutTokenAccuracy - la.freeTokenAccuracy));
      assert.equal(m.gapB, pct(lb.heldOutTokenAccuracy - lb.freeTokenAccuracy));
      assert.equal(m.freeA, pct(la.freeTokenAccuracy));
      assert.equal(m.freeB, pct(lb.freeTokenAccuracy));
      assert.equal(m.exactB, pct(lb.wordAccuracy));
      const want = m.gapB <= m.gapA - 0.5 ? 'lesson.ss.narrowed' : m.gapB >= m.gapA + 0.5 ? 'lesson.ss.widened' : 'lesson.ss.same';
      assert.equal(m.sentence.key, want);
      // Training steps per second: the steps over the time the records say training took.
      for (const [run, rate] of [[a, m.rateA], [b, m.rateB]]) {
        let steps = 0;
        let seconds = 0;
        run.records.forEach((r, i) => { const n = r.step - (i ? run.records[i - 1].step : 0); steps += n; seconds += n / r.stepsPerSecond; });
        assert.equal(steps, run.info.steps);
        assert.equal(rate, Math.round((steps / seconds) * 10) / 10);
        assert.equal(trainingRate(run.records), steps / seconds);
      }
      assert.equal(keys(m)[1], m.rateB < m.rateA ? 'lesson.ss.slower' : 'lesson.ss.notSlower');

      // The opposite: the runs swapped, and B's rate doubled against A's.
      if (Math.abs(m.gapA - m.gapB) >= 0.5) assert.notEqual(measureLesson(id, b, a).sentence.key, m.sentence.key);
      const fastB = { ...b, records: b.records.map((r) => ({ ...r, stepsPerSecond: r.stepsPerSecond * 4 })) };
      const slowB = { ...b, records: b.records.map((r) => ({ ...r, stepsPerSecond: r.stepsPerSecond / 4 })) };
      assert.notEqual(keys(measureLesson(id, a, fastB))[1], keys(measureLesson(id, a, slowB))[1]);
      // Rates that differ by less than the sentence's rounding read as no slower: B a hair slower than A.
      assert.equal(a.records.length, b.records.length);
      const hairB = { ...b, records: b.records.map((r, i) => ({ ...r, stepsPerSecond: a.records[i].stepsPerSecond * (1 - 1e-9) })) };
      assert.equal(keys(measureLesson(id, a, hairB))[1], 'lesson.ss.notSlower');
      const narrowB = edit(b.records, (r) => r === lb, { heldOutTokenAccuracy: lb.freeTokenAccuracy });
      const wideB = edit(b.records, (r) => r === lb, { heldOutTokenAccuracy: lb.freeTokenAccuracy + 0.5 });
      assert.equal(measureLesson(id, a, { ...b, records: wideB }).sentence.key, 'lesson.ss.widened');
      if (m.gapA >= 0.5) assert.equal(measureLesson(id, a, { ...b, records: narrowB }).sentence.key, 'lesson.ss.narrowed');
    });
  }

  test('guided attention vs none: the first evaluation whose cross-attention is diagonal, in each run', async () => {
    const [a, b] = await lessonRuns('guided', SHORT_G2P);
    const m = measureLesson('guided', a, b);
    m.sentences.forEach(assertSentence);
    const first = (records) => evals(records).find((r) => r.attentionDiagonal >= DIAGONAL_THRESHOLD)?.step ?? null;
    assert.equal(m.stepA, first(a.records));
    assert.equal(m.stepB, first(b.records));
    assert.equal(m.diagonalB, pct(evals(b.records).at(-1).attentionDiagonal));
    assert.equal(m.lossB, Math.round(b.records.at(-1).loss * 1000) / 1000);
    const want = m.stepA !== null && m.stepB !== null ? (m.stepB < m.stepA ? 'lesson.guided.faster' : 'lesson.guided.notFaster')
      : m.stepB !== null ? 'lesson.guided.onlyGuided' : m.stepA !== null ? 'lesson.guided.onlyUnguided' : 'lesson.guided.neither';
    assert.equal(m.sentence.key, want);
    // The guided run's penalty is on, and it pulls the attention to the diagonal: the last evaluation's mass in the band is the larger.
    assert.ok(b.records.every((r) => typeof r.attentionLoss === 'number') && a.records.every((r) => r.attentionLoss === undefined));
    assert.ok(evals(b.records).at(-1).attentionDiagonal > evals(a.records).at(-1).attentionDiagonal, `${m.diagonalB} > ${m.diagonalA}`);

    // The opposite: no evaluation of B diagonal, then none of either.
    const flat = (run) => ({ ...run, records: run.records.map((r) => (typeof r.attentionDiagonal === 'number' ? { ...r, attentionDiagonal: 0.1 } : r)) });
    const early = (run) => ({ ...run, records: run.records.map((r) => (typeof r.attentionDiagonal === 'number' ? { ...r, attentionDiagonal: 0.99 } : r)) });
    assert.equal(measureLesson('guided', a, flat(b)).sentence.key, m.stepA === null ? 'lesson.guided.neither' : 'lesson.guided.onlyUnguided');
    assert.equal(measureLesson('guided', flat(a), flat(b)).sentence.key, 'lesson.guided.neither');
    assert.equal(measureLesson('guided', flat(a), early(b)).sentence.key, 'lesson.guided.onlyGuided');
    assert.equal(measureLesson('guided', early(a), early(b)).sentence.key, 'lesson.guided.notFaster');
    // Records without the measure (a run not yet evaluated) say nothing of the attention.
    const none = (run) => ({ ...run, records: run.records.map(({ attentionDiagonal: _d, ...r }) => r) });
    assert.deepEqual(keys(measureLesson('guided', none(a), b)), ['lesson.waiting']);
  });

  test('copy vs no copy on names, the whole lesson: held-out names copied with the mechanism, none without; p_gen on the name', async () => {
    const [a, b] = await lessonRuns('copy');
    const m = measureLesson('copy', a, b);
    m.sentences.forEach(assertSentence);
    assert.equal(m.exactA, pct(evals(a.records).at(-1).wordAccuracy));
    assert.equal(m.exactB, pct(evals(b.records).at(-1).wordAccuracy));
    assert.ok(m.exactB >= 90, `copy: ${m.exactB} %`);
    assert.ok(m.exactA <= 10, `no copy: ${m.exactA} %`);
    assert.equal(m.sentence.key, 'lesson.copy.copied');
    // p_gen at the name: the probe's target positions whose token is a word of its source.
    const probe = b.probes.at(-1);
    const words = probe.source.split(' ');
    assert.equal(probe.sourceTokens.at(-1), '<unk>', 'a held-out name is in no vocabulary');
    const at = probe.targetTokens.map((tok, i) => (words.includes(tok) ? i : -1)).filter((i) => i >= 0);
    assert.ok(at.length >= 1, 'the probe writes the name');
    assert.equal(m.name, at.map((i) => probe.targetTokens[i]).join(' '));
    assert.equal(m.pGen, pct(at.reduce((s, i) => s + probe.copyGate[i], 0) / at.length));
    // A held-out name is in no vocabulary: all its probability is copied, (1 - p_gen) times its copy attention.
    for (const i of at) assert.ok(Math.exp(-probe.tokenNll[i]) <= 1 - probe.copyGate[i] + 1e-5, `${probe.targetTokens[i]}: p ${Math.exp(-probe.tokenNll[i])}, p_gen ${probe.copyGate[i]}`);
    assert.equal(a.probes.at(-1).copyGate, undefined, 'no gate without the mechanism');
    // The opposite: the runs swapped.
    assert.equal(measureLesson('copy', b, a).sentence.key, 'lesson.copy.notCopied');
    // Before the first evaluation there is nothing to say.
    assert.deepEqual(keys(measureLesson('copy', { ...a, records: [] }, b)), ['lesson.waiting']);
  });

  test('label smoothing vs none: the top token\'s probability against 1 - e + e/V, and the loss against its floor', async () => {
    const [a, b] = await lessonRuns('smoothing', SHORT_REVERSE);
    const m = measureLesson('smoothing', a, b);
    m.sentences.forEach(assertSentence);
    const e = b.info.options.labelSmoothing;
    const V = b.info.targetVocabSize;
    assert.equal(e, 0.1);
    const target = 1 - e + e / V;
    assert.equal(m.target, pct(target));
    // The floor is the smoothed target's entropy; none without smoothing.
    const entropy = -((1 - e + e / V) * Math.log(1 - e + e / V) + (V - 1) * (e / V) * Math.log(e / V));
    assert.ok(Math.abs(b.info.lossFloor - entropy) < 1e-6, `${b.info.lossFloor} ${entropy}`);
    assert.equal(a.info.lossFloor, 0);
    for (const r of b.records) assert.ok(r.loss > b.info.lossFloor - 1e-6, `step ${r.step}: loss ${r.loss} under the floor`);
    assert.equal(m.floorB, Math.round(b.info.lossFloor * 1000) / 1000);
    const median = (xs) => { const s = [...xs].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
    const top = b.probes.at(-1).topProbability;
    assert.equal(m.topB, pct(median(top)));
    assert.equal(m.topA, pct(median(a.probes.at(-1).topProbability)));
    assert.equal(m.sentence.key, Math.abs(median(top) - target) <= 0.02 ? 'lesson.smoothing.atTarget' : 'lesson.smoothing.offTarget');
    // The smoothed model is never asked for more than the target: its top token stays below 1.
    assert.ok(Math.max(...top) < 0.99, `max ${Math.max(...top)}`);

    // The opposite: a probe at the target, and one far from it.
    const withTop = (values) => ({ ...b, probes: [...b.probes.slice(0, -1), { ...b.probes.at(-1), topProbability: Float32Array.from(values) }] });
    assert.equal(measureLesson('smoothing', a, withTop(top.map(() => target))).sentence.key, 'lesson.smoothing.atTarget');
    assert.equal(measureLesson('smoothing', a, withTop(top.map(() => 0.5))).sentence.key, 'lesson.smoothing.offTarget');
  });
});

describe('the tiny G2P data', () => {
  test('training-split CMUdict words of at most six letters, none of the test split, each with its first pronunciation', () => {
    assert.ok(findCmudict(ROOT), 'CMUdict (npm ci)');
    const rows = g2pRows();
    assert.equal(rows.length, TINY_G2P.words);
    assert.equal(new Set(rows.map(([w]) => w)).size, rows.length, 'each word once');
    // The test split, read here from the file itself.
    const test = new Set(readFileSync(join(ROOT, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n').map((l) => l.split('  ')[0]).filter(Boolean));
    assert.ok(test.size > 11000);
    assert.deepEqual(rows.filter(([w]) => test.has(w)), [], 'no test-split word');
    for (const [w, p] of rows) {
      assert.match(w, /^[A-Z]{2,6}$/);
      assert.match(p, /^[A-Z]+( [A-Z]+)*$/, `${w}: phonemes without stress`);
    }
    // The first pronunciation, as CMUdict lists it (stress removed).
    const first = new Map();
    for (const line of readFileSync(findCmudict(ROOT), 'utf8').split('\n')) {
      const i = line.indexOf('  ');
      if (i > 0 && !first.has(line.slice(0, i))) first.set(line.slice(0, i), line.slice(i + 2).trim().replace(/[0-9]/g, ''));
    }
    for (const [w, p] of rows) assert.equal(first.get(w), p, w);
    // Nor a word of the recipe's dev split: sha256 of the spelling, mod 1000, below 25 (models/train/data_rules.json).
    const dev = (w) => BigInt(`0x${createHash('sha256').update(w).digest('hex')}`) % BigInt(rules.dev.modulus) < BigInt(rules.dev.below);
    assert.deepEqual(rows.filter(([w]) => dev(w)), [], 'no dev word');
    assert.deepEqual(tinyG2pRows(ROOT, rules), rows, 'the same rows on every build');
    // The site's file is those rows, where the Train mode fetches it.
    const out = mkdtempSync(join(tmpdir(), 'seq2seq-g2p-tiny-'));
    try {
      writeTinyG2p(ROOT, out, rules);
      assert.equal(readFileSync(join(out, G2P_DATA), 'utf8'), rows.map(([w, p]) => `${w}\t${p}\n`).join(''));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
