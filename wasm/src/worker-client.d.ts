// Type declarations for seq2seq-wasm/worker (wasm/src/worker-client.js).
import type { BlobLike, DecodingOptions, ForcedScore, LoadOptions, ModelInfo, ResponseLike, Result, Snapshot, StepInside, URLLike } from './index.js';
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
