// The self-attention matrices under each Transformer lane (web/js/self-attention.js):
// the encoder's (letters × letters), the decoder's masked lower triangle growing
// one row per step (greedy; beam: the best live hypothesis's ancestry, or the
// one selected in its tables), and
// Mask-Predict's and one-pass NAR's full draft maps. Every number is read from
// the table twin and checked against the packed npm module in Node, decoding the
// same word with the same options; then axe and screenshots with the matrices open.
//   node scripts/build-web.mjs && node --test tests/browser/self-attention.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { makeLane, moduleOptions } from './lanes.mjs';
import { installPackage } from '../node/helpers.mjs';
import { VIEW_CHECKS, artifact, assertFitsPhone, laneTabs, openPage, servedSite, site, waitReady } from './helpers.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');
const CMLM = models.find((m) => m.id === 'g2p-cmlm');

const loaded = [];
const served = servedSite({ cleanup: () => { for (const m of loaded) m.delete(); } });
let loadModel;
let modelsDir;
before(async () => {
  const pkg = installPackage();
  ({ loadModel } = await pkg.importPackage());
  modelsDir = pkg.modelsDir;
});
async function packedModel(m) {
  const model = await loadModel(join(modelsDir, m.file.split('/').pop()));
  loaded.push(model);
  return model;
}

/** Every snapshot of a decode of `word` by the packed module, under a page lane's options. */
function moduleSnaps(model, word, type, opts = {}) {
  const session = model.createSession(moduleOptions(makeLane(type, opts)));
  try {
    session.start(word);
    const snaps = [null];
    do snaps.push(session.step()); while (!snaps.at(-1).done);
    return snaps;
  } finally {
    session.delete();
  }
}

// A query row of a per-(layer, head) stack: the mean over layers and heads, or one head.
function headRow(data, offset, n, layers, heads, pick) {
  const at = (k, j) => data[offset(k) + j];
  if (pick) return Array.from({ length: n }, (_, j) => at(pick[0] * heads + pick[1], j));
  const row = new Array(n).fill(0);
  for (let k = 0; k < layers * heads; k++) for (let j = 0; j < n; j++) row[j] += at(k, j);
  return row.map((v) => v / (layers * heads));
}

/** The encoder's map from step 1's snapshot: S rows of S. */
function encoderExpected(s1, pick) {
  const S = s1.sourceLength;
  const L = s1.encoderLayers;
  const H = s1.encoderHeads;
  return Array.from({ length: S }, (_, q) => headRow(s1.encoderAttention, (k) => (k * S + q) * S, S, L, H, pick));
}

/**
 * The decoder's lower triangle at step i: the best live hypothesis (highest log P;
 * once none is live, the best finished one), or hypothesis `id`, and its ancestors'
 * rows, oldest first.
 */
function arDecoderExpected(snaps, i, pick, id) {
  const byId = new Map();
  for (let k = 1; k <= i; k++) for (const h of [...snaps[k].live, ...snaps[k].finished]) if (!byId.has(h.id)) byId.set(h.id, h);
  const s = snaps[i];
  // Or, given its id, the hypothesis selected on the page.
  const best = id != null ? byId.get(id) : s.live.slice().sort((a, b) => b.logprob - a.logprob)[0] ?? s.finished[0];
  const chain = [];
  for (let h = best; h; h = byId.get(h.parent)) chain.unshift(h);
  const rows = chain.map((h, q) => headRow(h.selfAttention, (k) => k * (q + 1), q + 1, s.layers, s.heads, pick));
  return { rows, best, labels: ['BEGIN', ...best.texts.slice(0, chain.length - 1)] };
}

/** A draft's full map: length rows of length. */
function draftExpected(s, pick) {
  const dr = s.drafts[s.bestDraft];
  const n = dr.length;
  return Array.from({ length: n }, (_, q) => headRow(dr.selfAttention, (k) => (k * n + q) * n, n, s.layers, s.heads, pick));
}

/** Opens a lane's matrix (if closed) and reads its table twin: row headers, cells (null: masked), caption. */
async function readMatrix(page, type, which) {
  const sel = (l) => `#${l} details.sa[data-sa="${which}"]`;
  const id = await page.evaluate((ty) => seq2seqPage.lanes.find((l) => l.type === ty).id, type);
  if (!(await page.$eval(sel(id), (d) => d.open))) await page.click(`${sel(id)} > summary`);
  await page.waitForSelector(`${sel(id)} table.sa-table`, { state: 'attached' });
  return page.$eval(sel(id), (d) => ({
    caption: d.querySelector('table.sa-table caption').textContent,
    svgCells: d.querySelectorAll('svg.sa-matrix rect').length,
    cols: [...d.querySelectorAll('table.sa-table thead th')].slice(1).map((th) => th.firstChild.textContent),
    labels: [...d.querySelectorAll('table.sa-table tbody th')].map((th) => th.firstChild.textContent),
    rows: [...d.querySelectorAll('table.sa-table tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.classList.contains('sa-masked')
      ? null : { v: Number(td.dataset.v), shown: Number(td.textContent) }))),
  }));
}

