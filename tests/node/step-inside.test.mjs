// Model.inspect in the installed package (WebAssembly) against PyTorch's forward hooks
// (tests/tools/make_inside_fixtures.py), field by field at the fixtures' tolerance under
// f32 compute; the same through the worker, its typed arrays transferred; the shipped
// Transformer's last row equal to the decode's own bars; bad calls are Seq2SeqErrors.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FIXTURES, installPackage, modelPath } from './helpers.mjs';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
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
