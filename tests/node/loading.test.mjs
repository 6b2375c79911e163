// How models and the engine are loaded, through the installed package in Node:
// every source kind (a Blob, a Response, bytes, a path, a URL) gives the same
// model; onProgress follows a download from a local server with and without
// Content-Length and always ends at loaded === total; a 404, a refused
// connection, a checksum that does not match and wrong option types are
// Seq2SeqErrors of the kinds the API promises; the worker client takes the same
// options, and a wasm URL of its own. (The Cache API is browser-only: see
// tests/browser/bundlers.test.mjs.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { installPackage, modelPath, serveFiles, wordsFor } from './helpers.mjs';

const pkg = installPackage();
const { loadModel, env, Seq2SeqError } = await pkg.importPackage();
const { createDecoderWorker, env: workerEnv } = await pkg.importPackage('/worker');

const MODEL = modelPath('ar');
const bytes = new Uint8Array(readFileSync(MODEL));
const SHA256 = createHash('sha256').update(bytes).digest('hex');
const WASM = join(pkg.packageDir, 'wasm/dist/seq2seq_core.wasm');

const kind = (k, message) => (e) => {
  assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
  assert.equal(e.kind, k, `kind of: ${e.message}`);
  if (message) assert.match(e.message, message);
  return true;
};

let withLength;
let withoutLength;
let reference;
let word;
before(async () => {
  withLength = await serveFiles({ '/m.safetensors': MODEL });
  withoutLength = await serveFiles({ '/m.safetensors': MODEL }, { contentLength: false });
  const model = await loadModel(bytes);
  word = wordsFor(model.info)[0];
  reference = model.decode(word);
  model.delete();
});
after(async () => {
  await withLength?.close();
  await withoutLength?.close();
});

async function decodes(source, options) {
  const model = await loadModel(source, options);
  try {
    assert.deepEqual(model.decode(word), reference);
  } finally {
    model.delete();
  }
}

/** A port nothing listens on: a server's, once closed. */
async function closedPort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

