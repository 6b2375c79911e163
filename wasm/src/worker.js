// The decoder worker: wasm/src/worker-protocol.js behind a worker's message port.
//
// In a browser, a module worker:  new Worker(new URL('seq2seq-wasm/worker-script', import.meta.url), { type: 'module' })
// In Node (>= 18) and Bun, a worker_threads worker on this same file; in Deno, a module worker.
// Drive it with createDecoderWorker() from 'seq2seq-wasm/worker' (worker-client.js).
import { createWorkerHandler } from './worker-protocol.js';

const webWorker = typeof self === 'object' && self !== null && typeof self.postMessage === 'function' && typeof window === 'undefined';
const answerOnSelf = () => createWorkerHandler((message, transfer) => self.postMessage(message, transfer));
if (typeof process === 'object' && process?.versions?.node) {
  // Node, Bun and Deno. In a worker_threads worker (Node, Bun) the messages arrive
  // on parentPort, though Bun gives that worker a `self` with postMessage too; a
  // Deno worker is a Web Worker that also has `process`, and no parentPort. The
  // import is hidden from bundlers, which never take this path; no top-level await,
  // so bundlers may emit a classic worker. Messages wait in the port until the
  // listener is attached, and in `queued` for a Web Worker until the import is done.
  const queued = [];
  let handle = null;
  if (webWorker) self.onmessage = (event) => { if (handle) handle(event.data); else queued.push(event.data); };
  const specifier = 'node:worker_threads';
  import(/* webpackIgnore: true */ /* @vite-ignore */ specifier).then(({ parentPort }) => {
    if (parentPort) {
      if (webWorker) self.onmessage = null;
      const fromPort = createWorkerHandler((message, transfer) => parentPort.postMessage(message, transfer));
      parentPort.on('message', (message) => { fromPort(message); });
    } else if (webWorker) {
      handle = answerOnSelf();
      for (const message of queued.splice(0)) handle(message);
    } else {
      throw new Error('seq2seq-wasm/worker-script must run in a worker, not on the main thread');
    }
  });
} else if (webWorker) {
  // A dedicated Web Worker (a module worker, or a classic one made by a bundler).
  const handle = answerOnSelf();
  self.onmessage = (event) => { handle(event.data); };
} else {
  throw new Error('seq2seq-wasm/worker-script must run in a Web Worker or a Node worker_threads worker');
}
