// The Train mode's lessons (the course notes' training chapter), each two runs side by side
// from one seed and one data set, and the sentence each lesson says about them, built from
// the runs' own numbers: the progress records (the trainer's --json fields), the probes
// and the runs' info. Nothing here is a claim made in advance: where a run does not show
// what the notes say (scheduled sampling may not narrow the gap on a task this small), the
// sentence says what the run measured, by choosing its key from the numbers.
//
// A pure module (no DOM, no page state): the page draws a lesson's two panels and asks
// measureLesson() again as records arrive; tests/node/train-lessons.test.mjs runs each
// lesson's two runs with the packaged trainer and holds every sentence to its numbers.
//
// The presets were chosen by measuring real runs (docs/training.md, "The Train mode's
// lessons"): the sizes, lengths and step counts that let both runs of a lesson finish while
// a learner watches, two at once on two cores. Its one import names
// where the site serves the tiny G2P data (web/shared/train-data.js).

import { G2P_DATA } from '../shared/train-data.js';

/** Where a run's cross-attention counts as diagonal: attentionDiagonal (the mass within the guided band) at least this. */
export const DIAGONAL_THRESHOLD = 0.75;

/** Held-out exact match the reverse lesson's teacher-forced run is timed to. */
export const REVERSE_TARGET = 0.95;

// The reverse task at its default lengths (3 to 12 letters) on the default small Transformer
// (d_model 64, 4 heads, 2 + 2 layers): a record (and a probe) and an evaluation on 150
// held-out strings every 25 steps, for curves.
const REVERSE = { task: 'reverse', seed: 1, steps: 800, logEvery: 25, evalEvery: 25, evalSize: 150 };
// 2,000 CMUdict words of at most 6 letters; a Transformer of the reverse task's size (not the
// g2p task's default 3 x 128), no dropout or smoothing, so that both runs finish in a lesson.
const G2P = {
  task: 'g2p', seed: 1, layers: 2, dModel: 64, heads: 4, dFf: 128, steps: 1000, batchSize: 32,
  learningRate: 0.003, warmupSteps: 100, dropout: 0, labelSmoothing: 0, logEvery: 25, evalEvery: 25, evalSize: 150,
};
// The RNN (bidirectional GRU encoder, additive attention, the options' default sizes) on the same data.
const G2P_RNN = {
  task: 'g2p', seed: 1, arch: 'rnn', steps: 1000, batchSize: 32, learningRate: 0.003, warmupSteps: 100,
  dropout: 0, labelSmoothing: 0, logEvery: 25, evalEvery: 25, evalSize: 150,
};
// Scheduled sampling as Bengio et al. describe it: the true token's probability falls along an
// inverse sigmoid, 0.5 at mid-run, and otherwise the decoder reads a token drawn from its own output.
// The names task (the notes' chatbot) at its default sizes: the copy model copies held-out
// names from step 50 on, so 200 steps are a few seconds.
const NAMES = { task: 'names', seed: 1, steps: 200, logEvery: 25, evalEvery: 25, evalSize: 150 };
const SCHEDULED = { scheduledSampling: 'inverse_sigmoid', samplingMidpoint: 500, samplingToken: 'sample' };

/**
 * id -> { titleKey, task, data (task g2p: where the site serves its rows, scripts/site/g2p-tiny.mjs), steps, measures (the record and
 * probe fields its sentence reads), runs: [A, B] }: each run a TrainerConfig (the options by
 * their JS names, wasm/src/training-options-table.js) plus its labelKey. Run A is the plain
 * one, run B the technique the lesson is about; both start from the same seed and data.
 */
