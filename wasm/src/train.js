// seq2seq-wasm/train: training a model in WebAssembly, the engine's own trainer
// (src/train/, docs/training.md) in a module of its own (seq2seq_train.wasm), which
// decoding never loads.
//
//   import { createTrainer } from 'seq2seq-wasm/train';
//   const trainer = await createTrainer({ task: 'reverse', seed: 1 });   // training options by their JS names
//   while (!trainer.done) show(trainer.step());          // a progress record per logEvery steps, as `seq2seq train --json` prints
//   const r = trainer.step(10, { probe: true });         // with r.probe: an example's -log p per token and cross-attention
//   const model = await loadModel(trainer.export());     // import { loadModel } from 'seq2seq-wasm'
//   trainer.dispose();
//
// Off the main thread: createTrainerWorker() from 'seq2seq-wasm/train-worker'.
import { Seq2SeqError, describe, usageError } from './errors.js';
import { loadTrainCore } from './train-core.js';
import { checkTrainingConfig, jsTrainingName, jsTrainingNames, trainingDefaults } from './training-config.js';
import { checkWasmUrl } from './env.js';
import { TRAINING_OPTION_TABLE } from './training-options-table.js';

export { Seq2SeqError, TRAINING_OPTION_TABLE, trainingDefaults };

// C++ returns {error, kind} (with option and range for an option out of range, step
// for a run that diverged) instead of throwing across the boundary; a bare number is
// an exception no guard answered, which is always a failed allocation (index.js).
function call(f) {
  let value;
  try {
    value = f();
  } catch (e) {
    if (typeof e === 'number') throw new Seq2SeqError('out of memory', 'OutOfMemory');
    throw e;
  }
  if (value && typeof value === 'object' && typeof value.error === 'string' && typeof value.kind === 'string') {
    const error = new Seq2SeqError(jsTrainingNames(value.error), value.kind);
    if (typeof value.option === 'string') error.option = jsTrainingName(value.option);
    if (typeof value.range === 'string') error.range = value.range;
    if (typeof value.step === 'number') error.step = value.step;
    throw error;
  }
  return value;
}

// A float option as the engine holds it (f32), written as the shortest decimal that is that
// float: 0.003, as given, not 0.003000000026077032.
const FLOATS = new Set(TRAINING_OPTION_TABLE.filter((o) => o.type === 'float').map((o) => o.cpp));
function shortestFloat(v) {
  for (let digits = 1; digits < 17; digits++) {
    const x = Number(v.toPrecision(digits));
    if (Math.fround(x) === v) return x;
  }
  return v;
}

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { if (!handle.isDeleted()) handle.delete(); })
  : null;

const CREATE = Symbol('create');   // only createTrainer() constructs a Trainer

/**
 * A training run of `config`: the training options by their JS names (the rest at the
 * task's defaults), `data` for task g2p (its rows), `resume` to go on from a
 * checkpoint's bytes. `loading.wasmUrl`: where seq2seq_train.wasm is served (by
 * default the file next to this module).
 */
export async function createTrainer(config = {}, loading = {}) {
  const checked = checkTrainingConfig(config);
  if (loading === null || typeof loading !== 'object') throw usageError(`createTrainer(config, { wasmUrl }): the second argument must be an object; got ${describe(loading)}`);
  for (const key of Object.keys(loading)) if (key !== 'wasmUrl') throw usageError(`createTrainer: unknown loading option '${key}' (known: wasmUrl)`);
  checkWasmUrl(loading.wasmUrl, 'createTrainer: wasmUrl');
  const core = await loadTrainCore(loading.wasmUrl);
  return new Trainer(CREATE, core, checked);
}

// What a probe request is: true (held-out example 0) or an example's index.
function probeIndex(probe, what) {
  if (probe === undefined || probe === false) return -1;
  if (probe === true) return 0;
  if (Number.isInteger(probe) && probe >= 0) return probe;
  throw usageError(`${what}: probe must be true or a held-out example's index (an integer >= 0); got ${describe(probe)}`);
}

