// The text view (web/js/text-view.js): a sentence to phonemes with the models
// package's phonemizer, each word's source marked, a model's word opening in the
// lanes. Its results are the packed package's in Node, word for word; a first
// visit fetches none of it; axe finds nothing serious at desktop and phone size,
// in English and Chinese.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { installPackage } from '../node/helpers.mjs';
import { artifact, assertFitsPhone, openPage, servedSite, site, waitReady } from './helpers.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SENTENCE = 'Hello, world! It\'s 2026 and the colonel\'s Kubernetes cluster is down.';
const served = servedSite();

// The package as a user installs it, on the model file the site serves.
const pkg = installPackage();
const { loadModel } = await pkg.importPackage();
const { createPhonemizer } = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
const model = await loadModel(join(site, 'models/g2p-transformer.safetensors'));
const g2p = await createPhonemizer({ model });
after(() => { g2p.delete(); model.delete(); });

/** Every request the page makes (its workers' too), by path. */
function recordRequests(page) {
  const paths = [];
  page.context().on('request', (r) => paths.push(new URL(r.url()).pathname));
  return paths;
}

/** The text view's table as shown: [word, source label, ARPAbet line, IPA]. */
const tableRows = (page) => page.$$eval('.tv-words tbody tr', (trs) => trs.map((tr) => [
  tr.querySelector('th').textContent.trim(), tr.querySelector('.tv-src').textContent.trim(),
  tr.querySelector('.arpa-line')?.textContent.trim() ?? '', tr.querySelector('td:last-child').textContent.trim()]));

async function openText(page, query = '') {
  await page.goto(served.url(`?view=text${query}`));
  await page.waitForSelector('.tv-words tbody tr', { timeout: 60000 });
}

