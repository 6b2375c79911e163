// The packed package in Chromium as apps use it: installed offline into a
// scratch project, then built or served seven ways, each page loading a model
// and decoding a word on its own thread and through the decoder worker:
//   - a Vite build (vite build, served statically), the model imported with ?url;
//   - an esbuild bundle (esbuild copies neither the .wasm nor the worker script:
//     the page sets env.wasmUrl and createDecoderWorker({ workerUrl }) to copies);
//   - a webpack 5 build with no configuration: webpack follows
//     new URL(..., import.meta.url) to the .wasm, the worker script and the model;
//   - a Parcel 2 build of the page, which needs package.json's
//     "@parcel/resolver-default": { "packageExports": true } to resolve
//     seq2seq-wasm/worker, the model imported with url:;
//   - a Rollup 4 build with node-resolve, the worker script as a second entry
//     (passed as workerUrl), the .wasm's and the model's URLs imported through
//     @rollup/plugin-url (Rollup, like esbuild, leaves new URL(...) alone);
//   - a plain page with an import map, served from the project directory;
//   - the Vite dev server.
// The results must equal Node's, and the webpack, Parcel and Vite builds hold
// one .wasm and one worker script (no dead copies). The builds run at once,
// through the bundlers' JS APIs, unminified, while the tests that need none go
// first: on the import map page, what goes wrong (a wrong wasm URL is a
// WasmError, not Emscripten's abort, and the load can be retried; a missing
// model a NetworkError; in-thread and in the worker) and the Cache API (a
// second load makes no request, a damaged entry is replaced). Each bundler's
// test reports its build's time.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { installPackage, serveFiles } from '../node/helpers.mjs';
import { esbuildBundle, parcelBuild, rollupBuild, viteBuild, viteOptions, webpackBuild, write } from './bundle.mjs';
import { launch, openPage, root } from './helpers.mjs';

const MODEL = join(root, 'models/g2p-transformer.safetensors');
const MODEL_BYTES = readFileSync(MODEL).length;
const MODEL_SHA256 = createHash('sha256').update(readFileSync(MODEL)).digest('hex');
const WORD = 'PHONEME';

// Each page exposes the package's API as window.seq2seq for the test to drive.
const COMMON = `import { loadModel, env, Seq2SeqError } from 'seq2seq-wasm';
import { createDecoderWorker } from 'seq2seq-wasm/worker';
// What fn() throws, as {name, kind, message}; null if it does not.
async function caught(fn) {
  try {
    await fn();
    return null;
  } catch (e) {
    return { name: e.name, kind: e.kind, message: e.message, isSeq2SeqError: e instanceof Seq2SeqError };
  }
}
export function expose(extra = {}) {
  window.seq2seq = { loadModel, env, Seq2SeqError, createDecoderWorker, caught, ...extra };
  document.body.dataset.ready = '1';
}
`;
const html = (title, script) => `<!doctype html><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">
<body>${script}</body>\n`;
const IMPORT_MAP = `<script type="importmap">{"imports": {
  "seq2seq-wasm": "/node_modules/seq2seq-wasm/wasm/src/index.js",
  "seq2seq-wasm/worker": "/node_modules/seq2seq-wasm/wasm/src/worker-client.js"
}}</script>`;

let project;
let server;
let browser;
let vite;
let reference;
// The builds, by name, started in before() and awaited by their tests: they run
// while the tests that need none do. Each resolves to its time in ms.
const built = {};

function timed(name, build) {
  const t0 = performance.now();
  built[name] = build().then(() => Math.round(performance.now() - t0));
  built[name].catch(() => {});   // reported by the build's test
}

