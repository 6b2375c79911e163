// Model.inspect in the installed package (WebAssembly) against PyTorch's forward hooks
// (tests/tools/make_inside_fixtures.py), field by field at the fixtures' tolerance under
// f32 compute; the same through the worker, its typed arrays transferred; the shipped
// Transformer's last row equal to the decode's own bars; bad calls are Seq2SeqErrors.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FIXTURES, installPackage, modelPath } from './helpers.mjs';
import { OVERFLOWING, editedConfig, scaledFixture } from './scaled-model.mjs';

const pkg = installPackage();
const { LIMITS, loadModel, Seq2SeqError } = await pkg.importPackage();
const { createDecoderWorker } = await pkg.importPackage('/worker');

const NAMES = readdirSync(FIXTURES).filter((f) => f.endsWith('.inside.json')).map((f) => f.slice(0, -'.inside.json'.length)).sort();

/** The first difference between `got` (the module's object) and `want` (the fixture's JSON), '' if none. */
function difference(got, want, tol, path = '') {
  if (ArrayBuffer.isView(got)) got = Array.from(got);
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return `${path}: ${got?.length} values, PyTorch ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = difference(got[i], want[i], tol, `${path}[${i}]`);
      if (d) return d;
    }
    return '';
  }
  if (want && typeof want === 'object') {
    for (const k of Object.keys(want)) {
      if (!(k in got)) return `${path}.${k}: missing`;
      const d = difference(got[k], want[k], tol, `${path}.${k}`);
      if (d) return d;
    }
    return '';
  }
  if (typeof want === 'number') return Math.abs(got - want) <= tol ? '' : `${path}: ${got}, PyTorch ${want}`;
  return got === want ? '' : `${path}: ${got}, PyTorch ${want}`;
}

const fixture = (name) => JSON.parse(readFileSync(join(FIXTURES, `${name}.inside.json`), 'utf8'));

describe('Model.inspect: the inside of a step', () => {
  test('every fixture (Transformer pre/post-LN, sinusoidal/learned, f16, int8, CMLM, all RNN scores and none) matches PyTorch', async () => {
    assert.ok(NAMES.length >= 13, NAMES.join(' '));
    for (const name of NAMES) {
      const fx = fixture(name);
      const model = await loadModel(new Uint8Array(readFileSync(join(FIXTURES, fx.model))), { compute: 'f32' });
      try {
        const inside = model.inspect(fx.source, fx.tokens);
        assert.equal(difference(inside, fx.inside, fx.tolerance), '', name);
        // typed arrays, as the types say
        assert.ok(inside.logits instanceof Float32Array);
      } finally {
        model.delete();
      }
    }
  });

  test('through the worker: the same object, its buffers transferred', async () => {
    const fx = fixture('ar_pre_learned_untied_gelu');
    const decoder = createDecoderWorker();
    try {
      await decoder.load(join(FIXTURES, fx.model), { compute: 'f32' });
      const inside = await decoder.inspect(fx.source, fx.tokens);
      assert.equal(difference(inside, fx.inside, fx.tolerance), '');
      assert.ok(inside.decoder.layers[0].selfAttention.attention.weights instanceof Float32Array);
      await assert.rejects(decoder.inspect(fx.source, [1.5]), (e) => e.kind === 'UsageError');
    } finally {
      await decoder.terminate();
    }
  });

  test('the shipped Transformer: the last row\'s softmax is the probability each step\'s bars show', async () => {
    const model = await loadModel(modelPath('ar'));
    try {
      const session = model.createSession({ strategy: 'greedy' });
      session.start('COLONEL');
      let snap;
      const fed = [];
      do {
        snap = session.step();
        const h = snap.live[0] ?? snap.finished[0];
        const inside = model.inspect('COLONEL', fed);
        const V = inside.vocabSize;
        const last = inside.logits.subarray(inside.logits.length - V);
        const m = Math.max(...last);
        const z = last.reduce((a, v) => a + Math.exp(v - m), 0);
        for (const c of h.candidates) assert.ok(Math.abs(Math.exp(last[c.token] - m) / z - c.prob) < 2e-3, `${c.text} at step ${snap.step}`);
        // the token texts as well as the ids
        assert.deepEqual(model.inspect('COLONEL', h.texts.slice(0, -1)).target, inside.target);
        fed.push(h.tokens.at(-1));
      } while (!snap.done);
      session.delete();
    } finally {
      model.delete();
    }
  });

  test('bad calls are Seq2SeqErrors with a kind', async () => {
    const model = await loadModel(modelPath('ar'));
    try {
      const kind = (f) => { try { f(); } catch (e) { assert.ok(e instanceof Seq2SeqError, String(e)); return e.kind; } return null; };
      assert.equal(kind(() => model.inspect(42)), 'UsageError');
      assert.equal(kind(() => model.inspect('HELLO', [1.5])), 'UsageError');
      assert.equal(kind(() => model.inspect('HELLO', { a: 1 })), 'UsageError');
      assert.equal(kind(() => model.inspect('HELLO', 'NOT_A_PHONEME')), 'InputError');
      assert.equal(kind(() => model.inspect('HELLO', [model.info.targetSpecials.bos])), 'InputError');
      assert.equal(kind(() => model.inspect('HELLO', [99999])), 'InputError');
      assert.equal(kind(() => model.inspect('')), 'InputError');
    } finally {
      model.delete();
    }
  });
});

describe('Model.inspect: what it keeps is bounded, and what decode refuses it refuses', () => {
  const seqError = (kind, message) => (e) => {
    assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
    assert.equal(e.kind, kind, e.message);
    assert.match(e.message, message);
    return true;
  };

  test('token ids past 2^31 are named as given, not as the int they wrap to', async () => {
    const model = await loadModel(modelPath('ar'));
    try {
      const V = model.info.targetVocab.length;
      for (const [id, shown] of [[2 ** 31, '2147483648'], [2 ** 32 + 5, '4294967301'], [-(2 ** 31) - 1, '-2147483649'], [2 ** 53, '9007199254740992'], [1e300, '1e+300'], [-1, '-1']]) {
        assert.throws(() => model.inspect('HELLO', [5, id]), seqError('InputError', new RegExp(`^input: token id ${shown.replace('+', '\\+')} at position 2 is outside the target vocabulary of ${V}$`)));
      }
    } finally {
      model.delete();
    }
  });

  test('a pass over LIMITS.maxInsideValues is an InputError before anything is allocated, in the module and in the worker', async () => {
    // The AR fixture read at 1,024 positions: a 1,024-letter word decodes at once; its inside once
    // filled the heap to 874 MB before failing as OutOfMemory.
    const bytes = editedConfig('ar_post_sin_tied_relu', (c) => { c.max_pos = 1024; });
    const model = await loadModel(bytes);
    const worker = createDecoderWorker();
    try {
      const word = 'A'.repeat(1024);
      assert.equal(model.decode(word, { maxLength: 2 }).length, 1);
      const heap = model._core().HEAPU8.length;
      const tooMany = seqError('InputError', new RegExp(`^input: the inside of this pass \\(a source of 1024 positions, a decoder input of 1\\) holds \\d+ numbers; inspect keeps at most ${LIMITS.maxInsideValues}: give a shorter source or fewer tokens$`));
      assert.throws(() => model.inspect(word), tooMany);
      assert.equal(model._core().HEAPU8.length, heap, 'the wasm heap did not grow');
      await worker.load(bytes);
      await assert.rejects(worker.inspect(word), tooMany);
      assert.equal((await worker.inspect('ABC')).sourceLength, 3);
    } finally {
      await worker.terminate();
      model.delete();
    }
  });

  test('an inspect that runs out of wasm memory is an OutOfMemory, and gives back every byte it took', async () => {
    const model = await loadModel(editedConfig('ar_post_sin_tied_relu', (c) => { c.max_pos = 1024; }));
    const core = model._core();
    const word = 'A'.repeat(400);   // about 4.5 million numbers: 18 MB kept, more while computing
    const expected = model.inspect(word);
    // The largest block malloc gives now (binary search, to 64 KB).
    const largest = () => {
      let lo = 0;
      let hi = 2 ** 30;
      while (hi - lo > 1 << 16) {
        const mid = Math.floor((lo + hi) / 2);
        const p = core._malloc(mid);
        if (p) { core._free(p); lo = mid; } else hi = mid;
      }
      return lo;
    };
    const taken = [];
    try {
      // The heap filled to its cap, then 8 MB given back: room for small calls, not for this inside.
      for (const size of [64 << 20, 1 << 20, 64 << 10]) for (let p; (p = core._malloc(size));) taken.push([p, size]);
      for (let freed = 0; freed < 8 << 20;) {
        const [p, size] = taken.pop();
        core._free(p);
        freed += size;
      }
      const before = largest();
      for (let i = 0; i < 3; i++) assert.throws(() => model.inspect(word), seqError('OutOfMemory', /^out of memory$/));
      const after = largest();
      assert.equal(after, before, `the largest free block: ${before} bytes before, ${after} after three failed inspects`);
      assert.equal(model.inspect('ABC').sourceLength, 3, 'a small inspect still fits');
    } finally {
      for (const [p] of taken) core._free(p);
    }
    assert.deepEqual(Array.from(model.inspect(word).logits), Array.from(expected.logits));
    model.delete();
  });

  test('weights whose scores overflow: inspect refuses the pass with decode\'s ModelError, in the module and in the worker', async () => {
    const cases = [
      ...OVERFLOWING.filter(([, , where]) => where !== 'the target lengths'),
      // 4-bit weights with finite scales of 3.4e38: they load, and overflow.
      ['4-bit CMLM, scales at 3.4e38', () => scaledFixture('cmlm_pre_sin_tied_relu_q4', 'decoder.layers.1.ffn.fc1.weight.scale', 1e39), 'output position 1'],
    ];
    const worker = createDecoderWorker();
    try {
      for (const [name, bytes, where] of cases) {
        const model = await loadModel(bytes());
        const draft = model.autoregressive ? [] : Array(4).fill(model.info.targetSpecials.mask);
        const options = model.autoregressive ? {} : { narLength: 'given', narGivenLength: 4 };
        let refused = null;
        try { model.decode('ABC', options); } catch (e) { refused = e; }
        assert.equal(refused?.kind, 'ModelError', name);
        assert.match(refused.message, new RegExp(`the scores of ${where} are not finite`), name);
        assert.throws(() => model.inspect('ABC', draft), (e) => e.kind === 'ModelError' && e.message === refused.message, name);
        await worker.load(bytes());
        await assert.rejects(worker.inspect('ABC', draft), (e) => e.kind === 'ModelError' && e.message === refused.message, name);
        model.delete();
      }
    } finally {
      await worker.terminate();
    }
  });
});
