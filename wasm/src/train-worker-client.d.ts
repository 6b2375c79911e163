// Types of seq2seq-wasm/train-worker (wasm/src/train-worker-client.js): training in a worker.
import type { HeldOutExample, Probe, ProgressRecord, TrainerConfig, TrainerInfo } from './train.js';
import { Seq2SeqError } from './index.js';
import type { URLLike } from './index.js';
import type { WorkerLike } from './worker-client.js';

export { Seq2SeqError };

export interface TrainOptions {
  /** Hears each record (with record.probe when asked). */
  onProgress?: (record: ProgressRecord) => void;
  /** true (held-out example 0) or an example's index: each record carries that example's probe. */
  probe?: boolean | number;
  /** Steps a record (default the run's logEvery). */
  every?: number;
}

export interface TrainEnd {
  /** 'paused': pause() stopped it; train() (or resume()) goes on. */
  status: 'done' | 'paused';
  /** The last record of this call, without its probe (that came to onProgress); null if it took no step. */
  record: ProgressRecord | null;
}

export declare class TrainerWorker {
  create(config?: TrainerConfig): Promise<TrainerInfo>;
  train(options?: TrainOptions): Promise<TrainEnd>;
  resume(options?: TrainOptions): Promise<TrainEnd>;
  pause(): Promise<boolean>;
  cancel(): Promise<boolean>;
  step(n?: number, options?: { probe?: boolean | number }): Promise<ProgressRecord>;
  probe(index?: number): Promise<Probe>;
  info(): Promise<TrainerInfo>;
  evaluate(): Promise<number>;
  heldOut(): Promise<HeldOutExample[]>;
  export(options?: { int8?: boolean }): Promise<Uint8Array>;
  checkpoint(): Promise<Uint8Array>;
  dispose(): Promise<null>;
  terminate(): Promise<void>;
}

/** createTrainerWorker({ ... }): where the trainer worker script and seq2seq_train.wasm are served, how long the worker has to start (ms, default 30,000). */
export interface TrainerWorkerOptions {
  workerUrl?: string | URLLike | undefined;
  wasmUrl?: string | URLLike | undefined;
  startTimeout?: number | undefined;
}

export declare function createTrainerWorker(target?: string | URLLike | WorkerLike | TrainerWorkerOptions): TrainerWorker;
