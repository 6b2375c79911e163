// The tour's stops are addresses of the page (web/js/tour.js, web/js/address.js): each
// decodes cleanly, to a word and lanes, and tour=N goes in and out of the address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STOPS } from '../../web/js/tour.js';
import { decodeState, encodeState } from '../../web/js/address.js';
import { makeLane } from '../../web/js/lane-types.js';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';

test('every stop is a clean address: a word, lanes, no note on a name left out', () => {
  for (const [i, s] of STOPS.entries()) {
    const st = decodeState(s.query);
    assert.deepEqual(st.notes, [], `stop ${i + 1}`);
    assert.match(st.word, /^[A-Z]+$/, `stop ${i + 1}`);
    assert.ok(st.lanes.length >= 1, `stop ${i + 1}`);
    assert.equal(st.tour, null, `stop ${i + 1}: the tour adds tour=N itself`);
    assert.ok(s.targets.length >= 1);
    for (const k of [s.title, s.text]) assert.ok(Object.hasOwn(en, k) && Object.hasOwn(zh, k), k);
  }
});

test('tour=N is written when the tour is open and read back; anything else is no tour', () => {
  const lanes = [makeLane('greedy')];
  const q = encodeState({ word: 'DELETE', step: null, lanes, tour: 3 });
  assert.match(q, /[?&]tour=3(&|$)/);
  assert.equal(decodeState(q).tour, 3);
  assert.doesNotMatch(encodeState({ word: 'DELETE', step: null, lanes }), /tour=/);
  for (const bad of ['tour=', 'tour=x', 'tour=-1', 'tour=1.5']) assert.equal(decodeState(`?w=A&${bad}`).tour, null, bad);
});
