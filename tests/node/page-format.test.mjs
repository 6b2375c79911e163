// The page's number formats, one way each wherever a view writes them (web/js/format.js):
// a probability as a percentage, the same in the candidate bars, their descriptions and
// the teacher-forcing table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fmtPct } from '../../web/js/format.js';
import { bars } from '../../web/js/views.js';
import { forcingView } from '../../web/js/forced.js';

const values = (html) => [...html.matchAll(/<span class="bar-value">([^<]*)/g)].map((m) => m[1]);

test('a percentage is written one way: one decimal down to 0.1 %, one significant digit below', () => {
  assert.equal(fmtPct(0.957), '95.7%');
  assert.equal(fmtPct(0.001004), '0.1%');
  assert.equal(fmtPct(0.000996), '0.1%', 'not 0.10% beside 0.1%');
  assert.equal(fmtPct(0.00094), '0.09%');
  assert.equal(fmtPct(0.0000123), '0.001%');
  assert.equal(fmtPct(0), '0%');
  assert.equal(fmtPct(1), '100.0%');
});

test('the candidate bars write their percentages with it, drawn and model alike', () => {
  const cands = [{ token: 5, text: 'N', prob: 0.957 }, { token: 6, text: 'W', prob: 0.001004 }, { token: 7, text: 'D', prob: 0.000996 }];
  assert.deepEqual(values(bars(cands, 5)), ['95.7%', '0.1%', '0.1%']);
  const drawn = cands.map((c) => ({ ...c, drawnProb: c.prob / 0.997 }));
  const html = bars(drawn, 5);
  assert.deepEqual(values(html), [fmtPct(0.957 / 0.997), '0.1%', '0.1%']);
  assert.deepEqual([...html.matchAll(/<span class="bar-model"[^>]*>([^<]*)/g)].map((m) => m[1]), ['model 95.7%', 'model 0.1%', 'model 0.1%']);
  // Read out: the same numbers.
  assert.match(html, /D: drawn with probability 0\.1% \(the model gives 0\.1%\)/);
});

test('the teacher-forcing table writes its probabilities with it', () => {
  const f = { done: true, output: { text: 'A B' }, refs: [{ text: 'A C', texts: ['A', 'C'], score: -1, tokenLogprobs: [Math.log(0.957), Math.log(0.00094), Math.log(0.5)] }] };
  const html = forcingView(f, [{ text: 'A', prob: 0.957 }, { text: 'B', prob: 0.00094 }, { text: '</s>', prob: 0.5 }]);
  const cells = [...html.matchAll(/<td class="num" data-p="[^"]*">([^<]*)/g)].map((m) => m[1]);
  assert.deepEqual(cells, ['95.7%', '95.7%', '0.09%', '0.09%', '50.0%', '50.0%']);
});
