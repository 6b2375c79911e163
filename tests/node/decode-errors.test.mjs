// Decoding through the installed package when the model or the source cannot
// give a result: a Seq2SeqError of the right kind for that source, and the
// objects usable afterwards; texts too long for the engine and a heap that runs
// out, after which the module decodes as before; and the Session/Model
// contracts around it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { FIXTURES, installPackage, join, seqErrorOf } from './helpers.mjs';
import { OVERFLOWING } from './scaled-model.mjs';

const { LIMITS, loadModel, Seq2SeqError } = await installPackage().importPackage();

const seqError = seqErrorOf(Seq2SeqError);

const fixture = (name) => new Uint8Array(readFileSync(join(FIXTURES, `${name}.safetensors`)));

describe('weights that overflow float arithmetic', () => {
  for (const [name, bytes, where] of OVERFLOWING) {
    test(`${name}: every strategy throws a ModelError naming ${where}, never an empty or NaN result`, async () => {
      const model = await loadModel(bytes());
      const all = model.autoregressive
        ? [{ strategy: 'greedy' }, { strategy: 'beam', beamSize: 3 }, { strategy: 'sample', nBest: 2, seed: 1 }]
        : [{ lengthCandidates: 3 }, { narLength: 'fixed' }, { narLength: 'given', narGivenLength: 4 }];
      const message = new RegExp(`^model file: the scores of ${where} are not finite`);
      for (const options of all) {
        assert.throws(() => model.decode('ABC', options), seqError('ModelError', message), JSON.stringify(options));
        const session = model.createSession(options);
        assert.throws(() => {
          session.start('BAD');  // the length head is scored here
          while (!session.done) session.step();
        }, seqError('ModelError', message));
        if (session.started) {
          assert.equal(session.done, true, 'a failed step ends the decode');
          assert.throws(() => session.step(), seqError('UsageError', /the decode has finished/));
        }
        assert.throws(() => session.decode('ACE'), seqError('ModelError', message), 'the next source gets the same error');
        session.delete();
      }
      model.delete();
    });
  }
});

describe('a minimum length', () => {
  test('no source leaves room for: a UsageError when the session is made', async () => {
    const model = await loadModel(fixture('ar_post_sin_tied_relu'));
    assert.throws(() => model.createSession({ minLength: 40, maxLength: 100 }), seqError('UsageError', /^minLength = 40 leaves no room below the max length of 32$/));
    model.delete();
  });
  test('this source leaves no room for under the ratio cap: an InputError for it, and the session goes on', async () => {
    const model = await loadModel(fixture('ar_post_sin_tied_relu'));
    const session = model.createSession({ maxLengthRatio: 0.5, minLength: 3 });
    assert.throws(() => session.decode('A'), seqError('InputError', /maxLengthRatio allows this source of length 1 at most 1 output tokens .*no room for minLength = 3/));
    assert.equal(session.decode('ABCDEFG')[0].length, 4);
    session.delete();
    model.delete();
  });
});

