// Runs the package's worker script in a worker_threads worker dressed as a
// browser's dedicated module worker: `self`, `postMessage`, `onmessage` and
// `location`; no `process`, no `setImmediate`, no `importScripts`; a `fetch`
// that serves file: URLs like a static web server (with application/wasm).
// So the package takes its browser paths: the Emscripten module finds its wasm
// through locateFile and compiles it with instantiateStreaming(fetch(...)).
//
// workerData: {script: file URL of seq2seq-wasm/worker-script}
// The special message {type: '__fetched'} answers with the URLs fetched so far.
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

// Node's own fetch needs the timers hidden below, so http: goes through node:http.
function httpGet(url) {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: { 'content-type': res.headers['content-type'] ?? '' } })));
      res.on('error', reject);
    }).on('error', reject);
  });
}

const fetched = [];
globalThis.fetch = async (input) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  fetched.push(url.href);
  if (url.protocol === 'http:') return httpGet(url);
  if (url.protocol !== 'file:') throw new TypeError(`fetch: ${url.protocol} is not served here`);
  try {
    const bytes = await readFile(fileURLToPath(url));
    const type = url.pathname.endsWith('.wasm') ? 'application/wasm' : url.pathname.endsWith('.js') || url.pathname.endsWith('.mjs') ? 'text/javascript' : 'application/octet-stream';
    return new Response(bytes, { status: 200, headers: { 'content-type': type } });
  } catch {
    return new Response('not found', { status: 404 });
  }
};

// The worker global scope. Messages wait until onmessage is set, as they wait
// in a browser until the module has been evaluated.
let onmessage = null;
const waiting = [];
Object.defineProperty(globalThis, 'onmessage', {
  configurable: true,
  get: () => onmessage,
  set(f) {
    onmessage = f;
    while (waiting.length && onmessage) onmessage({ data: waiting.shift() });
  },
});
globalThis.self = globalThis;
globalThis.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
globalThis.location = new URL(workerData.script);
parentPort.on('message', (data) => {
  if (data && data.type === '__fetched') parentPort.postMessage({ __fetched: [...fetched] });
  else if (onmessage) onmessage({ data });
  else waiting.push(data);
});

for (const name of ['process', 'setImmediate', 'clearImmediate', 'importScripts', 'window']) delete globalThis[name];
if (typeof process !== 'undefined' || typeof setImmediate !== 'undefined') throw new Error('could not hide Node globals');

await import(workerData.script);
