// The TypeScript declarations: a consumer (tests/node/ts-consumer/) type-checks
// against the installed package with tsc --noEmit --strict, as a browser/bundler
// project (DOM library) and as a bare Node project (no DOM, no @types/node);
// its @ts-expect-error lines prove misuse is rejected. Then it is compiled and
// run, so the declared shapes are the real ones; and every runtime export is
// declared.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { FIXTURES, ROOT, installPackage, modelPath, wordsFor } from './helpers.mjs';

const pkg = installPackage();
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const consumerDir = join(pkg.project, 'ts-consumer');

function tsc(args) {
  try {
    return execFileSync(process.execPath, [TSC, ...args], { cwd: consumerDir, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    throw new Error(`tsc ${args.join(' ')} failed:\n${e.stdout}${e.stderr}`);
  }
}

rmSync(consumerDir, { recursive: true, force: true });
cpSync(join(ROOT, 'tests/node/ts-consumer'), consumerDir, { recursive: true });

test('tsc --noEmit --strict: a browser/bundler consumer (DOM library, bundler resolution)', () => {
  tsc(['--noEmit', '--strict', '-p', 'tsconfig.json']);
});

test('tsc --noEmit --strict: a Node consumer without DOM or @types/node (NodeNext resolution)', () => {
  tsc(['--noEmit', '--strict', '-p', 'tsconfig.node.json']);
});

test('tsc --noEmit --strict: moduleResolution node10, which reads no exports map (typesVersions)', () => {
  tsc(['--noEmit', '--strict', '-p', 'tsconfig.node10.json']);
});

test('the compiled consumer runs against the package: the declared shapes are real', async (t) => {
  tsc(['-p', 'tsconfig.node.json', '--noEmit', 'false', '--outDir', 'out']);
  const consumer = await import(pathToFileURL(join(consumerDir, 'out/consumer.js')).href);
  const { loadModel } = await pkg.importPackage();
  const rnn = join(FIXTURES, 'rnn_additive.safetensors');
  for (const path of [modelPath('ar'), modelPath('cmlm'), ...(existsSync(rnn) ? [rnn] : [])]) {
    const kind = path.split('/').at(-1);
    const bytes = new Uint8Array(readFileSync(path));
    const reference = await loadModel(bytes);
    const word = wordsFor(reference.info)[0];
    const { lines, results, info } = await consumer.main(bytes, word);
    t.diagnostic(`${kind}: ${lines[0]} … ${lines.at(-2)}`);
    assert.deepEqual(info, reference.info);
    const options = reference.autoregressive ? { strategy: 'beam', beamSize: 4, nBest: 2, lengthNorm: 'gnmt', gnmtAlpha: 0.6, topCandidates: 3 }
      : { strategy: 'nar', iterations: 4, lengthCandidates: 2 };
    assert.deepEqual(results, reference.decode(word, options));
    assert.ok(lines.some((l) => l.startsWith('Seq2SeqError InputError: input: the source text is empty')));
    assert.deepEqual(await consumer.viaWorker(path, word), reference.decode(word, { attention: false }));
    reference.delete();
  }
});

test('the compiled phonemizer consumer runs: seq2seq-wasm-models and its g2p entry, typed as they are', async () => {
  tsc(['-p', 'tsconfig.node.json', '--noEmit', 'false', '--outDir', 'out']);
  const consumer = await import(pathToFileURL(join(consumerDir, 'out/g2p-consumer.js')).href);
  const { createPhonemizer } = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
  const text = 'Hello, world! It\'s 2026 and the colonel\'s Kubernetes cluster is down.';
  const reference = await (await createPhonemizer()).phonemize(text);
  const { result, viaModel, viaWorker, entry } = await consumer.phonemize(text, join(pkg.modelsDir, 'g2p-transformer.safetensors'));
  assert.equal(entry.name, 'g2p-transformer');
  for (const r of [result, viaModel, viaWorker]) assert.deepEqual(r, reference);
  assert.equal(consumer.lines(result).length, reference.tokens.length);
  assert.deepEqual(await consumer.misuse(), ['ˈkɝnəl', 'ə', 'UsageError', 'frozen']);
});

test('every runtime export is declared', async () => {
  const entries = [['', 'wasm/src/index.d.ts'], ['/worker', 'wasm/src/worker-client.d.ts'], ['/worker-protocol', 'wasm/src/worker-protocol.d.ts'],
    ['/train', 'wasm/src/train.d.ts'], ['/train-worker', 'wasm/src/train-worker-client.d.ts']]
    .map(([sub, dts]) => [`seq2seq-wasm${sub}`, join(pkg.packageDir, dts)]);
  entries.push(['seq2seq-wasm-models/g2p', join(pkg.modelsDir, 'g2p/index.d.ts')]);
  for (const [specifier, dts] of entries) {
    const subpath = specifier;
    const names = Object.keys(await import(await pkg.resolve(specifier)));
    const text = readFileSync(dts, 'utf8');
    const declared = new Set([
      ...[...text.matchAll(/export declare (?:class|function|const) (\w+)/g)].map((m) => m[1]),
      ...[...text.matchAll(/^export \{([^}]*)\}/gm)].flatMap((m) => m[1].split(',').map((s) => s.trim()).filter(Boolean)),
    ]);
    assert.ok(names.length > 0);
    for (const name of names) assert.ok(declared.has(name), `${subpath}: ${name} is exported at run time but not declared in ${dts}`);
    for (const name of declared) assert.ok(names.includes(name), `${subpath}: ${name} is declared in ${dts} but not exported`);
  }
});

// The fields of each exported interface in a .d.ts (with those of the one it
// extends): {required, optional}.
function declaredFields(text) {
  const interfaces = new Map();
  for (const m of text.matchAll(/^(?:export )?interface (\w+)(?: extends (\w+))? \{\n([\s\S]*?)^\}/gm)) {
    const fields = [...m[3].matchAll(/^  (\w+)(\?)?:/gm)];
    interfaces.set(m[1], { base: m[2], required: fields.filter((f) => !f[2]).map((f) => f[1]), optional: fields.filter((f) => f[2]).map((f) => f[1]) });
  }
  const resolve = (name) => {
    const i = interfaces.get(name);
    assert.ok(i, `interface ${name} is declared`);
    const base = i.base ? resolve(i.base) : { required: [], optional: [] };
    return { required: [...new Set([...base.required, ...i.required])], optional: [...new Set([...base.optional, ...i.optional])] };
  };
  return resolve;
}

test('the declared interfaces have exactly the fields of the objects the bindings build', async () => {
  const { loadModel } = await pkg.importPackage();
  const fields = declaredFields(readFileSync(join(pkg.packageDir, 'wasm/src/index.d.ts'), 'utf8'));
  const checked = new Set();
  const check = (name, object) => {
    const { required, optional } = fields(name);
    const keys = Object.keys(object);
    for (const k of required) assert.ok(keys.includes(k), `${name}.${k} is declared but missing at run time`);
    for (const k of keys) assert.ok(required.includes(k) || optional.includes(k), `${name}: run-time field ${k} is not declared`);
    checked.add(name);
  };
  const rnn = join(FIXTURES, 'rnn_additive.safetensors');
  for (const path of [modelPath('ar'), modelPath('cmlm'), ...(existsSync(rnn) ? [rnn] : [])]) {
    const model = await loadModel(readFileSync(path));
    const info = model.info;
    check(info.arch === 'rnn' ? 'RnnModelInfo' : 'TransformerModelInfo', info);
    check('TargetSpecials', info.targetSpecials);
    check('TargetSpecials', info.sourceSpecials);
    const word = wordsFor(info)[0];
    for (const attention of [true, false]) {
      const s = model.createSession(model.autoregressive ? { strategy: 'beam', beamSize: 2, nBest: 2, attention } : { lengthCandidates: 2, attention });
      s.start(word);
      let snap;
      do {
        snap = s.step();
        if (snap.autoregressive) {
          check(snap.done ? 'ArSnapshotDone' : 'ArSnapshotRunning', snap);
          for (const h of [...snap.live, ...snap.finished]) {
            check('Hypothesis', h);
            assert.equal('attention' in h, attention);
            for (const c of h.candidates) check('TokenCandidate', c);
          }
          for (const p of snap.pruned) check('PrunedCandidate', p);
        } else {
          check(snap.done ? 'NarSnapshotDone' : 'NarSnapshotRunning', snap);
          for (const d of snap.drafts) {
            check('NarDraft', d);
            assert.equal('attention' in d, attention);
          }
        }
      } while (!snap.done);
      for (const r of snap.results) check('Result', r);
      if (snap.results[0].tokens.length > 0) check('ForcedScore', model.score(word, snap.results[0].text, model.autoregressive ? {} : { lengthCandidates: 2 }));
      s.delete();
    }
    model.delete();
  }
  for (const name of ['TransformerModelInfo', 'TargetSpecials', 'ArSnapshotRunning', 'ArSnapshotDone', 'Hypothesis', 'TokenCandidate', 'PrunedCandidate',
    'NarSnapshotRunning', 'NarSnapshotDone', 'NarDraft', 'Result']) {
    assert.ok(checked.has(name), `${name} was seen at run time`);
  }
});

test('seq2seq-wasm/train: the compiled consumer runs, and the declared interfaces have exactly the fields the trainer\'s objects have', async () => {
  tsc(['-p', 'tsconfig.node.json', '--noEmit', 'false', '--outDir', 'out']);
  const consumer = await import(pathToFileURL(join(consumerDir, 'out/train-consumer.js')).href);
  const got = await consumer.main();
  const { createTrainer } = await pkg.importPackage('/train');
  const reference = await createTrainer({
    task: 'copy', minLength: 2, maxLength: 4, layers: 1, heads: 2, dModel: 16, dFf: 32, batchSize: 8,
    evalSize: 10, evalEvery: 10, logEvery: 5, warmupSteps: 5, steps: 10,
  });
  const timed = ({ stepsPerSecond, elapsedSeconds, ...r }) => r;
  assert.deepEqual(got.records.map(timed), [reference.step(), reference.step()].map(timed));
  assert.equal(got.viaWorker.status, 'done');
  assert.deepEqual(timed(got.viaWorker.record), timed(got.records[1]));
  assert.deepEqual([got.errorKind, got.option], ['UsageError', 'dModel']);
  assert.equal(typeof got.decoded, 'string');
  const fields = declaredFields(readFileSync(join(pkg.packageDir, 'wasm/src/train.d.ts'), 'utf8'));
  const check = (name, object) => {
    const { required, optional } = fields(name);
    const keys = Object.keys(object);
    for (const k of required) assert.ok(keys.includes(k), `${name}.${k} is declared but missing at run time`);
    for (const k of keys) assert.ok(required.includes(k) || optional.includes(k), `${name}: run-time field ${k} is not declared`);
  };
  check('TrainerInfo', got.info);
  check('Probe', got.probe);
  for (const r of got.records) check('ProgressRecord', r);
  const sampled = await createTrainer({ task: 'copy', arch: 'rnn', embDim: 4, encHidden: 4, decHidden: 8, attnDim: 4, batchSize: 2, evalSize: 2, steps: 2,
    scheduledSampling: 'linear' });
  const withEverything = sampled.step(2, { probe: true });   // evaluated, scheduled sampling's fields, a probe
  assert.ok(['wordAccuracy', 'trueTokenProbability', 'probe'].every((k) => k in withEverything));
  check('ProgressRecord', withEverything);
  sampled.dispose();
  const copying = await createTrainer({ task: 'names', copy: true, layers: 1, heads: 2, dModel: 16, dFf: 32, batchSize: 4, evalSize: 2, steps: 1 });
  const copyProbe = copying.probe();   // a copy model's probe: copyGate and copyAttention besides the rest
  assert.ok(['copyGate', 'copyAttention'].every((k) => k in copyProbe));
  check('Probe', copyProbe);
  copying.dispose();
  assert.deepEqual(Object.keys(got.info.options).sort(), Object.keys(fields('TrainingOptions').optional.reduce((o, k) => ({ ...o, [k]: 1 }), {})).sort());
  reference.dispose();
});
