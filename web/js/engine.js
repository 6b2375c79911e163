// The page's one door to the decoder. Everything else calls openDecoder() and
// talks to what it returns:
//
//   const d = await openDecoder(modelUrl);   // d.info: Model.info of the npm module
//   await d.exclusive(async ({ start, step }) => {
//     await start(word, options);            // options: the npm module's decoding options
//     const snapshot = await step();         // one decoder pass
//   });
//   d.terminate();
//
// Decoding runs in Web Workers (the npm module's worker client): one worker per
// model, shared by the lanes that use it, each lane holding it for a whole
// decode (`exclusive`). So the WebAssembly is compiled and a model loaded once
// per model, lanes on different models decode in parallel, and the page thread
// never blocks. This file is the only one that knows: swapping openDecoder for
// the in-thread version below is the one change needed to decode on the page thread.
import { createDecoderWorker } from '../wasm/src/worker-client.js';

export const engineKind = 'worker';

const pool = new Map();   // model URL -> { ready: Promise<{w, info}>, users, tail }
// Workers start at once, but load their models (WebAssembly compile, model
// parse) one after the other, in the order the lanes asked: on two busy cores
// the first lane's result comes sooner that way.
let loads = Promise.resolve();

export async function openDecoder(url) {
  let entry = pool.get(url);
  if (!entry) {
    entry = { users: 0, tail: Promise.resolve() };
    const turn = loads;
    entry.ready = (async () => {
      performance.mark(`spawn ${url.split('/').pop()}`);
      const w = createDecoderWorker();
      try {
        await turn;
        performance.mark(`load ${url.split('/').pop()}`);
        const info = await w.load(url);
        performance.mark(`loaded ${url.split('/').pop()}`);
        return { w, info };
      } catch (e) {
        w.terminate().catch(() => {});
        if (pool.get(url) === entry) pool.delete(url);
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
    /** Runs fn({start, step}) with the worker's session to itself. */
    exclusive(fn) {
      const run = entry.tail.then(() => fn({ start: (text, options) => w.start(text, options), step: () => w.step() }));
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

// The same face over the in-thread API (wasm/src/index.js), for debugging:
//
//   import { loadModel } from '../wasm/src/index.js';
//   export async function openDecoder(url) {
//     const m = await loadModel(url);
//     let s = null;
//     const api = { start: async (text, o) => { s?.delete(); s = m.createSession(o); s.start(text); }, step: async () => s.step() };
//     return { info: m.info, exclusive: (fn) => fn(api), terminate() { s?.delete(); s = null; } };
//   }
