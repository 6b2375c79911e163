// The page's two languages (web/i18n/en.js, zh.js) hold the same keys, with the
// same placeholders and the same markup, and exactly the keys the page uses:
// every key named in web/js/*.js or in web/index.html exists, and every key
// exists because something names it.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { setLang, t } from '../../web/js/i18n.js';
import { decodeState, encodeState } from '../../web/js/address.js';
import { makeLane } from '../../web/js/lane-types.js';

const web = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'web');
const sources = readdirSync(join(web, 'js')).filter((f) => f.endsWith('.js'))
  .map((f) => ({ file: `web/js/${f}`, text: readFileSync(join(web, 'js', f), 'utf8') }));
const html = readFileSync(join(web, 'index.html'), 'utf8');

const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
// The tags of a string, sorted: a translation may put them in another order, not add or drop one.
const tags = (s) => [...s.matchAll(/<\/?([a-z0-9]+)[^>]*>/gi)].map((m) => (m[0].startsWith('</') ? `/${m[1]}` : m[0])).sort();

// The first part of every key ("beam" in "beam.title"): a quoted literal that starts
// with one of them and has a dot is meant as a key.
const prefixes = new Set(Object.keys(en).map((k) => k.split('.')[0]));

/** Keys the page names: t('key') literals, key literals in tables, index.html's data-i18n*. */
function namedKeys() {
  const named = new Map();   // key -> where
  const note = (key, where) => { if (!named.has(key)) named.set(key, where); };
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/\bt\(\s*'([^']+)'/g)) note(m[1], file);
    for (const m of text.matchAll(/'([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_]+)+)'/g)) {
      if (prefixes.has(m[1].split('.')[0])) note(m[1], file);
    }
  }
  for (const m of html.matchAll(/data-i18n(?:-html)?="([^"]+)"/g)) note(m[1], 'web/index.html');
  for (const m of html.matchAll(/data-i18n-attr="([^"]+)"/g)) {
    for (const pair of m[1].split(';')) note(pair.split(':')[1].trim(), 'web/index.html');
  }
  return named;
}

test('English and Chinese have the same keys', () => {
  const missingZh = Object.keys(en).filter((k) => !Object.hasOwn(zh, k));
  const missingEn = Object.keys(zh).filter((k) => !Object.hasOwn(en, k));
  assert.deepEqual(missingZh, [], 'keys with no Chinese string');
  assert.deepEqual(missingEn, [], 'keys with no English string');
});

test('every string is a non-empty string, with the same placeholders and markup in both languages', () => {
  for (const k of Object.keys(en)) {
    for (const [lang, table] of [['en', en], ['zh', zh]]) {
      assert.equal(typeof table[k], 'string', `${lang} ${k}`);
      assert.ok(table[k].trim().length > 0, `${lang} ${k} is empty`);
    }
    assert.deepEqual(placeholders(zh[k]), placeholders(en[k]), `placeholders of ${k}`);
    if (k.endsWith('_html')) assert.deepEqual(tags(zh[k]), tags(en[k]), `markup of ${k}`);
    else for (const [lang, table] of [['en', en], ['zh', zh]]) assert.doesNotMatch(table[k], /<[a-z/]/i, `${lang} ${k}: markup in a plain-text string (name it …_html)`);
  }
});

test('the Chinese strings are Chinese', () => {
  // Strings that are symbols, units, formulas or names in both languages.
  const same = Object.keys(en).filter((k) => zh[k] === en[k]);
  const allowed = new Set(['foot.model_html', 'size.kb', 'size.mb', 'stats.ms', 'attn.captionWhich', 'lane.mp', 'mp.title',
    'beam.normGnmt', 'opt.normGnmt', 'opt.topp', 'opt.alpha', 'opt.nbest', 'nar.draftScore', 'rnn.namedScore_html', 'transport.speed05',
    'lane.beamTitle', 'lane.mpTitle', 'compare.weights_html', 'inside.logit', 'inside.logitT']);
  assert.deepEqual(same.filter((k) => !allowed.has(k) && /[A-Za-z]{3}/.test(en[k].replace(/\{\w+\}|<[^>]+>/g, ''))), [],
    'strings left in English');
});

test('every key the page names exists, and every key is named', () => {
  const named = namedKeys();
  const unknown = [...named].filter(([k]) => !Object.hasOwn(en, k)).map(([k, where]) => `${k} (${where})`);
  assert.deepEqual(unknown, [], 'keys named in the page but not in web/i18n/en.js');
  const unused = Object.keys(en).filter((k) => !named.has(k));
  assert.deepEqual(unused, [], 'keys no source names');
});

test('t fills placeholders, answers in the language set (loaded when first set), and falls back to English', async () => {
  try {
    assert.equal(t('transport.status', { t: 3, max: 7 }), 'step 3 of 7');
    assert.equal(await setLang('zh'), 'zh');
    assert.equal(t('transport.status', { t: 3, max: 7 }), zh['transport.status'].replace('{t}', '3').replace('{max}', '7'));
    assert.notEqual(t('transport.status', { t: 3, max: 7 }), 'step 3 of 7');
    assert.equal(await setLang('fr'), 'en');
    assert.equal(t('lane.greedy'), 'Greedy');
  } finally {
    await setLang('en');
  }
});

test('the address keeps the language: lang=zh, nothing for English, English for anything else', () => {
  const lanes = [makeLane('greedy')];
  const zhq = encodeState({ word: 'KNIGHT', step: 2, lanes, lang: 'zh' });
  assert.match(zhq, /[?&]lang=zh(&|$)/);
  assert.equal(decodeState(zhq).lang, 'zh');
  assert.deepEqual(decodeState(zhq).lanes, lanes);
  const enq = encodeState({ word: 'KNIGHT', step: 2, lanes, lang: 'en' });
  assert.doesNotMatch(enq, /lang=/);
  assert.equal(decodeState(enq).lang, 'en');
  assert.equal(decodeState('?w=A&lang=xx').lang, 'en');
  assert.equal(decodeState('?w=A&lang=constructor').lang, 'en');
});
