// Type declarations for seq2seq-wasm (wasm/src/index.js). The shapes of
// snapshots, results and model info are exactly the objects built by
// wasm/bindings.cpp; the options mirror seq2seq::DecodingOptions
// (src/decoding_options.h) as wasm/src/options.js checks them.

/** Search strategy. Greedy is beam search with one hypothesis; 'nar' is Mask-Predict (CMLM models). */
export type Strategy = 'greedy' | 'beam' | 'sample' | 'nar';
/**
 * How finished hypotheses are compared; |Y| counts output tokens including EOS.
 * 'none': log P; 'average': log P / |Y|; 'gnmt': log P / ((5 + |Y|) / 6)^gnmtAlpha.
 */
export type LengthNorm = 'none' | 'average' | 'gnmt';
/** Where Mask-Predict takes its target length from. */
export type NarLength = 'predicted' | 'fixed' | 'given';

/** Decoding options. Every field is optional; unknown names and wrong types throw a TypeError, out-of-range values a Seq2SeqError ('UsageError'). */
export interface DecodingOptions {
  /** Default: 'greedy' for an autoregressive model, 'nar' for a CMLM. */
  strategy?: Strategy;
  /** Beam width, 1..256 (beam only). Default 5. */
  beamSize?: number;
  /** Default 'average'. */
  lengthNorm?: LengthNorm;
  /** GNMT alpha, 0..10. Default 0.6. */
  gnmtAlpha?: number;
  /** Output tokens including EOS, 1..100000, clamped to what the model can hold. Default 256. */
  maxLength?: number;
  /** > 0: also cap the output at ceil(ratio * source length). Default 0 (off). */
  maxLengthRatio?: number;
  /** EOS is withheld before this many tokens. Default 0. */
  minLength?: number;
  /** Hypotheses returned: beam, at most beamSize; sample, samples drawn; greedy, 1. Default 1. */
  nBest?: number;
  /** Forced first target tokens, 'HH AH' or ['HH', 'AH']. Default none. */
  prefix?: string | readonly string[];
  /** Sampling temperature, (0, 100]. Default 1. */
  temperature?: number;
  /** Sampling: keep the k likeliest tokens; 0 is off. Default 0. */
  topK?: number;
  /** Sampling: nucleus mass, (0, 1]. Default 1. */
  topP?: number;
  /** Sampling seed (a non-negative safe integer); the same seed gives the same samples natively and in wasm. Default 0. */
  seed?: number;
  /** Mask-Predict length: the length head's prediction, max length cut at the first EOS, or `length`. Default 'predicted'. */
  narLength?: NarLength;
  /** Mask-Predict length beam: decode the L likeliest lengths, keep the best-scoring draft, 1..64. Default 1. */
  lengthCandidates?: number;
  /** Length beam: a draft's score is avgLogprob + w * log P(length), w in [0, 10]. Default 0 (Mask-Predict's rule). */
  lengthScoreWeight?: number;
  /** narLength 'given': the target length. Default 0. */
  length?: number;
  /** Mask-Predict iterations T, 1..100. Default 10. */
  iterations?: number;
  /** Mask-Predict: stop when an iteration changes no token. Default true. */
  earlyStop?: boolean;
  /** Next-token candidates kept per hypothesis in snapshots, 0..64. Default 5. */
  topCandidates?: number;
  /** Cross-attention in snapshots. Default true. */
  attention?: boolean;
}

/** The options a session actually uses: every field filled in, the prefix joined. */
export type ResolvedDecodingOptions = Required<Omit<DecodingOptions, 'prefix'>> & { prefix: string };

/** The defaults (strategy undefined: it depends on the model). */
export declare const DEFAULT_OPTIONS: Readonly<Required<Omit<DecodingOptions, 'strategy' | 'prefix'>> & { strategy: undefined; prefix: string }>;

/** The kinds of Seq2SeqError: the C++ exception it came from, or the worker client's own. */
export type ErrorKind = 'ModelError' | 'InputError' | 'UsageError' | 'NetworkError' | 'WasmError' | 'OutOfMemory' | 'Error' | 'Cancelled' | 'WorkerError';

