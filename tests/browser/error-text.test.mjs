// Errors in the page's language (web/js/error-text.js): the npm module's by
// kind (a sentence from web/i18n, then the module's own detail), boot.js's early
// ones by key, the page's own as written. Real failures: a model file that is
// not one, a model the server does not have; the detail is checked against the
// module's own error in Node for the same bytes.
//   node scripts/build-web.mjs && node --test tests/browser/error-text.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { loadModel } from '../../wasm/src/index.js';
import { artifact, openPage, servedSite, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');
const CMLM = models.find((m) => m.id === 'g2p-cmlm');
const STRINGS = { en, zh };
const served = servedSite();

const fill = (s, params) => s.replace(/\{(\w+)\}/g, (m, k) => String(params[k]));
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** Each lane's error as shown, once every lane has decoded (or failed to). */
async function laneErrors(page) {
  await waitReady(page);
  return page.evaluate(() => seq2seqPage.lanes.map((l) => l.el.querySelector('.lane-error')?.textContent ?? null));
}

/** The greedy and NAR lanes' errors on a page where `file` is answered with `response` (page.route's fulfill). */
async function lanesWith(file, response, lang = 'zh') {
  const { page } = await openPage(served.context);
  await page.route(`**/${file}`, (r) => r.fulfill(response));
  await page.goto(served.url(`/?w=PHONEME&lane=greedy&lane=nar${lang === 'en' ? '' : `&lang=${lang}`}`));
  return { page, lanes: await laneErrors(page) };
}
const notFound = { status: 404, body: 'not here' };
const bytesOf = (body) => ({ status: 200, contentType: 'application/octet-stream', body });

// The bytes of a file that is no model: the first 64 bytes of the real one, cut off.
const NOT_A_MODEL = readFileSync(join(site, CMLM.file)).subarray(0, 64);

async function moduleError(source) {
  try {
    (await loadModel(source)).delete();
  } catch (e) {
    return e;
  }
  assert.fail('the module loaded it');
}

describe('errors in the page\'s language', () => {
  for (const lang of ['zh', 'en']) {
    test(`${lang}: a model file that is not one: the ModelError sentence, then the module's detail`, async () => {
      const want = await moduleError(new Uint8Array(NOT_A_MODEL));
      assert.equal(want.kind, 'ModelError');
      const { page, lanes: [greedy, nar] } = await lanesWith(CMLM.file, bytesOf(NOT_A_MODEL), lang);
      const S = STRINGS[lang];
      assert.equal(greedy, null, 'the other model decodes');
      assert.equal(nar, fill(S['moderr.format'], { what: S['moderr.ModelError'], detail: capital(want.message) }));
      if (lang === 'zh') {
        await page.locator('.lane-nar').screenshot({ path: artifact('error-text-zh-model.png') });
        // The switch to English decodes the failed lane again: its message follows.
        const english = fill(en['moderr.format'], { what: en['moderr.ModelError'], detail: capital(want.message) });
        await page.click('#lang-en');
        await page.waitForFunction((text) => document.querySelector('.lane-nar .lane-error')?.textContent === text, english, { timeout: 20000 });
      }
      await page.close();
    });
  }

  test('zh: the first lane\'s model file is not one: boot.js\'s worker reports the module\'s ModelError, worded by kind', async () => {
    const bytes = readFileSync(join(site, AR.file)).subarray(0, 64);
    const want = await moduleError(new Uint8Array(bytes));
    const { page, lanes: [greedy, nar] } = await lanesWith(AR.file, bytesOf(bytes));
    assert.equal(nar, null);
    assert.equal(greedy, fill(zh['moderr.format'], { what: zh['moderr.ModelError'], detail: capital(want.message) }));
    await page.close();
  });

  test('zh: a model the server does not have (not the first lane\'s): the NetworkError sentence and the module\'s HTTP detail', async () => {
    const { page, lanes: [greedy, nar] } = await lanesWith(CMLM.file, notFound);
    assert.equal(greedy, null);
    const head = fill(zh['moderr.format'], { what: zh['moderr.NetworkError'], detail: '' });
    assert.ok(nar.startsWith(head), nar);
    assert.match(nar.slice(head.length), /HTTP 404/);
    assert.ok(nar.includes(CMLM.file), `the detail names the file: ${nar}`);
    await page.close();
  });

  test('zh: the first lane\'s model missing: boot.js\'s message, in Chinese', async () => {
    // boot.js loaded it (the worker it started is the one that failed), before app.js ran.
    const { page, lanes: [greedy, nar] } = await lanesWith(AR.file, notFound);
    assert.equal(nar, null);
    const url = await page.evaluate((file) => new URL(file, document.baseURI).href, AR.file);
    assert.equal(greedy, fill(zh['boot.modelHttp'], { url, status: 404 }));
    await page.close();
  });

  test('zh: the page\'s own message (a character the model cannot read) is shown as written, with no kind sentence', async () => {
    const { page } = await openPage(served.context, served.url('/?w=AB%21&lane=nar&lang=zh'));
    const [nar] = await laneErrors(page);
    assert.match(nar, /^“!” 不在 .* 的字母表中/);
    for (const k of Object.keys(zh).filter((x) => x.startsWith('moderr.') && x !== 'moderr.format')) assert.ok(!nar.includes(zh[k]), `${k} in ${nar}`);
    await page.close();
  });
});
