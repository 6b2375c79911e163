// Decoding through the installed package when the model or the source cannot
// give a result: a Seq2SeqError of the right kind for that source, and the
// objects usable afterwards; and the Session/Model contracts around it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { FIXTURES, installPackage, join } from './helpers.mjs';
import { OVERFLOWING } from './scaled-model.mjs';

const { loadModel, Seq2SeqError } = await installPackage().importPackage();

const seqError = (kind, message) => (e) => {
  assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
  assert.equal(e.kind, kind, `kind of: ${e.message}`);
  if (message) assert.match(e.message, message);
  return true;
};

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
