// The guided tour's words (web/i18n/*.js, keys tour.*) quote no number of their own:
// every number a stop gives is a placeholder its `says` (web/js/tour.js) fills from the
// lanes' decodes and scores, or the Train mode's from its run, so a changed model or run
// changes the numbers instead of contradicting them. tests/browser/tour.test.mjs checks
// the filled numbers against the npm module's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { STOPS, isTrainStop } from '../../web/js/tour.js';

// Names with a digit in them, which are no quantity.
const NAMES = ['G2P'];
const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('no tour string, English or Chinese, holds a digit that is not in a placeholder', () => {
  const found = [];
  for (const [lang, table] of Object.entries({ en, zh })) {
    for (const [key, s] of Object.entries(table)) {
      if (!key.startsWith('tour.')) continue;
      let rest = s.replace(/\{\w+\}/g, '');
      for (const n of NAMES) rest = rest.split(n).join('');
      const m = rest.match(/.{0,12}[0-9０-９].{0,12}/g);
      if (m) found.push(`${lang} ${key}: ${m.join(' | ')}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the test catches a number written into a tour string', () => {
  const rest = 'At pass {step} the model gives EH 45.4 %'.replace(/\{\w+\}/g, '');
  assert.match(rest, /[0-9]/);
});

test('each stop\'s text has the same placeholders in English and Chinese, and a lane stop with any has a says to fill them', () => {
  for (const s of STOPS) {
    assert.deepEqual(placeholders(zh[s.text]), placeholders(en[s.text]), s.text);
    if (!isTrainStop(s) && placeholders(en[s.text]).length) assert.equal(typeof s.says, 'function', `${s.text} has a says`);
  }
});
