// `seq2seq decode --trace --trace-inside STEP`: the trace line of decoder pass STEP
// carries the inside of that pass, equal value for value to what `seq2seq inspect`
// prints for the same decoder input, on the shipped Transformer, CMLM and RNNs
// with the settings they are measured with (models/manifest.json). The decoder
// input is found here from the line's own snapshot: the best live hypothesis's
// tokens before its last (on the last line, with none live, the best that finished
// at that step; on a beam's last line that shows neither, the best hypothesis live
// before the step), or a CMLM's best draft with this iteration's re-masked positions
// masked. No other line carries an inside.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { FIXTURES, MODELS_PACKAGE, join, runCli } from './helpers.mjs';

const manifest = JSON.parse(readFileSync(join(MODELS_PACKAGE, 'manifest.json'), 'utf8'));
const shipped = (name) => {
  const m = manifest.models.find((x) => x.name === name);
  return { path: join(MODELS_PACKAGE, m.file), flags: m.cli.split(' ') };
};
const MASK = '<mask>';

const trace = (path, flags, word, step) =>
  runCli(['decode', '--model', path, ...flags, '--trace', ...(step ? ['--trace-inside', String(step)] : []), word])
    .split('\n').filter(Boolean).map((l) => JSON.parse(l));

// The best of `hs` by score, the first of equals (live and finished are listed best first).
const best = (hs) => hs.reduce((a, h) => (a === null || h.score > a.score ? h : a), null);

// The decoder input of the pass a line shows, as inspect's TOKENS, and whose it is;
// `live` is what was live before the step.
function passOf(line, live) {
  if (!line.autoregressive) {
    const d = line.drafts[line.bestDraft];
    return { tokens: d.texts.map((t, i) => (d.masked[i] ? MASK : t)), key: 'insideDraft', index: line.bestDraft };
  }
  const h = best(line.live) ?? best(line.finished.filter((f) => f.tokens.length === line.step));
  if (h) return { tokens: h.texts.slice(0, -1), key: 'insideHypothesis', index: h.parent };
  const read = best(live);
  return { tokens: read.texts, key: 'insideHypothesis', index: read.id };
}

const CASES = [
  ['g2p-transformer, beam 5', shipped('g2p-transformer'), 'PHONEME'],
  ['g2p-transformer, greedy', { ...shipped('g2p-transformer'), flags: ['--greedy'] }, 'COLONEL'],
  ['g2p-cmlm, Mask-Predict with 3 lengths', shipped('g2p-cmlm'), 'PHONEME'],
  ['g2p-rnn-dot, beam 5', shipped('g2p-rnn-dot'), 'PHONEME'],
  ['g2p-rnn-none, beam 5', shipped('g2p-rnn-none'), 'KNIGHT'],
  // Its last line shows no hypothesis of its own: the beam stopped as the two it kept
  // could no longer beat the one finished, and left them off.
  ['a fixture Transformer, beam 2 unnormalised', { path: join(FIXTURES, 'ar_post_sin_tied_relu.safetensors'), flags: ['--beam', '2', '--length-norm', 'none'] }, 'CAFE', 'falls back'],
];

describe('--trace-inside STEP: the inside of pass STEP, as inspect prints it', () => {
  for (const [name, { path, flags }, word, fallsBack] of CASES) {
    test(`${name}: every pass of ${word}`, () => {
      const plain = trace(path, flags, word);
      assert.ok(plain.length >= 2, `${name}: ${plain.length} passes`);
      const last = plain.at(-1);
      if (last.autoregressive) {
        const shown = last.live.length + last.finished.filter((f) => f.tokens.length === last.step).length;
        assert.equal(shown === 0, Boolean(fallsBack), `${name}: hypotheses of the last pass shown`);
      }
      for (let step = 1; step <= plain.length; step++) {
        const lines = trace(path, flags, word, step);
        // The rest of the trace is the trace without the flag.
        assert.deepEqual(lines.map(({ inside, insideHypothesis, insideDraft, ...rest }) => rest), plain, `step ${step}`);
        lines.forEach((l, i) => assert.equal('inside' in l, i + 1 === step, `step ${step}: line ${i + 1}`));
        const line = lines[step - 1];
        const pass = passOf(line, step === 1 ? [{ id: 0, texts: [], score: 0 }] : lines[step - 2].live);
        assert.equal(line[pass.key], pass.index, `step ${step}: ${pass.key}`);
        const inspected = JSON.parse(runCli(['inspect', '--model', path, word, pass.tokens.join(' ')]));
        assert.deepEqual(line.inside, inspected, `step ${step}: the inside of ${JSON.stringify(pass.tokens.join(' '))}`);
        // Autoregressive: BOS, then the tokens; its last row made the step's token.
        const fed = line.autoregressive ? line.inside.targetTexts.slice(1) : line.inside.targetTexts;
        assert.deepEqual(fed, pass.tokens, `step ${step}: the decoder input`);
      }
    });
  }
});
