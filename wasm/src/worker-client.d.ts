// Type declarations for seq2seq-wasm/worker (wasm/src/worker-client.js).
import type { BlobLike, DecodingOptions, LoadOptions, ModelInfo, ResponseLike, Result, Snapshot, URLLike } from './index.js';
import { Seq2SeqError } from './index.js';

export { Seq2SeqError };
export type { DecodingOptions, ModelInfo, Result, Snapshot, ArSnapshot, NarSnapshot, ErrorKind } from './index.js';

/** What the worker can load: a URL (relative ones are resolved against the page), a path (Node), or the bytes. */
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
  /** Loads a model, replacing the previous one; resolves to its info. */
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

/**
 * A decoder in a worker. `target`: nothing (this package's worker script), the
 * URL (or, in Node, path) of 'seq2seq-wasm/worker-script', or a worker you made.
 */
export declare function createDecoderWorker(target?: string | URLLike | WorkerLike): DecoderWorker;