describe('Model and Session contracts', () => {
  test('setOptions() works after the model is deleted, as start, run and decode do', async () => {
    const model = await loadModel(fixture('ar_post_sin_tied_relu'));
    const session = model.createSession();
    const before = session.decode('ABC');
    model.delete();
    session.setOptions({ strategy: 'beam', beamSize: 3 });
    assert.equal(session.options.beamSize, 3);
    assert.equal(session.decode('ABC').length, 1);
    assert.throws(() => session.setOptions({ strategy: 'nar' }), seqError('UsageError', /needs a non-autoregressive/));
    session.setOptions({ strategy: 'greedy' });
    assert.deepEqual(session.decode('ABC'), before);
    session.delete();
  });
  test('tokenize() takes a string, like start() and decode(): anything else is a UsageError', async () => {
    const model = await loadModel(fixture('ar_post_sin_tied_relu'));
    for (const bad of [undefined, null, 42, {}, ['A'], new String('ABC')]) {
      const usage = (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && /needs a string; got /.test(e.message);
      assert.throws(() => model.tokenize(bad), usage, String(bad));
      assert.throws(() => model.decode(bad), usage, String(bad));
    }
    assert.deepEqual(model.tokenize('ABC'), [2, 3, 4]);
    model.delete();
  });
});

describe('texts longer than LIMITS.maxTextBytes', () => {
  const MAX = LIMITS?.maxTextBytes;
  const tooLong = (n, what = 'the text') => new RegExp(`input: ${what} has ${n} characters; the longest accepted is ${MAX} bytes \\(UTF-8\\)$`);
  test('every call that takes a text refuses one by its length, at once, before the wasm heap holds it', async (t) => {
    assert.equal(MAX, 65536);
    const model = await loadModel(fixture('ar_post_sin_tied_relu'));
    const heap = model._core().HEAPU8.length;
    const session = model.createSession();
    // A flat string, as one read from a file is ('A'.repeat() makes a rope, which V8 flattens on first look).
    const huge = Buffer.alloc(20_000_000, 'A').toString('latin1');
    const t0 = performance.now();
    assert.throws(() => model.decode(huge), seqError('InputError', tooLong(huge.length)));
    assert.throws(() => session.start(huge), seqError('InputError', tooLong(huge.length)));
    assert.throws(() => model.tokenize(huge), seqError('InputError', tooLong(huge.length)));
    assert.throws(() => model.score(huge, 'A'), seqError('InputError', tooLong(huge.length)));
    assert.throws(() => model.score('ABC', huge), seqError('InputError', tooLong(huge.length, 'the target')));
    assert.throws(() => model.inspect(huge), seqError('InputError', tooLong(huge.length)));
    assert.throws(() => model.inspect('ABC', huge), seqError('InputError', tooLong(huge.length, 'the target')));
    assert.throws(() => model.inspect('ABC', new Array(100_000).fill(5)),
      seqError('InputError', new RegExp(`^input: the decoder input has 100000 token ids; no model reads more than ${LIMITS.maxPositions} positions$`)));
    assert.throws(() => model.createSession({ prefix: huge }), seqError('UsageError', new RegExp(`^option prefix has ${huge.length} characters; the longest`)));
    // A batch: a text too long is refused before any text is converted or decoded; the
    // error names the first bad text, whichever way it is bad.
    assert.throws(() => model.decodeBatch(['ABC', huge, 'A#']),
      seqError('InputError', new RegExp(`^texts\\[1\\] "A{40}"… \\(${huge.length} characters\\): ${tooLong(huge.length).source}`)));
    assert.throws(() => model.decodeBatch(['ABC', 'A#', huge]), seqError('InputError', /^texts\[1\] "A#": /));
    const ms = performance.now() - t0;
    t.diagnostic(`eleven refusals of a ${huge.length / 1e6}M-character text in ${ms.toFixed(0)} ms; wasm heap ${heap / 2 ** 20} MB before and after`);
    assert.ok(ms < 2000, `${ms} ms`);
    assert.equal(model._core().HEAPU8.length, heap, 'the wasm heap did not grow');
    // Up to the limit in UTF-16 units a text is converted, and the engine counts its UTF-8: three bytes a character here.
    assert.throws(() => model.decode('\u20ac'.repeat(MAX)), seqError('InputError', new RegExp(`^input: the text has ${3 * MAX} bytes \\(UTF-8\\); the longest accepted is ${MAX}$`)));
    // White space counts: at the limit the text is read (and trimmed), one character more and it is not.
    assert.deepEqual(model.decode(`${' '.repeat(MAX - 3)}ABC`), model.decode('ABC'));
    assert.throws(() => model.decode(`${' '.repeat(MAX - 2)}ABC`), seqError('InputError', tooLong(MAX + 1)));
    assert.deepEqual(session.decode('ABC'), model.decode('ABC'));
    session.delete();
    model.delete();
  });
  test('a text whose UTF-8 (1.2 GB) is more than the heap can hold: refused, and the module works on', async () => {
    // Converted by the engine's glue this text once wrote through the null pointer a failed allocation returned,
    // and every later call, a new loadModel() too, failed with "memory access out of bounds".
    const model = await loadModel(fixture('ar_post_sin_tied_relu'));
    const expected = model.decode('ABC');
    const huge = '\u20ac'.repeat(400_000_000);
    assert.throws(() => model.decode(huge), seqError('InputError', tooLong(huge.length)));
    assert.deepEqual(model.decode('ABC'), expected);
    const again = await loadModel(fixture('ar_post_sin_tied_relu'));
    assert.deepEqual(again.decode('ABC'), expected);
    again.delete();
    model.delete();
  });
});

describe('a full wasm heap', () => {
  test('an allocation that fails is an OutOfMemory error, and the module decodes as before once memory is free', async (t) => {
    const model = await loadModel(fixture('ar_post_sin_tied_relu'));
    const session = model.createSession({ strategy: 'beam', beamSize: 3 });
    const expected = session.decode('FACADE');
    const core = model._core();
    // The heap filled to its cap (1 GB) by hand, then a few kilobytes given back: enough
    // for small allocations, not for the copy of a 192 KB text.
    const taken = [];
    for (const size of [64 << 20, 1 << 20, 64 << 10, 4 << 10]) for (let p; (p = core._malloc(size));) taken.push(p);
    for (const p of taken.splice(-8)) core._free(p);
    t.diagnostic(`heap filled to ${(core.HEAPU8.length / 2 ** 20).toFixed(0)} MB`);
    try {
      const text = '\u20ac'.repeat(LIMITS.maxTextBytes);   // 192 KiB of UTF-8
      assert.throws(() => session.start(text), seqError('OutOfMemory', /^out of memory$/));
      assert.throws(() => model.tokenize(text), seqError('OutOfMemory'));
      assert.throws(() => model.score(text, 'A'), seqError('OutOfMemory'));
      assert.deepEqual(model.tokenize('FACADE'), model.tokenize('FACADE'), 'a small call still fits');
      // Then the last bytes too: no new session, no token list, not even an exception can be allocated.
      for (const size of [4 << 10, 256, 16]) for (let p; (p = core._malloc(size));) taken.push(p);
      for (const f of [() => model.createSession(), () => model.decode('FACADE'), () => model.tokenize('FACADE'),
        () => model.decodeBatch(['FACADE', 'ABC'])]) {
        assert.throws(f, seqError('OutOfMemory', /^out of memory$/), String(f));
      }
      await assert.rejects(loadModel(fixture('ar_post_sin_tied_relu')), seqError('OutOfMemory'));
    } finally {
      for (const p of taken) core._free(p);
    }
    assert.deepEqual(session.decode('FACADE'), expected, 'the same session decodes as before');
    assert.deepEqual(model.decode('FACADE', { strategy: 'beam', beamSize: 3 }), expected);
    const again = await loadModel(fixture('ar_post_sin_tied_relu'));
    assert.deepEqual(again.decodeBatch(['FACADE'], { strategy: 'beam', beamSize: 3 }), [expected]);
    again.delete();
    session.delete();
    model.delete();
  });
});
