// The page in Simplified Chinese (lang=zh in the address) and back in English:
// the words on screen come from web/i18n/zh.js, no English sentence is left
// among them, the switch keeps the moment (word, lanes, step) and the address
// keeps the language.
//   node scripts/build-web.mjs && node --test tests/browser/i18n.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { artifact, openPage, servedSite, settled, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.autoregressive);
const NAR = models.find((m) => !m.autoregressive);
const WORD = AR.examples.find((w) => NAR.examples.includes(w));
const LANES = ['greedy', 'beam', 'sample', 'nar', 'mp', 'compare'];

const served = servedSite();
const query = (lang) => `/?w=${WORD}&t=2${LANES.map((l) => `&lane=${l}`).join('')}${lang ? `&lang=${lang}` : ''}`;

// Names and symbols both languages write the same way: models, formats, tokens, formulas;
// and the terms the course notes gloss in English inside Chinese sentences (query, key, value, Pre-LN).
const KEPT = new Set(['query', 'key', 'value', 'pre', 'mask', 'predict', 'gnmt', 'begin', 'end', 'arpabet', 'ipa', 'cmudict', 'transformer', 'webassembly', 'web',
  'worker', 'seq2seq', 'wasm', 'npm', 'rnn', 'gru', 'softmax', 'tanh', 'log', 'exp', 'top', 'best', 'bsd', 'clause', 'carnegie',
  'mellon', 'university', 'code', 'bahdanau', 'g2p', 'cmlm', 'dot', 'multiplicative', 'additive', 'reduced', 'rank', 'logit']);
// Every lower-case or capitalised English word of the English strings ("pass", "Beam"), not
// ALL-CAPS ones: those are phonemes (AH, IY) and words the learner decodes (THROUGH).
const ENGLISH = new Set(Object.values(en).flatMap((s) => s.replace(/\{\w+\}|<[^>]+>/g, ' ').match(/\b[A-Za-z][a-z]{2,}\b/g) ?? [])
  .map((w) => w.toLowerCase()).filter((w) => !KEPT.has(w)));
// Model ids (g2p-rnn-none) are names, not words: left out before the words are read.
const englishIn = (text) => [...new Set((text.replace(/\bg2p-[\w.-]+/g, ' ').match(/\b[A-Za-z][a-z]{2,}\b/g) ?? []).filter((w) => ENGLISH.has(w.toLowerCase())))];

const shown = (page) => page.evaluate(() => ({
  lang: document.documentElement.lang,
  title: document.title,
  transport: ['reset', 'back', 'play', 'step', 'copy-link'].map((id) => document.getElementById(id).textContent.trim()),
  status: document.getElementById('step-status').textContent,
  lanes: seq2seqPage.lanes.map((l) => document.getElementById(`${l.id}-title`).textContent),
  pressed: [...document.querySelectorAll('[data-lang]')].map((b) => `${b.dataset.lang}:${b.getAttribute('aria-pressed')}`),
  text: document.body.innerText,
  search: decodeURIComponent(location.search),
}));

