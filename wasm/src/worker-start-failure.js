// Why a worker failed to start, for worker-client.js (loaded only then).
// A browser says only that a worker failed to start, not why: the script's own
// URL, fetched again, tells a missing or mistyped script from one whose
// imports failed. `script`: {url} where known, {described} for the default.
export async function startFailure(script, detail) {
  const advice = 'pass createDecoderWorker({ workerUrl }) the URL where seq2seq-wasm/worker-script (or your bundle of it) is served';
  if (detail) return new Error(`the worker script ${script?.url ?? script?.described ?? ''} failed: ${detail}`);
  if (!script?.url || typeof fetch !== 'function') {
    return new Error(`the worker script ${script?.described ?? ''} failed to start (it may not exist, or not be a module); ${advice}`);
  }
  let why;
  try {
    const r = await fetch(script.url, { cache: 'no-store' });
    const type = r.headers.get('content-type') ?? '';
    why = !r.ok ? `it answers HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}; ${advice}`
      : !/javascript|ecmascript/i.test(type) ? `it is served as ${type ? `'${type}'` : 'no type'}, not JavaScript; ${advice}`
        : 'it loads, so a module it imports failed to load (missing, or not JavaScript): serve the files it imports next to it, or bundle them into it';
  } catch (e) {
    why = `it cannot be fetched (${e?.message ?? e}); ${advice}`;
  }
  return new Error(`the worker script ${script.url} failed to start: ${why}`);
}
