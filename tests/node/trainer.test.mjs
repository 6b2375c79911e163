// seq2seq-wasm/train: the engine's trainer in its own WebAssembly module, from the
// packed package. A run's records are the CLI's --json lines for the same options
// (both run the same C++: the same numbers), its export is the model the CLI
// writes, byte for byte, and decodes with every strategy its architecture allows;
// the probe's numbers are held to the decoder's own forced score; every kind of
// bad config is a Seq2SeqError with a kind; the worker trains off the main thread
// with progress, pause, resume and cancel.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { cliPath, installPackage, join } from './helpers.mjs';

const pkg = installPackage();
let createTrainer;
let loadModel;
let createTrainerWorker;
before(async () => {
  ({ createTrainer } = await pkg.importPackage('/train'));
  ({ loadModel } = await pkg.importPackage());
  ({ createTrainerWorker } = await pkg.importPackage('/train-worker'));
});
const dir = mkdtempSync(join(tmpdir(), 'seq2seq-trainer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// A reverse run of seconds: one layer of width 32, strings of 2 to 6 letters.
const SMALL = {
  task: 'reverse', minLength: 2, maxLength: 6, layers: 1, heads: 2, dModel: 32, dFf: 64, batchSize: 16, steps: 40,
  logEvery: 10, evalEvery: 20, evalSize: 20, warmupSteps: 5, seed: 3,
};
const RNN = {
  task: 'copy', arch: 'rnn', minLength: 2, maxLength: 5, embDim: 8, encHidden: 16, decHidden: 32, attnDim: 8, batchSize: 8,
  steps: 20, logEvery: 10, evalEvery: 20, evalSize: 10, warmupSteps: 5,
};
// The CLI's flags for a config: --kebab-case, a bool as --flag / --no-flag.
const flags = (config) => Object.entries(config).flatMap(([k, v]) => {
  const flag = `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  return typeof v === 'boolean' ? [v ? flag : `--no-${flag.slice(2)}`] : [flag, String(v)];
});
function cliTrain(config, out) {
  const r = spawnSync(cliPath(), ['train', ...flags(config), '--json', '--out', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
const TIMING = ['stepsPerSecond', 'elapsedSeconds'];
const untimed = (r) => Object.fromEntries(Object.entries(r).filter(([k]) => !TIMING.includes(k)));

describe('a run', () => {
  test('the loss falls, and each record is the CLI\'s --json line for the same options: the same fields in order, the same numbers', async () => {
    const trainer = await createTrainer(SMALL);
    const records = [];
    while (!trainer.done) records.push(trainer.step());
    const out = join(dir, 'small.safetensors');
    const cli = cliTrain(SMALL, out);
    assert.deepEqual(records.map((r) => Object.keys(r)), cli.map((r) => Object.keys(r)));
    assert.deepEqual(records.map(untimed), cli.map(untimed));
    for (const r of records) for (const k of TIMING) assert.ok(r[k] > 0, `${k} ${r[k]}`);
    assert.deepEqual(records.map((r) => r.step), [10, 20, 30, 40]);
    assert.ok(records[3].loss < 0.85 * records[0].loss, `the loss falls: ${records.map((r) => r.loss.toFixed(3)).join(', ')}`);
    assert.equal(records[1].heldOut, 20);
    // The held-out measures at each evaluation point (and only there), in the CLI's order after heldOut.
    const MEASURES = ['heldOutTokenAccuracy', 'freeTokenAccuracy', 'firstErrorCount', 'wrongAfterFirstError',
      'forcedWrongAfterFirstError', 'attentionDiagonal'];
    for (const r of records) {
      const keys = Object.keys(r);
      if (r.heldOut === undefined) assert.ok(MEASURES.every((k) => !keys.includes(k)), `step ${r.step}`);
      else assert.deepEqual(keys.slice(keys.indexOf('heldOut') + 1, keys.indexOf('heldOut') + 7), MEASURES);
    }
    const last = records[3];
    for (const k of MEASURES.filter((m) => m !== 'firstErrorCount')) assert.ok(last[k] >= 0 && last[k] <= 1, `${k} ${last[k]}`);
    assert.ok(Number.isInteger(last.firstErrorCount) && last.firstErrorCount <= 20);
    // Exact outputs leave no first error: at most the held-out examples not decoded exactly have one.
    assert.ok(last.firstErrorCount === Math.round(20 * (1 - last.wordAccuracy)), `${last.firstErrorCount} vs ${last.wordAccuracy}`);
    // The teacher-forced token accuracy from the probes of the held-out examples, read now: the record's.
    let right = 0;
    let positions = 0;
    for (let i = 0; i < 20; i++) {
      const p = trainer.probe(i);
      p.topTokens.forEach((t, k) => { right += t === p.targetTokens[k]; });
      positions += p.targetTokens.length;
    }
    assert.ok(Math.abs(right / positions - last.heldOutTokenAccuracy) < 1e-12, `${right}/${positions} vs ${last.heldOutTokenAccuracy}`);
    // The model the run exports is the CLI's --out, byte for byte.
    assert.deepEqual(trainer.export(), new Uint8Array(readFileSync(out)));
    assert.equal(trainer.evaluate(), records[3].wordAccuracy);
    assert.throws(() => trainer.step(), (e) => e.kind === 'UsageError' && e.message === 'the run has taken its 40 steps');
    trainer.dispose();
  });

  test('export -> loadModel -> decode: every strategy of a Transformer and of an RNN, f32 and int8, as the CLI decodes the same file', async () => {
    for (const config of [SMALL, RNN]) {
      const trainer = await createTrainer({ ...config, steps: 20 });
      while (!trainer.done) trainer.step();
      const words = trainer.heldOut().slice(0, 3).map((h) => h.source);
      for (const int8 of [false, true]) {
        const bytes = trainer.export({ int8 });
        const model = await loadModel(bytes);
        assert.equal(model.info.storage, int8 ? 'int8' : 'f32');
        assert.equal(model.info.arch, config.arch ?? 'transformer');
        const path = join(dir, `m-${config.task}-${int8}.safetensors`);
        writeFileSync(path, bytes);
        for (const [options, cliFlags] of [[{ strategy: 'greedy' }, []], [{ strategy: 'beam', beamSize: 3 }, ['--beam', '3']],
          [{ strategy: 'sample', seed: 5, temperature: 0.8 }, ['--sample', '--seed', '5', '--temperature', '0.8']]]) {
          const js = words.map((w) => model.decode(w, options)[0]);
          const cli = execFileSync(cliPath(), ['decode', '--model', path, ...cliFlags, ...words], { encoding: 'utf8' })
            .trim().split('\n').map((l) => l.split('\t'));
          js.forEach((r, i) => {
            assert.equal(r.text, cli[i][1], `${config.task} ${options.strategy} int8=${int8} ${words[i]}`);
            assert.ok(Math.abs(r.score - Number(cli[i][2])) <= 1e-4);
          });
        }
        model.delete();
      }
      trainer.dispose();
    }
  });
});

describe('the loss floor', () => {
  test('info.lossFloor: the entropy of the label-smoothed target over the target vocabulary, under every loss; 0 without smoothing', async () => {
    const smoothed = await createTrainer({ ...SMALL, steps: 20, labelSmoothing: 0.1 });
    const { lossFloor, targetVocabSize: V } = smoothed.info;
    const e = Math.fround(0.1);   // the option is a float32 in the engine
    const on = 1 - e + e / V;
    const want = -(on * Math.log(on) + (V - 1) * (e / V) * Math.log(e / V));
    assert.ok(Math.abs(lossFloor - want) < 1e-12, `${lossFloor} vs ${want}`);
    while (!smoothed.done) assert.ok(smoothed.step().loss > lossFloor);
    smoothed.dispose();
    const plain = await createTrainer({ ...SMALL, steps: 1 });
    assert.equal(plain.info.lossFloor, 0);
    plain.dispose();
  });
});

describe('the copy mechanism', () => {
  test('copy: true on names: the CLI\'s records, held-out names copied, a name in no vocabulary decoded, the probe\'s name a copied token', async () => {
    const config = { task: 'names', copy: true, layers: 1, heads: 2, dModel: 32, dFf: 64, batchSize: 16, steps: 100,
      warmupSteps: 10, evalSize: 50, evalEvery: 0, logEvery: 100 };
    const trainer = await createTrainer(config);
    const records = [];
    while (!trainer.done) records.push(trainer.step());
    const out = join(dir, 'names-copy.safetensors');
    assert.deepEqual(records.map(untimed), cliTrain(config, out).map(untimed));
    assert.ok(records.at(-1).wordAccuracy >= 0.9, `held-out exact ${records.at(-1).wordAccuracy}`);
    assert.deepEqual(trainer.export(), new Uint8Array(readFileSync(out)));
    const model = await loadModel(trainer.export());
    assert.equal(model.decode('my name is zorblat')[0].text, 'hello zorblat');
    const p = trainer.probe(0);
    const name = p.reference.split(' ').at(-1);
    assert.equal(p.targetTokens.at(-2), name, 'a held-out name is a copy-only token, not <unk>');
    model.score(p.source, p.reference).tokenLogprobs.forEach((lp, i) => assert.ok(Math.abs(-lp - p.tokenNll[i]) < 1e-4, `token ${i}`));
    // p_gen and the copy attention are the decoder's own over the same prefix; the name's position is copied.
    const inside = model.inspect(p.source, p.reference);
    const [T, N] = [p.targetTokens.length, p.sourceTokens.length];
    assert.ok(p.copyGate instanceof Float32Array && p.copyAttention instanceof Float32Array);
    assert.deepEqual([p.copyGate.length, p.copyAttention.length], [T, T * N]);
    inside.pGen.forEach((x, t) => assert.ok(Math.abs(x - p.copyGate[t]) < 1e-4, `p_gen ${t}: ${x} vs ${p.copyGate[t]}`));
    inside.copyAttention.forEach((x, i) => assert.ok(Math.abs(x - p.copyAttention[i]) < 1e-4, `copy attention ${i}`));
    assert.equal(p.topTokens.at(-2), name, 'the argmax at the name\'s position is the copied name');
    assert.ok(p.copyGate[T - 2] < 0.5, `p_gen at the name ${p.copyGate[T - 2]}`);
    model.delete();
    trainer.dispose();
  });
});

describe('guided attention', () => {
  test('records carry attentionLoss, as the CLI\'s --json lines for the same options, and it falls', async () => {
    const config = { ...SMALL, task: 'copy', learningRate: 0.01, guidedAttentionWeight: 2, guidedAttentionWidth: 0.3 };
    const trainer = await createTrainer(config);
    const records = [];
    while (!trainer.done) records.push(trainer.step());
    const cli = cliTrain(config, join(dir, 'guided.safetensors'));
    assert.deepEqual(records.map(untimed), cli.map(untimed));
    assert.ok(records.every((r) => r.attentionLoss > 0 && r.attentionLoss < 1));
    assert.ok(records[3].attentionLoss < 0.8 * records[0].attentionLoss, records.map((r) => r.attentionLoss).join(', '));
    trainer.dispose();
  });
});

describe('the probe', () => {
  test('a Transformer\'s: [layers, heads, T, N] cross-attention whose rows sum to 1, and -log p per token equal to the decoder\'s forced score', async () => {
    const trainer = await createTrainer({ ...SMALL, layers: 2 });
    const record = trainer.step(10, { probe: 2 });
    const p = record.probe;
    const held = trainer.heldOut()[2];
    assert.equal(p.index, 2);
    assert.equal(p.step, 10);
    assert.deepEqual([p.source, p.reference], [held.source, held.target]);
    assert.deepEqual(p.sourceTokens, [...held.source]);
    assert.deepEqual(p.targetTokens, [...held.target.split(' '), '</s>']);
    const [L, H, T, N] = p.attentionShape;
    assert.deepEqual([L, H, T, N], [2, 2, p.targetTokens.length, p.sourceTokens.length]);
    assert.equal(p.crossAttention.length, L * H * T * N);
    for (let row = 0; row < L * H * T; row++) {
      const sum = p.crossAttention.subarray(row * N, row * N + N).reduce((a, x) => a + x, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${row} sums to ${sum}`);
    }
    // The decoder's forced score of the reference, from the model exported now: the same -log p.
    const model = await loadModel(trainer.export());
    const forced = model.score(p.source, p.reference);
    assert.equal(forced.tokenLogprobs.length, T);
    forced.tokenLogprobs.forEach((lp, i) => assert.ok(Math.abs(-lp - p.tokenNll[i]) < 1e-4, `token ${i}: ${-lp} vs ${p.tokenNll[i]}`));
    // The decoder's own cross-attention over the same prefix (the pass after the whole reference): the same weights.
    const inside = model.inspect(p.source, p.reference);
    const layers = inside.decoder.layers;
    assert.equal(layers.length, L);
    layers.forEach((layer, l) => {
      const w = layer.crossAttention.attention.weights;   // [heads, T, N]
      assert.equal(w.length, H * T * N);
      w.forEach((x, i) => assert.ok(Math.abs(x - p.crossAttention[l * H * T * N + i]) < 1e-4, `layer ${l} weight ${i}`));
    });
    // The argmax and its probability at each position: the softmax of the decoder's logits over the same prefix.
    const V = inside.vocabSize;
    assert.deepEqual([p.topTokens.length, p.topProbability.length], [T, T]);
    assert.equal(p.copyGate, undefined);
    for (let t = 0; t < T; t++) {
      const row = inside.logits.subarray(t * V, t * V + V);
      const max = Math.max(...row);
      const z = row.reduce((a, x) => a + Math.exp(x - max), 0);
      assert.ok(Math.abs(p.topProbability[t] - 1 / z) < 1e-4, `position ${t}: ${p.topProbability[t]} vs ${1 / z}`);
      assert.equal(p.topTokens[t], model.info.targetVocab[row.indexOf(max)]);
    }
    model.delete();
    // Reading the probe changes nothing of the run: the next record is the one a run without it gets.
    const plain = await createTrainer({ ...SMALL, layers: 2 });
    plain.step(10);
    assert.deepEqual(untimed(trainer.step(10)), untimed(plain.step(10)));
    trainer.dispose();
    plain.dispose();
  });

  test('an RNN\'s: [T, N] weights; without attention, none', async () => {
    const trainer = await createTrainer(RNN);
    const p = trainer.probe();
    assert.deepEqual(p.attentionShape, [p.targetTokens.length, p.sourceTokens.length]);
    const model = await loadModel(trainer.export());
    model.score(p.source, p.reference).tokenLogprobs.forEach((lp, i) => assert.ok(Math.abs(-lp - p.tokenNll[i]) < 1e-4));
    const inside = model.inspect(p.source, p.reference);
    assert.equal(inside.weights.length, p.crossAttention.length);
    inside.weights.forEach((x, i) => assert.ok(Math.abs(x - p.crossAttention[i]) < 1e-4, `weight ${i}`));
    model.delete();
    trainer.dispose();
    const none = await createTrainer({ ...RNN, attention: 'none' });
    const q = none.probe(1);
    assert.deepEqual(q.attentionShape, []);
    assert.equal(q.crossAttention.length, 0);
    assert.equal(q.tokenNll.length, q.targetTokens.length);
    assert.throws(() => none.probe(10), (e) => e.kind === 'UsageError' && /outside the held-out set \(0 to 9\)/.test(e.message));
    none.dispose();
  });
});