/** Every failure of the library: the C++ message, with option names in their JS spelling. */
export declare class Seq2SeqError extends Error {
  constructor(message: string, kind?: ErrorKind);
  readonly name: 'Seq2SeqError';
  /**
   * ModelError: bad model file or a sha256 mismatch; InputError: unusable text; UsageError: bad
   * options or calls out of order; NetworkError: the model's URL could not be fetched or answered
   * with an HTTP error; WasmError: the engine's .wasm could not be fetched, compiled or
   * instantiated (the message names the URL tried: set env.wasmUrl).
   */
  readonly kind: ErrorKind;
  /** Node's error code (ENOENT, EISDIR, ...) when loadModel(path) could not read the file. */
  readonly code?: string;
}

/** Special target token ids (-1 when the model has none). */
export interface TargetSpecials {
  pad: number;
  unk: number;
  bos: number;
  eos: number;
  mask: number;
}

/** What every model's info holds. */
export interface ModelInfoBase {
  name: string;
  description: string;
  /** 'cmlm' is non-autoregressive (Mask-Predict); the others decode left to right. */
  arch: 'transformer' | 'cmlm' | 'rnn';
  autoregressive: boolean;
  /** Transformer sizes (0 for an RNN). */
  dModel: number;
  heads: number;
  ffn: number;
  encoderLayers: number;
  decoderLayers: number;
  norm: 'pre' | 'post';
  positions: 'sinusoidal' | 'learned';
  maxPositions: number;
  /** CMLM: the length head predicts lengths 0..maxTargetLength. */
  maxTargetLength: number;
  parameters: number;
  fileBytes: number;
  /** true when the weights are stored as f16 (same as `storage === 'f16'`). */
  storedF16: boolean;
  /** How the weights are stored in the file: the narrowest dtype in it (int8 files keep biases and norms in f32). */
  storage: 'f32' | 'f16' | 'int8';
  /** What the linear layers multiply in: 'int8' for int8 storage under `compute: 'auto'`, else 'f32'. */
  compute: 'int8' | 'f32';
  sourceVocab: string[];
  targetVocab: string[];
  targetSpecials: TargetSpecials;
}

/** A Transformer: autoregressive ('transformer') or Mask-Predict ('cmlm'). */
export interface TransformerModelInfo extends ModelInfoBase {
  arch: 'transformer' | 'cmlm';
}

/** An RNN encoder-decoder (bi-GRU encoder, GRU decoder with attention) and its own sizes. */
export interface RnnModelInfo extends ModelInfoBase {
  arch: 'rnn';
  autoregressive: true;
  cell: 'gru';
  attentionScore: 'dot' | 'multiplicative' | 'reduced_rank' | 'additive';
  embDim: number;
  encHidden: number;
  decHidden: number;
  /** 0 for the dot and multiplicative scores. */
  attnDim: number;
}

/** A model's configuration, size and vocabularies; narrow on `arch`. */
export type ModelInfo = TransformerModelInfo | RnnModelInfo;

/** A decoded output, best first in a list. */
export interface Result {
  /** Target tokens joined by spaces. */
  text: string;
  /** Target token ids, without BOS and EOS. */
  tokens: number[];
  logprob: number;
  /** The length-normalised score (Mask-Predict: the average log-probability). */
  score: number;
  /** |Y| as used by the normalisation (EOS included when produced). */
  length: number;
}

/** A next-token candidate. */
export interface TokenCandidate {
  token: number;
  text: string;
  prob: number;
}

/** A node of the autoregressive search tree. */
export interface Hypothesis {
  /** Unique within the decode; the root (BOS only) is 0. */
  id: number;
  /** The parent node's id; -1 for the root. */
  parent: number;
  /** Output token ids (no BOS; ending with EOS when finished). */
  tokens: number[];
  /** The tokens' texts. */
  texts: string[];
  /** Cumulative log-probability. */
  logprob: number;
  /** Length-normalised score. */
  score: number;
  finished: boolean;
  /** The last token was imposed (prefix, or EOS at max length). */
  forced: boolean;
  /** Probability of the last token. */
  tokenProb: number;
  /** The distribution the last token came from: its top candidates, best first. */
  candidates: TokenCandidate[];
  /** Cross-attention of the step that made the last token, averaged over layers and heads: [sourceLength]. Absent with attention: false. */
  attention?: Float32Array;
  /** The same per (layer, head): [layers * heads * sourceLength]. Absent with attention: false. */
  attentionHeads?: Float32Array;
}

