// A TypeScript user of seq2seq-wasm: every part of the public API, with the
// types spelled out. tests/node/types.test.mjs type-checks it against the
// installed package (tsc --noEmit --strict, with and without the DOM library)
// and then compiles and runs it.
import { DEFAULT_OPTIONS, Model, Seq2SeqError, Session, env, loadModel } from 'seq2seq-wasm';
import type {
  ArSnapshot, ArSnapshotDone, DecodingOptions, ErrorKind, ForcedScore, Hypothesis, LoadOptions, LoadProgress, ModelInfo, ModelSource, NarDraft, NarSnapshot, NarSnapshotDone,
  PrunedCandidate, ResolvedDecodingOptions, Result, RnnModelInfo, Snapshot, TargetSpecials, TokenCandidate, TransformerModelInfo,
} from 'seq2seq-wasm';
import { DecoderPool, DecoderWorker, createDecoderPool, createDecoderWorker } from 'seq2seq-wasm/worker';
import type { BatchProgress, DecodeBatchOptions, RunOptions, StartInfo, WorkerModelSource } from 'seq2seq-wasm/worker';
import { PROTOCOL_VERSION, createWorkerHandler } from 'seq2seq-wasm/worker-protocol';
import type { WorkerReply, WorkerRequest } from 'seq2seq-wasm/worker-protocol';

function describeSnapshot(s: Snapshot): string {
  if (s.autoregressive) {
    const ar: ArSnapshot = s;
    const best: Hypothesis | undefined = ar.live[0] ?? ar.finished[0];
    const attention: Float32Array | undefined = best?.attention;
    const heads: number = ar.layers * ar.heads * ar.sourceLength;
    const candidates: TokenCandidate[] = best?.candidates ?? [];
    const pruned: PrunedCandidate[] = ar.pruned;
    const selfRow: Float32Array | undefined = best?.selfAttention;
    const encoder: Float32Array | undefined = ar.encoderAttention;
    const encoderShape: number = (ar.encoderLayers ?? 0) * (ar.encoderHeads ?? 0) * ar.sourceLength ** 2;
    return `step ${ar.step}: ${best?.texts.join(' ')} (${best?.score.toFixed(3)}; attention ${attention?.length ?? 0}/${best?.attentionHeads?.length ?? 0} of ${heads}; self ${selfRow?.length ?? 0}; encoder ${encoder?.length ?? 0} of ${encoderShape}; ${candidates.length} candidates; ${pruned.length} pruned)`;
  }
  const nar: NarSnapshot = s;
  const draft: NarDraft = nar.drafts[nar.bestDraft];
  const probs: Float32Array = draft.probs;
  const masked: Uint8Array = draft.masked;
  const lengths: Float32Array = nar.lengthLogprobs;
  const self: Float32Array | undefined = draft.selfAttention;
  const selfShape: number = (nar.layers ?? 0) * (nar.heads ?? 0) * draft.length ** 2;
  return `iteration ${nar.iteration}/${nar.iterations}: ${draft.texts.join(' ')} (${probs.length} probs, ${masked.reduce((a, b) => a + b, 0)} masked, ${lengths.length} lengths, self ${self?.length ?? 0} of ${selfShape}, encoder ${nar.encoderAttention?.length ?? 0}, changed ${nar.changed})`;
}

// What narrowing gives: a snapshot that is done carries its results, every one
// with the decode's passes; an autoregressive one its hypotheses, a Mask-Predict
// one its drafts. Without the unions results would be optional everywhere.
function finalWords(s: Snapshot): string {
  if (!s.done) return s.autoregressive ? `${s.live.length} live` : `${s.drafts.length} drafts`;
  const results: Result[] = s.results;
  const passes: number = results[0]?.steps ?? 0;
  const done: ArSnapshotDone | NarSnapshotDone = s;
  const running: string = done.autoregressive ? `${done.finished.length} finished` : `${done.lengths.length} lengths`;
  return `${results.map((r) => r.text).join(' | ')} after ${passes} passes (${running})`;
}

