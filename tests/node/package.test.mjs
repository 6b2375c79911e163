// The two packages as published: what `npm pack` carries for the engine
// (seq2seq-wasm) and the models (seq2seq-wasm-models, with the phonemizer), that
// both tarballs install offline with no dependencies but the models' peer, the
// engine, their exports, the models' manifest
// against the files, sizes, a user's script importing both in a fresh process,
// and every way of handing the engine a model.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { manifestModule } from '../../scripts/gen-manifest-module.mjs';
import { MODELS_PACKAGE, ROOT, installPackage, modelPath, packFileList, runCli, serveFiles } from './helpers.mjs';

const pkg = installPackage();
const KB = 1024;
const MB = 1024 * 1024;
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const manifest = readJson(join(MODELS_PACKAGE, 'manifest.json'));
// The stress digits of ARPAbet, as the training recipe writes them (models/train/data_rules.json).
const STRESS = new RegExp(readJson(join(MODELS_PACKAGE, 'train/data_rules.json')).stress);
const shippedModels = readdirSync(MODELS_PACKAGE).filter((f) => f.endsWith('.safetensors')).sort();

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('npm pack', () => {
  test('the engine carries the engine: wasm, JS, types, worker, the trainer\'s module apart; no models', () => {
    const expected = [
      'package.json', 'README.md', 'LICENSE',
      'wasm/dist/seq2seq_core.mjs', 'wasm/dist/seq2seq_core.wasm', 'wasm/dist/seq2seq_train.mjs', 'wasm/dist/seq2seq_train.wasm',
      ...readdirSync(join(ROOT, 'wasm/src')).filter((f) => /\.(js|d\.ts)$/.test(f)).map((f) => `wasm/src/${f}`),
    ].sort();
    assert.deepEqual(packFileList(ROOT), expected);
    assert.deepEqual(pkg.files, expected, 'the tarball tested is the same list');
  });

  test('the models package carries the eight models, their manifest (JSON and module), the phonemizer, README and licence', () => {
    const g2p = readdirSync(join(MODELS_PACKAGE, 'g2p')).filter((f) => /\.(js|d\.ts)$/.test(f)).map((f) => `g2p/${f}`);
    assert.ok(g2p.includes('g2p/lexicon-data.js') && g2p.includes('g2p/index.d.ts'));
    const expected = ['package.json', 'README.md', 'manifest.json', 'manifest.js', 'manifest.d.ts', 'data/LICENSE-CMUDICT', ...g2p, ...shippedModels].sort();
    assert.equal(shippedModels.length, 8);
    assert.deepEqual(packFileList(MODELS_PACKAGE), expected);
    assert.deepEqual(pkg.modelFiles, expected, 'the tarball tested is the same list');
  });

  test('both tarballs install offline into a scratch project, with no dependencies but the models\' peer, the engine', () => {
    assert.ok(!pkg.project.startsWith(ROOT), 'the scratch project is outside the repository');
    assert.deepEqual(readdirSync(join(pkg.project, 'node_modules')).filter((f) => !f.startsWith('.')).sort(), ['seq2seq-wasm', 'seq2seq-wasm-models'],
      'nothing else was installed');
    for (const [dir, source, files] of [[pkg.packageDir, ROOT, pkg.files], [pkg.modelsDir, MODELS_PACKAGE, pkg.modelFiles]]) {
      const installed = readJson(join(dir, 'package.json'));
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
        // The phonemizer (seq2seq-wasm-models/g2p) decodes with the engine the user installs.
        const peer = installed.name === 'seq2seq-wasm-models' && field === 'peerDependencies';
        assert.deepEqual(installed[field], peer ? { 'seq2seq-wasm': readJson(join(pkg.packageDir, 'package.json')).version } : undefined, `${installed.name}: ${field}`);
      }
      assert.deepEqual(walk(dir).map((f) => relative(dir, f)).sort(), files);
      for (const f of files.filter((x) => x !== 'package.json')) {
        assert.deepEqual(readFileSync(join(dir, f)), readFileSync(join(source, f)), `${installed.name}: ${f} is the file of the repository`);
      }
    }
    // Install again from the tarballs, offline, into a second project: it must not need the network.
    const second = join(pkg.project, 'second');
    execFileSync('mkdir', ['-p', second]);
    writeFileSync(join(second, 'package.json'), '{"name":"second","private":true}');
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', pkg.tarball, pkg.modelsTarball], { cwd: second, stdio: 'pipe' });
    assert.ok(existsSync(join(second, 'node_modules/seq2seq-wasm/wasm/dist/seq2seq_core.wasm')));
    assert.ok(existsSync(join(second, 'node_modules/seq2seq-wasm-models/g2p-transformer.safetensors')));
  });

  test('sizes: the engine tarball at most 1 MB, the decoder\'s wasm and the trainer\'s each under 400 KB gzipped', (t) => {
    const rows = ['wasm/dist/seq2seq_core.wasm', 'wasm/dist/seq2seq_train.wasm', 'wasm/dist/seq2seq_core.mjs', 'wasm/dist/seq2seq_train.mjs',
      ...pkg.files.filter((f) => f.startsWith('wasm/src/') && f.endsWith('.js'))]
      .map((f) => {
        const bytes = readFileSync(join(pkg.packageDir, f));
        return [f, bytes.length, gzipSync(bytes, { level: 9 }).length];
      });
    const js = rows.filter(([f]) => f.endsWith('.js') || f.endsWith('.mjs'));
    const total = (list, i) => list.reduce((a, r) => a + r[i], 0);
    for (const [f, raw, gz] of rows) t.diagnostic(`${f}: ${(raw / KB).toFixed(1)} KB raw, ${(gz / KB).toFixed(1)} KB gzip`);
    const engine = statSync(pkg.tarball).size;
    const models = statSync(pkg.modelsTarball).size;
    t.diagnostic(`all JS: ${(total(js, 1) / KB).toFixed(1)} KB raw, ${(total(js, 2) / KB).toFixed(1)} KB gzip`);
    t.diagnostic(`tarballs: seq2seq-wasm ${(engine / KB).toFixed(1)} KB, seq2seq-wasm-models ${(models / MB).toFixed(2)} MB`);
    assert.ok(engine <= MB, `the engine tarball is ${engine} bytes`);
    assert.ok(rows[0][2] < 400 * KB, `wasm gzipped: ${rows[0][2]} bytes`);
    assert.ok(rows[1][2] < 400 * KB, `the trainer's wasm gzipped: ${rows[1][2]} bytes`);
  });

  test('the decoder\'s wasm holds no trainer: decoding never downloads it', () => {
    // A message only the trainer's code writes (src/train/trainer.cpp), in the trainer's module alone.
    const holds = (f) => readFileSync(join(pkg.packageDir, f)).includes('training diverged at step ');
    assert.equal(holds('wasm/dist/seq2seq_core.wasm'), false);
    assert.equal(holds('wasm/dist/seq2seq_train.wasm'), true);
    for (const f of pkg.files.filter((x) => /^wasm\/src\/(index|worker|worker-client|core)\.js$/.test(x))) {
      assert.doesNotMatch(readFileSync(join(pkg.packageDir, f), 'utf8'), /(from|import\()\s*['"][^'"]*(seq2seq_train|train[-.])/, `${f} imports no part of the trainer`);
    }
  });

  test('no module names a Node built-in literally (browser bundlers would fail to resolve it)', () => {
    for (const [dir, f] of [...pkg.files.map((x) => [pkg.packageDir, x]), ...pkg.modelFiles.map((x) => [pkg.modelsDir, x])].filter(([, x]) => /\.m?js$/.test(x))) {
      const text = readFileSync(join(dir, f), 'utf8');
      assert.doesNotMatch(text, /\bimport\s*\(\s*(\/\*.*?\*\/\s*)*['"`](node:|fs|path|url|worker_threads)/, `${f}: a literal dynamic import of a Node module`);
      assert.doesNotMatch(text, /^\s*import\s[^;]*from\s*['"](node:|fs['"]|path['"])/m, `${f}: a static import of a Node module`);
      assert.doesNotMatch(text, /\brequire\s*\(\s*['"]/, `${f}: require()`);
    }
  });

  test('seq2seq-wasm package.json: ESM with types for every entry, Node >= 18, only the worker script has side effects', () => {
    const m = readJson(join(pkg.packageDir, 'package.json'));
    assert.equal(m.name, 'seq2seq-wasm');
    assert.equal(m.type, 'module');
    assert.equal(m.engines.node, '>=18');
    // The worker script sets up its message handler when imported; a bundler
    // told that nothing has side effects could drop `import 'seq2seq-wasm/worker-script'`.
    assert.deepEqual(m.sideEffects, ['./wasm/src/worker.js', './wasm/src/train-worker.js']);
    assert.equal(m.exports['./worker-script'], m.sideEffects[0]);
    assert.equal(m.exports['./train-worker-script'], m.sideEffects[1]);
    for (const field of ['repository', 'homepage', 'bugs']) assert.equal(m[field], undefined, `no ${field}: there is no public repository`);
    // The WebAssembly is exported, so that a bundler's ?url import or require.resolve can feed env.wasmUrl.
    for (const file of ['seq2seq_core.wasm', 'seq2seq_train.wasm']) {
      const wasm = createRequire(join(pkg.project, 'package.json')).resolve(`seq2seq-wasm/${file}`);
      assert.equal(wasm, join(pkg.packageDir, `wasm/dist/${file}`));
      assert.equal(readFileSync(wasm).subarray(0, 4).toString('latin1'), '\0asm');
    }
    // typesVersions: each typed subpath's declarations, for tools that read no exports map (node10).
    const typedSubpaths = Object.entries(m.exports).filter(([entry, target]) => entry !== '.' && typeof target === 'object');
    assert.deepEqual(m.typesVersions, { '*': Object.fromEntries(typedSubpaths.map(([entry, target]) => [entry.slice(2), [target.types]])) });
    for (const [entry, target] of Object.entries(m.exports)) {
      if (typeof target === 'object') {
        assert.deepEqual(Object.keys(target), ['types', 'default'], `${entry}: types first`);
        assert.ok(existsSync(join(pkg.packageDir, target.types)), `${entry}: ${target.types}`);
        assert.ok(existsSync(join(pkg.packageDir, target.default)), `${entry}: ${target.default}`);
      }
    }
  });

  test('seq2seq-wasm-models package.json: same version, the data\'s licence, ESM with types for the manifest and the phonemizer', () => {
    const m = readJson(join(pkg.modelsDir, 'package.json'));
    assert.equal(m.name, 'seq2seq-wasm-models');
    assert.equal(m.version, readJson(join(pkg.packageDir, 'package.json')).version);
    assert.equal(m.license, 'BSD-2-Clause');
    const notice = readFileSync(join(pkg.modelsDir, 'data/LICENSE-CMUDICT'), 'utf8');
    assert.match(notice, /Carnegie Mellon University/);
    assert.match(notice, /cmu-pronouncing-dictionary@3\.0\.0[\s\S]*ISC License/, 'the lexicon\'s source and its notice');
    assert.equal(m.type, 'module');
    assert.equal(m.sideEffects, false);
    // main, types and typesVersions: the same entry points for tools that read no exports map (node10).
    assert.deepEqual([m.main, m.types], [m.exports['.'].default, m.exports['.'].types]);
    assert.deepEqual(m.typesVersions, { '*': { g2p: [m.exports['./g2p'].types] } });
    assert.deepEqual(Object.keys(m.exports['.']), ['types', 'default']);
    assert.deepEqual(Object.keys(m.exports['./g2p']), ['types', 'default']);
    for (const target of [m.exports['.'], m.exports['./g2p']]) for (const f of Object.values(target)) assert.ok(existsSync(join(pkg.modelsDir, f)), f);
    for (const field of ['repository', 'homepage', 'bugs']) assert.equal(m[field], undefined, `no ${field}: there is no public repository`);
  });
});

describe('the models manifest', () => {
  test('lists every model of the package, with its real size and sha256', () => {
    assert.deepEqual(manifest.models.map((m) => m.file).sort(), shippedModels);
    for (const m of manifest.models) {
      const bytes = readFileSync(join(pkg.modelsDir, m.file));
      assert.equal(m.bytes, bytes.length, `${m.file}: bytes`);
      assert.equal(m.sha256, createHash('sha256').update(bytes).digest('hex'), `${m.file}: sha256`);
      assert.equal(m.name, basename(m.file, '.safetensors'));
    }
    assert.deepEqual(readJson(join(pkg.modelsDir, 'manifest.json')), manifest, 'the installed manifest is the repository\'s');
    assert.equal(readFileSync(join(MODELS_PACKAGE, 'manifest.js'), 'utf8'), manifestModule(), 'manifest.js is stale: node scripts/gen-manifest-module.mjs');
    assert.equal(manifest.testSet.words, 11994);
    assert.equal(manifest.testSet.sha256, createHash('sha256').update(readFileSync(join(MODELS_PACKAGE, 'data/cmudict-0.7b.test'))).digest('hex'));
  });

  test('architecture, scores and decoding settings agree with the models themselves', async () => {
    const { loadModel } = await pkg.importPackage();
    for (const m of manifest.models) {
      const model = await loadModel(readFileSync(join(pkg.modelsDir, m.file)));
      assert.equal(m.architecture, model.info.arch, m.file);
      assert.equal(m.autoregressive, model.info.autoregressive, m.file);
      if (m.architecture === 'rnn') assert.equal(m.attention, model.info.attentionScore, m.file);
      else assert.equal(m.attention, undefined, m.file);
      // Stress digits in the target vocabulary are what `stress` says, and such a model is also scored without them.
      assert.equal(m.stress, model.info.targetVocab.some((t) => STRESS.test(t)), `${m.file}: stress`);
      const scores = m.stress ? ['testWer', 'testPer', 'testWerStressRemoved', 'testPerStressRemoved'] : ['testWer', 'testPer'];
      for (const k of scores) assert.ok(m[k] > 0 && m[k] < 100 && Number.isFinite(m[k]), `${m.file}: ${k} ${m[k]}`);
      assert.ok(m.testPer < m.testWer, `${m.file}: PER below WER`);
      if (m.stress) assert.ok(m.testWerStressRemoved < m.testWer, `${m.file}: fewer words wrong once stress is removed`);
      // The settings are decoding options the engine takes, and mean what the CLI flags mean.
      const words = ['PHONEME', 'KNIGHT', 'WEBASSEMBLY'];
      const js = words.map((w) => model.decode(w, m.decoding)[0]);
      const cli = runCli(['decode', '--model', join(MODELS_PACKAGE, m.file), ...m.cli.split(' '), ...words]).trim().split('\n').map((l) => l.split('\t'));
      js.forEach((r, i) => {
        assert.equal(r.text, cli[i][1], `${m.file} ${words[i]}`);
        assert.ok(Math.abs(r.score - Number(cli[i][2])) <= 1e-4, `${m.file} ${words[i]}: ${r.score} vs ${cli[i][2]}`);
      });
      model.delete();
    }
  });
});

describe('imported as a user would', () => {
  test('the entry points resolve into the installed packages; nothing else is reachable', async () => {
    for (const sub of ['', '/worker', '/worker-protocol', '/worker-script', '/train', '/train-worker', '/train-worker-script', '/package.json']) {
      const url = await pkg.resolvePackage(sub);
      assert.ok(fileURLToPath(url).startsWith(pkg.packageDir), `${sub}: ${url}`);
    }
    for (const sub of ['manifest.json', 'package.json', ...shippedModels]) {
      const path = fileURLToPath(await pkg.resolve(`seq2seq-wasm-models/${sub}`));
      assert.equal(path, join(pkg.modelsDir, sub));
      assert.ok(existsSync(path), sub);
    }
    assert.equal(fileURLToPath(await pkg.resolve('seq2seq-wasm-models')), join(pkg.modelsDir, 'manifest.js'));
    assert.equal(fileURLToPath(await pkg.resolve('seq2seq-wasm-models/g2p')), join(pkg.modelsDir, 'g2p/index.js'));
    assert.deepEqual((await import(await pkg.resolve('seq2seq-wasm-models'))).default, manifest, 'the main entry is manifest.json');
    const hidden = ['seq2seq-wasm/wasm/src/core.js', 'seq2seq-wasm/wasm/dist/seq2seq_core.mjs', 'seq2seq-wasm/wasm/src/index.js',
      `seq2seq-wasm/models/${shippedModels[0]}`, 'seq2seq-wasm-models/data/LICENSE-CMUDICT', 'seq2seq-wasm-models/README.md',
      'seq2seq-wasm-models/g2p/lexicon-data.js', 'seq2seq-wasm-models/g2p/tokenize.js'];
    for (const specifier of hidden) {
      await assert.rejects(pkg.resolve(specifier).then((u) => import(u)), (e) => e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED', specifier);
    }
  });

  test('a user script in a fresh Node process, the model found through the models package', () => {
    const script = `
      import { loadModel } from 'seq2seq-wasm';
      const model = await loadModel(import.meta.resolve('seq2seq-wasm-models/g2p-transformer.safetensors'));
      const words = process.argv.slice(2);
      for (const w of words) for (const r of model.decode(w)) console.log([w, r.text, r.score].join('\\t'));
      model.delete();
    `;
    writeFileSync(join(pkg.project, 'user.mjs'), script);
    const words = ['HELLO', 'WORLD', 'PHONEME'];
    const out = execFileSync(process.execPath, ['user.mjs', ...words], { cwd: pkg.project, encoding: 'utf8' });
    const native = runCli(['decode', '--model', join(MODELS_PACKAGE, 'g2p-transformer.safetensors'), ...words]);
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
    await assert.rejects(loadModel(`${server.base}/models/missing.safetensors`),
      (e) => e.kind === 'NetworkError' && /cannot load the model from .*missing\.safetensors: HTTP 404 Not Found; check the URL/.test(e.message));
    const notOk = await fetch(`${server.base}/nope`);
    await assert.rejects(loadModel(notOk), (e) => e.kind === 'NetworkError' && /HTTP 404/.test(e.message));
  });
});
