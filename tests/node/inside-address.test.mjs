// What a lane's views hold open rides in its address parameter (web/js/address.js,
// web/js/inside-address.js): "Inside this step" as inside=..., a non-autoregressive
// lane's picked draft as draft=L. Written and read back the same; addresses without
// them read as before; a value the page cannot read is left out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeState, encodeState } from '../../web/js/address.js';
import { makeLane } from '../../web/js/lane-types.js';
import { readInside, writeInside } from '../../web/js/inside-address.js';

const inside = { stack: 'decoder', sub: 'cross', layer: 2, head: 1, pos: 3, unscaled: true, temperature: 1.5, fromAverage: true };

test('the inside\'s state is written and read back', () => {
  assert.equal(writeInside(inside), 'dec-cross-L3-h2-q4-raw-T1.5-avg');
  assert.deepEqual(readInside(writeInside(inside)), inside);
  const plain = { stack: 'encoder', sub: 'self', layer: 0, head: 0, pos: -1, unscaled: false, temperature: null, fromAverage: false };
  assert.equal(writeInside(plain), 'enc-self-L1-h1');
  assert.deepEqual(readInside('enc-self-L1-h1'), plain);
  // No layer: the last (the view settles it on the model it draws).
  assert.equal(readInside('dec-out').layer, -1);
  assert.equal(writeInside(readInside('dec-out')), 'dec-out-h1');
});

test('values of another form read as nothing; a temperature outside the slider is held to it', () => {
  for (const bad of ['', 'dec', 'dec-nothing', 'mid-self', 'dec-self-L0', 'dec-self-x', 'dec-self-h-1', 'constructor-self', 'dec-self-L1-L1x']) {
    assert.equal(readInside(bad), null, bad);
  }
  assert.equal(readInside('dec-out-T9').temperature, 3);
  assert.equal(readInside('dec-out-T0.01').temperature, 0.1);
});

test('a lane\'s views ride in its parameter, after its options, and come back', () => {
  const lanes = [{ ...makeLane('mp', { iterations: 4 }), view: { inside, draft: 6 } }, { ...makeLane('greedy'), view: {} }];
  const q = encodeState({ word: 'HOURGLASS', step: 2, lanes });
  assert.match(q, /lane=mp:iterations=4,inside=dec-cross-L3-h2-q4-raw-T1\.5-avg,draft=6&lane=greedy(&|$)/);
  const st = decodeState(q);
  assert.deepEqual(st.notes, []);
  assert.deepEqual(st.lanes[0].view, { inside, draft: 6 });
  assert.deepEqual(st.lanes[0].opts, lanes[0].opts);
  assert.deepEqual(st.lanes[1], makeLane('greedy'), 'a lane with nothing open is its type and options alone');
});

test('old addresses read as before; a value that cannot be read is left out quietly, a view the lane has not is named', () => {
  assert.deepEqual(decodeState('?w=DELETE&lane=greedy&lane=mp:T=4').lanes, [makeLane('greedy'), makeLane('mp', { iterations: 4 })]);
  const st = decodeState('?w=DELETE&lane=greedy:inside=nonsense,draft=5&lane=nar:draft=0&lane=compare:inside=dec-self');
  assert.deepEqual(st.lanes.map((l) => l.view ?? null), [null, null, null]);
  // draft belongs to a non-autoregressive lane, inside to no compare lane: named as unknown there.
  assert.equal(st.notes.length, 2, st.notes.join(' | '));
});
