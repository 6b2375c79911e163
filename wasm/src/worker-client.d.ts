// Type declarations for seq2seq-wasm/worker (wasm/src/worker-client.js).
import type { BlobLike, DecodingOptions, LoadOptions, ModelInfo, ResponseLike, Result, Snapshot, URLLike } from './index.js';
import { Seq2SeqError, env } from './index.js';

/** env is seq2seq-wasm's own object, for pages that decode only in workers. */
export { Seq2SeqError, env };
export type { DecodingOptions, Env, LoadOptions, LoadProgress, ModelInfo, Result, Snapshot, ArSnapshot, NarSnapshot, ErrorKind } from './index.js';

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
   */
  load(source: WorkerModelSource, options?: LoadOptions): Promise<ModelInfo>;
  /** Starts decoding `text` with `options` (defaults for what is missing); options are checked as decode() checks them. */
  start(text: string, options?: DecodingOptions): Promise<StartInfo>;
  /** One decoder pass. */
  step(): Promise<Snapshot>;
  /** Steps to the end (yielding between steps); the n-best, best first. Rejects with kind 'Cancelled' when cancelled. */
  run(options?: RunOptions): Promise<Result[]>;
  /** Stops a run in progress or queued at its next step; resolves to whether there was one. */
  cancel(): Promise<boolean>;
  /** Stops the worker; pending requests reject with kind 'Cancelled'. */
  terminate(): Promise<void>;
}

/** Where the worker's script and the engine's .wasm are served, for bundlers that do not emit them. */
export interface DecoderWorkerOptions {
  /** The URL (or, in Node, path) of 'seq2seq-wasm/worker-script' or your bundle of it. Default: the package's. */
  workerUrl?: string | URLLike;
  /**
   * The URL (or, in Node, path) of seq2seq_core.wasm for the worker's engine; relative URLs are
   * resolved against the page. Default: env.wasmUrl if set, else the .wasm next to the worker script.
   */
  wasmUrl?: string | URLLike;
}

/**
 * A decoder in a worker. `target`: nothing (this package's worker script), the
 * URL (or, in Node, path) of 'seq2seq-wasm/worker-script', a worker you made, or
 * { workerUrl, wasmUrl }. Wrong types or unknown option names throw a UsageError.
 */
export declare function createDecoderWorker(target?: string | URLLike | WorkerLike | DecoderWorkerOptions): DecoderWorker;
