// seq2seq train, the native CLI's trainer (docs/training.md): progress as JSON
// lines, a model that decodes, a checkpoint that resumes to the same bytes, and
// a clear error (exit 2 for flags and options, 1 for data and files) for every
// kind of bad input, with nothing written after a failure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, describe, test } from 'node:test';
import { cliPath, join } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'seq2seq-train-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(args) {
  const r = spawnSync(cliPath(), args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const lines = (text) => text.split('\n').filter(Boolean);
// A run of seconds: a one-layer model of width 16 copying 2 to 4 letters.
const TINY = ['--task', 'copy', '--min-length', '2', '--max-length', '4', '--layers', '1', '--heads', '2', '--d-model', '16',
  '--d-ff', '32', '--batch-size', '8', '--eval-size', '10', '--eval-every', '10', '--log-every', '5', '--warmup-steps', '5'];

describe('a run', () => {
  test('--json: one record per --log-every steps, the held-out accuracy at each evaluation; the model decodes', () => {
    const out = join(dir, 'copy.safetensors');
    const r = run(['train', ...TINY, '--steps', '20', '--json', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const records = lines(r.stdout).map((l) => JSON.parse(l));
    assert.deepEqual(records.map((x) => x.step), [5, 10, 15, 20]);
    for (const x of records) {
      assert.equal(x.steps, 20);
      for (const k of ['loss', 'tokenAccuracy', 'learningRate', 'gradNorm', 'stepsPerSecond', 'elapsedSeconds']) {
        assert.ok(Number.isFinite(x[k]), `${k} of ${JSON.stringify(x)}`);
      }
      assert.equal('wordAccuracy' in x, x.step % 10 === 0);
    }
    assert.equal(records[3].heldOut, 10);
    assert.ok(records[3].loss < records[0].loss, 'the loss falls');
    const d = run(['decode', '--model', out, 'abc', 'ABCD']);
    assert.equal(d.status, 0, d.stderr);
    assert.equal(lines(d.stdout).length, 2);
    const info = run(['info', out]);
    assert.match(info.stdout, /name: +copy-transformer/);
    assert.match(info.stdout, /f32 storage/);
  });

  test('--int8 writes int8 weights; text progress names the steps and the held-out accuracy', () => {
    const out = join(dir, 'copy8.safetensors');
    const r = run(['train', ...TINY, '--steps', '10', '--int8', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^training copy-transformer: \d+ parameters, 28 source and 31 target tokens, 10 held-out examples; step 0 of 10$/m);
    assert.match(r.stdout, /^step 10\/10 {2}loss [\d.]+ {2}token accuracy [\d.]+% {2}[\d.]+ steps\/s {2}held-out exact [\d.]+% of 10, tokens [\d.]+% teacher-forced, [\d.]+% free-running$/m);
    assert.match(run(['info', out]).stdout, /int8 storage/);
    // Under label smoothing the first line names the loss's floor: the smoothed target's entropy over the 31 target tokens.
    const smoothed = run(['train', ...TINY, '--steps', '1', '--label-smoothing', '0.1', '--out', join(dir, 'smoothed.safetensors')]);
    assert.equal(smoothed.status, 0, smoothed.stderr);
    const floor = Number(smoothed.stdout.match(/; the loss's floor under label smoothing ([\d.]+)$/m)[1]);
    const e = Math.fround(0.1), V = 31, on = 1 - e + e / V;
    assert.ok(Math.abs(floor + on * Math.log(on) + (V - 1) * (e / V) * Math.log(e / V)) < 1e-5, `${floor}`);
  });

  test('--arch rnn with scheduled sampling: records carry epsilon and the share of own tokens read; the GRU model decodes greedy and beam', () => {
    const out = join(dir, 'copy-rnn.safetensors');
    const r = run(['train', '--arch', 'rnn', '--task', 'copy', '--min-length', '2', '--max-length', '4', '--emb-dim', '8',
      '--enc-hidden', '16', '--dec-hidden', '32', '--attn-dim', '8', '--batch-size', '8', '--eval-size', '10', '--eval-every', '10',
      '--log-every', '5', '--warmup-steps', '5', '--steps', '20', '--scheduled-sampling', 'inverse_sigmoid', '--sampling-midpoint', '8',
      '--json', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const records = lines(r.stdout).map((l) => JSON.parse(l));
    assert.deepEqual(records.map((x) => x.step), [5, 10, 15, 20]);
    // inverse sigmoid with k ln k = 8: epsilon = k / (k + exp((step - 1) / k)), 0.5 at step 9
    let k = 1;
    for (let lo = 1, hi = 16, i = 0; i < 200; i++) { k = (lo + hi) / 2; if (k * Math.log(k) < 8) lo = k; else hi = k; }
    for (const x of records) {
      assert.ok(Math.abs(x.trueTokenProbability - k / (k + Math.exp((x.step - 1) / k))) < 1e-9, JSON.stringify(x));
      assert.ok(x.ownTokenShare >= 0 && x.ownTokenShare <= 1);
    }
    assert.ok(records[3].ownTokenShare > records[0].ownTokenShare, 'more of its own tokens as epsilon falls');
    for (const beam of [[], ['--beam', '3']]) {
      const d = run(['decode', '--model', out, ...beam, 'abc']);
      assert.equal(d.status, 0, d.stderr);
      assert.equal(lines(d.stdout).length, 1);
    }
    assert.match(run(['info', out]).stdout, /name: +copy-rnn-additive/);
  });

  test('names --copy: held-out names, in no vocabulary, are copied; the same run without --copy writes none', () => {
    // A one-layer model and 100 steps (under a second): the target with the task's
    // default sizes and steps is measured in docs/training.md.
    const small = ['--task', 'names', '--layers', '1', '--heads', '2', '--d-model', '32', '--d-ff', '64', '--batch-size', '16',
      '--steps', '100', '--warmup-steps', '10', '--eval-size', '50', '--eval-every', '0', '--log-every', '100', '--json'];
    const accuracy = {};
    for (const copy of ['--copy', '--no-copy']) {
      const out = join(dir, `names${copy}.safetensors`);
      const r = run(['train', ...small, copy, '--out', out]);
      assert.equal(r.status, 0, r.stderr);
      const last = lines(r.stdout).map((l) => JSON.parse(l)).at(-1);
      assert.equal(last.heldOut, 50);
      accuracy[copy] = last.wordAccuracy;
      const info = run(['info', out]).stdout;
      assert.match(info, copy === '--copy' ? /name: +names-transformer-copy/ : /name: +names-transformer\n/);
      // A name no vocabulary holds: only a copy model can write it.
      const d = run(['decode', '--model', out, 'my name is zorblat', 'call me quixby']);
      assert.equal(d.status, 0, d.stderr);
      const outputs = lines(d.stdout).map((l) => l.split('\t')[1]);
      if (copy === '--copy') assert.deepEqual(outputs, ['hello zorblat', 'nice to meet you quixby']);
      else for (const o of outputs) assert.ok(!/zorblat|quixby/.test(o), o);
    }
    assert.ok(accuracy['--copy'] >= 0.9, JSON.stringify(accuracy));
    assert.equal(accuracy['--no-copy'], 0, JSON.stringify(accuracy));
  });

  test('--guided-attention WEIGHT,WIDTH: records carry the penalty apart from the loss, and it falls; the text line names it', () => {
    const out = join(dir, 'copy-ga.safetensors');
    const r = run(['train', ...TINY, '--steps', '20', '--learning-rate', '0.02', '--guided-attention', '5,0.3', '--json', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const records = lines(r.stdout).map((l) => JSON.parse(l));
    assert.deepEqual(records.map((x) => x.step), [5, 10, 15, 20]);
    for (const x of records) assert.ok(x.attentionLoss > 0 && x.attentionLoss < 1, JSON.stringify(x));
    assert.ok(records[3].attentionLoss < 0.9 * records[0].attentionLoss, 'the penalty falls');
    assert.match(run(['info', out]).stdout, /guided attention 5 \(width 0\.3, layer all, head all\)/);
    const plain = run(['train', ...TINY, '--steps', '5', '--json', '--out', out]);
    assert.equal('attentionLoss' in JSON.parse(lines(plain.stdout)[0]), false, 'no penalty field when it is off');
    const text = run(['train', ...TINY, '--steps', '5', '--guided-attention-weight', '1', '--guided-attention-layer', '0',
      '--guided-attention-head', '1', '--out', out]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^step 5\/5 {2}loss [\d.]+ {2}attention loss 0\.\d{4} {2}token accuracy /m);
  });

  test('a Transformer with scheduled sampling (two passes): records carry epsilon and the share of own tokens read', () => {
    const out = join(dir, 'copy-ss.safetensors');
    const r = run(['train', ...TINY, '--steps', '20', '--scheduled-sampling', 'linear', '--sampling-midpoint', '8',
      '--sampling-token', 'sample', '--json', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const records = lines(r.stdout).map((l) => JSON.parse(l));
    assert.deepEqual(records.map((x) => x.step), [5, 10, 15, 20]);
    for (const x of records) {
      // linear: epsilon = 1 - (step - 1) / 16, at least 0
      assert.ok(Math.abs(x.trueTokenProbability - Math.max(0, 1 - (x.step - 1) / 16)) < 1e-12, JSON.stringify(x));
      assert.ok(x.ownTokenShare >= 0 && x.ownTokenShare <= 1);
    }
    assert.ok(records[3].ownTokenShare > records[0].ownTokenShare, 'more of its own tokens as epsilon falls');
    assert.equal(run(['decode', '--model', out, 'abc']).status, 0);
  });

  test('a checkpoint resumes to the very model an uninterrupted run writes', () => {
    const whole = join(dir, 'whole.safetensors');
    const part = join(dir, 'part.safetensors');
    const resumed = join(dir, 'resumed.safetensors');
    const cp = join(dir, 'run.ckpt');
    assert.equal(run(['train', ...TINY, '--dropout', '0.1', '--steps', '20', '--out', whole]).status, 0);
    const stopped = run(['train', ...TINY, '--dropout', '0.1', '--steps', '20', '--stop-after', '7', '--checkpoint', cp, '--out', part]);
    assert.equal(stopped.status, 0, stopped.stderr);
    assert.match(stopped.stdout, /stopped after step 7 \(--stop-after\); no model written/);
    assert.equal(existsSync(part), false);
    const r = run(['train', ...TINY, '--dropout', '0.1', '--steps', '20', '--resume', cp, '--out', resumed]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /step 7 of 20/);
    assert.deepEqual(readFileSync(resumed), readFileSync(whole));
    const other = join(dir, 'other.safetensors');
    const bad = run(['train', ...TINY, '--dropout', '0.2', '--steps', '20', '--resume', cp, '--out', other]);
    assert.equal(bad.status, 1);
    assert.equal(bad.stderr, 'seq2seq: checkpoint: it was trained with dropout = 0.1; this run asks for 0.2 (--dropout)\n');
    assert.equal(existsSync(other), false, 'nothing is written after a failure');
  });
});

describe('bad input: a clear error, nothing written', () => {
  const out = join(dir, 'never.safetensors');
  const empty = join(dir, 'empty.tsv');
  const broken = join(dir, 'broken.tsv');
  writeFileSync(empty, '');
  writeFileSync(broken, 'CAT\tK AE T\nDOG D AO G\n');
  const cases = [
    [['--task', 'translate'], 2, "option --task needs one of reverse, sort, copy, names, g2p, got 'translate'"],
    [['--d-model', '2'], 2, "option --d-model needs an integer in [4, 1024], got '2'"],
    [['--learning-rate', '0'], 2, "option --learning-rate needs a number in (0, 1], got '0'"],
    [['--label-smoothing', '1'], 2, "option --label-smoothing needs a number in [0, 0.99], got '1'"],
    [['--norm', 'middle'], 2, "option --norm needs one of pre, post, got 'middle'"],
    [['--d-model', '66'], 2, 'training option heads = 4 does not divide d_model = 66'],
    [['--min-length', '9', '--max-length', '5'], 2, 'training option min_length = 9 is more than max_length = 5'],
    [['--frobnicate'], 2, "unknown option '--frobnicate' (seq2seq train --help lists them)"],
    [['--task', 'g2p'], 2, "task g2p reads the training recipe's train.tsv (WORD<TAB>PH ON ES lines): give --data FILE (python3 -m models.train prepare-data writes models/train/work/data/train.tsv)"],
    [['--task', 'g2p', '--data', empty], 1, 'data: the file holds no examples (WORD<TAB>PH ON ES lines)'],
    [['--task', 'g2p', '--data', broken], 1, 'data: line 2: no TAB between the word and its phonemes (WORD<TAB>PH ON ES)'],
    [['--task', 'g2p', '--data', join(dir, 'absent.tsv')], 1, `cannot open the data file '${join(dir, 'absent.tsv')}'`],
    [['--task', 'g2p', '--data', dir], 1, `the data file '${dir}' is not a regular file`],
    [['--data', broken], 2, 'task reverse is generated from the seed; --data is for task g2p'],
    [['--arch', 'rnn', '--attention', 'dot', '--enc-hidden', '64', '--dec-hidden', '100'], 2,
      'training option dec_hidden = 100: dot attention needs dec_hidden = 2 * enc_hidden = 128'],
    [['--arch', 'rnn', '--attention-dropout', '0.1'], 2, 'training option attention_dropout = 0.1: the RNN has no dropout on its attention weights'],
    [['--arch', 'rnn', '--attention', 'none', '--copy'], 2,
      'training option copy = true: the copy mechanism copies through the attention, and attention = none has none'],
    [['--copy', '--guided-attention', '1,0.2'], 2,
      'training option copy = true with guided_attention_weight = 1: guided attention with the copy mechanism is not built (both add a gradient on the same attention weights)'],
    [['--arch', 'rnn', '--copy', '--scheduled-sampling', 'linear'], 2,
      "training option copy = true with scheduled_sampling = linear: the model's own token would be drawn from the copy mix, which scheduled sampling does not draw from yet"],
    [['--arch', 'rnn', '--scheduled-sampling', 'cosine'], 2, "option --scheduled-sampling needs one of off, linear, exponential, inverse_sigmoid, got 'cosine'"],
    [['--arch', 'rnn', '--sampling-midpoint', '0'], 2, "option --sampling-midpoint needs an integer in [1, 10000000], got '0'"],
    [['--resume', broken], 1, /^checkpoint: not a checkpoint file: model file: /],
    [['--arch', 'rnn', '--attention', 'none', '--guided-attention', '1'], 2,
      'training option guided_attention_weight = 1: attention none has no attention weights to guide; the scores dot, multiplicative, reduced_rank and additive have'],
    [['--guided-attention', '1', '--guided-attention-layer', '2'], 2,
      'training option guided_attention_layer = 2 is outside [-1, 1]: the model has layers = 2 decoder layers, 0 the first (-1: all of them)'],
    [['--heads', '2', '--guided-attention-head', '2'], 2,
      'training option guided_attention_head = 2 is outside [-1, 1]: the model has heads = 2 heads, 0 the first (-1: all of them)'],
    [['--arch', 'rnn', '--guided-attention-head', '0'], 2, "training option guided_attention_head = 0: the RNN's attention has no heads; leave it at -1"],
    [['--guided-attention', '1,0.2,3'], 2, "option --guided-attention needs 1 to 2 numbers separated by commas, got '1,0.2,3'"],
    [['--guided-attention', '1,'], 2, "option --guided-attention needs 1 to 2 numbers separated by commas, got '1,'"],
    [['--guided-attention', '1,2'], 2, "option --guided-attention (--guided-attention-width) needs a number in (0, 1], got '2'"],
    [['--guided-attention', '-1'], 2, "option --guided-attention (--guided-attention-weight) needs a number in [0, 100], got '-1'"],
    [['--guided-attention-head', '16'], 2, "option --guided-attention-head needs an integer in [-1, 15], got '16'"],
  ];
  for (const [flags, status, message] of cases) {
    test(flags.join(' '), () => {
      const r = run(['train', ...flags, '--out', out]);
      assert.equal(r.status, status, r.stderr);
      if (message instanceof RegExp) assert.match(r.stderr.replace(/^seq2seq: /, ''), message);
      else assert.equal(r.stderr, `seq2seq: ${message}\n`);
      assert.equal(existsSync(out), false);
    });
  }
  test('a run over the memory bound is refused before it starts, with what it needs', () => {
    const r = run(['train', '--d-model', '512', '--d-ff', '2048', '--layers', '6', '--batch-size', '512', '--memory-limit-mb', '64', '--out', out]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^seq2seq: this run needs \d+ MB \(weights, gradients, AdamW's moments, activations of a batch of 512\), more than memory_limit_mb = 64/);
  });
  test('a flag without its value', () => {
    const r = run(['train', '--out', out, '--steps']);
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'seq2seq: option --steps needs a value\n');
  });
  test('no --out: nothing to write to', () => {
    const r = run(['train', '--steps', '1']);
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'seq2seq: train needs --out FILE, where the trained model is written\n');
  });
  test('--help lists every training option', () => {
    const r = run(['train', '--help']);
    assert.equal(r.status, 0);
    for (const flag of ['--task TASK', '--copy, --no-copy', '--d-model N', '--label-smoothing X', '--tie-output, --no-tie-output', '--resume FILE', '--out FILE']) {
      assert.ok(r.stdout.includes(flag), flag);
    }
  });
});
