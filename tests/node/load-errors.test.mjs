// Model sources that are not model files, through the installed package and the
// native CLI: a directory, a device, a pipe, a missing path, a header built to
// exhaust the parser. Each is a Seq2SeqError of kind 'ModelError' (or the CLI's
// message and exit 1), decided without reading an endless stream, and the wasm
// heap does not balloon.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cliPath, FIXTURES, installPackage } from './helpers.mjs';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
// The Emscripten module the installed package uses, for its heap size.
const { loadCore } = await import(pathToFileURL(join(pkg.packageDir, 'wasm/src/core.js')).href);
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
