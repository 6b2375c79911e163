// Forced scores through the installed package (Model.score, Session.score, the
// worker's score): the numbers the native CLI's `seq2seq score` prints, on
// shipped and fixture models of every kind; targets as strings or arrays; and
// every bad target or call a Seq2SeqError of the right kind.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { after, describe, test } from 'node:test';
import { FIXTURES, cliPath, close, installPackage, join, modelPath, runCli, wordsFor } from './helpers.mjs';
import { LENGTH_NORMS, normalizedScore } from '../../web/js/page-options.js';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
const { createWorkerHandler } = await pkg.importPackage('/worker-protocol');
const { createDecoderWorker } = await pkg.importPackage('/worker');

const seqError = (kind, message) => (e) => {
  assert.ok(e instanceof Seq2SeqError, `a Seq2SeqError, got ${e?.name}: ${e?.message}`);
  assert.equal(e.kind, kind, `kind of: ${e.message}`);
  if (message) assert.match(e.message, message);
  return true;
};

const AR = modelPath('ar');
const CMLM = modelPath('cmlm');
const PATHS = [AR, CMLM, join(FIXTURES, 'ar_pre_learned_untied_gelu.safetensors'), join(FIXTURES, 'rnn_additive.safetensors'),
  join(FIXTURES, 'cmlm_post_learned_untied_gelu.safetensors')];
// f32 compute on both faces, where they agree to 1e-4 (as in parity.test.mjs).
const models = await Promise.all(PATHS.map(async (path) => [path, await loadModel(new Uint8Array(readFileSync(path)), { compute: 'f32' })]));
after(() => { for (const [, model] of models) model.delete(); });

// The CLI's line: source, target, logprob, score, the token log-probabilities.
function cliScores(path, flags, pairs) {
  const input = pairs.map(([w, t]) => `${w}\t${t}`).join('\n') + '\n';
  return runCli(['score', '--model', path, '--compute', 'f32', ...flags], input).trim().split('\n').map((line) => {
    const [word, text, logprob, score, tokens] = line.split('\t');
    return { word, text, logprob: Number(logprob), score: Number(score), tokenLogprobs: tokens.split(' ').map(Number) };
  });
}

test('the page\'s length-normalised score (web/js/page-options.js) is the engine\'s, for every normalisation', () => {
  const model = models.find(([path]) => path === AR)[1];
  const word = wordsFor(model.info, 1)[0];
  const { text } = model.decode(word)[0];
  for (const norm of Object.keys(LENGTH_NORMS)) {
    for (const alpha of [0.3, 1.7]) {
      const f = model.score(word, text, { lengthNorm: norm, gnmtAlpha: alpha });
      const page = normalizedScore(f.logprob, f.length, norm, alpha);
      assert.ok(Math.abs(page - f.score) < 1e-5 * Math.max(1, Math.abs(f.score)), `${norm} α ${alpha}: page ${page}, engine ${f.score}`);
    }
  }
});

for (const [path, model] of models) {
  describe(basename(path), () => {
    const words = wordsFor(model.info, 6);
    const cases = model.autoregressive
      ? [[[], {}], [['--beam', '4', '--length-norm', 'gnmt', '--gnmt-alpha', '0.8'], { strategy: 'beam', beamSize: 4, lengthNorm: 'gnmt', gnmtAlpha: 0.8 }]]
      : [[[], {}], [['--length-score-weight', '0.4'], { lengthScoreWeight: 0.4 }], [['--nar-length', 'given', '--nar-given-length', '3'], { narLength: 'given', narGivenLength: 3 }]];

    test('score() gives the numbers of the native `seq2seq score`', () => {
      // Each word's own output, and a target made of the model's first real tokens.
      const emittable = model.info.targetVocab.filter((t, i) => !Object.values(model.info.targetSpecials).includes(i));
      const pairs = words.flatMap((w) => {
        const own = model.decode(w)[0].text;
        return [[w, own], [w, emittable.slice(0, 3).join(' ')]].filter(([, t]) => t !== '' || model.autoregressive);
      });
      for (const [flags, options] of cases) {
        const native = cliScores(path, flags, pairs);
        assert.equal(native.length, pairs.length, `${flags.join(' ')}: one line per pair`);
        pairs.forEach(([w, t], i) => {
          const ours = model.score(w, t, options);
          const n = native[i];
          const what = `${w} / '${t}' ${flags.join(' ')}`;
          assert.equal(ours.text, n.text, what);
          assert.equal(ours.tokens.length, t === '' ? 0 : t.split(' ').length, what);
          assert.deepEqual(ours.texts, t === '' ? [] : t.split(' '), what);
          assert.ok(close(ours.logprob, n.logprob), `${what}: logprob ${ours.logprob} vs ${n.logprob}`);
          assert.ok(close(ours.score, n.score), `${what}: score ${ours.score} vs ${n.score}`);
          assert.equal(ours.tokenLogprobs.length, n.tokenLogprobs.length, what);
          ours.tokenLogprobs.forEach((v, k) => assert.ok(close(v, n.tokenLogprobs[k]), `${what}: token ${k}`));
          assert.equal(ours.tokenLogprobs.length, ours.tokens.length + (model.autoregressive ? 1 : 0), what);
          assert.equal('lengthLogprob' in ours, !model.autoregressive, `${what}: lengthLogprob only for a CMLM`);
        });
      }
    });

    if (model.autoregressive) {
      test('the forced score of each result is that result\'s logprob and score', () => {
        for (const [, options] of cases) {
          for (const w of words) {
            for (const r of model.decode(w, { ...options, nBest: options.strategy === 'beam' ? 3 : 1 })) {
              const f = model.score(w, r.tokens.map((id) => model.info.targetVocab[id]), options);
              assert.deepEqual(f.tokens, r.tokens);
              assert.ok(close(f.logprob, r.logprob, 1e-5), `${w} '${r.text}': logprob`);
              assert.ok(close(f.score, r.score, 1e-5), `${w} '${r.text}': score`);
              assert.equal(f.length, r.length);
            }
          }
        }
      });
    }
  });
}

