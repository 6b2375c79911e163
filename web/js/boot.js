// Runs while the HTML is still being parsed (scripts/build-web.mjs inlines it
// into index.html, after the site data it reads), long before the page's
// modules have loaded: it starts the decoder worker of the first lane's model
// and asks it to load that model at once, so that the worker's start-up, the
// WebAssembly compile and the model download overlap with the page loading
// its own code. engine.js adopts the worker (window.seq2seqBoot.take).
//
// It must pick the model the page will pick, or a second model is downloaded
// for nothing; tests/browser/weight.test.mjs checks that it does. The rules are
// the page's own: scripts/build-web.mjs inlines web/shared/lane-models.js (splitLaneParam,
// cleanModelId, pickModel, LANE_KINDS, DEFAULT_LANES, compareModels) at the start of the
// function below.
(() => {
  const el = document.getElementById('site-data');
  if (!el || typeof Worker !== 'function') return;
  let site;
  try {
    site = JSON.parse(el.textContent);
  } catch {
    return;
  }
  const q = new URLSearchParams(location.search);
  const specs = q.has('lane') ? q.getAll('lane') : DEFAULT_LANES;
  let lane = null;
  for (const s of specs) {
    const { type, pairs } = splitLaneParam(s);
    // An own key: 'constructor' or 'toString' is no lane, though every object has them.
    if (!Object.hasOwn(LANE_KINDS, type)) continue;
    // The last m= wins, as the page reads the address.
    lane = { kind: LANE_KINDS[type], m: cleanModelId(pairs.findLast(([k]) => k === 'm')?.[1]) };
    break;
  }
  if (!lane) return;
  const model = lane.kind === 'compare' ? compareModels(site.models).find(Boolean) : pickModel(site.models, lane.kind === 'ar', lane.m);
  if (!model) return;
  const url = new URL(model.file, document.baseURI).href;
  performance.mark(`boot ${model.file.split('/').pop()}`);
  // The worker's code, the WebAssembly and the model download side by side.
  // The page downloads the model and hands the bytes over (so the worker
  // neither waits to start the download nor reads it a second time). The
  // WebAssembly is fetched here too, only to have it in the HTTP cache when
  // the worker asks: the browser serves the worker from there once this
  // download is through, after a revalidation (serve.mjs sends ETags).
  fetch(new URL('wasm/dist/seq2seq_core.wasm', document.baseURI)).then((r) => r.arrayBuffer()).catch(() => {});
  // Its own failures name their message (key, params of web/i18n/*.js), which the
  // page shows in its language (web/js/error-text.js); the English one is for the console.
  const failure = (message, key, params) => Object.assign(new Error(message), { key, params });
  const bytes = fetch(url).then((r) => {
    if (!r.ok) throw failure(`cannot load model from ${url}: HTTP ${r.status}`, 'boot.modelHttp', { url, status: r.status });
    return r.arrayBuffer();
  });
  const worker = new Worker('js/decoder-worker.js', { type: 'module' });
  // A worker that fails to start says so before the worker client may be listening.
  const started = new Promise((resolve, reject) => {
    worker.addEventListener('error', (e) => reject(e.message ? Object.assign(new Error(e.message), { kind: 'WorkerError' })
      : failure('the decoder worker failed to start', 'boot.workerFailed')), { once: true });
  });
  // The worker is spoken to through the npm module's worker client, as engine.js
  // does: fetched now, while the model downloads, and the same module engine.js imports.
  const client = import(new URL('wasm/src/worker-client.js', document.baseURI).href).then((m) => m.createDecoderWorker(worker));
  // A download that failed on the way (no HTTP status) is the browser's TypeError, in its words.
  const download = bytes.catch((e) => { throw e.key ? e : Object.assign(e, { kind: 'NetworkError' }); });
  const loaded = Promise.race([started, Promise.all([client, download]).then(([w, b]) => w.load(b))]);
  loaded.catch(() => {});   // engine.js reports it, if it takes the worker
  let taken = false;
  window.seq2seqBoot = {
    /** The worker already loading `url` ({client: Promise<DecoderWorker>, loaded: Promise<ModelInfo>}), once; else null. */
    take(wanted) {
      if (taken || wanted !== url) return null;
      taken = true;
      return { client, loaded };
    },
    /** Called once the lanes have opened their decoders: a worker nobody took is not needed. */
    dispose() {
      if (!taken) worker.terminate();   // the client's terminate() is the same call
      taken = true;
    },
  };
})();
