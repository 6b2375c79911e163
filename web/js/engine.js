// The page's one door to the decoder. Everything else calls openDecoder() and
// talks to what it returns:
//
//   const d = await openDecoder(modelUrl);   // d.info: Model.info of the npm module
//   await d.start(word, options);            // options: the npm module's decoding options
//   const snapshot = await d.step();         // one decoder pass
//   d.terminate();
//
// Each lane gets its own decoder in its own Web Worker (the npm module's
// worker client), so decoding never blocks the page and lanes decode in parallel.
// This file is the only one that knows: swapping `openDecoder` for the
// in-thread version below is the one change needed to decode on the page thread.
import { createDecoderWorker } from '../wasm/src/worker-client.js';

export const engineKind = 'worker';

export async function openDecoder(url) {
  const w = createDecoderWorker();
  let info;
  try {
    info = await w.load(url);
  } catch (e) {
    w.terminate();
    throw e;
  }
  return {
    info,
    start: (text, options) => w.start(text, options),
    step: () => w.step(),
    terminate: () => { w.terminate().catch(() => {}); },
  };
}

// The same face over the in-thread API (wasm/src/index.js), kept for debugging:
//
//   import { loadModel } from '../wasm/src/index.js';
//   export async function openDecoder(url) {
//     const m = await loadModel(url);
//     let s = null;
//     return {
//       info: m.info,
//       async start(text, options) { s?.delete(); s = m.createSession(options); s.start(text); },
//       async step() { return s.step(); },
//       terminate() { s?.delete(); s = null; },
//     };
//   }
