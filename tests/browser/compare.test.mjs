// Browser tests of the RNN models on the page: every RNN in
// the model picker of the autoregressive lanes, and the compare lane, which
// decodes one word with the four attention scores side by side. Expected
// values come from the npm module on the same model files.
//   node scripts/build-web.mjs && node --test tests/browser/compare.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compareModels, makeLane, moduleOptions } from '../../web/js/lane-types.js';
import { moduleModel, releaseModels, sameResults } from './expect.mjs';
import { artifact, assertFitsPhone, openPage, servedSite, settled, site, waitReady } from './helpers.mjs';

const siteData = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const { models } = siteData;
const RNN = models.filter((m) => m.arch === 'rnn');
const COMPARE = compareModels(models).filter(Boolean);
// A word every compared model reads (a dictionary word with the trained models).
const WORD = COMPARE.reduce((ws, m) => ws.filter((w) => m.examples.includes(w)), COMPARE[0]?.examples ?? [])[0];
const SCORE_NAMES = { dot: 'Dot product', multiplicative: 'Multiplicative', reduced_rank: 'Reduced rank', additive: 'Additive' };

const served = servedSite({ cleanup: releaseModels });
const url = served.url;
const compareState = (page) => page.evaluate(() => {
  const lane = seq2seqPage.lanes.find((l) => l.type === 'compare');
  return lane.panels.map((p) => {
    const panel = lane.el.querySelector(`.score-panel[data-score="${p.score}"]`);
    return {
      score: p.score,
      model: p.model?.id ?? null,
      error: p.error,
      results: p.snaps.at(-1)?.results ?? null,
      // The attention row of each step, as the panel draws it.
      attention: p.snaps.slice(1).map((s) => Array.from((s.live[0] ?? s.finished[0]).attention)),
      tokens: p.snaps.slice(1).map((s) => (s.live[0] ?? s.finished[0]).texts.at(-1)),
      shown: panel?.querySelector('.cmp-out')?.dataset.result ?? null,
      title: panel?.querySelector('h3')?.textContent ?? null,
      formula: panel?.querySelector('.formula')?.textContent ?? '',
      svgRows: panel?.querySelectorAll('svg.heatmap .hm-row').length ?? 0,
      svgCols: panel?.querySelectorAll('svg.heatmap .hm-col').length ?? 0,
      tableRows: panel?.querySelectorAll('table.hm-table tbody tr').length ?? 0,
      caption: panel?.querySelector('table.hm-table caption')?.textContent ?? '',
      colourScale: panel?.querySelector('.hm-scale')?.textContent ?? '',
    };
  });
});

/** The module's greedy decode of `word`, one step at a time: results, attention rows and tokens. */
async function moduleGreedy(m, word) {
  const model = await moduleModel(m);
  const session = model.createSession(moduleOptions(makeLane('compare')));
  try {
    session.start(word);
    const attention = [];
    const tokens = [];
    let s;
    do {
      s = session.step();
      const h = s.live[0] ?? s.finished[0];
      attention.push(Array.from(h.attention));
      tokens.push(h.texts.at(-1));
    } while (!s.done);
    return { results: s.results, attention, tokens };
  } finally {
    session.delete();
  }
}

