// Every way a user can get it wrong, through the installed package: each must
// throw a Seq2SeqError (with the C++ message and kind, or kind 'UsageError' for
// JS-level mistakes, naming what was given) and leave the objects usable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { installPackage, modelPath, seqErrorOf } from './helpers.mjs';
import { OPTION_RULES } from '../../web/js/page-options.js';

const { loadModel, Model, Session, Seq2SeqError } = await installPackage().importPackage();

const seqError = seqErrorOf(Seq2SeqError);
const usage = (message) => seqError('UsageError', message);

const arBytes = new Uint8Array(readFileSync(modelPath('ar')));
const cmlmBytes = new Uint8Array(readFileSync(modelPath('cmlm')));
let ar;
let cmlm;
before(async () => {
  ar = await loadModel(arBytes);
  cmlm = await loadModel(cmlmBytes);
});
after(() => {
  ar.delete();
  cmlm.delete();
});
// A word the model reads.
const word = (model) => model.info.sourceVocab.filter((c) => c.length === 1 && /[A-Z]/.test(c)).slice(0, 3).join('');

describe('bad model bytes', () => {
  const cases = [
    ['no bytes', new Uint8Array(0), /too short/],
    ['ten random bytes', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), /header length .* runs past the end/],
    ['JSON text', new TextEncoder().encode('{"__metadata__": {"format": "seq2seq-wasm"}}'), /it starts with '\{"__metadata__": \{"format": "seq2seq-was', JSON text, not a model/],   // its first 40 characters
    ['a web page (a server\'s fallback for a missing file)', new TextEncoder().encode(`<!doctype html>\n<html><body>${' '.repeat(500)}</body></html>`),
      /runs past the end of the file \(\d+ bytes\): it starts with '<!doctype html>', an HTML or XML document, not a model \(a server's page or error in place of the file\?\)/],
    ['the first half of a model', arBytes.slice(0, arBytes.length >> 1), /outside|past|truncated/],
    ['a model with its last byte cut', arBytes.slice(0, arBytes.length - 1), /outside|past|truncated/],
    ['a model with a corrupted header', (() => { const b = arBytes.slice(); b.fill(0x20, 8, 40); return b; })(), /model file/],
  ];
  for (const [name, bytes, message] of cases) {
    test(name, async () => {
      await assert.rejects(loadModel(bytes), seqError('ModelError', message));
      assert.match((await loadModel(bytes).catch((e) => e)).message, /^model file: /);
    });
  }
  test('a source that is neither bytes nor a URL', async () => {
    for (const bad of [42, null, undefined, {}, [1, 2, 3], true]) await assert.rejects(loadModel(bad), seqError('UsageError', /model source must be .*; got /));
  });
  test('a path that does not exist', async () => {
    await assert.rejects(loadModel('/nonexistent/dir/model.safetensors'), (e) => e.code === 'ENOENT');
  });
  test('the module still loads models after failures', async () => {
    const m = await loadModel(arBytes);
    assert.ok(m.decode(word(m)).length === 1);
    m.delete();
  });
});

describe('bad input text', () => {
  test('unknown characters name the character and its position', () => {
    for (const model of [ar, cmlm]) {
      const w = word(model);
      for (const [text, what] of [[`${w}#`, "'#'"], [`${w}\u20ac`, "'\u20ac'"], [`${w} ${w}`, "' '"], [`${w}\u0000`, 'control character 0x0']]) {
        assert.throws(() => model.decode(text), seqError('InputError', new RegExp(`${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at position ${w.length + 1} is not in the model's source alphabet`)));
        const s = model.createSession();
        assert.throws(() => s.start(text), seqError('InputError'));
        assert.throws(() => model.tokenize(text), seqError('InputError'));
        assert.equal(s.decode(w).length, 1, 'the session works after the error');
        s.delete();
      }
    }
  });
  test('a lone UTF-16 surrogate is named as such, not as another character', () => {
    for (const model of [ar, cmlm]) {
      const w = word(model);
      for (const [text, code] of [[`${w}\uD800`, 'D800'], [`\uDC00${w}`, 'DC00']]) {
        assert.throws(() => model.decode(text), seqError('InputError', new RegExp(`lone UTF-16 surrogate \\(U\\+${code}\\)`)));
        assert.throws(() => model.tokenize(text), seqError('InputError', /lone UTF-16 surrogate/));
      }
      assert.throws(() => model.decode(`${w}\uD83D\uDE00`), seqError('InputError', /not in the model's source alphabet/));
    }
  });
  test('empty and blank input', () => {
    for (const model of [ar, cmlm]) {
      for (const text of ['', ' ', '\t \n']) assert.throws(() => model.decode(text), seqError('InputError', /the source text is empty/));
    }
  });
  test('over-long input', () => {
    for (const model of [ar, cmlm]) {
      const message = (() => { try { model.decode('A'.repeat(10000)); } catch (e) { return e.message; } return ''; })();
      const limit = Number(/reads at most (\d+)/.exec(message)?.[1]);
      assert.ok(limit > 0, `a limit in: ${message}`);
      assert.throws(() => model.decode('A'.repeat(limit + 1)), seqError('InputError', new RegExp(`has ${limit + 1} characters; this model reads at most ${limit}`)));
      assert.ok(Array.isArray(model.decode('A'.repeat(limit))), 'exactly the limit is fine');
    }
  });
  test('text that is not a string', () => {
    const s = ar.createSession();
    const cases = [[42, 'the number 42'], [null, 'null'], [undefined, 'undefined'], [['ABC'], 'an array'], [{ toString: () => 'ABC' }, 'an object']];
    for (const [bad, got] of cases) assert.throws(() => s.start(bad), usage(new RegExp(`^start\\(text\\) needs a string; got ${got}$`)));
    assert.throws(() => ar.decode(7), usage(/needs a string; got the number 7$/));
    assert.throws(() => ar.tokenize(new String('A')), usage(/^tokenize\(text\) needs a string; got a String$/));
    s.delete();
  });
  test('a prefix with tokens the model does not have', () => {
    assert.throws(() => ar.decode(word(ar), { prefix: 'NOT-A-PHONEME' }), seqError('InputError', /'NOT-A-PHONEME' is not in the model's target vocabulary/));
    assert.throws(() => ar.decode(word(ar), { prefix: ar.info.targetVocab[ar.info.targetSpecials.eos] }), seqError('InputError', /cannot be emitted/));
  });
});

describe('bad options', () => {
  const snake = /\b[a-z]+_[a-z_]+\b/;
  test('absurd values: a UsageError naming the option as JS spells it', () => {
    const cases = [
      [ar, { strategy: 'beam', beamSize: 0 }, /option beamSize = 0 is outside \[1, 256\]/],
      [ar, { strategy: 'beam', beamSize: 100000 }, /option beamSize = 100000 is outside/],
      [ar, { maxLength: 0 }, /option maxLength = 0 is outside/],
      [ar, { maxLength: 10, minLength: 10 }, /option minLength = 10 must be below maxLength = 10/],
      [ar, { minLength: -1 }, /option minLength = -1/],
      [ar, { strategy: 'beam', beamSize: 2, nBest: 3 }, /option nBest = 3 exceeds beamSize = 2/],
      [ar, { nBest: 2 }, /greedy search returns one hypothesis: nBest must be 1/],
      [ar, { nBest: 0 }, /option nBest = 0/],
      [ar, { lengthNorm: 'gnmt', gnmtAlpha: 11 }, /option gnmtAlpha = 11\.0* is outside/],
      [ar, { maxLengthRatio: -1 }, /option maxLengthRatio = -1\.0* is outside/],
      [ar, { strategy: 'sample', temperature: 0 }, /option temperature = 0\.0* must be in \(0, 100\]/],
      [ar, { strategy: 'sample', temperature: -1 }, /option temperature/],
      [ar, { strategy: 'sample', topP: 0 }, /option topP = 0\.0* must be in \(0, 1\]/],
      [ar, { strategy: 'sample', topP: 1.5 }, /option topP/],
      [ar, { topK: -1 }, /option topK = -1/],
      [ar, { topCandidates: 65 }, /option topCandidates = 65/],
      [cmlm, { iterations: 0 }, /option iterations = 0 is outside \[1, 100\]/],
      [cmlm, { iterations: 101 }, /option iterations = 101/],
      [cmlm, { lengthCandidates: 0 }, /option lengthCandidates = 0 is outside \[1, 64\]/],
      [cmlm, { lengthCandidates: 65 }, /option lengthCandidates = 65/],
      [cmlm, { lengthScoreWeight: -1 }, /option lengthScoreWeight = -1.* must be in \[0, 10\]/],
      [cmlm, { narLength: 'given' }, /narLength = given needs narGivenLength >= 1/],
      [cmlm, { narLength: 'given', narGivenLength: -3 }, /option narGivenLength = -3/],
      [ar, { strategy: 'nar' }, /strategy 'nar' needs a non-autoregressive \(cmlm\) model/],
      [cmlm, { strategy: 'beam' }, /strategy 'beam'/],
      [cmlm, { strategy: 'greedy' }, /strategy 'greedy'/],
    ];
    for (const [model, options, message] of cases) {
      assert.throws(() => model.createSession(options), seqError('UsageError', message), JSON.stringify(options));
      assert.throws(() => model.decode(word(model), options), seqError('UsageError', message), JSON.stringify(options));
      const e = (() => { try { model.createSession(options); } catch (x) { return x; } return null; })();
      assert.doesNotMatch(e.message, snake, 'no C++ option names in a JS message');
    }
  });
  test('every rule between options of the table (OPTION_RULES) is refused by the engine when broken, and holds when kept', () => {
    assert.ok(OPTION_RULES.length >= 4);
    for (const rule of OPTION_RULES) {
      const model = rule.when.strategy === 'nar' ? cmlm : ar;
      const kind = ['below', 'atMost', 'equals', 'atLeast'].find((k) => k in rule);
      // The bound, and the option one past it on the wrong side (kept: on it).
      const bound = typeof rule[kind] === 'string' ? 4 : rule[kind];
      const other = typeof rule[kind] === 'string' ? { [rule[kind]]: bound } : {};
      const broken = { below: bound, atMost: bound + 1, equals: bound + 1, atLeast: bound - 1 }[kind];
      const kept = { below: bound - 1, atMost: bound, equals: bound, atLeast: bound }[kind];
      const options = (v) => ({ ...rule.when, ...other, [rule.option]: v });
      assert.throws(() => model.createSession(options(broken)), usage(new RegExp(rule.option)), JSON.stringify(options(broken)));
      model.createSession(options(kept)).delete();
    }
  });
  test('a minimum length the source leaves no room for', () => {
    assert.throws(() => ar.decode(word(ar), { minLength: 5000, maxLength: 6000 }), seqError('UsageError', /minLength = 5000 leaves no room/));
  });
  test('unknown option names: a UsageError listing the known ones', () => {
    for (const options of [{ beam_size: 5 }, { beamsize: 5 }, { strategy: 'beam', bogus: true }, { n_best: 2 }]) {
      const name = Object.keys(options).find((k) => k !== 'strategy');
      assert.throws(() => ar.createSession(options), usage(new RegExp(`unknown decoding option '${name}' \\(known: strategy, beamSize, .*\\)`)));
    }
  });
  test('wrong types: a UsageError naming the option and what was given', () => {
    const cases = [
      [{ strategy: 'Beam' }, /option strategy must be one of greedy, beam, sample, nar/],
      [{ strategy: 3 }, /option strategy/],
      [{ lengthNorm: 'gnmt:0.6' }, /option lengthNorm must be one of none, average, gnmt/],
      [{ narLength: true }, /option narLength/],
      [{ beamSize: '5' }, /option beamSize must be an integer/],
      [{ beamSize: 2.5 }, /option beamSize must be an integer/],
      [{ maxLength: NaN }, /option maxLength must be an integer/],
      [{ maxLength: 2 ** 31 }, /option maxLength must be an integer/],
      [{ iterations: null }, /option iterations must be an integer/],
      [{ gnmtAlpha: '0.6' }, /option gnmtAlpha must be a finite number/],
      [{ temperature: Infinity }, /option temperature must be a finite number/],
      [{ topP: NaN }, /option topP must be a finite number/],
      [{ earlyStop: 'yes' }, /option earlyStop must be true or false/],
      [{ attention: 1 }, /option attention must be true or false/],
      [{ seed: -1 }, /option seed must be a non-negative integer/],
      [{ seed: 1.5 }, /option seed/],
      [{ seed: 2 ** 60 }, /option seed/],
      [{ prefix: 5 }, /option prefix must be a string or an array of strings/],
      [{ prefix: ['AA', 5] }, /option prefix/],
    ];
    for (const [options, message] of cases) assert.throws(() => ar.createSession(options), usage(message), JSON.stringify(options));
    // The whole message, for each kind of value.
    const whole = [
      [{ beamSize: '3' }, 'option beamSize must be an integer; got the string "3"'],
      [{ beamSize: null }, 'option beamSize must be an integer; got null'],
      [{ beamSize: [3] }, 'option beamSize must be an integer; got an array'],
      [{ beamSize: 2.5 }, 'option beamSize must be an integer; got the number 2.5'],
      [{ beamSize: 3n }, 'option beamSize must be an integer; got the bigint 3n'],
      [{ beamSize: { n: 3 } }, 'option beamSize must be an integer; got an object'],
      [{ beamSize: new Map() }, 'option beamSize must be an integer; got a Map'],
      [{ maxLength: 2 ** 31 }, 'option maxLength must be an integer; got the number 2147483648, beyond 32 bits'],
      [{ gnmtAlpha: NaN }, 'option gnmtAlpha must be a finite number; got the number NaN'],
      [{ attention: 1 }, 'option attention must be true or false; got the number 1'],
      [{ earlyStop: () => true }, 'option earlyStop must be true or false; got a function (earlyStop)'],
      [{ strategy: 'Beam' }, 'option strategy must be one of greedy, beam, sample, nar; got the string "Beam"'],
      [{ narLength: true }, 'option narLength must be one of predicted, fixed, given; got the boolean true'],
      [{ seed: -1 }, 'option seed must be a non-negative integer; got the number -1'],
      [{ prefix: Symbol('AA') }, 'option prefix must be a string or an array of strings; got a symbol'],
      [{ prefix: ['AA', 5] }, 'option prefix must be a string or an array of strings; got an array holding the number 5 at index 1'],
      [{ beamSize: 'x'.repeat(100) }, `option beamSize must be an integer; got the string "${'x'.repeat(40)}"… (100 characters)`],
    ];
    for (const [options, message] of whole) {
      assert.throws(() => ar.createSession(options), (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && e.message === message, message);
    }
  });
  test('a long value is quoted by its start and its length: a short message, made at once', async () => {
    // 50 million characters: a message once copied such a string whole (6.5 s, +1 GB for one error).
    // A flat string, as one read from a file is ('x'.repeat() makes a rope, which V8 flattens on first look).
    const huge = Buffer.alloc(50_000_000, 'x').toString('latin1');
    const described = `the string "${'x'.repeat(40)}"… (50000000 characters)`;
    const t0 = performance.now();
    const cases = [
      [() => ar.createSession({ strategy: huge }), `option strategy must be one of greedy, beam, sample, nar; got ${described}`],
      [() => ar.createSession({ beamSize: huge }), `option beamSize must be an integer; got ${described}`],
      [() => ar.createSession({ [huge]: 1 }), new RegExp(`^unknown decoding option "x{40}"… \\(50000000 characters\\) \\(known: strategy, `)],
      [() => ar.decode(word(ar), { prefix: ['AA', huge] }), /^option prefix has 50000003 characters; the longest accepted is 65536 bytes \(UTF-8\)$/],
      [() => ar.score(word(ar), ['AA', `${huge.slice(0, 100)} `]), new RegExp(`^score\\(text, target\\): target\\[1\\] must be one token .*; got the string "x{40}"… \\(101 characters\\)$`)],
    ];
    assert.throws(() => ar.score(word(ar), ['AA', `${huge} `]), seqError('InputError', /^input: the target has 50000004 characters; the longest accepted is 65536 bytes \(UTF-8\)$/));
    for (const [call, message] of cases) {
      assert.throws(call, (e) => e instanceof Seq2SeqError && e.kind === 'UsageError'
        && (typeof message === 'string' ? e.message === message : message.test(e.message)) && e.message.length < 600, String(message));
    }
    await assert.rejects(loadModel(arBytes, { compute: huge }), usage(/^loadModel: compute must be 'auto' or 'f32'; got "x{40}"… \(50000000 characters\)$/));
    await assert.rejects(loadModel(arBytes, { [huge]: true }), usage(/^loadModel: unknown option "x{40}"… \(50000000 characters\) \(known: /));
    const ms = performance.now() - t0;
    assert.ok(ms < 1000, `${ms.toFixed(0)} ms for ${cases.length + 2} errors`);
    // The engine's messages quote a token by its first 64 bytes and its size.
    const token = 'Q'.repeat(60_000);
    const inEngine = new RegExp(`'Q{64}\\.\\.\\.' \\(60000 bytes\\) is not in the model's target vocabulary$`);
    for (const call of [() => ar.score(word(ar), `AA ${token}`), () => ar.decode(word(ar), { prefix: token })]) {
      assert.throws(call, (e) => e instanceof Seq2SeqError && e.kind === 'InputError' && inEngine.test(e.message) && e.message.length < 200);
    }
  });
  test('options that are not an object', () => {
    for (const bad of ['beam', 5, [], [['strategy', 'beam']], true]) assert.throws(() => ar.createSession(bad), usage(/decoding options must be an object; got /));
    assert.throws(() => ar.createSession('beam'), usage(/^decoding options must be an object; got the string "beam"$/));
  });
  test('setOptions with a bad value leaves the options as they were', () => {
    const s = ar.createSession({ strategy: 'beam', beamSize: 3 });
    assert.throws(() => s.setOptions({ beamSize: 0 }), seqError('UsageError'));
    assert.throws(() => s.setOptions({ beamSize: 'x' }), usage(/got the string "x"/));
    assert.throws(() => s.setOptions({ nope: 1 }), usage(/unknown decoding option 'nope'/));
    assert.equal(s.options.beamSize, 3);
    assert.equal(s.options.strategy, 'beam');
    s.setOptions({ beamSize: 4 });
    assert.equal(s.options.beamSize, 4);
    s.delete();
  });
});

describe('calls out of order', () => {
  test('step and run before start', () => {
    for (const model of [ar, cmlm]) {
      const s = model.createSession();
      assert.equal(s.started, false);
      assert.throws(() => s.step(), seqError('UsageError', /step\(\) before start\(\)/));
      assert.throws(() => s.run(), seqError('UsageError', /run\(\) before start\(\)/));
      s.delete();
    }
  });
  test('step and run after the end', () => {
    for (const model of [ar, cmlm]) {
      const s = model.createSession();
      s.start(word(model));
      let last;
      while (!s.done) last = s.step();
      assert.equal(last.done, true);
      assert.ok(Array.isArray(last.results));
      assert.throws(() => s.step(), seqError('UsageError', /the decode has finished: start a new one/));
      assert.throws(() => s.run(), seqError('UsageError', /the decode has finished/));
      s.start(word(model));
      assert.equal(s.done, false, 'a new start() is fine');
      assert.equal(s.run().length, 1);
      s.delete();
    }
  });
});

describe('use after delete', () => {
  test('a deleted Model throws a clear error on every use', async () => {
    const m = await loadModel(arBytes);
    assert.equal(m.deleted, false);
    m.delete();
    assert.equal(m.deleted, true);
    m.delete();   // idempotent
    const deleted = seqError('UsageError', /this Model has been deleted/);
    assert.throws(() => m.info, deleted);
    assert.throws(() => m.autoregressive, deleted);
    assert.throws(() => m.tokenize('ABC'), deleted);
    assert.throws(() => m.createSession(), deleted);
    assert.throws(() => m.decode('ABC'), deleted);
    assert.throws(() => new Session(m), deleted);
  });
  test('a deleted Session throws a clear error on every use', () => {
    const s = ar.createSession();
    s.start(word(ar));
    s.delete();
    s.delete();   // idempotent
    assert.equal(s.deleted, true);
    const deleted = seqError('UsageError', /this Session has been deleted/);
    for (const use of [() => s.step(), () => s.run(), () => s.start('ABC'), () => s.decode('ABC'), () => s.done, () => s.started,
      () => s.maxLength, () => s.options, () => s.setOptions({})]) assert.throws(use, deleted);
  });
  test('a session outlives its deleted model (it holds the weights)', async () => {
    const m = await loadModel(arBytes);
    const s = m.createSession();
    const w = word(m);
    const before = s.decode(w);
    m.delete();
    assert.deepEqual(s.decode(w), before);
    s.delete();
  });
  test('Model and Session cannot be made by hand', () => {
    assert.throws(() => new Model(), usage(/use loadModel/));
    assert.throws(() => new Session({}), usage(/needs a Model from loadModel\(\); got an object$/));
    assert.throws(() => new Session(null), usage(/needs a Model from loadModel\(\); got null$/));
  });
});
