// The load option `compute`: int8-stored models multiply in int8 by default and
// in f32 when asked, through the installed package, with the same outputs as
// each other and as the native CLI under the same --compute.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, test } from 'node:test';
import { close, installPackage, parityModels, runCli, wordsFor } from './helpers.mjs';

const { loadModel, Seq2SeqError } = await installPackage().importPackage();

// int8-stored models: the shipped ones, and the int8 fixture.
const int8Models = [];
for (const path of parityModels()) {
  const m = await loadModel(new Uint8Array(readFileSync(path)));
  if (m.info.storage === 'int8') int8Models.push(path);
  m.delete();
}

test('there are int8-stored models to test with', () => assert.ok(int8Models.length >= 1));

for (const path of int8Models) {
  describe(basename(path), () => {
    test("'auto' computes in int8, 'f32' in f32; outputs agree with each other and with the CLI", async () => {
      const bytes = new Uint8Array(readFileSync(path));
      const auto = await loadModel(bytes);
      const f32 = await loadModel(bytes, { compute: 'f32' });
      try {
        assert.equal(auto.info.compute, 'int8');
        assert.equal(f32.info.compute, 'f32');
        assert.equal((await loadModel(bytes, { compute: 'auto' })).info.compute, 'int8');
        const words = wordsFor(auto.info, 8);
        const cli = (compute) => runCli(['decode', '--model', path, '--compute', compute, ...words]).trim().split('\n').map((l) => l.split('\t'));
        for (const [model, compute] of [[auto, 'auto'], [f32, 'f32']]) {
          const lines = cli(compute);
          words.forEach((w, i) => {
            const [r] = model.decode(w);
            assert.equal(r.text, lines[i][1], `${compute} ${w}: the CLI's output`);
            // f32: the faces agree to 1e-4 (parity.test.mjs); int8: a last-bit difference
            // elsewhere can move an activation across an int16 rounding step.
            const tol = compute === 'f32' ? 1e-4 : 1e-3;
            assert.ok(close(r.score, Number(lines[i][2]), tol), `${compute} ${w}: score ${r.score} vs the CLI's ${lines[i][2]}`);
          });
        }
        for (const w of words) {
          const [a] = auto.decode(w);
          const [b] = f32.decode(w);
          // int8 compute rounds activations to int16 (2^-16 of a row's largest value):
          // the same output, scores within a few thousandths.
          assert.equal(a.text, b.text, `${w}: int8 and f32 compute decode alike`);
          assert.ok(Math.abs(a.score - b.score) < 5e-3, `${w}: scores ${a.score} and ${b.score}`);
        }
      } finally {
        auto.delete();
        f32.delete();
      }
    });
  });
}

test('bad load options are a Seq2SeqError of kind UsageError', async () => {
  const bytes = new Uint8Array(readFileSync(int8Models[0]));
  for (const [options, message] of [
    [{ compute: 'int4' }, /compute must be 'auto' or 'f32'; got 'int4'/],
    [{ compute: 8 }, /compute must be 'auto' or 'f32'; got the number 8$/],
    [{ compute: Symbol('f32') }, /compute must be 'auto' or 'f32'; got a symbol$/],
    [{ precision: 'f32' }, /unknown option 'precision'/],
    [{ toString: 'f32' }, /unknown option 'toString'/],
    ['f32', /options must be an object/],
    [null, /options must be an object/],
  ]) {
    await assert.rejects(loadModel(bytes, options), (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && message.test(e.message));
  }
});