export const LESSONS = Object.freeze({
  forcing: lesson('lesson.forcing.title', ['wordAccuracy', 'heldOutTokenAccuracy', 'freeTokenAccuracy', 'firstErrorCount', 'wrongAfterFirstError', 'forcedWrongAfterFirstError'], [
    { labelKey: 'lesson.forcing.runA', ...REVERSE },
    // Trained free-running: from the third step on the decoder reads its own (argmax) token at
    // every position (linear schedule: the true token's probability is 1, 0.5, then 0).
    { labelKey: 'lesson.forcing.runB', ...REVERSE, scheduledSampling: 'linear', samplingMidpoint: 1, samplingMin: 0, samplingToken: 'argmax' },
  ]),
  scheduledSampling: lesson('lesson.ss.title', ['wordAccuracy', 'heldOutTokenAccuracy', 'freeTokenAccuracy', 'stepsPerSecond'], [
    { labelKey: 'lesson.ss.runA', ...G2P },
    { labelKey: 'lesson.ss.runB', ...G2P, ...SCHEDULED },
  ]),
  scheduledSamplingRnn: lesson('lesson.ssRnn.title', ['wordAccuracy', 'heldOutTokenAccuracy', 'freeTokenAccuracy', 'stepsPerSecond'], [
    { labelKey: 'lesson.ss.runA', ...G2P_RNN },
    { labelKey: 'lesson.ss.runB', ...G2P_RNN, ...SCHEDULED },
  ]),
  guided: lesson('lesson.guided.title', ['attentionDiagonal', 'loss', 'wordAccuracy'], [
    { labelKey: 'lesson.guided.runA', ...G2P },
    { labelKey: 'lesson.guided.runB', ...G2P, guidedAttentionWeight: 1, guidedAttentionWidth: 0.2 },
  ]),
  copy: lesson('lesson.copy.title', ['wordAccuracy', 'copyGate'], [
    { labelKey: 'lesson.copy.runA', ...NAMES },
    { labelKey: 'lesson.copy.runB', ...NAMES, copy: true },
  ]),
  smoothing: lesson('lesson.smoothing.title', ['topProbability', 'loss', 'lossFloor'], [
    { labelKey: 'lesson.smoothing.runA', ...REVERSE },
    { labelKey: 'lesson.smoothing.runB', ...REVERSE, labelSmoothing: 0.1 },
  ]),
});

function lesson(titleKey, measures, runs) {
  const [a, b] = runs;
  if (a.task !== b.task || a.seed !== b.seed || a.steps !== b.steps) throw new Error(`${titleKey}: both runs take one task, seed and step count`);
  return Object.freeze({
    titleKey, task: a.task, steps: a.steps, measures: Object.freeze(measures),
    ...(a.task === 'g2p' ? { data: G2P_DATA } : {}),
    runs: Object.freeze(runs.map((r) => Object.freeze(r))),
  });
}

/** A run's TrainerConfig: the run without its label key. */
export function runConfig(run) {
  const { labelKey: _labelKey, ...config } = run;
  return config;
}

// ---------------------------------------------------------------- the numbers

/** A share as a percentage with one decimal (a number: the page's t() writes it). */
const pct = (x) => Math.round(x * 1000) / 10;
const round = (x, digits) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The records of an evaluation point (where the held-out set was decoded). */
const evaluations = (records) => records.filter((r) => typeof r.wordAccuracy === 'number');

/** The first evaluation at which `field` is at least `value`, or null. */
function firstReaching(records, field, value) {
  return evaluations(records).find((r) => typeof r[field] === 'number' && r[field] >= value) ?? null;
}

/** Steps per second of training alone (the records' own rates, evaluations left out), over the whole run. */
export function trainingRate(records) {
  let steps = 0;
  let seconds = 0;
  let before = 0;
  for (const r of records) {
    const taken = r.step - before;
    before = r.step;
    if (taken > 0 && r.stepsPerSecond > 0) {
      steps += taken;
      seconds += taken / r.stepsPerSecond;
    }
  }
  return seconds > 0 ? steps / seconds : 0;
}

/** Teacher-forced minus free-running token accuracy on the held-out set at an evaluation: the exposure-bias gap. */
const gapOf = (r) => r.heldOutTokenAccuracy - r.freeTokenAccuracy;

/** The mean gap over a run's evaluations (the band between its two curves, per evaluation). */
function meanGap(records) {
  const ev = evaluations(records).filter((r) => typeof r.heldOutTokenAccuracy === 'number' && typeof r.freeTokenAccuracy === 'number');
  return ev.length ? ev.reduce((a, r) => a + gapOf(r), 0) / ev.length : null;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null;
};

/** A run as measureLesson reads it: its records, its probes (from its records' `probe` fields where none are given), its info. */
function asRun(run, what) {
  if (!run || !Array.isArray(run.records)) throw new TypeError(`measureLesson: ${what} needs its records`);
  const probes = Array.isArray(run.probes) && run.probes.length ? run.probes : run.records.map((r) => r.probe).filter(Boolean);
  return { records: run.records, probes, info: run.info ?? null };
}