describe('RNN models on the page', { skip: RNN.length ? false : 'this build has no RNN models' }, () => {
  test('the site lists the RNN stand-ins or the trained RNNs, never both, one per attention score in the comparison', () => {
    assert.ok(!(RNN.some((m) => m.fixture) && RNN.some((m) => !m.fixture)), 'trained and random RNNs mixed');
    for (const [i, m] of COMPARE.entries()) assert.equal(m.attentionScore, ['dot', 'multiplicative', 'reduced_rank', 'additive'].filter((s) => RNN.some((r) => r.attentionScore === s))[i]);
    if (RNN.some((m) => m.fixture)) assert.deepEqual(COMPARE.map((m) => m.attentionScore), ['dot', 'multiplicative', 'reduced_rank', 'additive']);
    assert.ok(WORD, 'a word every compared model reads');
  });

  test('every RNN model is in the picker and decodes in greedy, beam and sampling lanes as the npm module does', async () => {
    const types = ['greedy', 'beam', 'sample'];
    const specs = RNN.map((m, i) => ({ type: types[i % 3], opts: { m: m.id, ...(types[i % 3] === 'beam' ? { beamSize: 3, nBest: 2 } : {}), ...(types[i % 3] === 'sample' ? { seed: 7 } : {}) } }));
    const q = `?w=${WORD}&` + specs.map((s) => `lane=${s.type}:${Object.entries(s.opts).map(([k, v]) => `${k}=${v}`).join(',')}`).join('&');
    const { page, errors } = await openPage(served.context, url(q));
    await waitReady(page);
    const picker = await page.$eval('.lane select[data-opt=m]', (s) => [...s.options].map((o) => o.value));
    assert.deepEqual(picker, models.filter((m) => m.autoregressive).map((m) => m.id), 'the picker lists every autoregressive model');
    for (const m of RNN) assert.ok(picker.includes(m.id), `${m.id} in the picker`);
    const lanes = await page.evaluate(() => seq2seqPage.lanes.map((l) => ({
      type: l.type, opts: l.opts, error: l.error, model: l.model.id, results: l.snaps.at(-1)?.results ?? null,
      thumbs: l.el.querySelectorAll('.thumbs').length, heading: [...l.el.querySelectorAll('.lane-body h3')].map((h) => h.textContent).join(' | '),
    })));
    for (const [i, spec] of specs.entries()) {
      const lane = lanes[i];
      assert.equal(lane.error, null, `${spec.opts.m}: ${lane.error}`);
      assert.equal(lane.model, spec.opts.m);
      const want = (await moduleModel(RNN[i])).decode(WORD, moduleOptions(makeLane(spec.type, spec.opts)));
      sameResults(lane.results, want, `${spec.type} on ${spec.opts.m}`);
      // One attention, no layers or heads to pick: no head thumbnails, and the RNN's own wording.
      assert.equal(lane.thumbs, 0, `${spec.opts.m}: head thumbnails`);
      assert.doesNotMatch(lane.heading, /Cross-attention/);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the compare lane decodes the word with the four scores, each as the npm module does, maps and all', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD.toLowerCase()}&lane=compare`));
    await waitReady(page);
    const panels = await compareState(page);
    assert.deepEqual(panels.map((p) => p.score), ['dot', 'multiplicative', 'reduced_rank', 'additive']);
    const letters = [...WORD.toUpperCase()].length;
    for (const p of panels) {
      const m = COMPARE.find((x) => x.attentionScore === p.score);
      assert.equal(p.title, SCORE_NAMES[p.score]);
      assert.match(p.formula, /score\(s, hj\) = /);
      if (!m) {
        assert.equal(p.model, null);
        continue;
      }
      assert.equal(p.model, m.id);
      assert.equal(p.error, null, `${p.score}: ${p.error}`);
      const want = await moduleGreedy(m, WORD.toUpperCase());
      sameResults(p.results, want.results, `compare, ${p.score}`);
      assert.equal(p.shown, want.results[0].text, `${p.score}: the output on the panel`);
      // The map: one row per token written (END included), one column per letter, the module's numbers.
      assert.deepEqual(p.tokens, want.tokens);
      assert.equal(p.attention.length, want.attention.length);
      p.attention.forEach((row, k) => {
        assert.equal(row.length, letters);
        row.forEach((v, j) => assert.ok(Math.abs(v - want.attention[k][j]) < 1e-6, `${p.score}: attention at step ${k + 1}, letter ${j + 1}`));
        assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, `${p.score}: a row of weights sums to 1`);
      });
      assert.equal(p.svgRows, want.tokens.length);
      assert.equal(p.svgCols, letters);
      assert.equal(p.tableRows, want.tokens.length, `${p.score}: the table twin has a row per token`);
      assert.match(p.caption, new RegExp(SCORE_NAMES[p.score]));
      assert.match(p.colourScale, /^01 attention weight/, `${p.score}: the heatmap's colour key`);
    }
    // The four do not all say the same: they are four models.
    const outs = new Set(panels.filter((p) => p.results).map((p) => p.results[0].text));
    assert.ok(outs.size >= 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Step and Back move the compare lane with the others, and its URL brings back the same moment', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&lane=compare`));
    await waitReady(page);
    await page.click('#reset');
    assert.equal(await page.locator('.lane-compare svg.heatmap .hm-row').count(), 0);
    await page.click('#step');
    await page.click('#step');
    await page.click('#step');
    const present = (await compareState(page)).filter((p) => p.model);
    assert.equal(await page.locator('.lane-compare svg.heatmap .hm-row').count(), present.reduce((a, p) => a + Math.min(3, p.tokens.length), 0));
    await page.locator('body').press('ArrowLeft');
    assert.equal(await page.locator('.lane-compare svg.heatmap .hm-row').count(), present.reduce((a, p) => a + Math.min(2, p.tokens.length), 0));
    await page.click('#step');
    await page.waitForFunction(() => /[?&]t=3(&|$)/.test(location.search) && /lane=compare/.test(location.search));
    const link = page.url();
    const read = (p) => p.evaluate(() => ({
      word: seq2seqPage.word, t: seq2seqPage.t, specs: seq2seqPage.lanes.map((l) => l.spec),
      bodies: seq2seqPage.lanes.map((l) => l.el.querySelector('.lane-body').innerText),
    }));
    await settled(page);
    const before = await read(page);
    const { page: page2, errors: errors2 } = await openPage(served.context, link);
    await waitReady(page2);
    await settled(page2);
    const again = await read(page2);
    assert.equal(again.t, 3);
    assert.equal(again.word, before.word);
    assert.deepEqual(again.specs, before.specs);
    assert.deepEqual(again.bodies, before.bodies);
    assert.match(await page2.textContent('#step-status'), /^step 3 of/);
    assert.deepEqual(errors, []);
    assert.deepEqual(errors2, []);
    await page.close();
    await page2.close();
  });

  test('the compare lane is added, read and stepped with the keyboard alone', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy`));
    let ready = await waitReady(page);
    await page.focus('#add-type');
    // A select takes arrow keys; the compare lane is the last kind.
    await page.keyboard.press('End');
    assert.equal(await page.inputValue('#add-type'), 'compare');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Add');
    await page.keyboard.press('Enter');
    ready = await waitReady(page, ready);
    await page.waitForFunction(() => /lane=greedy&lane=compare/.test(location.search));
    // Every control in the lane has a name, and the table twins open from the keyboard.
    const unnamed = await page.$$eval('.lane-compare button, .lane-compare summary, .lane-compare select, .lane-compare input',
      (els) => els.filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || e.labels?.length)).length);
    assert.equal(unnamed, 0);
    const twin = page.locator('.lane-compare .score-panel details.twin summary').first();
    await twin.focus();
    await page.keyboard.press('Enter');
    // Under load the toggle can land a frame later.
    await page.waitForFunction(() => document.querySelector('.lane-compare .score-panel details.twin')?.open === true, null, { timeout: 5000 });
    // ← steps back, and the compare lane's maps lose their last row.
    const rows = await page.locator('.lane-compare svg.heatmap .hm-row').count();
    await page.locator('h1').click();
    await page.keyboard.press('ArrowLeft');
    const [, t, max] = /^step (\d+) of (\d+)/.exec(await page.textContent('#step-status')).map(Number);
    assert.equal(t, max - 1);
    assert.ok(await page.locator('.lane-compare svg.heatmap .hm-row').count() < rows);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a word the RNNs cannot read is one message naming them, and every panel says so', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=compare`));
    let ready = await waitReady(page);
    await page.fill('#word', `${WORD}!`);
    await page.press('#word', 'Enter');
    ready = await waitReady(page, ready);
    const message = await page.textContent('#message');
    assert.match(message, /“!” is not in the alphabet of/);
    for (const m of COMPARE) assert.equal(message.split(m.name).length - 1, 1, `${m.name} named once: ${message}`);
    for (const p of await compareState(page)) if (p.model) assert.match(p.error, /not in the alphabet/);
    await page.fill('#word', WORD);
    await page.press('#word', 'Enter');
    await waitReady(page, ready);
    assert.ok(await page.isHidden('#message'));
    for (const p of await compareState(page)) assert.equal(p.error, null);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('screenshots of the compare lane, wide and at phone width', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=compare`));
    await waitReady(page);
    await page.screenshot({ path: artifact('compare.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url(`?w=${WORD}&lane=compare&t=4`));
    await waitReady(page);
    await assertFitsPhone(page);
    await page.screenshot({ path: artifact('compare-phone.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