/** The page's matrix equals the module's (exact numbers, and as shown to 2 decimals); masked where expected. */
function sameMatrix(got, want, what, { masked }) {
  assert.equal(got.rows.length, want.length, `${what}: rows`);
  got.rows.forEach((row, q) => {
    assert.equal(row.length, want.length, `${what}: row ${q} has a cell per column`);
    row.forEach((cell, k) => {
      if (masked && k > q) { assert.equal(cell, null, `${what}: cell ${q},${k} above the diagonal is masked`); return; }
      assert.ok(cell, `${what}: cell ${q},${k} has a number`);
      assert.ok(Math.abs(cell.v - want[q][k]) < 1e-6, `${what}: cell ${q},${k} is ${cell.v}, the module has ${want[q][k]}`);
      assert.ok(Math.abs(cell.shown - want[q][k]) <= 0.005 + 1e-9, `${what}: cell ${q},${k} shows ${cell.shown} for ${want[q][k]}`);
    });
    const sum = row.reduce((a, c) => a + (c ? c.v : 0), 0);
    assert.ok(Math.abs(sum - 1) < 1e-4, `${what}: row ${q} sums to ${sum}`);
    const shown = row.reduce((a, c) => a + (c ? c.shown : 0), 0);
    assert.ok(Math.abs(shown - 1) <= 0.005 * row.length + 1e-9, `${what}: row ${q} as shown sums to ${shown}`);
  });
}

async function stepTo(page, type, which, rows) {
  await page.click('#step');
  await page.waitForFunction(([ty, w, n]) => seq2seqPage.lanes.find((l) => l.type === ty).el
    .querySelectorAll(`details.sa[data-sa="${w}"] table.sa-table tbody tr`).length === n, [type, which, rows], { timeout: 10000 });
}