test('the default reverse run fits in 64 MB of WebAssembly memory', async (t) => {
  // A process of its own: a module's memory only grows, and this one's holds other tests' runs.
  const script = `
    const { createTrainer } = await import(${JSON.stringify(await pkg.resolvePackage('/train'))});
    const t = await createTrainer({ task: 'reverse', seed: 1 });
    t.step(5, { probe: true });
    t.evaluate();
    t.export({ int8: true });
    t.checkpoint();
    console.log(JSON.stringify({ wasm: t.info.wasmMemoryBytes, run: t.info.memoryBytes, parameters: t.info.parameters }));
  `;
  const m = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  t.diagnostic(`default reverse: ${m.parameters} parameters; the run holds ${(m.run / 2 ** 20).toFixed(1)} MB, the module's memory ${(m.wasm / 2 ** 20).toFixed(1)} MB`);
  assert.equal(m.parameters, 171487);
  assert.ok(m.wasm <= 64 * 2 ** 20, `${m.wasm} bytes`);
});

describe('bad input: a Seq2SeqError with a kind, naming what is wrong', () => {
  const rejects = (config, kind, message, more = {}) => assert.rejects(createTrainer(config), (e) => {
    assert.equal(e.name, 'Seq2SeqError');
    assert.equal(e.kind, kind);
    if (message instanceof RegExp) assert.match(e.message, message); else assert.equal(e.message, message);
    for (const [k, v] of Object.entries(more)) assert.equal(e[k], v, k);
    return true;
  });
  test('an option out of range: the engine\'s validate() message with the JS name, the option and its range', async () => {
    await rejects({ dModel: 2 }, 'UsageError', 'training option dModel = 2 is outside [4, 1024]', { option: 'dModel', range: '[4, 1024]' });
    await rejects({ learningRate: 0 }, 'UsageError', 'training option learningRate = 0 is outside (0, 1]', { option: 'learningRate', range: '(0, 1]' });
    await rejects({ labelSmoothing: 1 }, 'UsageError', 'training option labelSmoothing = 1 is outside [0, 0.99]', { option: 'labelSmoothing' });
  });
  test('a rule between options names both', async () => {
    await rejects({ dModel: 66 }, 'UsageError', 'training option heads = 4 does not divide dModel = 66', { option: 'heads', range: undefined });
    await rejects({ arch: 'rnn', attention: 'dot', encHidden: 64, decHidden: 100 }, 'UsageError',
      'training option decHidden = 100: dot attention needs decHidden = 2 * encHidden = 128', { option: 'decHidden' });
    await rejects({ guidedAttentionWeight: 1, guidedAttentionLayer: 2 }, 'UsageError',
      'training option guidedAttentionLayer = 2 is outside [-1, 1]: the model has layers = 2 decoder layers, 0 the first (-1: all of them)',
      { option: 'guidedAttentionLayer', range: undefined });
    await rejects({ arch: 'rnn', attention: 'none', guidedAttentionWeight: 0.5 }, 'UsageError',
      'training option guidedAttentionWeight = 0.5: attention none has no attention weights to guide; the scores dot, multiplicative, reduced_rank and additive have',
      { option: 'guidedAttentionWeight' });
  });
  test('unknown keys, wrong types and an unknown task are refused before anything loads', async () => {
    await rejects({ frobnicate: 1 }, 'UsageError', /^unknown training option 'frobnicate' \(known: task, minLength, .*, memoryLimitMb, data, resume\)$/);
    await rejects({ d_model: 32 }, 'UsageError', /^unknown training option 'd_model'/);
    await rejects({ steps: '10' }, 'UsageError', 'training option steps must be an integer; got the string "10"');
    await rejects({ tieOutput: 1 }, 'UsageError', 'training option tieOutput must be true or false; got the number 1');
    await rejects({ task: 'translate' }, 'UsageError', 'training option task must be one of reverse, sort, copy, names, g2p; got the string "translate"');
    await rejects([], 'UsageError', 'createTrainer(config): config must be an object; got an array');
  });
  test('g2p data: none, empty, malformed, a special token or control character as a symbol, data for a generated task', async () => {
    await rejects({ task: 'g2p' }, 'UsageError', /^task g2p trains on rows of spellings and phonemes: give config.data/);
    await rejects({ data: 'CAT\tK AE T' }, 'UsageError', 'task reverse is generated from the seed; config.data is for task g2p');
    await rejects({ task: 'g2p', data: '' }, 'InputError', 'data: the file holds no examples (WORD<TAB>PH ON ES lines)');
    await rejects({ task: 'g2p', data: [] }, 'InputError', 'data: the file holds no examples (WORD<TAB>PH ON ES lines)');
    await rejects({ task: 'g2p', data: ['CAT\tK AE T', 'DOG D AO G'] }, 'InputError', 'data: line 2: no TAB between the word and its phonemes (WORD<TAB>PH ON ES)');
    await rejects({ task: 'g2p', evalSize: 1, data: [['CAT', 'K <s> T'], ['DOG', 'D AO G']] }, 'InputError', "data: the phoneme '<s>' is one of the target's special tokens");
    await rejects({ task: 'g2p', data: [['C\u0007T', ['K', 'AE', 'T']]] }, 'InputError', /^data: line 1: the word .* holds white space or a control character$/);
    await rejects({ task: 'g2p', data: [['CAT', 3]] }, 'UsageError', /^config.data\[0\] must be a line/);
  });
  test('data with a symbol the checkpoint\'s model has no token for', async () => {
    const rows = [['CAT', 'K AE T'], ['DOG', 'D AO G'], ['BAT', 'B AE T'], ['COT', 'K AA T']];
    const config = { task: 'g2p', layers: 1, heads: 2, dModel: 16, dFf: 32, batchSize: 2, evalSize: 1, steps: 4, logEvery: 2, evalEvery: 4 };
    const trainer = await createTrainer({ ...config, data: rows });
    trainer.step(2);
    const resume = trainer.checkpoint();
    trainer.dispose();
    await rejects({ ...config, data: [...rows, ['ZOO', 'Z UW']], resume }, 'ModelError',
      /^checkpoint: the data holds the source symbol 'Z', which the checkpoint's model has no token for$/);
    await rejects({ ...config, dModel: 32, data: rows, resume }, 'ModelError',
      'checkpoint: it was trained with dModel = 16; this run asks for 32 (--d-model)');
    const resumed = await createTrainer({ ...config, data: rows, resume });
    assert.equal(resumed.info.step, 2);
    resumed.dispose();
  });
  test('memory over the limit is refused before the run starts, with what it needs', async () => {
    await rejects({ dModel: 512, dFf: 2048, layers: 6, batchSize: 512, memoryLimitMb: 64 }, 'UsageError',
      /^this run needs \d+ MB \(weights, gradients, AdamW's moments, activations of a batch of 512\), more than memoryLimitMb = 64/, { option: 'memoryLimitMb' });
  });
  test('a loss that is not finite stops the run naming the step, before any update; a checkpoint holding one is refused', async () => {
    const trainer = await createTrainer(SMALL);
    trainer.step(3);
    const checkpoint = trainer.checkpoint();
    trainer.dispose();
    const headerLength = Number(new DataView(checkpoint.buffer, checkpoint.byteOffset).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(checkpoint.subarray(8, 8 + headerLength)));
    const [begin, end] = header['decoder.layers.0.ffn.fc1.weight'].data_offsets;
    const weights = new DataView(checkpoint.buffer, checkpoint.byteOffset + 8 + headerLength + begin, end - begin);
    const poison = (value) => {
      const bytes = checkpoint.slice();
      const view = new DataView(bytes.buffer, weights.byteOffset - checkpoint.byteOffset, weights.byteLength);
      // Signs drawn (a fixed linear congruential stream), so that a row's products do not cancel.
      let x = 1;
      for (let i = 0; i < view.byteLength; i += 4) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        view.setFloat32(i, x & 0x10000 ? value : -value, true);
      }
      return bytes;
    };
    await rejects({ ...SMALL, resume: poison(Infinity) }, 'ModelError', "model file: tensor 'decoder.layers.0.ffn.fc1.weight' holds a non-finite value at index 0");
    // Weights that are finite but so large that the FFN's sums overflow: the step's loss is not finite.
    const huge = await createTrainer({ ...SMALL, resume: poison(3e38) });
    const before = huge.export();
    assert.throws(() => huge.step(1), (e) => e.kind === 'DivergedError' && e.step === 4 && e.message === 'training diverged at step 4: the loss is not finite');
    assert.equal(huge.info.step, 3);
    assert.deepEqual(huge.export(), before, 'the step that diverged changed no weight');
    huge.dispose();
  });
  test('a trainer module that cannot be loaded: a WasmError naming the URL, and how to point at the file', async () => {
    const missing = join(dir, 'no-such.wasm');
    await assert.rejects(createTrainer({}, { wasmUrl: missing }), (e) => e.kind === 'WasmError'
      && e.message.startsWith(`cannot load the engine's WebAssembly from ${missing}: ENOENT`) && /createTrainer\(config, \{ wasmUrl \}\)/.test(e.message));
    await assert.rejects(createTrainer({}, { wasmUrl: 5 }), (e) => e.kind === 'UsageError' && e.message === 'createTrainer: wasmUrl must be a string or a URL; got the number 5');
    await assert.rejects(createTrainer({}, { wasm: 'x' }), (e) => e.kind === 'UsageError' && /unknown loading option 'wasm'/.test(e.message));
  });
  test('use after dispose, and bad arguments', async () => {
    const trainer = await createTrainer(RNN);
    assert.throws(() => trainer.step(0), (e) => e.kind === 'UsageError' && e.message === 'step(n): n must be an integer >= 1; got the number 0');
    assert.throws(() => trainer.step(1, { probe: 'yes' }), (e) => e.kind === 'UsageError' && /probe must be true or a held-out example's index/.test(e.message));
    assert.throws(() => trainer.export({ int8: 1 }), (e) => e.kind === 'UsageError');
    trainer.dispose();
    assert.equal(trainer.disposed, true);
    for (const use of [() => trainer.step(), () => trainer.info, () => trainer.export(), () => trainer.probe(), () => trainer.evaluate()]) {
      assert.throws(use, (e) => e.kind === 'UsageError' && e.message === 'this Trainer has been disposed');
    }
    trainer.dispose();   // twice is harmless
  });
});

describe('the worker', () => {
  // Long enough that a pause heard a few records late still finds the run going.
  const LONGER = { ...SMALL, steps: 60 };
  test('progress records in order, pause and resume, the same model as in-process; errors cross with their kind', async () => {
    const worker = createTrainerWorker();
    try {
      const info = await worker.create(LONGER);
      assert.equal(info.steps, 60);
      const seen = [];
      let paused = null;
      const first = await worker.train({
        onProgress: (r) => {
          seen.push(r);
          if (r.step === 10) paused = worker.pause();
        },
        probe: true,
      });
      assert.equal(await paused, true);
      // The worker hears the pause at its next record boundary (it may have started the next record's steps).
      assert.equal(first.status, 'paused');
      const at = first.record.step;
      assert.ok(at >= 10 && at < 60, `paused at step ${at}`);
      assert.deepEqual(seen.map((r) => r.step), [10, 20, 30, 40, 50].filter((k) => k <= at));
      assert.ok(seen.every((r) => r.probe.crossAttention instanceof Float32Array));
      assert.equal(first.record.probe, undefined, 'the probe came with the progress');
      assert.equal((await worker.info()).step, at);
      const rest = await worker.resume({ onProgress: (r) => seen.push(r) });
      assert.equal(rest.status, 'done');
      assert.deepEqual(seen.map((r) => r.step), [10, 20, 30, 40, 50, 60]);
      const inProcess = await createTrainer(LONGER);
      const local = [];
      while (!inProcess.done) local.push(inProcess.step());
      assert.deepEqual(seen.map(({ probe, ...r }) => untimed(r)), local.map(untimed));
      assert.deepEqual(await worker.export(), inProcess.export());
      inProcess.dispose();
      await assert.rejects(worker.create({ dModel: 2 }), (e) => e.kind === 'UsageError' && e.option === 'dModel' && e.range === '[4, 1024]');
      await assert.rejects(worker.create({ nope: 1 }), (e) => e.kind === 'UsageError' && /unknown training option 'nope'/.test(e.message));
      await assert.rejects(worker.step(1), (e) => e.kind === 'UsageError' && e.message === 'the run has taken its 60 steps', 'the trainer stays after a failed create');
    } finally {
      await worker.terminate();
    }
  });

  test('cancel stops a run at its next record and frees the trainer', async () => {
    const worker = createTrainerWorker();
    try {
      await worker.create({ ...SMALL, steps: 10000, evalEvery: 0, logEvery: 2 });
      let cancelled = null;
      const steps = [];
      const run = worker.train({ onProgress: (r) => { steps.push(r.step); if (r.step === 4) cancelled = worker.cancel(); } });
      await assert.rejects(run, (e) => e.kind === 'Cancelled');
      assert.equal(await cancelled, true);
      assert.ok(steps.at(-1) <= 20, `stopped within a few records of the cancel: ${steps}`);
      await assert.rejects(worker.info(), (e) => e.kind === 'UsageError' && /no trainer: create\(config\) first/.test(e.message));
    } finally {
      await worker.terminate();
    }
  });
});