before(async () => {
  const pkg = installPackage();
  project = mkdtempSync(join(tmpdir(), 'seq2seq-bundlers-'));
  // With its lockfile, as npm leaves it: Parcel takes the folder of the nearest one for its project root.
  write(join(project, 'package.json'), JSON.stringify({ name: 'bundler-user', private: true, type: 'module', '@parcel/resolver-default': { packageExports: true } }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', pkg.tarball], { cwd: project, stdio: 'pipe' });
  mkdirSync(join(project, 'public'));
  copyFileSync(MODEL, join(project, 'public/g2p-transformer.safetensors'));
  write(join(project, 'common.js'), COMMON);

  // (a) Vite: the .wasm and the worker are found through new URL(..., import.meta.url); the model through ?url.
  write(join(project, 'vite/index.html'), html('vite', '<script type="module" src="./main.js"></script>'));
  write(join(project, 'vite/main.js'), `import { expose } from '../common.js';
import modelUrl from '../public/g2p-transformer.safetensors?url';
expose({ modelUrl });
`);
  timed('vite', () => viteBuild(project, join(project, 'vite/index.html'), join(project, 'vite-dist')));

  // (b) esbuild: one bundle for the page, one for the worker script; the .wasm copied under a name of our own.
  write(join(project, 'esbuild/index.html'), html('esbuild', '<script type="module" src="out/main.js"></script>'));
  write(join(project, 'esbuild/main.js'), "import { expose } from '../common.js';\nexpose();\n");
  mkdirSync(join(project, 'esbuild/static'));
  copyFileSync(join(project, 'node_modules/seq2seq-wasm/wasm/dist/seq2seq_core.wasm'), join(project, 'esbuild/static/engine.wasm'));
  timed('esbuild', () => Promise.all([
    esbuildBundle(project, join(project, 'esbuild/main.js'), join(project, 'esbuild/out/main.js')),
    esbuildBundle(project, 'seq2seq-wasm/worker-script', join(project, 'esbuild/out/decoder-worker.js')),
  ]));

  // (c) webpack: new URL(..., import.meta.url) for the model too, a bare or relative specifier alike.
  write(join(project, 'webpack/index.html'), html('webpack', '<script src="dist/main.js"></script>'));
  write(join(project, 'webpack/main.js'), `import { expose } from '../common.js';
expose({ modelUrl: new URL('../public/g2p-transformer.safetensors', import.meta.url).href });
`);
  timed('webpack', () => webpackBuild(project, './webpack/main.js', join(project, 'webpack/dist')));

  // (d) Parcel: the page is the entry; the model's URL imported with url:.
  write(join(project, 'parcel/index.html'), html('parcel', '<script type="module" src="./main.js"></script>'));
  write(join(project, 'parcel/main.js'), `import { expose } from '../common.js';
import modelUrl from 'url:../public/g2p-transformer.safetensors';
expose({ modelUrl });
`);
  timed('parcel', () => parcelBuild(project, join(project, 'parcel/index.html'), join(project, 'parcel/dist')));

  // (e) Rollup: the worker script a second entry, out/worker.js; plugin-url copies the files whose URLs are imported.
  write(join(project, 'rollup/index.html'), html('rollup', '<script type="module" src="out/main.js"></script>'));
  write(join(project, 'rollup/main.js'), `import { env } from 'seq2seq-wasm';
import wasmUrl from 'seq2seq-wasm/seq2seq_core.wasm';
import modelUrl from '../public/g2p-transformer.safetensors';
import { expose } from '../common.js';
env.wasmUrl = wasmUrl;
expose({ modelUrl });
`);
  timed('rollup', async () => {
    const { default: url } = await import('@rollup/plugin-url');
    await rollupBuild(project, [join(project, 'rollup/main.js'), 'seq2seq-wasm/worker-script'], join(project, 'rollup/out'),
      [url({ include: [/\.safetensors$/, /\.wasm$/], limit: 0, publicPath: 'out/' })]);
  });

  // (f) no bundler: an import map, the project directory served as it is.
  write(join(project, 'importmap/index.html'), html('import map', `${IMPORT_MAP}
<script type="module">import { expose } from '/common.js'; expose();</script>`));

  server = await serveFiles({}, { dir: project });
  // (g) the Vite dev server on the same sources.
  const { createServer } = await import('vite');
  // Its dependency scan limited to its page: the other pages' imports are their bundlers' to resolve.
  vite = await createServer({ ...viteOptions(project), server: { port: 0, host: '127.0.0.1' }, optimizeDeps: { entries: ['vite/index.html'] } });
  await vite.listen();
  browser = await launch();

  const { loadModel } = await pkg.importPackage();
  const model = await loadModel(MODEL);
  reference = model.decode(WORD);
  model.delete();
});

after(async () => {
  await Promise.allSettled(Object.values(built));
  await browser?.close();
  await vite?.close();
  await server?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

async function open(url) {
  const { page, errors } = await openPage(browser.context, url);
  await page.waitForFunction(() => document.body?.dataset.ready === '1', null, { timeout: 30000 });
  return { page, errors };
}

/** On the page: the model decoded in-thread and in the worker, with the worker's load progress. */
function decodeBoth(page, { modelUrl, worker, wasmUrl } = {}) {
  return page.evaluate(async ({ modelUrl, worker, wasmUrl, word }) => {
    const { loadModel, createDecoderWorker, env } = window.seq2seq;
    const url = modelUrl ?? window.seq2seq.modelUrl;
    if (wasmUrl !== undefined) env.wasmUrl = wasmUrl;
    const model = await loadModel(url);
    const inThread = model.decode(word);
    model.delete();
    const decoder = createDecoderWorker(worker);
    try {
      const progress = [];
      await decoder.load(url, { onProgress: (p) => progress.push(p) });
      await decoder.start(word);
      return { inThread, worker: await decoder.run(), progress };
    } finally {
      await decoder.terminate();
    }
  }, { modelUrl, worker, wasmUrl, word: WORD });
}

// The engine's .wasm files and worker scripts a build emitted (below `dir`): one each,
// where the bundler follows new URL(..., import.meta.url), and no dead copies.
function emitted(dir) {
  const files = readdirSync(dir, { recursive: true }).map(String);
  return {
    wasm: files.filter((f) => f.endsWith('.wasm')).length,
    workerScripts: files.filter((f) => f.endsWith('.js') && readFileSync(join(dir, f), 'utf8').includes('worker-script must run in a Web Worker')).length,
  };
}

function assertDecoded(out) {
  assert.deepEqual(out.inThread, reference, 'in-thread decode equals Node\'s');
  assert.deepEqual(out.worker, reference, 'worker decode equals Node\'s');
  assert.ok(out.progress.length >= 1, 'onProgress was called');
  assert.deepEqual(out.progress.at(-1), { loaded: MODEL_BYTES, total: MODEL_BYTES });
  for (let i = 1; i < out.progress.length; i++) assert.ok(out.progress[i].loaded >= out.progress[i - 1].loaded, 'loaded only grows');
}

describe('load failures in Chromium (import map page)', { timeout: 120000 }, () => {
  const good = '/public/g2p-transformer.safetensors';

  test('on the page: a wrong env.wasmUrl is a WasmError and the load can be retried; a missing model is a NetworkError', async () => {
    const { page, errors } = await open(`${server.base}/importmap/index.html`);
    const out = await page.evaluate(async ({ good, word }) => {
      const { env, loadModel, caught } = seq2seq;
      const r = {};
      env.wasmUrl = '/nowhere/seq2seq_core.wasm';
      r.missingWasm = await caught(() => loadModel(good));
      env.wasmUrl = '/importmap/index.html';   // a page, not WebAssembly
      r.htmlWasm = await caught(() => loadModel(good));
      env.wasmUrl = undefined;
      r.missingModel = await caught(() => loadModel('/public/missing.safetensors'));
      const model = await loadModel(good);
      r.decoded = model.decode(word);
      model.delete();
      r.moved = await caught(() => { env.wasmUrl = '/elsewhere.wasm'; });
      return r;
    }, { good, word: WORD });
    const origin = server.base.replace(/[.]/g, '\\.');
    assert.equal(out.missingWasm?.kind, 'WasmError', JSON.stringify(out.missingWasm));
    assert.ok(out.missingWasm.isSeq2SeqError);
    assert.match(out.missingWasm.message, new RegExp(`^cannot load the engine's WebAssembly from ${origin}/nowhere/seq2seq_core\\.wasm: HTTP 404 Not Found\\. Set env\\.wasmUrl`));
    assert.equal(out.htmlWasm?.kind, 'WasmError', JSON.stringify(out.htmlWasm));
    assert.match(out.htmlWasm.message, /importmap\/index\.html: not WebAssembly \(the server sent text\/html/);
    assert.equal(out.missingModel?.kind, 'NetworkError', JSON.stringify(out.missingModel));
    assert.match(out.missingModel.message, new RegExp(`^cannot load the model from ${origin}/public/missing\\.safetensors: HTTP 404 Not Found; check the URL`));
    assert.deepEqual(out.decoded, reference, 'the retry loads the engine and decodes');
    assert.equal(out.moved?.kind, 'UsageError', JSON.stringify(out.moved));
    assert.match(out.moved.message, /already loaded from .*node_modules\/seq2seq-wasm\/wasm\/dist\/seq2seq_core\.wasm/);
    // The browser's own log holds the two 404s, and nothing from Emscripten (no "Aborted(...)").
    assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
    assert.ok(errors.some((e) => /nowhere\/seq2seq_core\.wasm/.test(e)), errors.join('\n'));
    await page.close();
  });

  test('in the worker: the same errors cross with their kind, and the worker stays usable', async () => {
    const { page, errors } = await open(`${server.base}/importmap/index.html`);
    const out = await page.evaluate(async ({ good, word }) => {
      const { createDecoderWorker, env, caught } = seq2seq;
      const r = {};
      const bad = createDecoderWorker({ wasmUrl: '/nowhere/seq2seq_core.wasm' });
      r.missingWasm = await caught(() => bad.load(good));
      r.missingWasmAgain = await caught(() => bad.load(good));   // tried again, not stuck in an aborted state
      await bad.terminate();
      const decoder = createDecoderWorker();
      env.wasmUrl = '/nowhere/from-env.wasm';   // the page's setting is passed on to the worker
      r.fromEnv = await caught(() => decoder.load(good));
      env.wasmUrl = undefined;                  // and unsetting it gives the worker back its own default
      r.missingModel = await caught(() => decoder.load('/public/missing.safetensors'));
      await decoder.load(good);
      await decoder.start(word);
      r.decoded = await decoder.run();
      await decoder.terminate();
      // Workers that cannot start: the script missing, an import of it missing, a script that never answers.
      const startFails = async (target) => {
        const t0 = performance.now();
        const w = createDecoderWorker(target);
        const error = await caught(() => w.load(good));
        await w.terminate();
        return { ...error, ms: performance.now() - t0 };
      };
      const moduleUrl = (code) => URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
      r.noScript = await startFails({ workerUrl: '/nowhere/worker.js' });
      r.noImport = await startFails({ workerUrl: moduleUrl(`import '${location.origin}/nowhere/protocol.js';`) });
      r.silent = await startFails({ workerUrl: moduleUrl('setInterval(() => {}, 1000);'), startTimeout: 500 });
      return r;
    }, { good, word: WORD });
    assert.equal(out.noScript?.kind, 'WorkerError', JSON.stringify(out.noScript));
    assert.match(out.noScript.message, /^decoder worker: the worker script http:\/\/127\.0\.0\.1:\d+\/nowhere\/worker\.js failed to start: it answers HTTP 404 Not Found; pass createDecoderWorker\(\{ workerUrl \}\)/);
    assert.equal(out.noImport?.kind, 'WorkerError', JSON.stringify(out.noImport));
    assert.match(out.noImport.message, /^decoder worker: the worker script blob:.* failed to start: it loads, so a module it imports failed to load/);
    assert.equal(out.silent?.kind, 'WorkerError', JSON.stringify(out.silent));
    assert.match(out.silent.message, /^the decoder worker did not answer within 500 ms of starting: the worker script blob:/);
    assert.ok(out.silent.ms >= 450 && out.silent.ms < 5000, `${out.silent.ms} ms`);
    for (const key of ['missingWasm', 'missingWasmAgain']) {
      assert.equal(out[key]?.kind, 'WasmError', JSON.stringify(out[key]));
      assert.ok(out[key].isSeq2SeqError);
      assert.match(out[key].message, /\/nowhere\/seq2seq_core\.wasm: HTTP 404 Not Found\. Set env\.wasmUrl/);
    }
    assert.equal(out.fromEnv?.kind, 'WasmError', JSON.stringify(out.fromEnv));
    assert.match(out.fromEnv.message, /\/nowhere\/from-env\.wasm: HTTP 404/);
    assert.equal(out.missingModel?.kind, 'NetworkError', JSON.stringify(out.missingModel));
    assert.match(out.missingModel.message, /missing\.safetensors: HTTP 404 Not Found/);
    assert.deepEqual(out.decoded, reference);
    assert.deepEqual(errors.filter((e) => !/404|\/nowhere\//.test(e)), []);
    await page.close();
  });

  test('the Cache API: a second load makes no request, in the page and in the worker; a damaged entry is replaced', async () => {
    const { page, errors } = await open(`${server.base}/importmap/index.html`);
    const requests = () => server.requests.get(good) ?? 0;
    const load = (options, { worker = false } = {}) => page.evaluate(async ({ good, word, options, worker }) => {
      const { loadModel, createDecoderWorker, caught } = seq2seq;
      const progress = [];
      const r = { progress };
      r.error = await caught(async () => {
        if (worker) {
          const decoder = createDecoderWorker();
          try {
            await decoder.load(good, { ...options, onProgress: (p) => progress.push(p) });
            await decoder.start(word);
            r.decoded = await decoder.run();
          } finally {
            await decoder.terminate();
          }
        } else {
          const model = await loadModel(good, { ...options, onProgress: (p) => progress.push(p) });
          r.decoded = model.decode(word);
          model.delete();
        }
      });
      const entry = await (await caches.open('bundlers-test')).match(new URL(good, location.href));
      r.entryBytes = entry ? (await entry.arrayBuffer()).byteLength : null;
      return r;
    }, { good, word: WORD, options, worker });
    const damage = () => page.evaluate(async (good) => {
      await (await caches.open('bundlers-test')).put(new URL(good, location.href), new Response(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])));
    }, good);
    const options = { cache: 'bundlers-test', sha256: MODEL_SHA256 };
    const step = async (name, run, expect) => {
      const before = requests();
      const out = await run();
      assert.equal(out.error, null, `${name}: ${JSON.stringify(out.error)}`);
      assert.deepEqual(out.decoded, reference, name);
      assert.equal(requests() - before, expect.requests, `${name}: requests for the model`);
      assert.equal(out.entryBytes, MODEL_BYTES, `${name}: the cache holds the model`);
      assert.deepEqual(out.progress.at(-1), { loaded: MODEL_BYTES, total: MODEL_BYTES }, `${name}: progress ends at the size`);
    };
    await step('first load: downloaded and cached', () => load(options), { requests: 1 });
    await step('second load: from the cache', () => load(options), { requests: 0 });
    await step('in the worker: the same cache', () => load(options, { worker: true }), { requests: 0 });
    await damage();
    await step('a damaged entry, with sha256: replaced', () => load(options), { requests: 1 });
    await damage();
    await step('a damaged entry, without sha256: no model, replaced', () => load({ cache: 'bundlers-test' }), { requests: 1 });
    await damage();
    await step('a damaged entry, in the worker: replaced', () => load(options, { worker: true }), { requests: 1 });
    // A download that is not the file expected: a ModelError naming both digests, and nothing cached.
    const before = requests();
    const wrong = await load({ cache: 'bundlers-test', sha256: '0'.repeat(64) });
    assert.equal(wrong.error?.kind, 'ModelError', JSON.stringify(wrong.error));
    assert.match(wrong.error.message, new RegExp(`sha256 mismatch: expected ${'0'.repeat(64)}, got ${MODEL_SHA256} \\(${MODEL_BYTES} bytes\\)`));
    assert.equal(requests() - before, 1, 'the cached copy did not match: downloaded again');
    assert.equal(wrong.entryBytes, null, 'a file that failed its check is not cached');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('bundlers in Chromium: a model decoded on the page and in the worker', { timeout: 180000 }, () => {
  test('a plain page with an import map, served from the project directory', async () => {
    const { page, errors } = await open(`${server.base}/importmap/index.html`);
    assertDecoded(await decodeBoth(page, { modelUrl: '/public/g2p-transformer.safetensors' }));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the Vite dev server', async () => {
    const { page, errors } = await open(new URL('vite/index.html', vite.resolvedUrls.local[0]).href);
    assertDecoded(await decodeBoth(page));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Vite build: the .wasm and the worker emitted by Vite, the model imported with ?url', async (t) => {
    t.diagnostic(`vite built in ${await built.vite} ms`);
    assert.deepEqual(emitted(join(project, 'vite-dist')), { wasm: 1, workerScripts: 1 });
    const { page, errors } = await open(`${server.base}/vite-dist/vite/index.html`);
    assertDecoded(await decodeBoth(page));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('webpack 5 with no configuration: the .wasm, the worker and the model emitted through new URL(..., import.meta.url)', async (t) => {
    t.diagnostic(`webpack built in ${await built.webpack} ms`);
    assert.deepEqual(emitted(join(project, 'webpack/dist')), { wasm: 1, workerScripts: 1 });
    const { page, errors } = await open(`${server.base}/webpack/index.html`);
    assertDecoded(await decodeBoth(page));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Parcel 2 with package exports on: the .wasm and the worker emitted, the model imported with url:', async (t) => {
    t.diagnostic(`parcel built in ${await built.parcel} ms`);
    assert.deepEqual(emitted(join(project, 'parcel/dist')), { wasm: 1, workerScripts: 1 });
    const { page, errors } = await open(`${server.base}/parcel/dist/index.html`);
    assertDecoded(await decodeBoth(page));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Rollup 4 with node-resolve: the worker script a second entry, the .wasm\'s and the model\'s URLs imported', async (t) => {
    t.diagnostic(`rollup built in ${await built.rollup} ms`);
    const { page, errors } = await open(`${server.base}/rollup/index.html`);
    assertDecoded(await decodeBoth(page, { worker: { workerUrl: 'out/worker.js' } }));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('esbuild bundle: without env.wasmUrl a WasmError says what to set; with it and workerUrl, both decode', async (t) => {
    t.diagnostic(`esbuild built in ${await built.esbuild} ms`);
    const { page, errors } = await open(`${server.base}/esbuild/index.html`);
    const modelUrl = '../public/g2p-transformer.safetensors';
    // esbuild leaves new URL('../dist/seq2seq_core.wasm', import.meta.url) pointing next to its bundle, where nothing is.
    const missing = await page.evaluate((url) => seq2seq.caught(() => seq2seq.loadModel(url)), modelUrl);
    assert.equal(missing?.kind, 'WasmError', JSON.stringify(missing));
    assert.match(missing.message, /cannot load the engine's WebAssembly from http:\/\/127\.0\.0\.1:\d+\/esbuild\/dist\/seq2seq_core\.wasm: HTTP 404 Not Found\. Set env\.wasmUrl/);
    // Nor is the package's worker script next to the bundle.
    const noWorker = await page.evaluate((url) => seq2seq.caught(() => seq2seq.createDecoderWorker().load(url)), modelUrl);
    assert.equal(noWorker?.kind, 'WorkerError', JSON.stringify(noWorker));
    assert.match(noWorker.message, /workerUrl/);
    // The worker bundle alone still looks for the .wasm next to itself.
    const workerWasm = await page.evaluate((url) => seq2seq.caught(async () => {
      const decoder = seq2seq.createDecoderWorker({ workerUrl: 'out/decoder-worker.js' });
      try { await decoder.load(url); } finally { await decoder.terminate(); }
    }), modelUrl);
    assert.equal(workerWasm?.kind, 'WasmError', JSON.stringify(workerWasm));
    assert.match(workerWasm.message, /\/esbuild\/dist\/seq2seq_core\.wasm: HTTP 404/);
    // The page points both at its copies: env.wasmUrl serves the page and, passed on, the worker.
    assertDecoded(await decodeBoth(page, { modelUrl, wasmUrl: 'static/engine.wasm', worker: { workerUrl: 'out/decoder-worker.js' } }));
    assert.deepEqual(errors.filter((e) => !/\/esbuild\/(dist\/seq2seq_core\.wasm|out\/worker\.js)|404/.test(e)), [], 'only the three misses');
    await page.close();
  });
});
