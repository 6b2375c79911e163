// Runs the package's worker script in a worker_threads worker that also has a Web
// Worker's `self` with postMessage and onmessage, as Bun's worker_threads workers
// have: the messages still arrive on parentPort, never on `self.onmessage`. The
// script must listen on parentPort (a script that trusted `self` waited for ever).
//
// workerData: {script: file URL of seq2seq-wasm/worker-script}
import { parentPort, workerData } from 'node:worker_threads';

globalThis.self = globalThis;
globalThis.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
globalThis.onmessage = null;   // set or not, nothing is delivered here
await import(workerData.script);
