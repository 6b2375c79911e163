// Runs while the HTML is still being parsed (scripts/build-web.mjs inlines it
// into index.html, after the site data it reads), long before the page's
// modules have loaded: it starts the decoder worker of the first lane's model
// and asks it to load that model at once, so that the worker's start-up, the
// WebAssembly compile and the model download overlap with the page loading
// its own code. engine.js adopts the worker (window.seq2seqBoot.take).
//
// It must pick the model the page will pick, or a second model is downloaded
// for nothing; tests/browser/weight.test.mjs checks that it does. The rules
// are app.js's modelFor() and the URL format of state.js, for the first lane only.
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
  const specs = q.has('lane') ? q.getAll('lane') : site.defaultLanes;
  let lane = null;
  for (const s of specs) {
    const i = s.indexOf(':');
    const type = i < 0 ? s : s.slice(0, i);
    // An own key: 'constructor' or 'toString' is no lane, though every object has them.
    if (!Object.hasOwn(site.laneKinds, type)) continue;
    const m = /(?:^|,)m=([^,]*)/.exec(i < 0 ? '' : s.slice(i + 1));
    let id = m ? m[1] : '';
    try { id = decodeURIComponent(id); } catch { /* malformed: kept as is, as state.js does */ }
    lane = { kind: site.laneKinds[type], m: id.replace(/[^\w.-]/g, '') };
    break;
  }
  if (!lane) return;
  let model;
  if (lane.kind === 'compare') model = site.models.find((x) => x.id === site.compare[0]);
  else {
    const ar = lane.kind === 'ar';
    model = site.models.find((x) => x.id === lane.m && x.autoregressive === ar) ?? site.models.find((x) => x.autoregressive === ar);
  }
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
  // The worker protocol of wasm/src/worker-protocol.js; id 0 is never used by
  // the worker client, which ignores replies it did not ask for.
  const loaded = new Promise((resolve, reject) => {
    const onMessage = (e) => {
      if (e.data?.id !== 0) return;
      worker.removeEventListener('message', onMessage);
      if (e.data.ok) resolve(e.data.value);
      // The module's error, with its kind: the page words it by kind.
      else if (e.data.error?.message) reject(Object.assign(new Error(e.data.error.message), { kind: e.data.error.kind ?? 'Error' }));
      else reject(failure('the model did not load', 'boot.notLoaded'));
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', (e) => reject(e.message ? Object.assign(new Error(e.message), { kind: 'WorkerError' })
      : failure('the decoder worker failed to start', 'boot.workerFailed')), { once: true });
    // A download that failed on the way (no HTTP status) is the browser's TypeError, in its words.
    bytes.then((b) => worker.postMessage({ id: 0, type: 'load', source: b }, [b]), (e) => reject(e.key ? e : Object.assign(e, { kind: 'NetworkError' })));
  });
  loaded.catch(() => {});   // engine.js reports it, if it takes the worker
  let taken = false;
  window.seq2seqBoot = {
    /** The worker already loading `url` ({worker, loaded: Promise<ModelInfo>}), once; else null. */
    take(wanted) {
      if (taken || wanted !== url) return null;
      taken = true;
      return { worker, loaded };
    },
    /** Called once the lanes have opened their decoders: a worker nobody took is not needed. */
    dispose() {
      if (!taken) worker.terminate();
      taken = true;
    },
  };
})();
