// The trainer worker: train-worker-protocol.js behind a worker's message port, as
// worker.js serves the decoder's protocol (the same ways of finding the port: a
// Web Worker's self, a Node worker_threads parentPort). Drive it with
// createTrainerWorker() from 'seq2seq-wasm/train-worker' (train-worker-client.js).
import { createTrainerHandler } from './train-worker-protocol.js';

const webWorker = typeof self === 'object' && self !== null && typeof self.postMessage === 'function' && typeof window === 'undefined';
if (typeof process === 'object' && process?.versions?.node) {
  const queued = [];
  let handle = null;
  if (webWorker) self.onmessage = (event) => { if (handle) handle(event.data); else queued.push(event.data); };
  const specifier = 'node:worker_threads';
  import(/* webpackIgnore: true */ /* @vite-ignore */ specifier).then(({ parentPort }) => {
    if (parentPort) {
      if (webWorker) self.onmessage = null;
      const fromPort = createTrainerHandler((message, transfer) => parentPort.postMessage(message, transfer));
      parentPort.on('message', (message) => { fromPort(message); });
    } else if (webWorker) {
      handle = createTrainerHandler((message, transfer) => self.postMessage(message, transfer));
      for (const message of queued.splice(0)) handle(message);
    } else {
      throw new Error('seq2seq-wasm/train-worker-script must run in a worker, not on the main thread');
    }
  });
} else if (webWorker) {
  const handle = createTrainerHandler((message, transfer) => self.postMessage(message, transfer));
  self.onmessage = (event) => { handle(event.data); };
} else {
  throw new Error('seq2seq-wasm/train-worker-script must run in a Web Worker or a Node worker_threads worker');
}