describe('self-attention matrices on the page', () => {
  test('greedy, PHONEME: the encoder map is letters × letters, the decoder triangle grows one row per Step, heads selectable', async () => {
    const word = 'PHONEME';
    const { page, errors } = await openPage(served.context, served.url(`/?w=${word}&lane=greedy&t=1`));
    await waitReady(page);
    // Closed at first: no matrix drawn until asked for.
    assert.equal(await page.locator('details.sa[open]').count(), 0);
    assert.equal(await page.locator('table.sa-table').count(), 0);
    const snaps = moduleSnaps(await packedModel(AR), word, 'greedy');

    const enc = await readMatrix(page, 'greedy', 'enc');
    assert.deepEqual(enc.labels, [...word]);
    assert.deepEqual(enc.cols, [...word]);
    assert.equal(enc.svgCells, word.length ** 2);
    sameMatrix(enc, encoderExpected(snaps[1]), 'encoder, average', { masked: false });
    // A single head: its thumbnail button, then its numbers.
    await page.click('.lane-greedy details.sa[data-sa="enc"] [data-action="sa-head"][data-head="1.2"]');
    const head = await readMatrix(page, 'greedy', 'enc');
    assert.match(head.caption, /layer 2, head 3/);
    sameMatrix(head, encoderExpected(snaps[1], [1, 2]), 'encoder, layer 2 head 3', { masked: false });
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.head), '1.2', 'the keyboard stays on the head picked');

    const last = snaps.length - 1;
    for (let i = 1; i <= last; i++) {
      if (i > 1) await stepTo(page, 'greedy', 'dec', i);
      const dec = await readMatrix(page, 'greedy', 'dec');
      const want = arDecoderExpected(snaps, i);
      assert.equal(dec.rows.length, i, `step ${i}: ${i} rows`);
      assert.deepEqual(dec.labels, want.labels, `step ${i}: rows are BEGIN and the phonemes written before`);
      assert.equal(dec.svgCells, i * i, `step ${i}: the SVG has a cell per entry, masked ones too`);
      sameMatrix(dec, want.rows, `decoder, step ${i}`, { masked: true });
    }
    // The encoder's map stays as it was, from step 1's snapshot.
    sameMatrix(await readMatrix(page, 'greedy', 'enc'), encoderExpected(snaps[1], [1, 2]), 'encoder at the last step', { masked: false });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('beam k = 3, COLONEL: the decoder triangle follows the best live hypothesis, also when it changes ancestry', async () => {
    const word = 'COLONEL';
    const { page, errors } = await openPage(served.context, served.url(`/?w=${word}&lane=beam:beamSize=3&t=1`));
    await waitReady(page);
    const snaps = moduleSnaps(await packedModel(AR), word, 'beam', { beamSize: 3 });
    let switched = 0;
    let before = null;
    for (let i = 1; i < snaps.length; i++) {
      if (i > 1) await stepTo(page, 'beam', 'dec', arDecoderExpected(snaps, i).rows.length);
      const dec = await readMatrix(page, 'beam', 'dec');
      const want = arDecoderExpected(snaps, i);
      sameMatrix(dec, want.rows, `beam step ${i}`, { masked: true });
      assert.deepEqual(dec.labels, want.labels);
      assert.ok(dec.caption.includes(want.best.texts.filter((x) => x !== '</s>').join(' ')), `step ${i}: the caption names ${want.best.texts.join(' ')}: ${dec.caption}`);
      // A new best that does not extend the last one: rows before the newest change.
      if (before && dec.rows.length > 1 && JSON.stringify(dec.rows.slice(0, before.length)) !== JSON.stringify(before)) switched++;
      before = dec.rows;
    }
    assert.ok(switched >= 1, 'the best live hypothesis changed ancestry at least once on COLONEL');

    // Selecting another hypothesis in the beam's tables: the triangle follows it, as the cross-attention does.
    const last = snaps.length - 1;
    const best = arDecoderExpected(snaps, last);
    const lane = await page.evaluate(() => seq2seqPage.lanes.find((l) => l.type === 'beam').id);
    const ids = await page.$$eval(`#${lane} table.hyps [data-action="select"]`, (bs) => bs.map((b) => Number(b.dataset.node)));
    const text = (h) => h.texts.filter((x) => x !== '</s>').join(' ');
    const other = ids.map((id) => arDecoderExpected(snaps, last, undefined, id))
      .find((w) => w.best && text(w.best) !== text(best.best) && JSON.stringify(w.rows) !== JSON.stringify(best.rows));
    assert.ok(other, `a hypothesis other than the best (${text(best.best)}) is in the tables: ${ids}`);
    await page.click(`#${lane} table.hyps [data-action="select"][data-node="${other.best.id}"]`);
    await page.waitForFunction(([l, c]) => document.querySelector(`#${l} details.sa[data-sa="dec"] table.sa-table caption`)?.textContent.includes(c),
      [lane, text(other.best)], { timeout: 10000 });
    const sel = await readMatrix(page, 'beam', 'dec');
    sameMatrix(sel, other.rows, `beam, hypothesis ${other.best.id} selected`, { masked: true });
    assert.deepEqual(sel.labels, other.labels);
    assert.match(sel.caption, /selected hypothesis/, sel.caption);
    assert.ok(!sel.caption.includes(`${text(best.best)},`), `the caption no longer names the best: ${sel.caption}`);
    await page.locator(`#${lane} .sa-view`).screenshot({ path: artifact('self-attention-beam-selected.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Mask-Predict and one-pass NAR, QUEUE: the draft\'s full map, no cell masked, at every iteration', async () => {
    const word = 'QUEUE';
    const { page, errors } = await openPage(served.context, served.url(`/?w=${word}&lane=mp&lane=nar&t=1`));
    await waitReady(page);
    const cmlm = await packedModel(CMLM);
    const mp = moduleSnaps(cmlm, word, 'mp');
    const nar = moduleSnaps(cmlm, word, 'nar');
    assert.ok(mp.length > 2, 'Mask-Predict takes more than one iteration on QUEUE');

    const one = await readMatrix(page, 'nar', 'dec');
    sameMatrix(one, draftExpected(nar[1]), 'one-pass NAR', { masked: false });
    assert.ok(one.labels.every((l) => l.endsWith('MASK')), `one pass: every position is fed MASK: ${one.labels}`);
    sameMatrix(await readMatrix(page, 'nar', 'enc'), encoderExpected(nar[1]), 'one-pass NAR encoder', { masked: false });

    for (let i = 1; i < mp.length; i++) {
      if (i > 1) {
        await page.click('#step');
        await page.waitForFunction((n) => seq2seqPage.t === n, i);
      }
      const dec = await readMatrix(page, 'mp', 'dec');
      const dr = mp[i].drafts[mp[i].bestDraft];
      assert.equal(dec.rows.length, dr.length);
      assert.ok(dec.rows.every((r) => r.every((c) => c !== null)), `iteration ${i}: nothing masked`);
      sameMatrix(dec, draftExpected(mp[i]), `Mask-Predict iteration ${i}`, { masked: false });
      // Fed: MASK where re-masked, the kept token elsewhere.
      assert.deepEqual(dec.labels, dr.texts.map((x, p) => `${p + 1}·${dr.masked[p] ? 'MASK' : x}`));
    }
    await page.click('.lane-mp details.sa[data-sa="dec"] [data-action="sa-head"][data-head="2.0"]');
    sameMatrix(await readMatrix(page, 'mp', 'dec'), draftExpected(mp.at(-1), [2, 0]), 'Mask-Predict, layer 3 head 1', { masked: false });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('RNN lanes have no self-attention: nothing is shown', async () => {
    const rnn = models.find((m) => m.arch === 'rnn');
    const { page, errors } = await openPage(served.context, served.url(`/?w=KNIGHT&lane=greedy:m=${rnn.id}&lane=compare&t=2`));
    await waitReady(page);
    assert.ok(await page.locator('.lane-greedy svg.heatmap').count() > 0, 'the RNN lane draws its cross-attention');
    assert.equal(await page.locator('.sa-view, details.sa').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('accessibility and layout with the matrices open', () => {
  test('a wide matrix (one-pass NAR at the fixed maximum length) scrolls inside its named region on a phone', async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(served.url('/?w=PHONEME&lane=nar:narLength=fixed'));
    await waitReady(page);
    const dec = await readMatrix(page, 'nar', 'dec');
    assert.ok(dec.rows.length >= 20, `the fixed length is long: ${dec.rows.length}`);
    const region = await page.$eval('details.sa[data-sa="dec"] .table-scroll:has(svg.sa-matrix)', (r) => ({
      tab: r.tabIndex, name: r.getAttribute('aria-label'), role: r.getAttribute('role'), scrolls: r.scrollWidth > r.clientWidth + 100,
    }));
    assert.deepEqual({ ...region, name: Boolean(region.name) }, { tab: 0, name: true, role: 'region', scrolls: true });
    await assertFitsPhone(page);
    await page.evaluate(() => {
      document.querySelector('details.sa[data-sa="dec"] svg.sa-matrix').scrollIntoView({ block: 'start' });
      window.scrollBy(0, -document.querySelector('.transport-bar').getBoundingClientRect().height - 60);
    });
    await page.screenshot({ path: artifact('self-attention-en-390-wide.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  const LANES = 'lane=greedy&lane=beam:beamSize=3&lane=nar&lane=mp';
  for (const [lang, [width, height]] of VIEW_CHECKS) {
    test(`axe and a screenshot, ${lang} at ${width}×${height}`, async () => {
      const { page, errors } = await openPage(served.context);
      await page.setViewportSize({ width, height });
      await page.goto(served.url(`/?w=PHONEME&${LANES}&t=3${lang === 'en' ? '' : `&lang=${lang}`}`));
      await waitReady(page);
      // On a phone the lanes show one at a time: each is opened, checked with its tab open.
      const tabs = await laneTabs(page);
      const regions = [];
      await page.addScriptTag({ path: axePath });
      for (const tab of tabs) {
        if (tab) await page.click(`#${tab}`);
        for (const s of await page.$$('.lane:not([hidden]) details.sa > summary')) await s.click();
        for (const s of await page.$$('.lane:not([hidden]) details.sa details.twin > summary')) await s.click();
        // Each matrix and table sits in a named, focusable region that scrolls sideways when it is wide.
        regions.push(...await page.$$eval('.lane:not([hidden]) details.sa .table-scroll', (rs) => rs.map((r) => ({ tab: r.tabIndex, name: r.getAttribute('aria-label'), fits: r.getBoundingClientRect().right <= document.documentElement.clientWidth + 1 }))));
        if (width < 500) await assertFitsPhone(page);
        // The whole page, with the self-attention sections and all they hold open.
        const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
        assert.deepEqual(violations, []);
      }
      assert.equal(await page.locator('details.sa[open]').count(), 8);
      assert.equal(await page.locator('details.sa table.sa-table').count(), 8);
      assert.equal(regions.length, 16);
      for (const r of regions) { assert.equal(r.tab, 0); assert.ok(r.name); assert.ok(r.fits, `a region overflows the page: ${r.name}`); }
      if (tabs[0]) await page.click(`#${tabs[0]}`);
      // Each matrix of the greedy lane, just under the sticky step bar.
      for (const which of ['enc', 'dec']) {
        await page.evaluate((w) => {
          document.querySelector(`.lane-greedy details.sa[data-sa="${w}"]`).scrollIntoView({ block: 'start' });
          window.scrollBy(0, -document.querySelector('.transport-bar').getBoundingClientRect().height - 8);
        }, which);
        await page.screenshot({ path: artifact(`self-attention-${lang}-${width}-${which}.png`) });
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
