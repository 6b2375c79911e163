// Many texts across cores: a pool of decoder workers (worker-client.js), each
// with its own engine instance and its own copy of the model.
//
//   import { createDecoderPool } from 'seq2seq-wasm/worker';
//   const pool = createDecoderPool();                  // or ({ size, workerUrl, wasmUrl, startTimeout })
//   await pool.load('/models/g2p-transformer.safetensors', { onProgress, cache, sha256 });
//   const lists = await pool.decodeBatch(words, { strategy: 'beam' }, { onProgress, signal });
//   await pool.terminate();
//
// The model is read once, here (a URL downloaded once, a file read once), and
// each worker is sent the bytes. A batch is cut into chunks of consecutive
// texts that the workers take one at a time as they finish the last, so that a
// slow chunk holds up only its own worker; the results are put back in input
// order. Workers share nothing: no SharedArrayBuffer, so no cross-origin
// isolation is needed.
import { Seq2SeqError, describe, named, usageError } from './errors.js';
import { isNode } from './env.js';
import { loadOptions, nodeImport, readModel, useModelBytes } from './model-source.js';
import { WORKER_OPTIONS, batchArguments, batchCancelled, workerTarget } from './worker-options.js';

/** The most workers a pool may have, and the most it has when its size is left to the machine. */
export const MAX_POOL_SIZE = 64;
export const DEFAULT_POOL_SIZE_CAP = 8;
const POOL_OPTIONS = ['size', ...WORKER_OPTIONS];
/**
 * The fewest texts worth sending to a pool: fewer decode about as fast on one thread, the
 * pool's messages (a check, then a chunk per worker) costing what the other cores give
 * (docs/performance.md). The page's word list and the phonemizer go by it.
 */
export const POOL_MIN_TEXTS = 16;
const POOL_BATCH_OPTIONS = ['onProgress', 'signal', 'chunkSize'];
// Chunks per worker a batch is cut into, at least: enough that the workers finish
// close together when words take unequal time; at most MAX_CHUNK texts each, past
// which a chunk decodes no faster per text and only delays the others' finish.
const CHUNKS_PER_WORKER = 4;
const MAX_CHUNK = 32;

function checkSize(size, call) {
  if (!(Number.isInteger(size) && size >= 1 && size <= MAX_POOL_SIZE)) {
    throw usageError(`${call}: size must be a whole number of workers in [1, ${MAX_POOL_SIZE}]; got ${describe(size)}`);
  }
  return size;
}

/**
 * The machine's parallelism, capped at DEFAULT_POOL_SIZE_CAP: navigator.hardwareConcurrency
 * (browsers, Deno, Bun, Node >= 21), else os.availableParallelism() (Node), else 2.
 */
export async function defaultPoolSize() {
  let n = typeof navigator === 'object' ? navigator?.hardwareConcurrency : undefined;
  if (!(Number.isInteger(n) && n >= 1) && isNode) {
    const os = await nodeImport('node:os');
    n = os.availableParallelism?.() ?? os.cpus().length;
  }
  return Math.max(1, Math.min(DEFAULT_POOL_SIZE_CAP, Number.isInteger(n) && n >= 1 ? n : 2));
}

/** How many texts each chunk of a batch of `total` holds on `workers` workers. */
export function chunkSizeFor(total, workers) {
  return Math.max(1, Math.min(MAX_CHUNK, Math.ceil(total / (workers * CHUNKS_PER_WORKER))));
}

export class DecoderPool {
  #target;            // { workerUrl, wasmUrl, startTimeout } for each worker
  #size;              // the number of workers, once known
  #workers;           // Promise<DecoderWorker[]>
  #idle = [];         // workers with no chunk
  #jobs = [];         // batches with chunks not yet handed out, oldest first
  #running = new Set();   // batches not yet settled
  #closed = false;

  // `spawn(target)` makes one DecoderWorker (worker-client.js, which imports this module
  // and passes it: this module does not import that one back).
  constructor(options, spawn) {
    if (typeof spawn !== 'function') throw usageError('use createDecoderPool(options) to create a DecoderPool');
    if (options === undefined) options = {};
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw usageError(`createDecoderPool(options): options must be an object { ${POOL_OPTIONS.join(', ')} }; got ${describe(options)}`);
    }
    for (const key of Object.keys(options)) {
      if (!POOL_OPTIONS.includes(key)) throw usageError(`createDecoderPool: unknown option ${named(key)} (known: ${POOL_OPTIONS.join(', ')})`);
    }
    const { size, ...target } = options;
    if (size !== undefined) this.#size = checkSize(size, 'createDecoderPool');
    workerTarget(target, 'createDecoderPool');   // checked now, used by each worker
    this.#target = target;
    this.#workers = (async () => {
      this.#size ??= await defaultPoolSize();
      const workers = Array.from({ length: this.#size }, () => spawn(this.#target));
      if (this.#closed) await Promise.all(workers.map((w) => w.terminate()));
      this.#idle.push(...workers);
      return workers;
    })();
    this.#workers.catch(() => {});
  }

  /** POOL_MIN_TEXTS: below this many texts, decode on one thread instead. */
  get minTexts() { return POOL_MIN_TEXTS; }

