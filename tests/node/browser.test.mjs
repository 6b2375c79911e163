// The installed package in a real browser (Debian's Chromium, headless, through
// playwright-core; skipped when there is no Chromium): a plain
// <script type="module"> with an import map, no bundler. On the page: load a
// model by URL, decode; in a module Web Worker through createDecoderWorker():
// load, start, step, run, cancel. The results must equal Node's.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, installPackage, modelPath, wordsFor } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const skip = !existsSync(CHROMIUM) || !existsSync(join(ROOT, 'node_modules/playwright-core')) ? 'no Chromium (or playwright-core) here' : false;

const pkg = installPackage();
const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.safetensors': 'application/octet-stream' };

const PAGE = `<!doctype html><meta charset="utf-8"><title>seq2seq-wasm</title><link rel="icon" href="data:,">
<script type="importmap">{"imports": {
  "seq2seq-wasm": "/node_modules/seq2seq-wasm/wasm/src/index.js",
  "seq2seq-wasm/worker": "/node_modules/seq2seq-wasm/wasm/src/worker-client.js"
}}</script>
<script type="module">
  import { loadModel, Seq2SeqError } from 'seq2seq-wasm';
  import { createDecoderWorker } from 'seq2seq-wasm/worker';
  window.runChecks = async (word, longOptions) => {
    const out = {};
    const model = await loadModel('/models/ar.safetensors');
    out.page = model.decode(word, { strategy: 'beam', beamSize: 3 });
    try { model.decode(word + '#'); } catch (e) { out.error = [e instanceof Seq2SeqError, e.kind]; }
    model.delete();
    const decoder = createDecoderWorker();
    out.info = (await decoder.load('models/cmlm.safetensors')).arch;   // relative to the page
    await decoder.start(word, { iterations: 4 });
    const first = await decoder.step();
    out.firstIsNar = first.autoregressive === false && first.drafts[0].probs instanceof Float32Array;
    out.worker = await decoder.run();
    await decoder.load(new Uint8Array(await (await fetch('/models/ar.safetensors')).arrayBuffer()));
    await decoder.start(word, longOptions);
    const run = decoder.run({ sliceMs: 0 });
    out.cancelled = await decoder.cancel();
    out.runError = await run.then(() => 'finished', (e) => e.kind);
    out.resumed = await decoder.run();
    decoder.terminate();
    return out;
  };
  document.body.dataset.ready = '1';
</script>`;

let server;
let base;
before(async () => {
  if (skip) return;
  const files = { '/models/ar.safetensors': modelPath('ar'), '/models/cmlm.safetensors': modelPath('cmlm') };
  server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    const file = files[path] ?? (path.startsWith('/node_modules/') ? normalize(join(pkg.project, path)) : null);
    if (!file || !file.startsWith(pkg.project) && !Object.values(files).includes(file) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server?.closeAllConnections();   // Chromium keeps connections alive
  server?.close();
});

test('in Chromium: the module on the page and in a module Web Worker', { skip, timeout: 120000 }, async () => {
  const { chromium } = await import('playwright-core');
  const userDir = mkdtempSync(join(tmpdir(), 'seq2seq-npm-chromium-'));
  const context = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`); });
    await page.goto(`${base}/`);
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    const { loadModel } = await pkg.importPackage();
    const ar = await loadModel(modelPath('ar'));
    const cmlm = await loadModel(modelPath('cmlm'));
    const word = wordsFor(ar.info, cmlm.info)[0];  // decoded by both models
    const longOptions = { strategy: 'beam', beamSize: 4, minLength: 12, maxLength: Math.min(16, ar.info.maxPositions - 1) };
    const out = await page.evaluate(([w, o]) => window.runChecks(w, o), [word, longOptions]);
    assert.deepEqual(problems, []);
    assert.deepEqual(out.page, ar.decode(word, { strategy: 'beam', beamSize: 3 }));
    assert.deepEqual(out.error, [true, 'InputError']);
    assert.equal(out.info, 'cmlm');
    assert.equal(out.firstIsNar, true);
    assert.deepEqual(out.worker, cmlm.decode(word, { iterations: 4 }));
    assert.equal(out.cancelled, true);
    assert.equal(out.runError, 'Cancelled');
    assert.deepEqual(out.resumed, ar.decode(word, longOptions));
    ar.delete();
    cmlm.delete();
  } finally {
    await context.close();
    rmSync(userDir, { recursive: true, force: true });
  }
});
