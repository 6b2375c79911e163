// The package as published: what `npm pack` carries, that the tarball installs
// offline with no dependencies, its exports, sizes, a user's script importing
// it in a fresh process, and every way of handing it a model.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ROOT, installPackage, modelPath, packFileList, runCli, serveFiles } from './helpers.mjs';

const pkg = installPackage();
const KB = 1024;

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('npm pack', () => {
  test('carries exactly what a user needs', () => {
    const expected = [
      'package.json', 'README.md',
      'wasm/dist/seq2seq_core.mjs', 'wasm/dist/seq2seq_core.wasm',
      ...['core', 'errors', 'index', 'options', 'options-table', 'worker', 'worker-client', 'worker-protocol'].map((f) => `wasm/src/${f}.js`),
      ...['index', 'worker-client', 'worker-protocol'].map((f) => `wasm/src/${f}.d.ts`),
      'models/data/LICENSE-CMUDICT',
      ...readdirSync(join(ROOT, 'models')).filter((f) => f.endsWith('.safetensors')).map((f) => `models/${f}`),
      ...['models/README.md', 'LICENSE'].filter((f) => existsSync(join(ROOT, f))),
    ].sort();
    assert.deepEqual(packFileList(), expected);
    assert.deepEqual(pkg.files, expected, 'the tarball tested is the same list');
  });

  test('the tarball installs offline into a scratch project, with no dependencies', () => {
    assert.ok(!pkg.project.startsWith(ROOT), 'the scratch project is outside the repository');
    const manifest = JSON.parse(readFileSync(join(pkg.packageDir, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
      assert.equal(manifest[field], undefined, `no ${field}`);
    }
    assert.deepEqual(readdirSync(join(pkg.project, 'node_modules')).filter((f) => !f.startsWith('.')), ['seq2seq-wasm'], 'nothing else was installed');
    const installed = walk(pkg.packageDir).map((f) => relative(pkg.packageDir, f)).sort();
    assert.deepEqual(installed, pkg.files);
    for (const f of pkg.files.filter((x) => x !== 'package.json')) {
      assert.deepEqual(readFileSync(join(pkg.packageDir, f)), readFileSync(join(ROOT, f)), `${f} is the built file`);
    }
    // Install again from the tarball, offline, into a second project: it must not need the network.
    const second = join(pkg.project, 'second');
    execFileSync('mkdir', ['-p', second]);
    writeFileSync(join(second, 'package.json'), '{"name":"second","private":true}');
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', pkg.tarball], { cwd: second, stdio: 'pipe' });
    assert.ok(existsSync(join(second, 'node_modules/seq2seq-wasm/wasm/dist/seq2seq_core.wasm')));
  });

  test('sizes: the wasm under 400 KB gzipped', (t) => {
    const rows = ['wasm/dist/seq2seq_core.wasm', 'wasm/dist/seq2seq_core.mjs', ...pkg.files.filter((f) => f.startsWith('wasm/src/') && f.endsWith('.js'))]
      .map((f) => {
        const bytes = readFileSync(join(pkg.packageDir, f));
        return [f, bytes.length, gzipSync(bytes, { level: 9 }).length];
      });
    const js = rows.filter(([f]) => f.endsWith('.js') || f.endsWith('.mjs'));
    const total = (list, i) => list.reduce((a, r) => a + r[i], 0);
    for (const [f, raw, gz] of rows) t.diagnostic(`${f}: ${(raw / KB).toFixed(1)} KB raw, ${(gz / KB).toFixed(1)} KB gzip`);
    t.diagnostic(`all JS: ${(total(js, 1) / KB).toFixed(1)} KB raw, ${(total(js, 2) / KB).toFixed(1)} KB gzip; tarball ${(statSync(pkg.tarball).size / KB).toFixed(1)} KB`);
    assert.ok(rows[0][2] < 400 * KB, `wasm gzipped: ${rows[0][2]} bytes`);
  });

  test('no module names a Node built-in literally (browser bundlers would fail to resolve it)', () => {
    for (const f of pkg.files.filter((x) => /\.m?js$/.test(x))) {
      const text = readFileSync(join(pkg.packageDir, f), 'utf8');
      assert.doesNotMatch(text, /\bimport\s*\(\s*(\/\*.*?\*\/\s*)*['"`](node:|fs|path|url|worker_threads)/, `${f}: a literal dynamic import of a Node module`);
      assert.doesNotMatch(text, /^\s*import\s[^;]*from\s*['"](node:|fs['"]|path['"])/m, `${f}: a static import of a Node module`);
      assert.doesNotMatch(text, /\brequire\s*\(\s*['"]/, `${f}: require()`);
    }
  });

  test('package.json: ESM with types for every entry, Node >= 18', () => {
    const manifest = JSON.parse(readFileSync(join(pkg.packageDir, 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'seq2seq-wasm');
    assert.equal(manifest.type, 'module');
    assert.equal(manifest.engines.node, '>=18');
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'object') {
        assert.deepEqual(Object.keys(target), ['types', 'default'], `${entry}: types first`);
        assert.ok(existsSync(join(pkg.packageDir, target.types)), `${entry}: ${target.types}`);
        assert.ok(existsSync(join(pkg.packageDir, target.default)), `${entry}: ${target.default}`);
      }
    }
  });
});

describe('imported as a user would', () => {
  test('the entry points resolve into the installed package; nothing else is reachable', async () => {
    for (const sub of ['', '/worker', '/worker-protocol', '/worker-script', '/package.json']) {
      const url = await pkg.resolvePackage(sub);
      assert.ok(fileURLToPath(url).startsWith(pkg.packageDir), `${sub}: ${url}`);
    }
    const model = readdirSync(join(ROOT, 'models')).find((f) => f.endsWith('.safetensors'));
    if (model) assert.ok(existsSync(fileURLToPath(await pkg.resolvePackage(`/models/${model}`))));
    for (const hidden of ['/wasm/src/core.js', '/wasm/dist/seq2seq_core.mjs', '/wasm/src/index.js']) {
      await assert.rejects(pkg.resolvePackage(hidden).then((u) => import(u)), (e) => e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED', hidden);
    }
  });

  test('a user script in a fresh Node process', () => {
    const path = modelPath('ar');
    const shipped = basename(path).startsWith('g2p-');
    const script = `
      import { loadModel } from 'seq2seq-wasm';
      const source = ${shipped ? `new URL(import.meta.resolve('seq2seq-wasm/models/${basename(path)}'))` : JSON.stringify(path)};
      const model = await loadModel(source);
      const words = process.argv.slice(2);
      for (const w of words) for (const r of model.decode(w)) console.log([w, r.text, r.score].join('\\t'));
      model.delete();
    `;
    writeFileSync(join(pkg.project, 'user.mjs'), script);
    const words = shipped ? ['HELLO', 'WORLD', 'PHONEME'] : ['ABC', 'FACADE', 'CAGE'];
    const out = execFileSync(process.execPath, ['user.mjs', ...words], { cwd: pkg.project, encoding: 'utf8' });
    const native = runCli(['decode', '--model', path, ...words]);
    const rows = (text) => text.trim().split('\n').map((l) => l.split('\t'));
    assert.equal(rows(out).length, rows(native).length);
    rows(out).forEach(([w, text, score], i) => {
      assert.equal(w, rows(native)[i][0]);
      assert.equal(text, rows(native)[i][1]);
      assert.ok(Math.abs(Number(score) - Number(rows(native)[i][2])) <= 1e-4);
    });
  });
});

describe('model sources', () => {
  let server;
  let loadModel;
  const path = modelPath('cmlm');
  const bytes = readFileSync(path);
  before(async () => {
    ({ loadModel } = await pkg.importPackage());
    server = await serveFiles({ '/models/m.safetensors': path });
  });
  after(() => server.close());

  test('a path, a file: URL, an http URL (fetch), a Response, and bytes of every kind give the same model', async () => {
    const u8 = new Uint8Array(bytes);
    const sources = {
      path,
      'file: URL': pathToFileURL(path),
      'file: URL string': pathToFileURL(path).href,
      'http URL string': `${server.base}/models/m.safetensors`,
      'http URL': new URL('/models/m.safetensors', server.base),
      Response: await fetch(`${server.base}/models/m.safetensors`),
      ArrayBuffer: u8.slice().buffer,
      Uint8Array: u8,
      Buffer: bytes,
      DataView: new DataView(u8.slice().buffer),
      'a view into a larger buffer': (() => { const big = new Uint8Array(u8.length + 64); big.set(u8, 32); return big.subarray(32, 32 + u8.length); })(),
    };
    const word = 'ABC';
    let reference = null;
    for (const [name, source] of Object.entries(sources)) {
      const model = await loadModel(source);
      const got = { info: model.info, out: model.decode(word) };
      reference ??= got;
      assert.deepEqual(got, reference, name);
      model.delete();
    }
  });

  test('an http URL that is not there', async () => {
    await assert.rejects(loadModel(`${server.base}/models/missing.safetensors`), /cannot load model from .*missing\.safetensors: HTTP 404/);
    const notOk = await fetch(`${server.base}/nope`);
    await assert.rejects(loadModel(notOk), /HTTP 404/);
  });
});
