// The page's one door to the decoder. Everything else calls openDecoder() and
// talks to what it returns:
//
//   const d = await openDecoder(modelUrl);   // d.info: Model.info of the npm module
//   await d.exclusive(async ({ start, step, run, cancel, score }) => {
//     await start(word, options);            // options: the npm module's decoding options
//     const snapshot = await step();         // one decoder pass
//     const nbest = await run(onSnapshot);   // the rest, every snapshot to onSnapshot
//     const forced = await score(word, 'D IH L IY T', options);   // log P(target | word), as results are scored
//     const lists = await decodeBatch(words, options, { onProgress });   // n-best lists, {done, total} as it goes
//   });                                      // cancel(): the run stops at its next step
//   d.terminate();
//
// Decoding runs in Web Workers (the npm module's worker client): one worker per
// model, shared by the lanes that use it, each lane holding it for a whole
// decode (`exclusive`). So the WebAssembly is compiled and a model loaded once
// per model, lanes on different models decode in parallel, and the page thread
// never blocks. This file is the only one that knows: an openDecoder of the same face over
// the in-thread API (wasm/src/index.js) is the one change needed to decode on the page thread.
import { POOL_MIN_TEXTS, createDecoderPool, createDecoderWorker } from '../wasm/src/worker-client.js';

export const engineKind = 'worker';

/** The fewest words a list needs for openPool() to be worth it (the npm module's POOL_MIN_TEXTS). */
export const POOL_MIN_WORDS = POOL_MIN_TEXTS;

/**
 * A pool of decoder workers (one per core, at most 8, each with its own engine and copy of
 * the model at `url`) for a long list of words: pool.decodeBatch(words, options, { onProgress,
 * signal }) gives what one worker's decodeBatch gives, sooner. The caller terminates it.
 */
export async function openPool(url) {
  const pool = createDecoderPool({ workerUrl: new URL('./decoder-worker.js', import.meta.url) });
  try {
    await pool.load(url);
    return pool;
  } catch (e) {
    pool.terminate().catch(() => {});
    throw e;
  }
}

const pool = new Map();   // model URL -> { ready: Promise<{w, info}>, users, tail }
// Workers start and load their models (WebAssembly compile, model parse) one
// after the other, in the order the lanes asked: on two busy cores the first
// lane's result comes sooner that way.
let loads = Promise.resolve();
// And the lanes' other models are not even downloaded before a first result is
// on the page (firstResultDrawn), so that on a slow link the first lane's model
// has the bandwidth and the cores to itself. The first model's failure opens the
// gate too, and so do 2 s after it has loaded, in case no lane draws it (one
// removed while it loaded): a lane must never wait for a result that will not come.
const GATE_FALLBACK_MS = 2000;
let models = 0;
let firstOwner = null;   // the lane that asked for the first model
let openGate;
const firstResult = new Promise((resolve) => { openGate = resolve; });

/** The page has drawn a lane's first result (or its error): the other models may load. */
export function firstResultDrawn() {
  openGate();
}

/**
 * The decoder of the model at `url`, its worker shared by every caller.
 * afterFirstResult: a lane's model, which waits for the first result unless the
 * lane (`owner`) is the one that asked for the first model: the compare lane's
 * result needs all of its models. The word list and the text view, opened by the
 * learner, do not wait.
 */
export async function openDecoder(url, { afterFirstResult = false, owner = null } = {}) {
  let entry = pool.get(url);
  if (!entry) {
    entry = { users: 0, tail: Promise.resolve() };
    const turn = loads;
    const first = models++ === 0;
    if (first) firstOwner = owner;
    const gate = afterFirstResult && !first && (owner === null || owner !== firstOwner) ? firstResult : null;
    // The first lane's worker may have been started by boot.js while the page
    // was still loading, its model already on the way.
    const early = globalThis.seq2seqBoot?.take(url);
    entry.ready = (async () => {
      // A worker of its own starts only when its turn comes: starting its code
      // beside the first load would take CPU from it.
      if (!early) await Promise.all([turn, gate]);
      performance.mark(`spawn ${url.split('/').pop()}`);
      // The model downloads on the page while the worker's code loads (as in boot.js).
      const download = early ? null : fetch(url);
      download?.catch(() => {});
      // boot.js's worker comes with its client (the same module as here), already loading.
      let w = early ? null : createDecoderWorker(new URL('./decoder-worker.js', import.meta.url));
      try {
        w ??= await early.client;
        let info;
        if (early) info = await early.loaded;
        else {
          const response = await download;
          performance.mark(`load ${url.split('/').pop()}`);
          info = await w.load(response);   // the worker client reads it, or names the HTTP error
        }
        performance.mark(`loaded ${url.split('/').pop()}`);
        if (first) setTimeout(openGate, GATE_FALLBACK_MS);
        return { w, info };
      } catch (e) {
        w?.terminate().catch(() => {});
        if (pool.get(url) === entry) pool.delete(url);
        if (first) openGate();
        throw e;
      }
    })();
    loads = entry.ready.catch(() => {});
    pool.set(url, entry);
  }
  entry.users++;
  let w;
  let info;
  try {
    ({ w, info } = await entry.ready);
  } catch (e) {
    entry.users--;
    throw e;
  }
  let closed = false;
  return {
    info,
    /**
     * Runs fn({start, step, run, cancel, score, inspect, decodeBatch}) with the worker's session to itself.
     * A cancel() made inside fn can only reach fn's own run: the worker gets no
     * other lane's request before fn is over.
     */
    exclusive(fn) {
      const api = {
        start: (text, options) => w.start(text, options),
        step: () => w.step(),
        run: (onStep) => w.run({ onStep }),
        cancel: () => w.cancel(),
        // The forced score of a target (the reference, an output) under options; the session is left as it was.
        score: (text, target, options) => w.score(text, target, options),
        // Every intermediate of one decoder pass (the "inside this step" view).
        inspect: (text, tokens) => w.inspect(text, tokens),
        // A list of texts in one request (the word-list mode); cancel() stops it between slices.
        decodeBatch: (texts, options, progress) => w.decodeBatch(texts, options, progress),
      };
      const run = entry.tail.then(() => fn(api));
      entry.tail = run.catch(() => {});
      return run;
    },
    terminate() {
      if (closed) return;
      closed = true;
      if (--entry.users === 0) {
        if (pool.get(url) === entry) pool.delete(url);
        entry.tail.then(() => w.terminate()).catch(() => {});
      }
    },
  };
}

/**
 * Opens a lane's decoder for `url` into `slot` ({decoder, url}) unless the slot holds
 * that model's already, ending the one it held. True when it opened one. A
 * failed open leaves the slot empty, so that the next call tries again. `owner`:
 * the lane (openDecoder's first-result gate).
 */
export async function openIfChanged(slot, url, owner) {
  if (slot.url === url) return false;
  slot.decoder?.terminate();
  slot.decoder = null;
  slot.url = url;
  try {
    slot.decoder = await openDecoder(url, { afterFirstResult: true, owner });
  } catch (e) {
    slot.url = null;
    throw e;
  }
  return true;
}