/** A candidate considered at a step and dropped. */
export interface PrunedCandidate {
  parent: number;
  token: number;
  text: string;
  /** Cumulative, as if kept. */
  logprob: number;
  score: number;
}

/** One Mask-Predict draft (one per decoded length). */
export interface NarDraft {
  /** Positions decoded. */
  length: number;
  /** One token id per position. */
  tokens: number[];
  texts: string[];
  /** Confidence of each position's token. */
  probs: Float32Array;
  /** 1: re-masked and re-predicted in this iteration. */
  masked: Uint8Array;
  /** Tokens before the first EOS. */
  outputLength: number;
  /** Over the output (and its EOS, if cut). */
  avgLogprob: number;
  /** log P(length) from the length head; 0 unless narLength is 'predicted'. */
  lengthLogprob: number;
  /** avgLogprob + lengthScoreWeight * lengthLogprob: the length beam keeps the highest. */
  score: number;
  /** Cross-attention [length * sourceLength], averaged over layers and heads. Absent with attention: false. */
  attention?: Float32Array;
}

interface SnapshotBase {
  /** Decoder passes so far in this decode. */
  step: number;
  done: boolean;
  sourceLength: number;
  /** Present once done: the n-best, best first. */
  results?: Result[];
}

/** A step of greedy, beam or sampling search. */
export interface ArSnapshot extends SnapshotBase {
  autoregressive: true;
  /** Shape of attentionHeads. */
  layers: number;
  heads: number;
  /** Live hypotheses after this step. */
  live: Hypothesis[];
  /** All finished so far, best first. */
  finished: Hypothesis[];
  /** Dropped at this step. */
  pruned: PrunedCandidate[];
}

/** A Mask-Predict iteration. */
export interface NarSnapshot extends SnapshotBase {
  autoregressive: false;
  /** 1-based iteration of this step. */
  iteration: number;
  /** T. */
  iterations: number;
  /** The length head's log-probabilities over lengths 0..max. */
  lengthLogprobs: Float32Array;
  /** The lengths being decoded. */
  lengths: number[];
  drafts: NarDraft[];
  bestDraft: number;
  /** Did this iteration change any token. */
  changed: boolean;
}

/** Everything a decode step shows; narrow on `autoregressive`. */
export type Snapshot = ArSnapshot | NarSnapshot;

// Web platform types, if the consumer's libraries declare them (DOM, WebWorker,
// or @types/node); `never` otherwise, so these declarations need no lib.
type GlobalInstance<K extends string> = typeof globalThis extends { [P in K]: { prototype: infer T } } ? T : never;
/** The global URL class's instances. */
export type URLLike = GlobalInstance<'URL'>;
/** The global Response class's instances (fetch). */
export type ResponseLike = GlobalInstance<'Response'>;
/** The global Blob class's instances (a File, too). */
export type BlobLike = GlobalInstance<'Blob'>;

/** Where model bytes come from: a URL (fetched), a file path (Node), a Response, a Blob (a File too), or the bytes. */
export type ModelSource = string | URLLike | ResponseLike | BlobLike | ArrayBuffer | ArrayBufferView;

/** How far a model download has come. */
export interface LoadProgress {
  /** Bytes received so far. */
  loaded: number;
  /** The size from Content-Length; undefined when the server did not say (or compressed the body). */
  total: number | undefined;
}

/** How a model is loaded. */
export interface LoadOptions {
  /**
   * 'auto' (default): weights stored as int8 stay int8 in memory and are multiplied with
   * integer dot products (each activation row quantised to int16 on the fly); 'f32':
   * every weight widened to f32, as PyTorch computes (4x the memory, slower).
   */
  compute?: 'auto' | 'f32';
  /**
   * Called as a download (a URL or a Response) comes in, and once at the end for every
   * source: the last call always has loaded === total.
   */
  onProgress?: (progress: LoadProgress) => void;
  /**
   * Browsers: keep a URL's download in the Cache API (true: the cache 'seq2seq-wasm-models';
   * a string: a cache of that name), keyed by the URL, and load from there next time with no
   * request. Stored only once the bytes made a model; an entry that fails sha256 or is no
   * model is dropped and downloaded again. Ignored where there is no Cache API (Node,
   * pages not served over https or from localhost) and for sources that are not URLs.
   */
  cache?: boolean | string;
  /**
   * The model file's SHA-256, 64 hex digits: the bytes are checked (crypto.subtle) whatever
   * the source, a cached copy too. A mismatch is a ModelError naming both digests.
   */
  sha256?: string;
}