  /** The number of workers: as given, or (by default) known once load() has resolved. */
  get size() { return this.#size; }

  #live(what) {
    if (this.#closed) throw new Seq2SeqError(`${what}: the decoder pool was terminated`, 'Cancelled');
  }

  /**
   * Loads a model in every worker; resolves to its info. Options as loadModel's: the
   * model is read here once (a URL downloaded, cached and checked once; onProgress hears
   * it) and its bytes are sent to each worker.
   */
  async load(source, options) {
    this.#live('load');
    const { compute, onProgress, cache, sha256, signal, stallTimeout } = loadOptions(options, 'load');
    const workers = await this.#workers;
    const reading = { onProgress, cache, sha256, signal, stallTimeout };
    const infos = await useModelBytes(await readModel(source, reading), source, reading, (bytes) => Promise.all(workers.map((w, i) =>
      // The last worker takes the bytes themselves; the others a copy each.
      w.load(i === workers.length - 1 ? bytes : bytes.slice(), { compute, signal }))));
    return infos[0];
  }

  /**
   * Model.decodeBatch across the workers: one n-best list per text, in input order, the
   * same lists one worker (or the model in this thread) gives, and the same error if a
   * text or an option is bad (the first bad text's, its index in `texts`), decoding nothing
   * of it. onProgress hears {done, total} as chunks finish, the last time with
   * done = total; signal's abort (or cancel()) rejects it with kind 'Cancelled'.
   */
  decodeBatch(texts, options = {}, batchOptions = {}) {
    let checked;
    try {
      this.#live('decodeBatch');
      checked = batchArguments(texts, options, batchOptions, POOL_BATCH_OPTIONS);
      if (checked.chunkSize !== undefined && !(Number.isInteger(checked.chunkSize) && checked.chunkSize >= 1)) {
        throw usageError(`decodeBatch: chunkSize must be a whole number of texts >= 1; got ${describe(checked.chunkSize)}`);
      }
    } catch (e) {
      return Promise.reject(e);
    }
    const { onProgress, signal, chunkSize } = checked;
    if (signal?.aborted) return Promise.reject(batchCancelled());
    return this.#workers.then((workers) => new Promise((resolve, reject) => {
      const total = texts.length;
      const size = chunkSize ?? chunkSizeFor(total, workers.length);
      // The chunks are cut from the texts ordered by length, as decodeBatch orders its own:
      // words of one length are stepped together and finish together (chunks of the list
      // as given would mix them). order[k]: the index in `texts` of the k-th shortest.
      const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length || a - b);
      const chunks = [];
      for (let from = 0; from < total; from += size) chunks.push([from, Math.min(total, from + size)]);
      const abort = new AbortController();   // stops this batch's requests, and no other's
      const job = { texts, order, options, chunks, next: 0, running: 0, done: 0, lists: new Array(total), abort, failed: false, fail: null, finish: null };
      const onAbort = () => job.fail(batchCancelled());
      const end = () => {
        this.#running.delete(job);
        signal?.removeEventListener('abort', onAbort);
        const at = this.#jobs.indexOf(job);
        if (at >= 0) this.#jobs.splice(at, 1);
      };
      job.fail = (e) => {
        if (job.failed) return;
        job.failed = true;
        end();
        abort.abort();
        reject(e);
      };
      job.finish = () => {
        end();
        resolve(job.lists);
      };
      job.progress = (n) => {
        job.done += n;
        if (!onProgress) return;
        try {
          onProgress({ done: job.done, total });
        } catch (e) {
          job.fail(e);
        }
      };
      this.#running.add(job);
      signal?.addEventListener('abort', onAbort);
      // Every text and the options checked first, by the first worker, as decodeBatch checks
      // them: a bad text is named by its index in the whole list, never in its chunk. The
      // chunks start meanwhile; one that fails waits for this verdict.
      job.checked = workers[0]._checkBatch(texts, options, abort.signal);
      job.checked.catch((e) => job.fail(e));
      job.checked.then(() => {
        if (total === 0 && !job.failed) {
          job.progress(0);
          if (!job.failed) job.finish();
        }
      }, () => {});
      if (total > 0) {
        this.#jobs.push(job);
        this.#pump();
      }
    }));
  }

  // Hands out chunks to idle workers, oldest batch first.
  #pump() {
    while (this.#idle.length > 0 && this.#jobs.length > 0) {
      const job = this.#jobs[0];
      if (job.next >= job.chunks.length) {
        this.#jobs.shift();
        continue;
      }
      const [from, to] = job.chunks[job.next++];
      const worker = this.#idle.shift();
      job.running += 1;
      const part = job.order.slice(from, to);
      worker.decodeBatch(part.map((i) => job.texts[i]), job.options, { signal: job.abort.signal }).then((lists) => {
        for (let i = 0; i < lists.length; i++) job.lists[part[i]] = lists[i];
        job.running -= 1;
        if (job.failed) return;
        job.progress(to - from);
        if (!job.failed && job.next >= job.chunks.length && job.running === 0) job.checked.then(() => job.finish(), () => {});
      }, (e) => {
        job.running -= 1;
        // The check's error names the text by its place in the whole list; a chunk's, in the chunk.
        job.checked.then(() => job.fail(e), () => {});
      }).finally(() => {
        if (this.#closed) return;
        this.#idle.push(worker);
        this.#pump();
      });
    }
  }

  /** Stops every batch in progress or waiting (each rejects with kind 'Cancelled'); resolves to whether there was one. */
  async cancel() {
    // After the batches asked for before this call have been set up (they wait for the workers).
    await this.#workers.catch(() => {});
    const jobs = [...this.#running];
    for (const job of jobs) job.fail(batchCancelled());
    return jobs.length > 0;
  }

  /** Stops the workers; batches in progress reject with kind 'Cancelled'. The pool cannot be used again. */
  async terminate() {
    if (this.#closed) return;
    this.#closed = true;
    const workers = await this.#workers.catch(() => []);
    for (const job of [...this.#running]) job.fail(new Seq2SeqError('the decoder pool was terminated', 'Cancelled'));
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