describe('the page in two languages', () => {
  test('lang=zh: Chinese words on screen, none of the English ones; EN switches back and the address keeps the language', async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(served.url(query('zh')));
    await waitReady(page);
    // Read once what the lanes ask of the model afterwards is in too: the reference's scores
    // and their diagnosis, whose sentences name the lane's ranking (the one-pass lane, done by
    // step 2, shows it); read before, the check would pass over them.
    await settled(page);
    assert.ok(await page.locator('.forced .forced-scores').count() >= 1, 'a lane shows the reference\'s scores and their note');
    let s = await shown(page);
    assert.equal(s.lang, 'zh-Hans');
    assert.equal(s.title, zh['page.title']);
    assert.deepEqual(s.transport, [zh['transport.reset'], zh['transport.back'], zh['transport.play'], zh['transport.step'], zh['transport.copy']]);
    assert.match(s.status, /^第 2 步，共 \d+ 步$/);
    assert.deepEqual(s.lanes, [zh['lane.greedy'], `${zh['lane.beam']}（k = 5）`, zh['lane.sample'], zh['lane.nar'], 'Mask-Predict（T = 10）', zh['lane.compare']]);
    assert.deepEqual(s.pressed, ['en:false', 'zh:true']);
    assert.deepEqual(englishIn(s.text), [], 'English words on the Chinese page');
    assert.match(s.text, /束搜索树，第 2 步/);
    assert.match(s.text, /自回归|非自回归/);
    // Every explanation opened: its words are Chinese too.
    await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
    assert.deepEqual(englishIn(await page.evaluate(() => document.body.innerText)), [], 'English words in the explanations');
    await page.evaluate(() => { for (const d of document.querySelectorAll('details.twin')) d.open = false; });
    await page.screenshot({ path: artifact('page-zh-1400x1000.png') });
    await page.screenshot({ path: artifact('page-zh-full.png'), fullPage: true });

    // To English: the same moment, in English words; no lang in the address (English is the default).
    const before = await page.evaluate(() => ({ word: seq2seqPage.word, t: seq2seqPage.t, specs: seq2seqPage.lanes.map((l) => l.spec) }));
    await page.click('#lang-en');
    await page.waitForFunction(() => !/lang=/.test(location.search), null, { timeout: 5000 });
    await waitReady(page, 0);
    s = await shown(page);
    assert.equal(s.lang, 'en');
    assert.deepEqual(s.transport, [en['transport.reset'], en['transport.back'], en['transport.play'], en['transport.step'], en['transport.copy']]);
    assert.match(s.status, /^step 2 of \d+$/);
    assert.deepEqual(s.lanes, ['Greedy', 'Beam search (k = 5)', 'Sampling', 'Non-autoregressive, one pass', 'Mask-Predict (T = 10)', 'Four attention scores, side by side']);
    assert.deepEqual(s.pressed, ['en:true', 'zh:false']);
    // The switch names each language in itself: 中文 stays on the English page.
    assert.doesNotMatch(s.text.replace(/^中文$/m, ''), /[\u4e00-\u9fff]/, 'Chinese left on the English page');
    assert.deepEqual(await page.evaluate(() => ({ word: seq2seqPage.word, t: seq2seqPage.t, specs: seq2seqPage.lanes.map((l) => l.spec) })), before);
    assert.match(s.search, /[?&]t=2(&|$)/);

    // And back: the address says lang=zh again, and a reload of it opens in Chinese.
    await page.click('#lang-zh');
    await page.waitForFunction(() => /[?&]lang=zh(&|$)/.test(location.search), null, { timeout: 5000 });
    const again = await page.evaluate(() => location.href);
    await page.goto(again);
    await waitReady(page);
    s = await shown(page);
    assert.equal(s.lang, 'zh-Hans');
    assert.equal(s.transport[0], zh['transport.reset']);
    assert.match(s.search, /[?&]t=2(&|$)/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('messages follow the language: a word the models cannot read, an address with a wrong lane', async () => {
    const { page } = await openPage(served.context);
    await page.goto(served.url('/?w=AB%21&lane=greedy&lane=nosuch&lang=zh'));
    await waitReady(page);
    const zhMessage = await page.textContent('#message');
    assert.match(zhMessage, /不是通道/);
    assert.match(zhMessage, /不在 .* 的字母表中/);
    assert.match(await page.textContent('.lane-error'), /不在 .* 的字母表中/);
    await page.click('#lang-en');
    await page.waitForFunction(() => /is not a lane/.test(document.getElementById('message').textContent), null, { timeout: 5000 });
    await waitReady(page, 0);
    assert.match(await page.textContent('#message'), /not in the alphabet of/);
    assert.match(await page.textContent('.lane-error'), /not in the alphabet of/);
    await page.close();
  });
});
