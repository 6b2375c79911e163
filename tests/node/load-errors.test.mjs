// Model sources that are not model files, through the installed package and the
// native CLI: a directory, a device, a pipe, a missing path, a header built to
// exhaust the parser, a vocabulary token with white space in it; downloads that
// do not end, lie about their length, break off or give no bytes. Each is a
// Seq2SeqError of kind 'ModelError' (or 'NetworkError' for a download that
// broke off; the CLI's message and exit 1), decided without reading an endless
// stream, and neither the wasm heap nor the JS one balloons.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createServer } from 'node:http';
import { cliPath, FIXTURES, installPackage, stallingServer } from './helpers.mjs';
import { editedConfig } from './scaled-model.mjs';

const pkg = installPackage();
const { LIMITS, loadModel, Seq2SeqError } = await pkg.importPackage();
// The Emscripten module the installed package uses, for its heap size.
const { loadCore } = await import(pathToFileURL(join(pkg.packageDir, 'wasm/src/core.js')).href);
// The reader behind loadModel(), whose size limit (LIMITS.maxModelBytes) a test can lower.
const { readModel } = await import(pathToFileURL(join(pkg.packageDir, 'wasm/src/model-source.js')).href);
const core = await loadCore();
const MB = 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'seq2seq-load-errors-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const modelError = (message, code) => (e) => {
  assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
  assert.equal(e.kind, 'ModelError', `kind of: ${e.message}`);
  assert.match(e.message, /^model file: /);
  assert.match(e.message, message);
  if (code) assert.equal(e.code, code);
  return true;
};

/** A safetensors file whose header is `header` (a string), with no data. */
function withHeader(header) {
  const bytes = new Uint8Array(8 + header.length);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
  bytes.set(new TextEncoder().encode(header), 8);
  return bytes;
}
// 16 MB of '[': the header that once grew the wasm heap to 470 MB.
const deep16MB = withHeader('['.repeat(16 * MB));
// The largest header accepted (1 MiB), nested as deep as it is long.
const deepMax = withHeader('['.repeat(MB / 2) + ']'.repeat(MB / 2));

describe('npm module: a path that is not a model file', () => {
  test('a directory, by path and by file URL', async () => {
    await assert.rejects(loadModel(dir), modelError(/is a directory, not a model file/, 'EISDIR'));
    await assert.rejects(loadModel(pathToFileURL(FIXTURES)), modelError(/is a directory/, 'EISDIR'));
  });
  test('a device: refused by its kind, never read', async () => {
    await assert.rejects(loadModel('/dev/zero'), modelError(/'\/dev\/zero' is not a regular file/));
  });
  test('a named pipe: refused without waiting for a writer', async () => {
    const fifo = join(dir, 'model.fifo');
    const r = spawnSync('mkfifo', [fifo]);
    if (r.status !== 0) return;  // no mkfifo here: nothing to test
    await assert.rejects(loadModel(fifo), modelError(/is not a regular file/));
  });
  test('a missing file keeps its ENOENT code', async () => {
    await assert.rejects(loadModel(join(dir, 'missing.safetensors')), modelError(/cannot open .*missing\.safetensors.*ENOENT/, 'ENOENT'));
  });
});

describe('npm module: headers built to exhaust the parser', () => {
  for (const [name, bytes, message] of [
    ['16 MB of nesting', deep16MB, /larger than the largest header accepted \(1048576 bytes\)/],
    ['the largest header, nested all the way', deepMax, /header nests deeper than 16 levels/],
  ]) {
    test(`${name}: a quick ModelError, and the heap stays small`, async (t) => {
      const path = join(dir, 'deep.safetensors');
      writeFileSync(path, bytes);
      const before = core.HEAPU8.length;
      const t0 = performance.now();
      await assert.rejects(loadModel(bytes), modelError(message));
      await assert.rejects(loadModel(path), modelError(message));
      const ms = performance.now() - t0;
      const grown = core.HEAPU8.length - before;
      t.diagnostic(`${(bytes.length / MB).toFixed(1)} MB file: rejected twice in ${ms.toFixed(0)} ms; wasm heap ${(before / MB).toFixed(1)} -> ${(core.HEAPU8.length / MB).toFixed(1)} MB`);
      // The bytes themselves are copied into the heap once; nothing in proportion to the nesting.
      assert.ok(grown <= 2 * bytes.length + 8 * MB, `the heap grew by ${(grown / MB).toFixed(1)} MB`);
    });
  }
});

