// The tour's stops are addresses of the page (web/js/tour.js, web/js/address.js): each
// decodes cleanly, to a word and lanes, or to the Train mode with a lesson the page has or
// a configuration it takes whole, and tour=N goes in and out of the address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STOPS, isTrainStop } from '../../web/js/tour.js';
import { LESSONS } from '../../web/js/train-lessons.js';
import { TRAINING_OPTION_TABLE } from '../../wasm/src/training-options-table.js';
import { decodeState, encodeState } from '../../web/js/address.js';
import { makeLane } from '../../web/js/lane-types.js';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';

test('every stop is a clean address: a word, lanes, no note on a name left out', () => {
  for (const [i, s] of STOPS.entries()) {
    const st = decodeState(s.query);
    assert.deepEqual(st.notes, [], `stop ${i + 1}`);
    if (isTrainStop(s)) continue;
    assert.match(st.word, /^[A-Z]+$/, `stop ${i + 1}`);
    assert.ok(st.lanes.length >= 1, `stop ${i + 1}`);
    assert.equal(st.tour, null, `stop ${i + 1}: the tour adds tour=N itself`);
    assert.ok(s.targets.length >= 1);
    for (const k of [s.title, s.text]) assert.ok(Object.hasOwn(en, k) && Object.hasOwn(zh, k), k);
  }
});

test('the training stops come last, each the Train mode with a lesson the page has (in the address) or a configuration read whole', () => {
  const first = STOPS.findIndex(isTrainStop);
  assert.ok(first > 0 && STOPS.slice(first).every(isTrainStop), 'the lanes\' stops, then the training ones');
  for (const [i, s] of STOPS.entries()) {
    if (!isTrainStop(s)) continue;
    const q = new URLSearchParams(s.query);
    assert.equal(decodeState(s.query).mode, 'train');
    assert.equal(q.get('lesson'), s.lesson ?? null, `stop ${i + 1}: its lesson is its address's`);
    if (s.lesson) {
      assert.ok(Object.hasOwn(LESSONS, s.lesson), s.lesson);
      assert.ok(Array.isArray(s.said) && s.said.length >= 1, `stop ${i + 1}: which of the lesson's sentences it repeats`);
    } else {
      // Options of the trainer by their names (train-config.js reads them as the page's address).
      for (const [k, v] of q) if (k !== 'view') assert.ok(TRAINING_OPTION_TABLE.some((o) => o.js === k) && /^\d+$/.test(v), `stop ${i + 1}: ${k}=${v}`);
      assert.equal(typeof s.said, 'function');
    }
    assert.ok(s.targets.length >= 1 && s.narrow?.length >= 1);
    for (const k of [s.title, s.text]) assert.ok(Object.hasOwn(en, k) && Object.hasOwn(zh, k), k);
    // The words quote no number (but the one-hot vector's 1 and 0): the run's numbers are the measured line's.
    for (const lang of [en, zh]) {
      const nums = lang[s.text].replace(/G2P/g, '').match(/\d+(\.\d+)?/g) ?? [];
      assert.deepEqual(nums.filter((x) => x !== '0' && x !== '1'), [], `stop ${i + 1}: ${s.text} holds a number`);
    }
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
