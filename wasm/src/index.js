// seq2seq-wasm: sequence-to-sequence decoding (Transformer, Mask-Predict CMLM, RNN
// with attention) in WebAssembly.
//
//   import { loadModel } from 'seq2seq-wasm';
//   const model = await loadModel(urlOrBytes);     // or loadModel(source, { compute, onProgress, cache, sha256 })
//   const session = model.createSession({ strategy: 'beam', beamSize: 5 });
//   session.start('PHONEME');
//   while (!session.done) draw(session.step());   // or: session.decode('PHONEME')
//   session.delete(); model.delete();
//
// Objects own wasm memory: call delete() when done. A FinalizationRegistry frees
// what is forgotten, but only when the garbage collector gets to it.
import { loadCore } from './core.js';
import { loadOptions, readModel, useModelBytes } from './model-source.js';
import { DEFAULT_OPTIONS, normalizeOptions } from './options.js';
import { Seq2SeqError, describe, jsOptionNames, usageError } from './errors.js';
import { env } from './env.js';
import { checkTexts, textError } from './batch.js';
import { inspectTokens, targetText } from './target.js';
import { checkText } from './text.js';
import { LIMITS } from './limits.js';

export { DEFAULT_OPTIONS, LIMITS, Seq2SeqError, env };

// C++ returns {error, kind} instead of throwing across the boundary. Option
// names in its messages are given in the JS spelling (beam_size -> beamSize).
function check(value) {
  if (value && typeof value === 'object' && typeof value.error === 'string' && typeof value.kind === 'string') {
    throw new Seq2SeqError(jsOptionNames(value.error), value.kind);
  }
  return value;
}

// engine(f): f(), a call into the engine. A C++ exception can still cross the
// boundary, as a bare number, where no guard answers it: in a handle's
// constructor, or with the heap so full that the guard's own reply cannot be
// made. The guards catch everything, and the C++ outside them only allocates,
// so such a number is always a failed allocation: an OutOfMemory, after which
// the engine works on. call(f): engine(f), then check() of what it returned.
function engine(f) {
  try {
    return f();
  } catch (e) {
    if (typeof e === 'number') throw new Seq2SeqError('out of memory', 'OutOfMemory');
    throw e;
  }
}

const call = (f) => check(engine(f));

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { if (!handle.isDeleted()) handle.delete(); })
  : null;

function own(wrapper, handle) {
  registry?.register(wrapper, handle, wrapper);
}

function release(wrapper, handle) {
  registry?.unregister(wrapper);
  if (!handle.isDeleted()) handle.delete();
}

const CREATE = Symbol('create');  // only loadModel() constructs a Model

// Load options (model-source.js): { compute: 'auto' | 'f32', onProgress, cache, sha256 }.
// compute 'auto' multiplies int8-stored weights in int8 (a quarter of the memory,
// faster); 'f32' widens every weight to f32, as PyTorch computes.
export async function loadModel(source, options) {
  const { compute, ...reading } = loadOptions(options);
  const [core, read] = await Promise.all([loadCore(), readModel(source, reading)]);
  return useModelBytes(read, source, reading, (bytes) => new Model(CREATE, core, bytes, compute));
}

export class Model {
  #core;
  #handle;
  #info;

  constructor(token, core, bytes, compute) {
    if (token !== CREATE) throw usageError('use loadModel(source) to create a Model');
    const handle = call(() => new core.ModelHandle());
    try {
      call(() => handle.load(bytes, compute));
      this.#info = Object.freeze(call(() => handle.info()));
    } catch (e) {
      handle.delete();
      throw e;
    }
    this.#core = core;
    this.#handle = handle;
    own(this, handle);
  }

  #live() {
    if (!this.#handle) throw usageError('this Model has been deleted');
    return this.#handle;
  }