/**
 * Loads a model (and, the first time, the WebAssembly module). Rejects with a Seq2SeqError
 * of kind 'ModelError' for bytes that are not a model or exceed a limit (docs/model-format.md,
 * "Limits"), a path that is not a regular file or cannot be read (with Node's `code`, e.g.
 * 'ENOENT', 'EISDIR'), or a sha256 mismatch; 'NetworkError' if the URL cannot be fetched or
 * answers with an HTTP error; 'WasmError' if the engine's .wasm cannot be loaded (see env);
 * 'UsageError' for wrong options or a source of no known kind; 'OutOfMemory' if the model
 * does not fit the wasm heap.
 */
export declare function loadModel(source: ModelSource, options?: LoadOptions): Promise<Model>;

/** Where the package finds its assets; one object shared by seq2seq-wasm and seq2seq-wasm/worker. */
export interface Env {
  /**
   * The URL (or, in Node, path) of seq2seq_core.wasm; a relative URL is resolved against the
   * page. undefined (the default): the .wasm next to the package's modules, found with
   * new URL('../dist/seq2seq_core.wasm', import.meta.url), which Vite, webpack 5 and Parcel
   * follow and emit. Set it where the bundler does not copy the file (esbuild), before the
   * first loadModel(): once the engine has loaded from one URL, setting another throws a
   * UsageError. createDecoderWorker() passes it on to its worker.
   */
  wasmUrl: string | URLLike | undefined;
}
export declare const env: Env;

/** Immutable weights; any number of sessions may share one. Call delete() when done. */
export declare class Model {
  private constructor();
  /** Configuration, size and vocabularies. */
  readonly info: Readonly<ModelInfo>;
  readonly autoregressive: boolean;
  readonly deleted: boolean;
  /** The source text as token ids; throws Seq2SeqError ('InputError') for unusable text. */
  tokenize(text: string): number[];
  createSession(options?: DecodingOptions): Session;
  /** One call: decode `text` with `options` and return the n-best, best first. */
  decode(text: string, options?: DecodingOptions): Result[];
  /**
   * decode() over a list in one call: one n-best list per text, in order
   * (`[]` for `[]`); the same results as a loop of decode(), with one session
   * and one call into the engine for the whole list, and no per-step snapshots.
   *
   * Throws Seq2SeqError ('UsageError') if `texts` is not an array of strings,
   * and for options decode() refuses. Every text is checked (as start() checks
   * it) before any is decoded: if one is unusable the whole call throws the
   * error of the first such text, its message prefixed with its index and the
   * text, e.g. `texts[3] "": input: the source text is empty` (kind
   * 'InputError'). Synchronous: in a page, use the worker's decodeBatch, which
   * reports progress and can be cancelled.
   */
  decodeBatch(texts: readonly string[], options?: DecodingOptions): Result[][];
  /** Frees the weights' wasm memory (sessions made from it keep working). Idempotent. */
  delete(): void;
}

/** The state of decoding one source at a time with one set of options. Call delete() when done. */
export declare class Session {
  constructor(model: Model, options?: DecodingOptions);
  readonly options: ResolvedDecodingOptions;
  readonly model: Model;
  readonly deleted: boolean;
  readonly started: boolean;
  readonly done: boolean;
  /** The max output length in effect for the current source. */
  readonly maxLength: number;
  /** Merged into the current options; they take effect at the next start(). */
  setOptions(options: DecodingOptions): void;
  /** Tokenizes and encodes the source; throws Seq2SeqError ('InputError') for unusable text. */
  start(text: string): void;
  /** One decoder pass; throws Seq2SeqError ('UsageError') before start() or after the end. */
  step(): Snapshot;
  /** Steps to the end; the n-best results, best first. */
  run(): Result[];
  /** start(text) then run(). */
  decode(text: string): Result[];
  /** Frees the session's wasm memory. Idempotent. */
  delete(): void;
}
