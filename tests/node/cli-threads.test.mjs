// The native CLI's decode --threads N: a word list decoded on N threads prints
// exactly what one thread prints (stdout and stderr byte for byte, the exit
// status too), in input order, each unusable word reported where it stands; a
// bad value, or --threads where it has no meaning, is a usage error (exit 2).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { FIXTURES, ROOT, cliPath, join } from './helpers.mjs';
import { existsSync } from 'node:fs';

const shipped = join(ROOT, 'models/g2p-transformer.safetensors');
const AR = existsSync(shipped) ? shipped : join(FIXTURES, 'ar_post_sin_tied_relu.safetensors');
const CMLM = join(FIXTURES, 'cmlm_pre_sin_tied_relu.safetensors');
const RNN = join(FIXTURES, 'rnn_additive.safetensors');

function run(args, input = '') {
  const r = spawnSync(cliPath(), args, { input, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Words of uneven length, a blank line, a control character and a line longer than
// any text the engine takes, among them.
function list(words) {
  const out = [];
  for (let k = 0; k < 12; k++) {
    for (const w of words) out.push(k % 2 ? w : w.split('').reverse().join(''));
    if (k === 3) out.push('', 'A\u0001B');
    if (k === 7) out.push('A'.repeat(70000));
  }
  return `${out.join('\n')}\n`;
}

describe('decode --threads N', () => {
  const cases = [
    [AR, ['ABC', 'PHONEME', 'A', 'QUEUE', 'KNIGHTHOOD', 'XYLOPHONES', 'BE']],
    [CMLM, ['ABC', 'GADE', 'FACEDBAGFACE', 'A', 'BEG']],
    [RNN, ['ABC', 'GADE', 'FACEDBAGFACE', 'A', 'BEG']],
  ];
  for (const [model, words] of cases) {
    test(`${model.split('/').pop()}: the output of one thread, byte for byte, errors in place`, () => {
      const input = list(words);
      for (const options of [[], ['--beam', '3', '--n-best', '2']].filter((o) => !(model === CMLM && o.length))) {
        const one = run(['decode', '--model', model, ...options], input);
        assert.equal(one.status, 1, one.stderr);   // the unusable lines
        assert.match(one.stderr, /line \d+ 'A\\x01B': input: /);
        assert.match(one.stderr, /\(70000 bytes\): input: the text has 70000 bytes/);
        assert.ok(one.stdout.split('\n').length > 5 * words.length);
        assert.deepEqual(run(['decode', '--model', model, '--threads', '1', ...options], input), one);
        for (const threads of ['2', '3', '0']) {
          assert.deepEqual(run(['decode', '--model', model, '--threads', threads, ...options], input), one, `--threads ${threads} ${options.join(' ')}`);
        }
        // Words as arguments too.
        const args = input.split('\n').filter((w) => w && w.length < 100);
        const alone = run(['decode', '--model', model, ...options, ...args]);
        assert.deepEqual(run(['decode', '--model', model, '--threads', '2', ...options, ...args]), alone);
      }
    });
  }

  test('a bad value, or --threads where it means nothing: a usage error, exit 2', () => {
    for (const [value, message] of [['2.5', "got '2.5'"], ['-1', "got '-1'"], ['257', "got '257'"], ['two', "got 'two'"]]) {
      const r = run(['decode', '--model', AR, '--threads', value, 'ABC']);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `seq2seq: option --threads needs an integer in [0, 256], ${message}\n`);
    }
    const missing = run(['decode', '--model', AR, 'ABC', '--threads']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /option --threads needs a value/);
    const traced = run(['decode', '--model', AR, '--trace', '--threads', '2', 'ABC']);
    assert.equal(traced.status, 2);
    assert.match(traced.stderr, /--threads decodes the words together; --trace prints one decode at a time/);
    const scored = run(['score', '--model', AR, '--threads', '2', 'ABC', 'EY']);
    assert.equal(scored.status, 2);
    assert.match(scored.stderr, /score has no --threads/);
    assert.equal(run(['inspect', '--model', AR, '--threads', '2', 'ABC']).status, 2);
  });
});