test('a first visit fetches neither the text view nor the phonemizer; opening the view fetches them once', async () => {
  const { page, errors } = await openPage(served.context);
  const paths = recordRequests(page);
  await page.goto(served.url('/'));
  await waitReady(page);
  assert.deepEqual(paths.filter((p) => /\/g2p\/|text-view|manifest\.js/.test(p)), [], 'nothing of the text view on a first visit');
  await page.click('[data-view="text"]');
  await page.waitForSelector('.tv-words tbody tr', { timeout: 60000 });
  const lexicon = paths.filter((p) => p.endsWith('/g2p/lexicon-data.js'));
  assert.equal(lexicon.length, 1, 'the lexicon, once');
  assert.ok(!paths.some((p) => p.endsWith('.safetensors') && !p.endsWith('/g2p-transformer.safetensors') && !p.endsWith('/g2p-cmlm.safetensors')), 'no other model');
  assert.equal(paths.filter((p) => p.endsWith('/g2p-transformer.safetensors')).length, 1, 'the model the lanes already loaded is not fetched again');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the sentence: each word\'s source and phonemes, as the package gives them in Node', async () => {
  const { page, errors } = await openPage(served.context);
  await openText(page);
  const want = await g2p.phonemize(SENTENCE);
  const words = want.tokens.filter((t) => t.source !== 'punctuation');
  const SOURCE = { lexicon: en['text.srcLexicon'], model: en['text.srcModel'], number: en['text.srcNumber'], none: en['text.srcNone'] };
  assert.deepEqual(await tableRows(page), words.map((t) => [t.text, SOURCE[t.source], t.phonemes.join(' '), t.ipa]));
  assert.equal(await page.textContent('.tv-whole dd:first-of-type'), want.ipa);
  assert.equal(await page.textContent('.tv-whole dd.arpa-line'), want.arpabet);
  const row = (w) => page.$$eval('.tv-words tbody tr', (trs, word) => trs.find((tr) => tr.querySelector('th').textContent.trim() === word)?.textContent, w);
  assert.match(await row('2026'), /read as “twenty twenty-six”/);
  assert.match(await row('Kubernetes'), /no stress digits/);
  assert.match(await row('It\'s'), /CMUdict also has: IH0 T S/);
  const count = (source) => String(words.filter((t) => t.source === source).length);
  assert.equal(await page.textContent('.tv-summary'), en['text.summary'].replace('{n}', String(words.length)).replace('{lexicon}', count('lexicon'))
    .replace('{model}', count('model')).replace('{number}', count('number')));
  assert.equal(count('model'), '1');
  // Only the model's word is a button.
  assert.deepEqual(await page.$$eval('.tv-words tbody th button', (bs) => bs.map((b) => b.textContent)), ['Kubernetes']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a phoneme is written in IPA one way: the lanes read a stress-free phone as the phonemizer does', async () => {
  // The package's table (models/g2p/ipa.js) reads a phone without a stress digit as
  // CMUdict's commoner vowel: AH as ə, ER as ɚ. The lanes' chips and strips are the same.
  const { phoneIpa } = await import(join(pkg.modelsDir, 'g2p/ipa.js'));
  const { IPA, ipa, ipaOf } = await import('../../web/js/phonemes.js');
  assert.equal(Object.keys(IPA).length, 39, 'CMUdict\'s 39 phonemes');
  for (const p of Object.keys(IPA)) assert.equal(ipaOf(p), phoneIpa(p), p);
  assert.equal(ipa('B ER D'), '/bɚd/');
  // On the page: a made-up word (the model's, in both views) as a lane writes it and as the text view does.
  const { page, errors } = await openPage(served.context, served.url('?w=FLURBER&lane=greedy'));
  await waitReady(page);
  const lane = await page.$eval('.lane-greedy .result-main .ipa-line', (l) => l.textContent);
  assert.match(lane, /ɚ/);
  const phones = await page.evaluate(() => seq2seqPage.lanes[0].snaps.at(-1).results[0].text);
  await openText(page, '#text=flurber');
  const [row] = await tableRows(page);
  assert.equal(row[2], phones, 'the same phonemes');
  assert.equal(`/${row[3].replace(/[ˈˌ]/g, '')}/`, lane, 'written the same in IPA');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a model\'s word opens in the lanes, decoded there', async () => {
  const { page, errors } = await openPage(served.context);
  await openText(page);
  const ready = await page.evaluate(() => Number(document.body.dataset.ready ?? 0));
  await page.click('.tv-words tbody th button');
  await waitReady(page, ready);
  assert.equal(await page.inputValue('#word'), 'KUBERNETES');
  assert.ok(await page.isHidden('#textview'));
  assert.ok(await page.isVisible('#lanes'));
  assert.equal(await page.getAttribute('[data-view="lanes"]', 'aria-pressed'), 'true');
  assert.match(page.url(), /w=KUBERNETES/);
  assert.doesNotMatch(page.url(), /view=text/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the address holds the text; a text of its own is phonemized, in Chinese too, unreadable characters named', async () => {
  const { page, errors } = await openPage(served.context);
  await openText(page, '&lang=zh#text=I+read+3.5%25+of+%E6%97%A5%E6%9C%AC.');
  const want = await g2p.phonemize('I read 3.5% of 日本.');
  const rows = await tableRows(page);
  assert.deepEqual(rows.map((r) => r[0]), want.tokens.filter((t) => t.source !== 'punctuation').map((t) => t.text));
  assert.deepEqual(rows.map((r) => r[1]), ['lexicon', 'lexicon', 'number', 'lexicon', 'none'].map((s) => zh[`text.src${s[0].toUpperCase()}${s.slice(1)}`]));
  assert.match(await page.textContent('.tv-words tbody tr:last-child'), /日本/);
  assert.equal(await page.textContent('#tv-title'), zh['text.heading']);
  // Typing keeps the text in the address's fragment.
  await page.fill('#tv-text', 'the colonel');
  await page.waitForFunction(() => location.hash === '#text=the+colonel');
  await page.click('#tv-run');
  await page.waitForFunction(() => document.querySelectorAll('.tv-words tbody tr').length === 2);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lone modifier apostrophe (ʼ) does not cost the text: the words around it are read, no message', async () => {
  const { page, errors } = await openPage(served.context);
  await openText(page, '#text=hello%20%CA%BC%20world');
  const want = await g2p.phonemize('hello ʼ world');
  const rows = await tableRows(page);
  assert.deepEqual(rows.map((r) => r.slice(0, 2)), [['hello', en['text.srcLexicon']], ['world', en['text.srcLexicon']]]);
  assert.deepEqual(rows.map((r) => r[0]), want.tokens.filter((t) => t.source !== 'punctuation').map((t) => t.text));
  assert.equal(await page.isHidden('#tv-message'), true, 'no message');
  assert.deepEqual(errors, []);
  await page.close();
});

for (const lang of ['en', 'zh']) {
  for (const [width, height] of [[1400, 1000], [390, 844]]) {
    test(`axe: nothing serious in the text view, ${lang} at ${width}×${height}; it fits a phone`, async () => {
      const { page, errors } = await openPage(served.context);
      await page.setViewportSize({ width, height });
      await openText(page, lang === 'zh' ? '&lang=zh' : '');
      await page.addScriptTag({ path: axePath });
      const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
      assert.deepEqual(violations, []);
      if (width < 500) await assertFitsPhone(page);
      await page.screenshot({ path: artifact(`text-view-${lang}-${width}.png`), fullPage: true });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
}
