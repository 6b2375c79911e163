// Type declarations for seq2seq-wasm/worker (wasm/src/worker-client.js).
import type { BlobLike, DecodingOptions, GlobalInstance, ForcedScore, LoadOptions, ModelInfo, ResponseLike, Result, Snapshot, StepInside, URLLike } from './index.js';
import { Seq2SeqError, env } from './index.js';

/** env is seq2seq-wasm's own object, for pages that decode only in workers. */
export { Seq2SeqError, env };
export type { DecodingOptions, Env, ForcedScore, LoadOptions, LoadProgress, ModelInfo, Result, Snapshot, ArSnapshot, NarSnapshot, ErrorKind, StepInside, TransformerStepInside, RnnStepInside } from './index.js';

/** What the worker can load: a URL (relative ones are resolved against the page), a path (Node), a Response or a Blob (read on the page, the bytes transferred), or the bytes. */
export type WorkerModelSource = string | URLLike | ResponseLike | BlobLike | ArrayBuffer | ArrayBufferView;

/** A Web Worker, a Node worker_threads Worker, or a port speaking the same protocol. */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: any[]): void;
}

/** What start() resolves to. */
export interface StartInfo {
  /** Source tokens. */
  sourceLength: number;
  /** The max output length in effect for this source. */
  maxLength: number;
}

export interface RunOptions {
  /** Receives every snapshot of the run, the last one (done) included. */
  onStep?: (snapshot: Snapshot) => void;
  /** How long the worker steps before yielding to its event loop (where a cancel gets in). Default 8 ms. */
  sliceMs?: number;
}

/** How far decodeBatch has come: texts decoded so far, of how many. */
export interface BatchProgress {
  done: number;
  total: number;
}

export interface DecodeBatchOptions {
  /**
   * Hears {done, total} after each slice of texts, the last time with done = total
   * (once, with 0 of 0, for an empty list). If it throws, decodeBatch rejects
   * with that exception and the worker stops the batch.
   */
  onProgress?: (progress: BatchProgress) => void;
  /** About how long each slice of texts takes before the worker yields to its event loop (where a cancel gets in). Default 8 ms. */
  sliceMs?: number;
  /** Its abort cancels this batch alone (the worker stops it at its next slice): decodeBatch rejects at once with kind 'Cancelled'. */
  signal?: GlobalInstance<'AbortSignal'>;
}

/**
 * A decoder in a worker: one model, one session, requests handled in order. Every rejection is a
 * Seq2SeqError; a bad argument (a source or text of the wrong type, a bad option, an onStep that is
 * no function) is one of kind 'UsageError' that says what was given.
 */
export declare class DecoderWorker {
  private constructor();
  /**
   * Loads a model, replacing the previous one; resolves to its info. The options are loadModel's:
   * a URL is downloaded (and cached, and checked) in the worker, and onProgress hears it there.
   * If onProgress throws, load rejects with that exception and the worker keeps the model it had
   * (unless the new one was already in place when the worker heard of it); if its signal aborts,
   * likewise with kind 'Cancelled', the worker's download aborted. Requests leave in the order
   * they are made: those made after a load (even one not awaited, whose Blob or Response is
   * still being read here) run on its model.
   */
  load(source: WorkerModelSource, options?: LoadOptions): Promise<ModelInfo>;
  /** Starts decoding `text` with `options` (defaults for what is missing); options are checked as decode() checks them. */
  start(text: string, options?: DecodingOptions): Promise<StartInfo>;
  /** One decoder pass. */
  step(): Promise<Snapshot>;
  /**
   * Steps to the end (yielding between steps); the n-best, best first. Rejects with kind 'Cancelled' when cancelled,
   * and with the exception onStep throws, if it does (the run then stops in the worker).
   */
  run(options?: RunOptions): Promise<Result[]>;
  /**
   * Model.decodeBatch in the worker: one n-best list per text, in order; errors as there (the first unusable text
   * fails the whole call, checked before any is decoded). Uses the loaded model, not the session of start/step/run,
   * which it leaves as it was. Rejects with kind 'Cancelled' when cancelled.
   */
  decodeBatch(texts: readonly string[], options?: DecodingOptions, progress?: DecodeBatchOptions): Promise<Result[][]>;
  /**
   * Model.score in the worker: the forced score of `target` ('F OW N IY M' or an array of tokens) for `text` under
   * `options`, with the loaded model; errors as there. The session of start/step/run is left as it was.
   */
  score(text: string, target: string | readonly string[], options?: DecodingOptions): Promise<ForcedScore>;
  /** Model.inspect in the worker: every intermediate of one decoder pass, its typed arrays transferred. */
  inspect(text: string, tokens?: readonly number[] | string | readonly string[]): Promise<StepInside>;
  /** Stops a run or batch in progress or queued at its next step or slice; resolves to whether there was one. */
  cancel(): Promise<boolean>;
  /** Stops the worker; pending requests reject with kind 'Cancelled'. */
  terminate(): Promise<void>;
}