describe('CLI: a path that is not a model file', () => {
  const cli = (...args) => spawnSync(cliPath(), args, { encoding: 'utf8', timeout: 20000 });
  const cases = [
    [['info', dir], /model file: '.*' is a directory, not a model file/],
    [['decode', '--model', dir, 'ABC'], /is a directory/],
    [['info', '/dev/zero'], /'\/dev\/zero' is not a regular file/],
    [['info', join(dir, 'missing.safetensors')], /cannot open/],
  ];
  for (const [args, message] of cases) {
    test(`seq2seq ${args.join(' ')}`, () => {
      const r = cli(...args);
      assert.equal(r.signal, null, `killed by ${r.signal}: ${r.stderr}`);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, message);
    });
  }
  test('seq2seq info <a 16 MB nested header> is quick', () => {
    const path = join(dir, 'deep-cli.safetensors');
    writeFileSync(path, deep16MB);
    const t0 = performance.now();
    const r = cli('info', path);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /larger than the largest header accepted/);
    assert.ok(performance.now() - t0 < 5000);
  });
});

describe('npm module: a vocabulary token with white space or a control character', () => {
  const cases = [
    ['a space in a target token', 'tgt_vocab', 'AH EY', "'AH EY' holds white space (U+0020)"],
    ['a TAB in a target token', 'tgt_vocab', 'AH\tEY', "'AH\\x09EY' holds white space (U+0009)"],
    ['a no-break space in a target token', 'tgt_vocab', 'AH\u00a0EY', "'AH\u00a0EY' holds white space (U+00A0)"],
    ['an escape in a source character', 'src_vocab', '\u001b', "'\\x1B' holds a control character (U+001B)"],
    ['a space as a source character', 'src_vocab', ' ', "' ' holds white space (U+0020)"],
  ];
  for (const [name, key, token, says] of cases) {
    test(`${name}: a ModelError naming the entry, in JS and from the CLI`, async () => {
      let index;
      const bytes = editedConfig('ar_post_sin_tied_relu', (c) => {
        index = c[key].length - 1;
        c[key][index] = token;
      });
      const message = `model file: config: '${key}' entry ${index} ${says}; a token holds neither: `;
      await assert.rejects(loadModel(bytes), (e) => e instanceof Seq2SeqError && e.kind === 'ModelError' && e.message.startsWith(message));
      const path = join(dir, 'vocab.safetensors');
      writeFileSync(path, bytes);
      const r = spawnSync(cliPath(), ['info', path], { encoding: 'utf8' });
      assert.equal(r.status, 1, r.stderr);
      assert.ok(r.stderr.startsWith(`seq2seq: ${message}`), r.stderr);
    });
  }
  test('a token of 100,000 bytes is named by its start and its size', async () => {
    const bytes = editedConfig('ar_post_sin_tied_relu', (c) => { c.tgt_vocab[c.tgt_vocab.length - 1] = `${'Q'.repeat(100_000)} Q`; });
    const e = await loadModel(bytes).catch((x) => x);
    assert.equal(e.kind, 'ModelError');
    assert.match(e.message, /'Q{64}\.\.\.' \(100002 bytes\) holds white space/);
    assert.ok(e.message.length < 400, `${e.message.length} characters`);
  });
});