/** Decodes `text` step by step and in one call; returns what it saw. */
export async function main(source: ModelSource, text: string): Promise<{ lines: string[]; results: Result[]; info: ModelInfo }> {
  const model: Model = await loadModel(source);
  const info: Readonly<ModelInfo> = model.info;
  const specials: TargetSpecials = info.targetSpecials;
  const options: DecodingOptions = info.autoregressive
    ? { strategy: 'beam', beamSize: 4, nBest: 2, lengthNorm: 'gnmt', gnmtAlpha: 0.6, prefix: [], topCandidates: 3 }
    : { strategy: 'nar', iterations: 4, lengthCandidates: 2, narLength: 'predicted', earlyStop: true };
  const session: Session = model.createSession(options);
  const resolved: ResolvedDecodingOptions = session.options;
  const lines: string[] = [`${info.name}: ${info.arch}, ${resolved.strategy}, eos ${specials.eos}, max ${DEFAULT_OPTIONS.maxLength}`];
  if (info.arch === 'rnn') {
    const rnn: Readonly<RnnModelInfo> = info;
    lines.push(`${rnn.cell} ${rnn.attentionScore} ${rnn.embDim}/${rnn.encHidden}/${rnn.decHidden}/${rnn.attnDim}`);
  } else {
    const transformer: Readonly<TransformerModelInfo> = info;
    lines.push(`${transformer.dModel} x ${transformer.heads} heads, ${transformer.encoderLayers}+${transformer.decoderLayers} layers, ${transformer.norm}-LN`);
  }
  session.start(text);
  const max: number = session.maxLength;
  let results: Result[] = [];
  while (!session.done) {
    const s: Snapshot = session.step();
    lines.push(describeSnapshot(s));
    if (s.done) {
      results = s.results;
      lines.push(finalWords(s));
    }
  }
  lines.push(`max length ${max}; best: ${results[0]?.text} ${results[0]?.tokens.length} ${results[0]?.logprob}`);
  const again: Result[] = model.decode(text, options);
  if (again[0]?.text !== results[0]?.text) throw new Error('decode() disagrees with stepping');
  if (results[0] && results[0].tokens.length > 0) {
    const forced: ForcedScore = model.score(text, results[0].text, options);
    const again: ForcedScore = session.score(text, forced.texts);
    const perToken: number[] = forced.tokenLogprobs;
    const lengthLogprob: number | undefined = forced.lengthLogprob;
    if (again.logprob !== forced.logprob) throw new Error('Session.score() disagrees with Model.score()');
    lines.push(`forced ${forced.text}: ${forced.logprob} ${forced.score} ${forced.length} ${perToken.length} ${lengthLogprob ?? '-'}`);
  }
  const lists: Result[][] = model.decodeBatch([text, text], options);
  if (lists.length !== 2 || lists[1][0]?.text !== results[0]?.text) throw new Error('decodeBatch() disagrees with decode()');
  try {
    model.decode('', options);
  } catch (e) {
    if (!(e instanceof Seq2SeqError)) throw e;
    const kind: ErrorKind = e.kind;
    lines.push(`${e.name} ${kind}: ${e.message}`);
  }
  const ids: number[] = model.tokenize(text);
  lines.push(`tokens ${ids.join(',')}; deleted ${model.deleted} ${session.deleted} ${session.started} ${session.model === model}`);
  session.setOptions({ topCandidates: 1 });
  session.delete();
  model.delete();
  return { lines, results, info };
}

/** The same through the worker client; `worker` may be omitted. */
export async function viaWorker(source: WorkerModelSource, text: string, worker?: DecoderWorker): Promise<Result[]> {
  const decoder: DecoderWorker = worker ?? createDecoderWorker();
  try {
    const info: ModelInfo = await decoder.load(source);
    const started: StartInfo = await decoder.start(text, { attention: false });
    const first: Snapshot = await decoder.step();
    const steps: number[] = [first.step];
    const run: RunOptions = { onStep: (s: Snapshot) => { steps.push(s.step); }, sliceMs: 4 };
    const results: Result[] = await decoder.run(run);
    const stopped: boolean = await decoder.cancel();
    if (stopped || steps.length < 1 || started.sourceLength < 1 || !info.name) throw new Error('unexpected worker replies');
    const seen: BatchProgress[] = [];
    const progress: DecodeBatchOptions = { onProgress: (p: BatchProgress) => { seen.push(p); }, sliceMs: 4 };
    const lists: Result[][] = await decoder.decodeBatch([text], { attention: false }, progress);
    if (lists[0]?.[0]?.text !== results[0]?.text || seen.at(-1)?.done !== 1) throw new Error('unexpected batch replies');
    if (results[0] && results[0].tokens.length > 0) {
      const forced: ForcedScore = await decoder.score(text, results[0].text, { attention: false });
      if (forced.text !== results[0].text) throw new Error('unexpected score reply');
    }
    return results;
  } finally {
    await decoder.terminate();
  }
}

