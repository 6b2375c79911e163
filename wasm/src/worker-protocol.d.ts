// Type declarations for seq2seq-wasm/worker-protocol (wasm/src/worker-protocol.js):
// the decoder worker's message handler, for building a worker of your own.
import type { BlobLike, DecodingOptions, ErrorKind, ForcedScore, LoadOptions, LoadProgress, ModelInfo, ModelSource, Model, Result, Snapshot, StepInside } from './index.js';

export declare const PROTOCOL_VERSION: 1;

/** Requests the handler understands; replies repeat the id. */
export type WorkerRequest =
  /** The client's start-up handshake: answered at once with {protocol: PROTOCOL_VERSION}. */
  | { id: number; type: 'hello' }
  | {
    id: number; type: 'load'; source: string | ArrayBuffer | ArrayBufferView | BlobLike;
    /** compute, cache, sha256, stallTimeout (onProgress and signal cannot cross: ask for progress, cancel the request). */
    options?: Omit<LoadOptions, 'onProgress' | 'signal'>;
    /** Post {id, progress: {loaded, total}} as the model downloads. */
    progress?: boolean;
    /** Where the engine's .wasm is (an absolute URL, or a Node path); null: next to the worker script. */
    wasmUrl?: string | null;
  }
  | { id: number; type: 'start'; text: string; options?: DecodingOptions }
  | { id: number; type: 'step' }
  | { id: number; type: 'run'; progress?: boolean; sliceMs?: number }
  /** With check, the options and texts are checked as the batch would be, nothing decoded; the value is null. */
  | { id: number; type: 'decodeBatch'; texts: string[]; options?: DecodingOptions; progress?: boolean; sliceMs?: number; check?: boolean }
  /** Model.score with the loaded model; the session of start/step/run is left as it was. */
  | { id: number; type: 'score'; text: string; target: string | string[]; options?: DecodingOptions }
  /** Model.inspect with the loaded model: tokens as ids or a space-separated string; its typed arrays come transferred. */
  | { id: number; type: 'inspect'; text: string; tokens?: number[] | string }
  /** Without `request`, stops every run and batch in progress or queued; with it, that request only (a load: its download aborted). */
  | { id: number; type: 'cancel'; request?: number };

/** What the handler posts. */
export type WorkerReply =
  | { id: number; ok: true; value: ModelInfo | { sourceLength: number; maxLength: number } | Snapshot | Result[] | Result[][] | null | ForcedScore | StepInside | { cancelled: boolean } | { protocol: 1 } }
  | { id: number; ok: false; error: { name: string; message: string; kind?: ErrorKind } }
  | { id: number; progress: Snapshot | LoadProgress | { done: number; total: number } };

export interface WorkerHandlerOptions {
  /** How long a run steps before yielding, unless the request says otherwise. Default 8 ms. */
  defaultSliceMs?: number;
  /** How a model is loaded (default: loadModel). */
  load?: (source: ModelSource, options?: LoadOptions) => Promise<Model>;
}

/** A message handler: call it with each request; the promise settles once the reply is posted. */
export declare function createWorkerHandler(
  post: (message: WorkerReply, transfer: ArrayBuffer[]) => void,
  options?: WorkerHandlerOptions,
): (request: WorkerRequest) => Promise<void>;