describe('Session.score and the target argument', () => {
  const model = models[0][1];
  const word = wordsFor(model.info, 1)[0];
  const target = model.decode(word)[0].text.split(' ');

  test('a target as a string or as an array of tokens is the same target', () => {
    assert.deepEqual(model.score(word, target), model.score(word, target.join(' ')));
    assert.deepEqual(model.score(word, target), model.score(word, `  ${target.join('   ')} `));
  });

  test('a session scores under its own options and leaves its decode as it was', () => {
    const session = model.createSession({ strategy: 'beam', beamSize: 3, lengthNorm: 'none' });
    const fresh = model.createSession({ strategy: 'beam', beamSize: 3, lengthNorm: 'none' });
    session.start(word);
    session.step();
    const f = session.score(word, target);
    assert.equal(f.score, f.logprob, 'no normalisation');
    assert.deepEqual(f, model.score(word, target, { strategy: 'beam', beamSize: 3, lengthNorm: 'none' }));
    assert.deepEqual(session.run(), fresh.decode(word));
    session.delete();
    fresh.delete();
    assert.throws(() => session.score(word, target), seqError('UsageError', /deleted/));
  });

  test('bad targets and arguments are Seq2SeqErrors of the right kind', () => {
    assert.throws(() => model.score(word, [...target, 'QQ']), seqError('InputError', /target token 'QQ' is not in the model's target vocabulary/));
    const eos = model.info.targetVocab[model.info.targetSpecials.eos];
    assert.throws(() => model.score(word, [...target, eos]),
      seqError('InputError', new RegExp(`target token '${eos}' at position ${target.length + 1} is a special token.*without EOS`)));
    const bos = model.info.targetVocab[model.info.targetSpecials.bos];
    assert.throws(() => model.score(word, `${bos} ${target[0]}`), seqError('InputError', /at position 1 is a special token/));
    const long = Array(model.info.maxPositions).fill(target[0]);
    assert.throws(() => model.score(word, long), seqError('InputError', /more than the max length of/));
    assert.throws(() => model.score(word, target, { maxLength: 2 }), seqError('InputError', /max length of 2 output tokens/));
    assert.throws(() => model.score('', target), seqError('InputError', /empty/));
    assert.throws(() => model.score(word, 42), seqError('UsageError', /target must be a string of space-separated tokens or an array of tokens; got the number 42/));
    assert.throws(() => model.score(word, [target[0], 7]), seqError('UsageError', /target\[1\] must be one token .*; got the number 7/));
    assert.throws(() => model.score(word, [target[0], 'A B']), seqError('UsageError', /target\[1\] must be one token/));
    assert.throws(() => model.score(word, [target[0], '']), seqError('UsageError', /target\[1\] must be one token/));
    assert.throws(() => model.score(null, target), seqError('UsageError', /needs a string; got null/));
    assert.throws(() => model.score(word, target, { beamSize: 0 }), seqError('UsageError', /beamSize/));
    assert.throws(() => model.score(word, target, { strategy: 'nar' }), seqError('UsageError', /needs a non-autoregressive/));
    const cmlm = models[1][1];
    assert.throws(() => cmlm.score(wordsFor(cmlm.info, 1)[0], ''), seqError('InputError', /the target is empty/));
    const mask = cmlm.info.targetVocab[cmlm.info.targetSpecials.mask];
    assert.throws(() => cmlm.score(wordsFor(cmlm.info, 1)[0], [mask]), seqError('InputError', new RegExp(`'${mask}' at position 1 is a special token`)));
  });
});

describe('the worker\'s score', () => {
  const bytes = new Uint8Array(readFileSync(AR));
  const model = models[0][1];
  const word = wordsFor(model.info, 1)[0];
  const target = model.decode(word)[0].text;

  test('in-process handler: a score request answers Model.score, before load a UsageError', async () => {
    const replies = [];
    const handle = createWorkerHandler((m) => replies.push(m));
    await handle({ id: 1, type: 'score', text: word, target });
    assert.equal(replies[0].ok, false);
    assert.equal(replies[0].error.kind, 'UsageError');
    assert.match(replies[0].error.message, /score\(\) before load\(\)/);
    await handle({ id: 2, type: 'load', source: bytes, options: { compute: 'f32' } });
    await handle({ id: 3, type: 'score', text: word, target, options: { lengthNorm: 'gnmt' } });
    assert.deepEqual(replies.at(-1), { id: 3, ok: true, value: model.score(word, target, { lengthNorm: 'gnmt' }) });
    await handle({ id: 4, type: 'score', text: word, target: 'QQ' });
    assert.equal(replies.at(-1).error.kind, 'InputError');
  });

  test('a real worker: decoder.score equals Model.score, leaves start/step alone; errors with kinds', async () => {
    const decoder = createDecoderWorker();
    try {
      await assert.rejects(decoder.score(word, target), seqError('UsageError', /before load/));
      await decoder.load(AR, { compute: 'f32' });
      await decoder.start(word, { strategy: 'beam', beamSize: 3 });
      const first = await decoder.step();
      assert.deepEqual(await decoder.score(word, target.split(' ')), model.score(word, target));
      assert.deepEqual(await decoder.score(word, target, { lengthNorm: 'none' }), model.score(word, target, { lengthNorm: 'none' }));
      const second = await decoder.step();
      assert.equal(second.step, first.step + 1, 'the decode in the worker went on where it was');
      await assert.rejects(decoder.score(word, `${target} QQ`), seqError('InputError', /'QQ'/));
      await assert.rejects(decoder.score(word, { tokens: target }), seqError('UsageError', /target must be .*; got an object/));
      await assert.rejects(decoder.score(3, target), seqError('UsageError', /needs a string; got the number 3/));
      await assert.rejects(decoder.score(word, target, { beamSize: 'five' }), seqError('UsageError', /beamSize must be an integer/));
    } finally {
      await decoder.terminate();
    }
  });
});

describe('seq2seq score: what goes wrong', () => {
  const run = (args, input = '') => spawnSync(cliPath(), ['score', ...args], { input, encoding: 'utf8' });
  const fixture = join(FIXTURES, 'ar_post_sin_tied_relu.safetensors');

  test('a bad pair is reported with its number and the rest are scored (exit 1)', () => {
    const r = run(['--model', fixture, 'ABC', 'AA B', 'ABC', 'AA QQ', 'CAB', 'AA </s>', 'BAD', '']);
    assert.equal(r.status, 1);
    assert.deepEqual(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t').slice(0, 2)), [['ABC', 'AA B'], ['BAD', '']]);
    assert.match(r.stderr, /^seq2seq: pair 2 'ABC' 'AA QQ': input: target token 'QQ' is not in the model's target vocabulary$/m);
    assert.match(r.stderr, /^seq2seq: pair 3 'CAB' 'AA <\/s>': input: target token '<\/s>' at position 2 is a special token/m);
  });

  test('stdin lines are WORD<TAB>TARGET; one without a tab is an input error for that line', () => {
    const r = run(['--model', fixture], 'ABC\tAA B\nABC AA B\n\nCAB\tK\n');
    assert.equal(r.status, 1);
    assert.deepEqual(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]), ['ABC', 'CAB']);
    assert.match(r.stderr, /^seq2seq: line 2 'ABC AA B': input: a line of score's input is WORD<TAB>TARGET$/m);
  });

  test('a word without its target, --trace, or no model: usage errors (exit 2)', () => {
    for (const [args, message] of [
      [['--model', fixture, 'ABC', 'AA', 'CAB'], "score takes WORD TARGET pairs; 'CAB' has no target"],
      [['--model', fixture, '--trace', 'ABC', 'AA'], 'score has no --trace'],
      [['ABC', 'AA'], 'score needs --model MODEL'],
    ]) {
      const r = run(args);
      assert.equal(r.status, 2, args.join(' '));
      assert.ok(r.stderr.includes(message), `${args.join(' ')}: ${r.stderr}`);
    }
  });
});