const lastEvaluation = (records) => evaluations(records).at(-1) ?? null;

// ---------------------------------------------------------------- each lesson's sentences

const MEASURE = {
  // Where the first own mistake sends the rest of the output (一步错步步错), in run A at the
  // first evaluation where half the held-out set came out exact (mid-run: enough outputs
  // right to have a prefix to go wrong after, enough wrong to count): the share of the
  // positions after each first mistake that are wrong too, free-running, against the same
  // positions under teacher forcing. Then the gap between the two curves in both runs.
  forcing(a, b) {
    const reachA = firstReaching(a.records, 'wordAccuracy', REVERSE_TARGET);
    const reachB = firstReaching(b.records, 'wordAccuracy', REVERSE_TARGET);
    const at = firstReaching(a.records, 'wordAccuracy', 0.5) ?? lastEvaluation(a.records);
    const numbers = {
      reachedStepA: reachA?.step ?? null, reachedSecondsA: reachA ? round(reachA.elapsedSeconds, 1) : null,
      reachedStepB: reachB?.step ?? null, reachedSecondsB: reachB ? round(reachB.elapsedSeconds, 1) : null,
      step: at?.step ?? null, exact: at ? pct(at.wordAccuracy) : null, heldOut: at?.heldOut ?? null,
      errors: at?.firstErrorCount ?? null,
      after: at?.firstErrorCount ? pct(at.wrongAfterFirstError) : null,
      forced: at?.firstErrorCount ? pct(at.forcedWrongAfterFirstError) : null,
      gapA: meanGap(a.records) === null ? null : pct(meanGap(a.records)),
      gapB: meanGap(b.records) === null ? null : pct(meanGap(b.records)),
      exactA: pct(lastEvaluation(a.records)?.wordAccuracy ?? 0), exactB: pct(lastEvaluation(b.records)?.wordAccuracy ?? 0),
    };
    const sentences = [];
    if (!at || typeof at.firstErrorCount !== 'number') sentences.push({ key: 'lesson.waiting', params: {} });
    else if (at.firstErrorCount === 0) sentences.push({ key: 'lesson.forcing.noErrors', params: { step: at.step, heldOut: at.heldOut } });
    else {
      const key = at.wrongAfterFirstError > at.forcedWrongAfterFirstError ? 'lesson.forcing.cascade' : 'lesson.forcing.noCascade';
      sentences.push({ key, params: { step: numbers.step, exact: numbers.exact, errors: numbers.errors, heldOut: numbers.heldOut, after: numbers.after, forced: numbers.forced } });
    }
    if (numbers.gapA !== null && numbers.gapB !== null) {
      sentences.push({ key: numbers.gapB < numbers.gapA ? 'lesson.forcing.gapNarrower' : 'lesson.forcing.gapNotNarrower',
        params: { gapA: numbers.gapA, gapB: numbers.gapB, exactA: numbers.exactA, exactB: numbers.exactB } });
    }
    sentences.push(reached('A', reachA), reached('B', reachB));
    return { ...numbers, sentences };
  },

  scheduledSampling: (a, b) => scheduled(a, b),
  scheduledSamplingRnn: (a, b) => scheduled(a, b),

  // How many steps until the cross-attention is diagonal: the first evaluation at which
  // attentionDiagonal (the mass within the guided band, over the held-out set) reaches
  // DIAGONAL_THRESHOLD, in each run; and where each run's loss ended.
  guided(a, b) {
    const ra = firstReaching(a.records, 'attentionDiagonal', DIAGONAL_THRESHOLD);
    const rb = firstReaching(b.records, 'attentionDiagonal', DIAGONAL_THRESHOLD);
    const la = lastEvaluation(a.records);
    const lb = lastEvaluation(b.records);
    const numbers = {
      threshold: pct(DIAGONAL_THRESHOLD), stepA: ra?.step ?? null, stepB: rb?.step ?? null,
      diagonalA: typeof la?.attentionDiagonal === 'number' ? pct(la.attentionDiagonal) : null,
      diagonalB: typeof lb?.attentionDiagonal === 'number' ? pct(lb.attentionDiagonal) : null,
      lossA: round(a.records.at(-1)?.loss ?? NaN, 3), lossB: round(b.records.at(-1)?.loss ?? NaN, 3),
      exactA: pct(la?.wordAccuracy ?? 0), exactB: pct(lb?.wordAccuracy ?? 0),
      lastStepA: la?.step ?? null, lastStepB: lb?.step ?? null,
    };
    // Until both runs have measured their attention, nothing is said about it.
    if (numbers.diagonalA === null || numbers.diagonalB === null) return { ...numbers, sentences: [{ key: 'lesson.waiting', params: {} }] };
    const key = rb && ra ? (rb.step < ra.step ? 'lesson.guided.faster' : 'lesson.guided.notFaster')
      : rb ? 'lesson.guided.onlyGuided' : ra ? 'lesson.guided.onlyUnguided' : 'lesson.guided.neither';
    const sentences = [
      { key, params: { threshold: numbers.threshold, stepA: numbers.stepA, stepB: numbers.stepB, lastA: numbers.lastStepA, lastB: numbers.lastStepB } },
      { key: 'lesson.guided.end', params: { diagonalA: numbers.diagonalA, diagonalB: numbers.diagonalB, lossA: numbers.lossA, lossB: numbers.lossB, exactA: numbers.exactA, exactB: numbers.exactB } },
    ];
    return { ...numbers, sentences };
  },

  // Held-out names written exactly without and with the copy mechanism, and the copy run's
  // p_gen (the probability of generating rather than copying) at the name's positions of its
  // latest probe: the reference's tokens that are words of the source (names is word-level).
  copy(a, b) {
    const la = lastEvaluation(a.records);
    const lb = lastEvaluation(b.records);
    const probe = b.probes.at(-1) ?? null;
    let pGen = null;
    let name = null;
    if (probe?.copyGate && probe.targetTokens && typeof probe.source === 'string') {
      // The source's words as written: a held-out name is <unk> among the source's tokens.
      const source = new Set(probe.source.split(/\s+/));
      const at = probe.targetTokens.map((tok, i) => (source.has(tok) ? i : -1)).filter((i) => i >= 0);
      if (at.length) {
        pGen = pct(at.reduce((s, i) => s + probe.copyGate[i], 0) / at.length);
        name = at.map((i) => probe.targetTokens[i]).join(' ');
      }
    }
    const numbers = { exactA: pct(la?.wordAccuracy ?? 0), exactB: pct(lb?.wordAccuracy ?? 0), heldOut: lb?.heldOut ?? la?.heldOut ?? null, pGen, name };
    if (!la || !lb) return { ...numbers, sentences: [{ key: 'lesson.waiting', params: {} }] };
    const sentences = [{ key: numbers.exactB > numbers.exactA ? 'lesson.copy.copied' : 'lesson.copy.notCopied',
      params: { exactA: numbers.exactA, exactB: numbers.exactB, heldOut: numbers.heldOut } }];
    if (pGen !== null) sentences.push({ key: 'lesson.copy.gate', params: { name, pGen } });
    return { ...numbers, sentences };
  },

  // Where the top token's probability stops with label smoothing e: the smoothed target puts
  // 1 - e + e/V on the right token, so a model that has learned the task stops there, not at
  // 1. The median of the latest probe's topProbability in each run, and the loss against the
  // floor the smoothing sets (info.lossFloor: the target's own entropy).
  smoothing(a, b) {
    const e = b.info?.options?.labelSmoothing ?? 0;
    const V = b.info?.targetVocabSize ?? null;
    const target = V ? 1 - e + e / V : null;
    const topA = a.probes.at(-1)?.topProbability ? median(a.probes.at(-1).topProbability) : null;
    const topB = b.probes.at(-1)?.topProbability ? median(b.probes.at(-1).topProbability) : null;
    const numbers = {
      eps: e, V, target: target === null ? null : pct(target),
      topA: topA === null ? null : pct(topA), topB: topB === null ? null : pct(topB),
      lossA: round(a.records.at(-1)?.loss ?? NaN, 3), lossB: round(b.records.at(-1)?.loss ?? NaN, 3),
      floorA: round(a.info?.lossFloor ?? 0, 3), floorB: round(b.info?.lossFloor ?? 0, 3),
    };
    if (topB === null || target === null) return { ...numbers, sentences: [{ key: 'lesson.waiting', params: {} }] };
    // "Near" the smoothed target: within 2 points; a run still learning sits below it.
    const key = Math.abs(topB - target) <= 0.02 ? 'lesson.smoothing.atTarget' : 'lesson.smoothing.offTarget';
    return {
      ...numbers,
      sentences: [
        { key, params: { eps: e, V, target: numbers.target, topA: numbers.topA, topB: numbers.topB } },
        { key: 'lesson.smoothing.floor', params: { lossA: numbers.lossA, lossB: numbers.lossB, floor: numbers.floorB } },
      ],
    };
  },
};