/** Where the worker's script and the engine's .wasm are served, for bundlers that do not emit them, and how long it may take to start. */
export interface DecoderWorkerOptions {
  /** The URL (or, in Node, path) of 'seq2seq-wasm/worker-script' or your bundle of it. Default: the package's. */
  workerUrl?: string | URLLike | undefined;
  /**
   * The URL (or, in Node, path) of seq2seq_core.wasm for the worker's engine; relative URLs are
   * resolved against the page. Default: env.wasmUrl if set, else the .wasm next to the worker script.
   */
  wasmUrl?: string | URLLike | undefined;
  /**
   * Milliseconds the worker has to answer its start-up handshake (its script and imports loaded;
   * the wasm comes with the first load). Default 30000. Past it, every request rejects with a
   * WorkerError, as it does at once when the script or one of its imports fails to load.
   */
  startTimeout?: number | undefined;
}

/**
 * A decoder in a worker. `target`: nothing (this package's worker script), the
 * URL (or, in Node, path) of 'seq2seq-wasm/worker-script', a worker you made, or
 * { workerUrl, wasmUrl, startTimeout }. Wrong types or unknown option names throw a UsageError.
 */
export declare function createDecoderWorker(target?: string | URLLike | WorkerLike | DecoderWorkerOptions): DecoderWorker;

/** createDecoderPool's options: the number of workers, and createDecoderWorker's options for each. */
export interface DecoderPoolOptions extends DecoderWorkerOptions {
  /** Workers, each with its own engine and its own copy of the model, in [1, 64]. Default: the machine's parallelism (navigator.hardwareConcurrency, os.availableParallelism()), at most 8. */
  size?: number | undefined;
}

export interface PoolBatchOptions {
  /** Hears {done, total} as chunks of texts finish, the last time with done = total (once, with 0 of 0, for an empty list). If it throws, decodeBatch rejects with that exception and the batch stops. */
  onProgress?: (progress: BatchProgress) => void;
  /** Its abort stops this batch (and no other): decodeBatch rejects with kind 'Cancelled'. */
  signal?: GlobalInstance<'AbortSignal'>;
  /** Texts per chunk a worker takes at a time. Default: the list cut into at least 4 chunks per worker, of at most 32 texts. */
  chunkSize?: number;
}

/**
 * Decoder workers that share out a list of texts: each has its own engine instance and model, with no
 * shared memory (no SharedArrayBuffer, no cross-origin isolation needed). Every rejection is a Seq2SeqError.
 */
export declare class DecoderPool {
  private constructor();
  /** POOL_MIN_TEXTS: below this many texts, decoding on one thread is about as fast. */
  readonly minTexts: number;
  /** The number of workers: as given, or, by default, known once load() has resolved (undefined before). */
  readonly size: number | undefined;
  /**
   * Loads a model in every worker; resolves to its info. The options are loadModel's: the model is read
   * once, on this thread (a URL downloaded, cached and checked once, onProgress hearing it), and each
   * worker is sent its bytes.
   */
  load(source: WorkerModelSource, options?: LoadOptions): Promise<ModelInfo>;
  /**
   * Model.decodeBatch across the workers: one n-best list per text, in input order, deep-equal to what
   * one worker or Model.decodeBatch gives. The texts are cut into chunks that the workers take as they
   * finish the last. Errors as decodeBatch's: a bad text fails the whole call with the error of the
   * first such text, named by its index in `texts` (kind 'InputError'); bad arguments or options are
   * a 'UsageError'. Rejects with kind 'Cancelled' when its signal aborts, on cancel() and terminate().
   * A worker that dies (its thread exits or crashes) fails the batch with kind 'WorkerError', and every
   * later batch that reaches it: terminate() the pool and make another.
   */
  decodeBatch(texts: readonly string[], options?: DecodingOptions, batch?: PoolBatchOptions): Promise<Result[][]>;
  /** Stops every batch in progress or waiting (each rejects with kind 'Cancelled'); resolves to whether there was one. */
  cancel(): Promise<boolean>;
  /** Stops the workers; batches in progress reject with kind 'Cancelled', and so does every later call. */
  terminate(): Promise<void>;
}

/** The fewest texts worth a pool (16): fewer decode about as fast on one thread. */
export declare const POOL_MIN_TEXTS: number;

/** A pool of decoder workers. Bad options (a size that is no whole number in [1, 64], an unknown name, createDecoderWorker's checks) throw a UsageError. */
export declare function createDecoderPool(options?: DecoderPoolOptions): DecoderPool;