export class Trainer {
  #core;
  #handle;
  #logEvery;

  constructor(token, core, { options, data, resume }) {
    if (token !== CREATE) throw usageError('use createTrainer(config) to create a Trainer');
    const handle = call(() => new core.TrainerHandle());
    try {
      call(() => handle.create(options, data, resume));
      this.#logEvery = call(() => handle.info()).options.log_every;
    } catch (e) {
      handle.delete();
      throw e;
    }
    this.#core = core;
    this.#handle = handle;
    registry?.register(this, handle, this);
  }

  #live() {
    if (!this.#handle) throw usageError('this Trainer has been disposed');
    return this.#handle;
  }

  /**
   * The run: model name, parameters, the bytes it holds (memoryBytes: weights,
   * gradients, AdamW's moments, activations), vocabulary sizes, held-out examples, the
   * step reached of steps, every option (JS names, the task's defaults filled in) and
   * wasmMemoryBytes, the trainer module's whole memory now (every trainer of this realm).
   */
  get info() {
    const i = call(() => this.#live().info());
    i.options = Object.fromEntries(Object.entries(i.options).map(([k, v]) => [jsTrainingName(k), FLOATS.has(k) ? shortestFloat(v) : v]));
    i.wasmMemoryBytes = this.#core.HEAP8.length;
    return i;
  }

  /** Whether the run has taken all its steps. */
  get done() { return this.#live().done(); }
  get disposed() { return this.#handle === null; }

  /**
   * Up to n steps (default logEvery), stopping early at an evaluation point (every
   * evalEvery steps, and the last): the progress record `seq2seq train --json` prints
   * for them, field for field. With { probe: true } (or a held-out example's index),
   * the record carries `probe`, that example read after the steps (probe()).
   */
  step(n = this.#logEvery, { probe } = {}) {
    if (!Number.isInteger(n) || n < 1 || n > 2147483647) throw usageError(`step(n): n must be an integer >= 1; got ${describe(n)}`);
    const index = probeIndex(probe, 'step(n, { probe })');
    const handle = this.#live();
    const record = call(() => handle.step(n));
    if (index >= 0) record.probe = call(() => handle.probe(index));
    return record;
  }

  /**
   * Held-out example `index` read by the model as it stands (teacher forcing, no
   * dropout): its tokens, each target position's -log p of the reference token, and
   * the cross-attention weights ([layers, heads, T, N] for a Transformer, [T, N] for an
   * RNN, attentionShape). Changes nothing of the run.
   */
  probe(index = 0) {
    const i = probeIndex(index === true ? 0 : index, 'probe(index)');
    if (i < 0) throw usageError(`probe(index): index must be an integer >= 0; got ${describe(index)}`);
    return call(() => this.#live().probe(i));
  }

  /** The held-out examples ({source, target}), never trained on. */
  heldOut() { return call(() => this.#live().heldOut()); }

  /** Free-running (greedy) exact match on the held-out examples, through the engine: the records' wordAccuracy. */
  evaluate() { return call(() => this.#live().evaluate()); }

  /** The model as it stands, as a model file for loadModel(): f32, or with { int8: true } int8 weights with per-row scales. */
  export({ int8 = false } = {}) {
    if (typeof int8 !== 'boolean') throw usageError(`export({ int8 }): int8 must be true or false; got ${describe(int8)}`);
    return call(() => this.#live().exportModel(int8));
  }

  /** The run's state (the model, AdamW's, the generators'): createTrainer({ ...config, resume }) goes on from it. */
  checkpoint() { return call(() => this.#live().checkpoint()); }

  /** Frees the run's memory; any later call is a UsageError. */
  dispose() {
    if (!this.#handle) return;
    registry?.unregister(this);
    if (!this.#handle.isDeleted()) this.#handle.delete();
    this.#handle = null;
  }
}