function reached(run, r) {
  return r ? { key: 'lesson.reached', params: { run, target: pct(REVERSE_TARGET), step: r.step, seconds: round(r.elapsedSeconds, 1) } }
    : { key: 'lesson.notReached', params: { run, target: pct(REVERSE_TARGET) } };
}

// Scheduled sampling against teacher forcing: the exposure-bias gap (teacher-forced minus
// free-running token accuracy on the held-out set) at each run's last evaluation, the
// free-running accuracies there, and the price in training steps per second (the
// Transformer's two passes; the RNN reads its inputs token by token either way).
function scheduled(a, b) {
  const la = lastEvaluation(a.records);
  const lb = lastEvaluation(b.records);
  const rateA = trainingRate(a.records);
  const rateB = trainingRate(b.records);
  const numbers = {
    step: lb?.step ?? null,
    gapA: la && typeof la.heldOutTokenAccuracy === 'number' ? pct(gapOf(la)) : null,
    gapB: lb && typeof lb.heldOutTokenAccuracy === 'number' ? pct(gapOf(lb)) : null,
    freeA: typeof la?.freeTokenAccuracy === 'number' ? pct(la.freeTokenAccuracy) : null,
    freeB: typeof lb?.freeTokenAccuracy === 'number' ? pct(lb.freeTokenAccuracy) : null,
    exactA: pct(la?.wordAccuracy ?? 0), exactB: pct(lb?.wordAccuracy ?? 0),
    rateA: round(rateA, 1), rateB: round(rateB, 1),
    slower: rateA > 0 ? pct(1 - rateB / rateA) : null,
  };
  const sentences = [];
  if (numbers.gapA === null || numbers.gapB === null) sentences.push({ key: 'lesson.waiting', params: {} });
  else {
    // Within half a point the two gaps are the same for a held-out set of this size.
    const key = numbers.gapB <= numbers.gapA - 0.5 ? 'lesson.ss.narrowed' : numbers.gapB >= numbers.gapA + 0.5 ? 'lesson.ss.widened' : 'lesson.ss.same';
    sentences.push({ key, params: { step: numbers.step, gapA: numbers.gapA, gapB: numbers.gapB, freeA: numbers.freeA, freeB: numbers.freeB, exactA: numbers.exactA, exactB: numbers.exactB } });
  }
  if (rateA > 0 && rateB > 0) {
    // Judged on the rates the sentence states: two rates that round alike are no slower.
    sentences.push({ key: numbers.rateB < numbers.rateA ? 'lesson.ss.slower' : 'lesson.ss.notSlower',
      params: { rateA: numbers.rateA, rateB: numbers.rateB, slower: Math.abs(numbers.slower) } });
  }
  return { ...numbers, sentences };
}

/**
 * The numbers a lesson's sentences state, measured on its two runs, and the sentences:
 * { ...numbers, sentence: { key, params } (the first), sentences: [{ key, params }, ...] }.
 * A run is { records, probes, info } (probes: the run's probes in order, or left out when
 * its records carry them); measureLesson(id, recordsA, recordsB, probesA, probesB, infoA,
 * infoB) is the same with the parts given one by one.
 */
export function measureLesson(id, runA, runB, ...rest) {
  if (!Object.hasOwn(MEASURE, id)) throw new RangeError(`measureLesson: no lesson '${id}' (lessons: ${Object.keys(MEASURE).join(', ')})`);
  if (Array.isArray(runA)) {
    const [probesA, probesB, infoA, infoB] = rest;
    return measureLesson(id, { records: runA, probes: probesA, info: infoA }, { records: runB, probes: probesB, info: infoB });
  }
  const m = MEASURE[id](asRun(runA, 'run A'), asRun(runB, 'run B'));
  return { ...m, sentence: m.sentences[0] };
}