  /** Configuration, size and vocabularies. */
  get info() { this.#live(); return this.#info; }
  get autoregressive() { return this.info.autoregressive; }
  get deleted() { return this.#handle === null; }

  tokenize(text) {
    if (typeof text !== 'string') throw usageError(`tokenize(text) needs a string; got ${describe(text)}`);
    return call(() => this.#live().tokenize(checkText(text)));
  }

  createSession(options = {}) { return new Session(this, options); }

  /** One call: decode `text` with `options`, return the n-best. */
  decode(text, options = {}) {
    const s = this.createSession(options);
    try {
      return s.decode(text);
    } finally {
      s.delete();
    }
  }

  /**
   * The forced score of `target` ('F OW N IY M' or ['F', 'OW', ...]) for `text`:
   * log P(target | text) by teacher forcing, comparable to decode()'s results
   * under the same options (ForcedScore in src/snapshot.h).
   */
  score(text, target, options = {}) {
    const s = this.createSession(options);
    try {
      return s.score(text, target);
    } finally {
      s.delete();
    }
  }

  /**
   * Every intermediate of one decoder pass (StepInside in src/snapshot.h): for an
   * autoregressive model, the pass that predicts the token after `tokens` (the
   * output so far: ids as snapshots give them, or token texts, 'F OW' or
   * ['F', 'OW']; [] for the first step); for a CMLM, the pass over the draft
   * `tokens` (the mask token where masked; END where the draft kept one).
   */
  inspect(text, tokens = []) {
    if (typeof text !== 'string') throw usageError(`inspect(text, tokens) needs a string; got ${describe(text)}`);
    const ids = inspectTokens(tokens, 'inspect(text, tokens)');
    return call(() => this.#live().inspect(checkText(text), typeof ids === 'string' ? checkText(ids, 'the target') : ids));
  }

  /**
   * decode() over a list in one call: one n-best list per text, in order. All
   * texts are checked before any is decoded; the first bad one fails the call.
   */
  decodeBatch(texts, options = {}) {
    checkTexts(texts, 'decodeBatch(texts, options)');
    const batch = this._batchDecoder(options);
    try {
      batch.check(texts);
      return batch.decode(texts, 0, texts.length);
    } finally {
      batch.delete();
    }
  }

  delete() {
    if (!this.#handle) return;
    release(this, this.#handle);
    this.#handle = null;
  }

  // decodeBatch's decoder, which the worker drives a slice at a time.
  _batchDecoder(options) { return new BatchDecoder(this, options); }
  _handle() { return this.#live(); }
  _core() { this.#live(); return this.#core; }
}

export class Session {
  #handle;
  #model;
  #autoregressive;  // kept: a session outlives its model's delete()
  #options;

  constructor(model, options = {}) {
    if (!(model instanceof Model)) throw usageError(`new Session(model, options) needs a Model from loadModel(); got ${describe(model)}`);
    const handle = call(() => new (model._core().SessionHandle)(model._handle()));
    try {
      this.#options = normalizeOptions(options, model.autoregressive);
      call(() => handle.configure(this.#options));
    } catch (e) {
      handle.delete();
      throw e;
    }
    this.#handle = handle;
    this.#model = model;
    this.#autoregressive = model.autoregressive;
    own(this, handle);
  }

  #live() {
    if (!this.#handle) throw usageError('this Session has been deleted');
    return this.#handle;
  }

  get options() { this.#live(); return { ...this.#options }; }
  get model() { return this.#model; }
  get deleted() { return this.#handle === null; }
  get started() { return this.#live().started(); }
  get done() { return this.#live().done(); }
  /** The max output length in effect for the current source. */
  get maxLength() { return this.#live().maxLength(); }

  /** New options take effect at the next start(). */
  setOptions(options) {
    const o = normalizeOptions({ ...this.#options, ...options }, this.#autoregressive);
    call(() => this.#live().configure(o));
    this.#options = o;
  }

  start(text) {
    if (typeof text !== 'string') throw usageError(`start(text) needs a string; got ${describe(text)}`);
    call(() => this.#live().start(checkText(text)));
  }

  /** One decoder pass; returns the step's snapshot. */
  step() { return call(() => this.#live().step()); }

  /** Steps to the end; returns the n-best results, best first. */
  run() { return call(() => this.#live().run()); }

  decode(text) {
    this.start(text);
    return this.run();
  }

  /** The forced score of `target` for `text` under this session's options; a decode in progress is left as it was. */
  score(text, target) {
    if (typeof text !== 'string') throw usageError(`score(text, target) needs a string; got ${describe(text)}`);
    const t = targetText(target, 'score(text, target)');
    return call(() => this.#live().score(checkText(text), checkText(t, 'the target')));
  }

  delete() {
    if (!this.#handle) return;
    release(this, this.#handle);
    this.#handle = null;
  }
}

// One session over a list of texts (Model.decodeBatch, and the worker's
// decodeBatch slice by slice). Results carry neither attention nor candidates,
// so its session computes neither (decode()'s computes both for every step's
// snapshot); the options are first checked as given, so that decodeBatch
// refuses exactly what decode() refuses.
class BatchDecoder {
  #handle;

  constructor(model, options = {}) {
    const handle = call(() => new (model._core().SessionHandle)(model._handle()));
    try {
      const o = normalizeOptions(options, model.autoregressive);
      call(() => handle.configure(o));
      call(() => handle.configure({ ...o, attention: false, topCandidates: 0 }));
    } catch (e) {
      handle.delete();
      throw e;
    }
    this.#handle = handle;
  }

  /** Throws the error of the first text start() would refuse; decodes nothing. */
  check(texts) { this.#call('checkBatch', texts, 0, texts.length); }

  /**
   * The n-best lists of texts[from, to), the texts stepped together at most
   * `window` at a time (0: the engine's default; bench/ measures others).
   */
  decode(texts, from, to, window = 0) { return this.#call('decodeBatch', texts, from, to, window); }

  // One C++ call over texts[from, to); a failure names its text.
  #call(method, texts, from, to, ...extra) {
    // A text too long to convert, and one the conversion would pass with a lone
    // surrogate as another character, are refused here: the first such, after what
    // C++ finds wrong in the texts before it (which alone are converted).
    let end = from;
    let lone = null;
    while (end < to && !lone) {
      try {
        checkText(texts[end]);
        end += 1;
      } catch (e) {
        lone = e;
      }
    }
    const value = engine(() => this.#handle[method](from === 0 && end === texts.length ? texts : texts.slice(from, end), ...extra));
    try {
      check(value);
    } catch (e) {
      throw value.index === undefined ? e : textError(e, texts, from + value.index);
    }
    if (lone) throw textError(lone, texts, end);
    return value;
  }

  delete() {
    if (!this.#handle.isDeleted()) this.#handle.delete();
  }
}