/** A worker of one's own around the protocol handler. */
export function ownHandler(post: (reply: WorkerReply, transfer: ArrayBuffer[]) => void): (request: WorkerRequest) => Promise<void> {
  const version: 1 = PROTOCOL_VERSION;
  void version;
  return createWorkerHandler(post, { defaultSliceMs: 4 });
}

// Loading options and asset paths (type-checked, never run: it fetches).
export async function loading(url: string): Promise<Model> {
  env.wasmUrl = '/assets/seq2seq_core.wasm';
  const progress: LoadProgress[] = [];
  const options: LoadOptions = { compute: 'auto', onProgress: (p: LoadProgress) => { progress.push(p); }, cache: true, sha256: 'ab'.repeat(32) };
  const decoder = createDecoderWorker({ workerUrl: '/assets/decoder-worker.js', wasmUrl: env.wasmUrl });
  await decoder.load(url, options);
  await decoder.terminate();
  const total: number | undefined = progress.at(-1)?.total;
  void total;
  return loadModel(url, { ...options, cache: 'my-models' });
}

// Many words across workers (type-checked, never run).
export async function pooled(url: string, words: string[]): Promise<string[]> {
  const pool: DecoderPool = createDecoderPool({ size: 2, workerUrl: '/assets/decoder-worker.js' });
  await pool.load(url, { cache: true });
  const size: number | undefined = pool.size;
  void size;
  const lists = await pool.decodeBatch(words, { strategy: 'beam', beamSize: 4 }, { onProgress: ({ done, total }) => { void (done / total); }, chunkSize: 16 });
  const cancelled: boolean = await pool.cancel();
  void cancelled;
  await pool.terminate();
  // @ts-expect-error size is a number of workers
  createDecoderPool({ size: '2' });
  return lists.map((l) => l[0]?.text ?? '');
}

// Misuse the declarations must reject (type-checked, never run).
export function rejected(model: Model, session: Session): void {
  // @ts-expect-error options are camelCase
  model.createSession({ beam_size: 5 });
  // @ts-expect-error strategies are lower-case names
  model.createSession({ strategy: 'Beam' });
  // @ts-expect-error beamSize is a number
  model.decode('A', { beamSize: '5' });
  // @ts-expect-error Models come from loadModel()
  new Model();
  // @ts-expect-error info is read-only
  model.info = model.info;
  // @ts-expect-error RNN sizes exist only once narrowed to arch 'rnn'
  model.info.encHidden;
  // @ts-expect-error start() takes a string
  session.start(42);
  // @ts-expect-error decodeBatch() takes an array of strings
  model.decodeBatch('A');
  // @ts-expect-error a target is a string or an array of token strings
  model.score('A', [1, 2]);
  const s = session.step();
  // @ts-expect-error drafts exist only on non-autoregressive snapshots
  s.drafts;
  // @ts-expect-error results exist only on a snapshot that is done
  const early: Result[] = s.results;
  void early;
  if (s.autoregressive && !s.done) {
    // @ts-expect-error a running search has no results yet
    s.results;
  }
  if (!s.autoregressive) {
    // @ts-expect-error probabilities are a Float32Array, not number[]
    const probs: number[] = s.drafts[0].probs;
    void probs;
  }
  // @ts-expect-error a decoder worker's step() is asynchronous
  const snap: Snapshot = createDecoderWorker().step();
  void snap;
  // @ts-expect-error not a request type
  const bad: WorkerRequest = { id: 1, type: 'pause' };
  void bad;
  // @ts-expect-error env.wasmUrl is a string or a URL
  env.wasmUrl = 5;
  // @ts-expect-error cache is a boolean or a cache name
  void loadModel('m.safetensors', { cache: 1 });
  // @ts-expect-error createDecoderWorker's options are workerUrl and wasmUrl
  createDecoderWorker({ wasmURL: '/x.wasm' });
}

// Sessions can also be made directly.
export const direct = (model: Model): Session => new Session(model, { strategy: 'greedy' });
