// The decoder worker: wasm/src/worker-protocol.js behind a worker's message port.
//
// In a browser, a module worker:  new Worker(new URL('seq2seq-wasm/worker-script', import.meta.url), { type: 'module' })
// In Node (>= 18), a worker_threads worker on this same file.
// Drive it with createDecoderWorker() from 'seq2seq-wasm/worker' (worker-client.js).
import { createWorkerHandler } from './worker-protocol.js';

if (typeof self === 'object' && self !== null && typeof self.postMessage === 'function' && typeof window === 'undefined') {
  // A dedicated Web Worker (a module worker, or a classic one made by a bundler).
  const handle = createWorkerHandler((message, transfer) => self.postMessage(message, transfer));
  self.onmessage = (event) => { handle(event.data); };
} else if (typeof process === 'object' && process?.versions?.node) {
  // Node worker_threads. The import is hidden from bundlers, which never take
  // this path; no top-level await, so bundlers may emit a classic worker.
  // Messages wait in the port until the listener is attached.
  const specifier = 'node:worker_threads';
  import(/* webpackIgnore: true */ /* @vite-ignore */ specifier).then(({ parentPort }) => {
    if (!parentPort) throw new Error('seq2seq-wasm/worker-script must run in a worker, not on the main thread');
    const handle = createWorkerHandler((message, transfer) => parentPort.postMessage(message, transfer));
    parentPort.on('message', (message) => { handle(message); });
  });
} else {
  throw new Error('seq2seq-wasm/worker-script must run in a Web Worker or a Node worker_threads worker');
}