describe('npm module: a download is bounded by LIMITS.maxModelBytes', () => {
  const MAX = 2 ** 30;
  const model = new Uint8Array(readFileSync(join(FIXTURES, 'ar_post_sin_tied_relu.safetensors')));
  const rejects = (kind, message) => (e) => {
    assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
    assert.equal(e.kind, kind, `kind of: ${e.message}`);
    assert.match(e.message, message);
    return true;
  };
  // A body of `chunks` (called with the number of chunks given so far; undefined ends it).
  const streamed = (next) => {
    let n = 0;
    return new ReadableStream({ pull(c) { const chunk = next(n++); if (chunk === undefined) c.close(); else c.enqueue(chunk); } });
  };
  const jsHeap = () => process.memoryUsage().arrayBuffers;

  test('the limit is the loader\'s, 1 GiB', () => {
    assert.equal(LIMITS?.maxModelBytes, MAX);
  });
  test('a Content-Length over the limit is refused before a byte is read, nothing allocated for it', async () => {
    let pulled = 0;
    const before = jsHeap();
    const response = new Response(streamed((n) => { pulled = n + 1; return n < 16 ? new Uint8Array(1 << 16) : undefined; }),
      { headers: { 'content-length': String(2 * MAX) } });
    await assert.rejects(loadModel(response),
      rejects('ModelError', new RegExp(`^model file: a Response has ${2 * MAX} bytes by its Content-Length, more than the largest model accepted \\(${MAX} bytes\\)$`)));
    assert.ok(pulled <= 2, `${pulled} chunks read`);
    assert.ok(jsHeap() - before < 64 * MB, `the JS heap grew by ${((jsHeap() - before) / MB).toFixed(0)} MB`);
  });
  test('a body past the limit stops with a ModelError, with or without a (lying) Content-Length', async () => {
    // One chunk of 1 GiB + 1 zeros that are never touched: refused before it is copied.
    const huge = new Uint8Array(MAX + 1);
    for (const headers of [{}, { 'content-length': '100' }]) {
      const response = new Response(streamed((n) => (n === 0 ? huge : undefined)), { headers });
      await assert.rejects(loadModel(response), rejects('ModelError', new RegExp(`sent more than the largest model accepted \\(${MAX} bytes\\): the download was stopped after 0 bytes$`)));
    }
  });
  test('an endless body stops at the limit (a limit of 1 MiB, chunks of 64 KiB)', async () => {
    let pulled = 0;
    const endless = () => new Response(streamed((n) => { pulled = n + 1; return n < 4096 ? new Uint8Array(1 << 16) : undefined; }));
    await assert.rejects(readModel(endless(), {}, { maxBytes: MB }), rejects('ModelError', /sent more than the largest model accepted \(1048576 bytes\): the download was stopped after 1048576 bytes$/));
    assert.equal(pulled, 17);
    // The same through HTTP, chunked: no Content-Length.
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const send = () => { while (res.write(new Uint8Array(1 << 16))); };
      res.on('drain', send);
      res.on('close', () => res.off('drain', send));
      send();
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${server.address().port}/endless.safetensors`;
      await assert.rejects(readModel(url, {}, { maxBytes: MB }), rejects('ModelError', new RegExp(`^model file: ${url} sent more than the largest model accepted`)));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
  test('a Content-Length that overstates the body: nothing allocated for what never comes, and the model loads', async () => {
    const before = jsHeap();
    const response = new Response(streamed((n) => (n === 0 ? model : undefined)), { headers: { 'content-length': String(MAX) } });
    const m = await loadModel(response);
    assert.ok(jsHeap() - before < 64 * MB, `the JS heap grew by ${((jsHeap() - before) / MB).toFixed(0)} MB`);
    assert.equal(m.decode('ABC').length, 1);
    m.delete();
  });
  test('a body that understates its Content-Length, or sends none, loads whole', async () => {
    for (const headers of [{ 'content-length': '10' }, {}]) {
      const response = new Response(streamed((n) => (n * 1000 < model.length ? model.subarray(n * 1000, (n + 1) * 1000) : undefined)), { headers });
      const bytes = (await readModel(response)).bytes;
      assert.deepEqual(bytes, model);
    }
  });
  test('a body that breaks off is a NetworkError saying after how many bytes, and why', async () => {
    const response = new Response(streamed((n) => {
      if (n === 0) return new Uint8Array(1000);
      throw new Error('connection reset by peer');
    }));
    await assert.rejects(loadModel(response), rejects('NetworkError', /^the download of the model from a Response broke off after 1000 bytes: connection reset by peer; try again$/));
    // Through HTTP: the server hangs up a thousand bytes into a body it said had all of the model.
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-length': model.length });
      res.write(model.subarray(0, 1000), () => setTimeout(() => res.destroy(), 20));
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${server.address().port}/model.safetensors`;
      await assert.rejects(loadModel(url), rejects('NetworkError', new RegExp(`^the download of the model from ${url} broke off after 1000 bytes: .+; try again$`)));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
  test('a body that gives something other than bytes (a string) is a ModelError saying so', async () => {
    for (const [first, gave, after] of [['HELLO', 'the string "HELLO"', 0], [model.subarray(0, 8), 'the number 42', 8]]) {
      const response = new Response(streamed((n) => (n === 0 ? first : n === 1 ? (typeof first === 'string' ? undefined : 42) : undefined)));
      await assert.rejects(loadModel(response), rejects('ModelError', new RegExp(`^model file: the body of a Response gave ${gave} after ${after} bytes, where a body gives bytes`)));
    }
  });
  test('a Blob and a file are held to the same limit before they are read', async () => {
    const path = join(dir, 'model.safetensors');
    writeFileSync(path, model);
    await assert.rejects(readModel(new Blob([model]), {}, { maxBytes: 1000 }), rejects('ModelError', new RegExp(`^model file: the Blob has ${model.length} bytes, more than the largest model accepted \\(1000 bytes\\)$`)));
    await assert.rejects(readModel(path, {}, { maxBytes: 1000 }), rejects('ModelError', new RegExp(`^model file: '.*model\\.safetensors' has ${model.length} bytes, more than the largest model accepted \\(1000 bytes\\)$`)));
  });
});

describe('npm module: a download that stalls, or that the caller gives up', () => {
  const rejects = (kind, message) => (e) => {
    assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
    assert.equal(e.kind, kind, `kind of: ${e.message}`);
    assert.match(e.message, message);
    return true;
  };
  const stalled = (url, ms, bytes) => rejects('NetworkError',
    new RegExp(`^the download of the model from ${url} stalled: no data for ${ms} ms after ${bytes} bytes; try again \\(loadModel\\(source, \\{ stallTimeout \\}\\) allows a slower server more time\\)$`));
  const cancelled = rejects('Cancelled', /^the load was cancelled \(its signal was aborted\)$/);

  test('a server that sends a Content-Length and then nothing: a NetworkError after stallTimeout, the connection closed', async () => {
    // Once pending for ever: no timeout, and no way to give up.
    const server = await stallingServer();
    try {
      const t0 = performance.now();
      await assert.rejects(loadModel(server.url, { stallTimeout: 300 }), stalled(server.url, 300, 1000));
      const ms = performance.now() - t0;
      assert.ok(ms >= 300 && ms < 10_000, `${ms.toFixed(0)} ms`);
      await server.closed;
    } finally {
      await server.close();
    }
  });
  test('a server that never answers: the same, after 0 bytes', async () => {
    const server = await stallingServer({ headers: false });
    try {
      await assert.rejects(loadModel(server.url, { stallTimeout: 200 }), stalled(server.url, 200, 0));
      await server.closed;
    } finally {
      await server.close();
    }
  });
  test('a Response whose body stalls', async () => {
    const body = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(10)); } });   // then nothing
    await assert.rejects(loadModel(new Response(body), { stallTimeout: 100 }), stalled('a Response', 100, 10));
  });
  test('an AbortSignal gives the load up at once, mid-download (the connection closed) or before it starts', async () => {
    const server = await stallingServer();
    try {
      const controller = new AbortController();
      const loading = loadModel(server.url, { signal: controller.signal });
      await server.requested;
      controller.abort();
      await assert.rejects(loading, cancelled);
      await server.closed;
      await assert.rejects(loadModel(server.url, { signal: AbortSignal.abort() }), cancelled);
      // A reason the caller gave is named.
      await assert.rejects(loadModel(new Uint8Array(8), { signal: AbortSignal.abort(new Error('the user went elsewhere')) }),
        rejects('Cancelled', /^the load was cancelled \(its signal was aborted\): the user went elsewhere$/));
    } finally {
      await server.close();
    }
    // Bytes given whole, with a signal that is never aborted: loaded as ever.
    const m = await loadModel(new Uint8Array(readFileSync(join(FIXTURES, 'ar_post_sin_tied_relu.safetensors'))), { signal: new AbortController().signal });
    assert.equal(m.decode('ABC').length, 1);
    m.delete();
  });
  test('signal and stallTimeout of the wrong kind are UsageErrors naming what was given', async () => {
    const usage = (message) => rejects('UsageError', message);
    await assert.rejects(loadModel('x', { signal: 'stop' }), usage(/^loadModel: signal must be an AbortSignal \(an AbortController's signal\); got the string "stop"$/));
    await assert.rejects(loadModel('x', { signal: new AbortController() }), usage(/signal must be an AbortSignal .*; got an AbortController$/));
    for (const [bad, shown] of [[0, 'the number 0'], [-5, 'the number -5'], [NaN, 'the number NaN'], ['100', 'the string "100"'], [2 ** 31, 'the number 2147483648']]) {
      await assert.rejects(loadModel('x', { stallTimeout: bad }), usage(new RegExp(`^loadModel: stallTimeout must be a number of milliseconds in \\(0, 2147483647\\]; got ${shown}$`)));
    }
  });
});
