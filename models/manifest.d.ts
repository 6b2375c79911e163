// Type declarations for seq2seq-wasm-models (manifest.js): manifest.json as a module.
import type { DecodingOptions } from 'seq2seq-wasm';

/** One model of the package. */
export interface ModelEntry {
  name: string;
  architecture: 'transformer' | 'cmlm' | 'rnn';
  /** The RNN's attention score. */
  attention?: string;
  autoregressive: boolean;
  description: string;
  /** The file, in the package's folder. */
  file: string;
  bytes: number;
  sha256: string;
  /** Test-split WER and PER (%), decoded with `decoding`. */
  testWer: number;
  testPer: number;
  testWerByLength: { letters: string; words: number; wer: number }[];
  /** The decoding options the scores were measured with. */
  decoding: DecodingOptions;
  /** The same as the native CLI's flags. */
  cli: string;
}

export interface Manifest {
  description: string;
  testSet: { name: string; words: number; sha256: string; metrics: string };
  models: ModelEntry[];
}

declare const manifest: Readonly<Manifest>;
export default manifest;