describe('model sources', () => {
  test('a Blob, a Response, bytes, a path, a file URL and an http URL give the same model', async () => {
    await decodes(new Blob([bytes]));
    await decodes(new Response(bytes));
    await decodes(await fetch(`${withLength.base}/m.safetensors`));
    await decodes(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    await decodes(MODEL);
    await decodes(pathToFileURL(MODEL));
    await decodes(`${withLength.base}/m.safetensors`);
    await decodes(new URL(`${withoutLength.base}/m.safetensors`));
  });

  test('a Response already read is a UsageError', async () => {
    const response = new Response(bytes);
    await response.arrayBuffer();
    await assert.rejects(loadModel(response), kind('UsageError', /has already been read: pass a fresh one/));
  });
});

describe('onProgress', () => {
  const follow = async (source) => {
    const calls = [];
    await decodes(source, { onProgress: (p) => calls.push(p) });
    assert.deepEqual(calls.at(-1), { loaded: bytes.length, total: bytes.length }, 'the last call says loaded === total');
    // Each chunk's call says more; the closing call may repeat the last count, now with its total.
    for (let i = 1; i < calls.length - 1; i++) assert.ok(calls[i].loaded > calls[i - 1].loaded, 'loaded grows with every chunk');
    return calls;
  };

  test('a download with Content-Length: the total from the start', async (t) => {
    const calls = await follow(`${withLength.base}/m.safetensors`);
    assert.ok(calls.length > 2, `a 4 MB download comes in several chunks (${calls.length} calls)`);
    assert.ok(calls.every((c) => c.total === bytes.length));
    t.diagnostic(`${calls.length} calls for ${bytes.length} bytes`);
  });

  test('a download without Content-Length: total undefined until the end', async (t) => {
    const calls = await follow(`${withoutLength.base}/m.safetensors`);
    assert.ok(calls.length > 2, `${calls.length} calls`);
    assert.ok(calls.slice(0, -1).every((c) => c.total === undefined), JSON.stringify(calls.slice(0, 3)));
    t.diagnostic(`${calls.length} calls for ${bytes.length} bytes`);
  });

  test('a Response is read with progress too', async () => {
    const calls = await follow(await fetch(`${withLength.base}/m.safetensors`));
    assert.ok(calls.length > 2);
  });

  test('bytes, a Blob and a path: one call, at the end', async () => {
    for (const source of [bytes, new Blob([bytes]), MODEL]) {
      assert.deepEqual(await follow(source), [{ loaded: bytes.length, total: bytes.length }]);
    }
  });
});

describe('network failures are NetworkErrors that name the URL', () => {
  test('HTTP 404', async () => {
    const url = `${withLength.base}/missing.safetensors`;
    await assert.rejects(loadModel(url), kind('NetworkError', new RegExp(`^cannot load the model from ${url.replace(/[.]/g, '\\.')}: HTTP 404 Not Found; check the URL; .*import\\.meta\\.resolve`)));
  });

  test('a refused connection', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/m.safetensors`;
    await assert.rejects(loadModel(url), kind('NetworkError', new RegExp(`^cannot fetch the model from ${url.replace(/[.]/g, '\\.')}: fetch failed \\(.*ECONNREFUSED.*\\); check the URL`)));
  });
});

describe('sha256', () => {
  test('the right digest loads, in either case', async () => {
    await decodes(bytes, { sha256: SHA256 });
    await decodes(`${withLength.base}/m.safetensors`, { sha256: SHA256.toUpperCase() });
  });

  test('a mismatch is a ModelError naming the expected and the actual digest', async () => {
    const expected = SHA256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    for (const source of [bytes, `${withLength.base}/m.safetensors`, MODEL]) {
      await assert.rejects(loadModel(source, { sha256: expected }), kind('ModelError', new RegExp(`sha256 mismatch: expected ${expected}, got ${SHA256} \\(${bytes.length} bytes\\)`)));
    }
  });
});

describe('wrong option types are UsageErrors that name what was given', () => {
  const cases = [
    [{ onProgress: 'yes' }, /onProgress must be a function; got the string "yes"/],
    [{ onProgress: null }, /onProgress must be a function; got null/],
    [{ cache: 1 }, /cache must be true, false or a cache name \(a non-empty string\); got the number 1/],
    [{ cache: '' }, /cache must be .*; got the string ""/],
    [{ cache: () => true }, /cache must be .*; got a function \(cache\)$/],
    [{ sha256: 'abc' }, /sha256 must be the file's SHA-256 as 64 hexadecimal digits; got the string "abc"/],
    [{ sha256: 12 }, /sha256 must be .*; got the number 12/],
    [{ sha256: 'g'.repeat(64) }, /sha256 must be/],
    [{ progress: () => {} }, /unknown option 'progress' \(known: compute, onProgress, cache, sha256, signal, stallTimeout\)/],
    [[], /options must be an object; got an array$/],
  ];
  test('loadModel', async () => {
    for (const [options, message] of cases) await assert.rejects(loadModel(bytes, options), kind('UsageError', message));
  });
  test('the worker client, before anything is sent', async () => {
    const decoder = createDecoderWorker();
    try {
      for (const [options, message] of cases) await assert.rejects(decoder.load(bytes, options), kind('UsageError', message));
      assert.equal((await decoder.load(bytes)).arch, 'transformer', 'still usable');
    } finally {
      await decoder.terminate();
    }
  });
  test('a source of no known kind', async () => {
    await assert.rejects(loadModel({ url: MODEL }), kind('UsageError', /a model source must be .*; got an object$/));
  });
  test('env.wasmUrl and createDecoderWorker options', () => {
    assert.throws(() => { env.wasmUrl = 5; }, kind('UsageError', /env\.wasmUrl must be a string or a URL; got the number 5/));
    assert.throws(() => createDecoderWorker({ wasmUrl: true }), kind('UsageError', /wasmUrl must be a string or a URL; got the boolean true/));
    assert.throws(() => createDecoderWorker({ workerUrl: 3 }), kind('UsageError', /workerUrl must be a string or a URL; got the number 3/));
    assert.throws(() => createDecoderWorker({ wasmURL: WASM }), kind('UsageError', /unknown option 'wasmURL' \(known: workerUrl, wasmUrl, startTimeout\)/));
    assert.throws(() => createDecoderWorker(42), kind('UsageError', /target must be .*; got the number 42/));
  });
});

describe('env.wasmUrl', () => {
  test('seq2seq-wasm and seq2seq-wasm/worker export the one env', () => {
    assert.equal(workerEnv, env);
  });

  test('once the engine has loaded, only the URL it loaded from may be set again', async () => {
    await decodes(bytes);   // the engine is loaded in this process
    env.wasmUrl = pathToFileURL(WASM);   // where it loaded from: allowed
    assert.equal(env.wasmUrl.href, pathToFileURL(WASM).href);
    assert.throws(() => { env.wasmUrl = '/elsewhere/seq2seq_core.wasm'; }, kind('UsageError', /the engine has already loaded from file:.*seq2seq_core\.wasm; set env\.wasmUrl before the first loadModel\(\)/));
    env.wasmUrl = undefined;
  });
});

describe('the worker: load options and a wasm URL of its own', () => {
  test('onProgress crosses from the worker; sha256 is checked there', async () => {
    const decoder = createDecoderWorker();
    try {
      const calls = [];
      await decoder.load(`${withoutLength.base}/m.safetensors`, { onProgress: (p) => calls.push(p), sha256: SHA256 });
      assert.ok(calls.length > 2, `${calls.length} calls`);
      assert.deepEqual(calls.at(-1), { loaded: bytes.length, total: bytes.length });
      const read = [];
      await decoder.load(await fetch(`${withLength.base}/m.safetensors`), { onProgress: (p) => read.push(p) });
      assert.deepEqual(read.at(-1), { loaded: bytes.length, total: bytes.length }, 'a Response is read on this side, with progress');
      await assert.rejects(decoder.load(bytes, { sha256: '0'.repeat(64) }), kind('ModelError', /sha256 mismatch: expected 0{64}, got /));
      await decoder.start(word);
      assert.deepEqual(await decoder.run(), reference, 'the model of the last good load');
    } finally {
      await decoder.terminate();
    }
  });

  test('createDecoderWorker({ wasmUrl }): a missing or wrong file is a WasmError naming it; the right one loads', async () => {
    const missing = createDecoderWorker({ wasmUrl: '/nonexistent/seq2seq_core.wasm' });
    const notWasm = createDecoderWorker({ wasmUrl: pathToFileURL(MODEL) });
    const right = createDecoderWorker({ wasmUrl: pathToFileURL(WASM) });
    try {
      await assert.rejects(missing.load(bytes), kind('WasmError', /^cannot load the engine's WebAssembly from \/nonexistent\/seq2seq_core\.wasm: ENOENT.*Set env\.wasmUrl/));
      await assert.rejects(missing.load(bytes), kind('WasmError', /ENOENT/), 'tried again, failing the same way');
      await assert.rejects(notWasm.load(bytes), kind('WasmError', /: not WebAssembly: /));
      await right.load(bytes);
      await right.start(word);
      assert.deepEqual(await right.run(), reference);
    } finally {
      await Promise.all([missing.terminate(), notWasm.terminate(), right.terminate()]);
    }
  });
});
