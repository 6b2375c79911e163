// Option names that every object answers to (toString, constructor, ...) are
// no decoding options: through the installed package, each is refused like
// any unknown name, on every path options take (createSession, decode,
// setOptions, the worker), and leaves the session as it was.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { installPackage, modelPath } from './helpers.mjs';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
const { createDecoderWorker } = await pkg.importPackage('/worker');

const arBytes = new Uint8Array(readFileSync(modelPath('ar')));
let ar;
before(async () => { ar = await loadModel(arBytes); });
after(() => ar.delete());

// A word the model reads.
const word = (model) => model.info.sourceVocab.filter((c) => c.length === 1 && /[A-Z]/.test(c)).slice(0, 3).join('');

// Object.prototype's names with values of every type; __proto__ as JSON.parse
// makes it (an own key, as options read from a file or a request would have).
const PROTOTYPE_KEYS = [
  ['toString', 1], ['constructor', 'x'], ['hasOwnProperty', null], ['valueOf', 3], ['isPrototypeOf', true],
  ['propertyIsEnumerable', {}], ['toLocaleString', 'beam'], ['__defineGetter__', 0], ['__proto__', { beamSize: 3 }],
];
const withKey = (name, value, base = {}) => ({ ...base, ...JSON.parse(JSON.stringify({ [name]: value ?? null })) });
const unknown = (name) => (e) => {
  assert.ok(e instanceof Seq2SeqError && e.kind === 'UsageError', `a UsageError, got ${e?.name} ${e?.kind}: ${e?.message}`);
  assert.match(e.message, new RegExp(`^unknown decoding option '${name}' \\(known: strategy, beamSize, .*\\)$`));
  return true;
};

describe('option names from Object.prototype', () => {
  test('are own keys of the options given', () => {
    for (const [name, value] of PROTOTYPE_KEYS) assert.ok(Object.hasOwn(withKey(name, value), name), name);
  });

  test('createSession and decode refuse them as unknown options', () => {
    for (const [name, value] of PROTOTYPE_KEYS) {
      assert.throws(() => ar.createSession(withKey(name, value)), unknown(name), name);
      assert.throws(() => ar.createSession(withKey(name, value, { strategy: 'beam' })), unknown(name), name);
      assert.throws(() => ar.decode(word(ar), withKey(name, value)), unknown(name), name);
    }
  });

  test('setOptions refuses them and keeps the options it had', () => {
    const s = ar.createSession({ strategy: 'beam', beamSize: 3 });
    const before = s.options;
    for (const [name, value] of PROTOTYPE_KEYS) {
      assert.throws(() => s.setOptions(withKey(name, value)), unknown(name), name);
      assert.deepEqual(s.options, before, name);
    }
    assert.deepEqual(s.decode(word(ar)), ar.decode(word(ar), { strategy: 'beam', beamSize: 3 }));
    s.delete();
  });

  test('through the worker: the same UsageError, and the worker goes on', async () => {
    const decoder = createDecoderWorker();
    try {
      await decoder.load(arBytes);
      for (const [name, value] of PROTOTYPE_KEYS) await assert.rejects(decoder.start(word(ar), withKey(name, value)), unknown(name), name);
      await decoder.start(word(ar), { strategy: 'greedy' });
      assert.deepEqual(await decoder.run(), ar.decode(word(ar), { strategy: 'greedy' }));
    } finally {
      await decoder.terminate();
    }
  });
});
