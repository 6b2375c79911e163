// "Inside this step" of the non-autoregressive lanes (web/js/inside.js on lane-nar.js):
// the pass it shows is the one over the draft the iteration read — the draft the
// iteration wrote, MASK where it re-masked — for the draft picked in the tabs, held
// to the npm module's Model.inspect of that input; its output block is the grid's
// confidence; its attention is the lane's self-attention map. And: a cell of an
// attention map opens the inside at that attention and query, by pointer or
// keyboard; the address keeps what is open through a reload; each lane names its
// passes; the result, the draft tabs and the forced-score table name their scores
// apart; axe finds nothing serious, en and zh, at 1400 and 390 px.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { moduleModel, releaseModels } from './expect.mjs';
import { VIEW_CHECKS, artifact, assertFitsPhone, openPage, servedSite, site, waitReady } from './helpers.mjs';
import en from '../../web/i18n/en.js';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const CMLM = models.find((m) => m.id === 'g2p-cmlm');
const AR = models.find((m) => m.id === 'g2p-transformer');
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const served = servedSite({ cleanup: releaseModels });

const num = (s) => Number(String(s).replace('−', '-'));
const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) < tol, `${what}: ${a} vs ${b}`);

async function openInside(page, lane = 0) {
  await page.evaluate((k) => seq2seqPage.lanes[k].el.querySelector('details.inside').setAttribute('open', ''), lane);
  await page.waitForSelector('details.inside .arch', { timeout: 20000 });
}

/** The module's snapshots of a decode with the options the page's lane decoded with. */
async function moduleSnaps(page, model, word, lane = 0) {
  const options = await page.evaluate((k) => seq2seqPage.lanes[k].decodedOptions, lane);
  const s = model.createSession(options);
  s.start(word);
  const snaps = [null];
  do snaps.push(s.step()); while (!snaps.at(-1).done);
  s.delete();
  return snaps;
}

/** What iteration k read of draft dr: its tokens, MASK where it re-masked them. */
const inputOf = (dr, mask) => Array.from(dr.tokens, (x, p) => (dr.masked[p] ? mask : x));

/** softmax(logits of position p)[token] of a StepInside: the probability the pass gave it there. */
function probAt(inside, p, token) {
  const V = inside.vocabSize;
  const logits = Array.from(inside.logits.subarray(p * V, (p + 1) * V));
  const m = Math.max(...logits);
  return Math.exp(logits[token] - m) / logits.reduce((a, v) => a + Math.exp(v - m), 0);
}

/** The scores table as shown: rows of numbers. */
// A key a row: the raw scores, scaled, the softmax, each as a list over the keys.
const scoresTable = (page) => page.$eval('details.inside table.in-scores', (tb) => ['raw', 'scaled', 'softmax']
  .map((c) => [...tb.querySelectorAll(`td[data-col="${c}"]`)].map((x) => Number(x.textContent.replace('−', '-')))));

/** The inside's QKᵀ matrix (its table twin's exact numbers), rows of queries. */
const insideMatrix = (page) => page.$$eval('details.inside table.in-matrix tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => Number(c.dataset.v))));

describe('inside a Mask-Predict iteration', () => {
  test('HOURGLASS iteration 2: the pass over the draft it read, its outputs the grid\'s, its attention the lane\'s map', async () => {
    const word = 'HOURGLASS';
    const { page, errors } = await openPage(served.context, served.url(`?w=${word}&lane=mp&t=2`));
    await waitReady(page);
    const model = await moduleModel(CMLM);
    const { mask } = model.info.targetSpecials;
    const snap = (await moduleSnaps(page, model, word))[2];
    const dr = snap.drafts[snap.bestDraft];
    const input = inputOf(dr, mask);
    assert.ok(input.includes(mask) && input.some((x) => x !== mask), 'iteration 2 reads a draft partly masked again');
    const inside = model.inspect(word, input);
    await openInside(page);
    // The positions are what the iteration read: MASK where re-masked, the kept phoneme elsewhere.
    const names = await page.$$eval('details.inside .in-pos button', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual(names, input.map((x, p) => `${p + 1}·${x === mask ? 'MASK' : model.info.targetVocab[x]}`));
    assert.match(await page.textContent('details.inside .in-body > p.note'), /iteration 2/);
    assert.ok(await page.isVisible('details.inside .in-length-head'), 'the length head is named as not shown');
    assert.equal(await page.getAttribute('details.inside [data-action="in-pick"][data-stack="decoder"][data-sub="self"] >> nth=0', 'data-sub'), 'self');
    assert.doesNotMatch(await page.textContent('details.inside .arch'), /Masked self-attention/, 'a CMLM\'s decoder self-attention is not masked');

    // Output: at every re-masked position the chosen token's softmax is the grid's confidence.
    const gridProbs = await page.evaluate(() => { const l = seq2seqPage.lanes[0]; const s = l.snaps[2]; return Array.from(s.drafts[s.bestDraft].probs); });
    const gridShown = await page.$$eval('.lane-mp table.nar-grid tbody tr:nth-child(2) td small', (cs) => cs.map((c) => Number(c.textContent)));
    await page.click('details.inside [data-action="in-pick"][data-sub="out"]');
    for (let p = 0; p < dr.length; p++) {
      if (!dr.masked[p]) continue;
      await page.click(`details.inside [data-action="in-pos"][data-pos="${p}"]`);
      const chosen = await page.$eval('details.inside table.in-logits tr.chosen', (r) => ({ token: r.dataset.token, p: Number(r.dataset.p) }));
      assert.equal(chosen.token, model.info.targetVocab[dr.tokens[p]], `position ${p + 1}`);
      close(chosen.p, probAt(inside, p, dr.tokens[p]), 1e-5, `position ${p + 1}: the module's softmax`);
      close(chosen.p, gridProbs[p], 2e-3, `position ${p + 1}: the grid's confidence`);
      assert.equal(Math.round(chosen.p * 100), gridShown[p], `position ${p + 1}: the grid shows ${gridShown[p]}%`);
      assert.match(await page.textContent('details.inside .in-out-pos'), new RegExp(`${(gridProbs[p] * 100).toFixed(1)}%`));
    }

    // Decoder self-attention, layer 2, head 3: q·k, scaled, softmax; every query's weights
    // are the lane's own self-attention map of that head.
    const l = 1, h = 2, q = 1;
    await page.click(`details.inside [data-action="in-pick"][data-stack="decoder"][data-layer="${l}"][data-sub="self"]`);
    await page.click(`details.inside [data-action="in-head"][data-head="${h}"]`);
    await page.click(`details.inside [data-action="in-pos"][data-pos="${q}"]`);
    assert.ok(await page.isVisible('details.inside .in-no-mask'), 'the page says the CMLM\'s self-attention has no mask');
    const a = inside.decoder.layers[l].selfAttention.attention;
    const L = a.queries;
    const shown = await scoresTable(page);
    for (let k = 0; k < L; k++) {
      close(shown[0][k], a.scores[(h * L + q) * L + k], 1.5e-3, `raw ${k}`);
      close(shown[1][k], a.scaled[(h * L + q) * L + k], 1.5e-3, `scaled ${k}`);
      close(shown[1][k], shown[0][k] * a.scale, 2e-3, `scaled = raw × ${a.scale}`);
      close(shown[2][k], a.weights[(h * L + q) * L + k], 1.5e-3, `softmax ${k}`);
    }
    const matrix = await insideMatrix(page);
    await page.click('.lane-mp details.sa[data-sa="dec"] > summary');
    await page.click(`.lane-mp details.sa[data-sa="dec"] [data-action="sa-head"][data-head="${l}.${h}"]`);
    const map = await page.$$eval('.lane-mp details.sa[data-sa="dec"] table.sa-table tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => Number(c.dataset.v))));
    assert.equal(map.length, L);
    map.forEach((r, i) => r.forEach((v, k) => close(matrix[i][k], v, 2e-3, `weight ${i}→${k}: the inside against the lane's map`)));
    await page.locator('details.inside').screenshot({ path: artifact('nar-inside-self.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a draft tab picks the draft shown; an END the draft kept is read as the search read it; the address keeps both', async () => {
    const word = 'COLONEL';
    const { page, errors } = await openPage(served.context, served.url(`?w=${word}&lane=mp`));
    await waitReady(page);
    const model = await moduleModel(CMLM);
    const { mask, eos } = model.info.targetSpecials;
    const snaps = await moduleSnaps(page, model, word);
    // An iteration after the first whose draft keeps an END it read (src/nar_search.cpp feeds it back).
    let k = 0, d = -1;
    for (let i = 2; i < snaps.length && d < 0; i++) {
      d = snaps[i].drafts.findIndex((x) => Array.from(x.tokens).some((tok, p) => tok === eos && !x.masked[p]));
      k = i;
    }
    assert.ok(d >= 0, 'COLONEL has a draft that reads END');
    const dr = snaps[k].drafts[d];
    await page.evaluate((i) => seq2seqPage.go(i), k);
    await page.click(`.lane-mp .draft-tabs [data-action="draft"][data-draft="${d}"]`);
    await openInside(page);
    await page.click('details.inside [data-action="in-pick"][data-sub="out"]');
    const names = await page.$$eval('details.inside .in-pos button', (bs) => bs.map((b) => b.textContent));
    assert.equal(names.length, dr.length, 'the picked draft\'s length');
    assert.ok(names.some((n) => n.endsWith('·END')), names.join(' '));
    const inside = model.inspect(word, inputOf(dr, mask));
    const p = Array.from(dr.masked).indexOf(1);
    await page.click(`details.inside [data-action="in-pos"][data-pos="${p}"]`);
    const chosen = await page.$eval('details.inside table.in-logits tr.chosen', (r) => Number(r.dataset.p));
    close(chosen, probAt(inside, p, dr.tokens[p]), 1e-5, 'the module\'s softmax');
    close(chosen, dr.probs[p], 2e-3, 'the grid\'s confidence');

    // Reload: the step, the draft (by its length) and the inside come back as they were.
    // The address is written after the click: wait for the picked position in it too.
    await page.waitForFunction((L) => location.search.includes(`draft=${L}`) && /inside=dec-out[^,&]*-q\d+/.test(location.search), dr.length);
    const before = await page.evaluate(() => location.search);
    await page.reload();
    await waitReady(page);
    await page.waitForSelector('details.inside[open] .in-bars', { timeout: 20000 });
    assert.equal(await page.evaluate(() => location.search), before);
    assert.equal(await page.getAttribute(`.lane-mp .draft-tabs [data-draft="${d}"]`, 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute(`details.inside [data-action="in-pos"][data-pos="${p}"]`, 'aria-pressed'), 'true');
    close(await page.$eval('details.inside table.in-logits tr.chosen', (r) => Number(r.dataset.p)), chosen, 1e-9, 'after the reload');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('a map cell opens the inside', () => {
  test('Mask-Predict\'s cross-attention (the average): the last layer\'s head 1 at that query, said so, in view', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=nar&lane=mp'));
    await waitReady(page);
    const cell = '.lane-mp svg.hm-pick rect[data-row="2"][data-col="3"]';
    await page.click(cell);
    await page.waitForSelector('.lane-mp details.inside[open] .in-scores', { timeout: 20000 });
    const layers = await page.$$eval('.lane-mp details.inside .arch-stack:nth-of-type(2) .arch-layer', (ls) => ls.length);
    assert.equal(await page.getAttribute(`.lane-mp details.inside [data-action="in-pick"][data-stack="decoder"][data-sub="cross"][data-layer="${layers - 1}"]`, 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('.lane-mp details.inside [data-action="in-head"][data-head="0"]', 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('.lane-mp details.inside [data-action="in-pos"][data-pos="2"]', 'aria-pressed'), 'true');
    assert.match(await page.textContent('.lane-mp details.inside .in-from-avg'), new RegExp(`${layers} layers`));
    assert.equal(await page.evaluate(() => document.activeElement.dataset.pos), '2', 'the keyboard is at the query picked');
    const box = await page.locator('.lane-mp details.inside .in-pos').boundingBox();
    assert.ok(box.y >= 0 && box.y < 1000, `the query is in view (${box.y})`);
    assert.equal(await page.locator('.lane-nar details.inside[open]').count(), 0, 'the other lane\'s inside stays closed');
    // The cross-attention weights shown for that query, averaged over every layer and head, are the map's row.
    const model = await moduleModel(CMLM);
    const dr = await page.evaluate(() => { const s = seq2seqPage.lanes[1].snaps.at(-1); const x = s.drafts[s.bestDraft]; return { tokens: Array.from(x.tokens), masked: Array.from(x.masked), attention: Array.from(x.attention) }; });
    const inside = model.inspect('DELETE', inputOf(dr, model.info.targetSpecials.mask));
    const S = inside.sourceLength;
    for (let j = 0; j < S; j++) {
      let sum = 0, n = 0;
      for (const layer of inside.decoder.layers) {
        const a = layer.crossAttention.attention;
        for (let h = 0; h < inside.heads; h++, n++) sum += a.weights[(h * a.queries + 2) * S + j];
      }
      close(sum / n, dr.attention[2 * S + j], 2e-3, `letter ${j + 1}: the map's cell is the mean of the inside's heads`);
    }
    // The last layer, by its number or by leaving it out.
    await page.waitForFunction((n) => new RegExp(`lane=mp:inside=dec-cross-(L${n}-)?h1-q3-avg`).test(location.search), layers);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('keyboard: a head of the greedy decoder\'s self-attention map, an arrow, Enter; then reload', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=greedy&t=4'));
    await waitReady(page);
    await page.click('.lane details.sa[data-sa="dec"] > summary');
    await page.click('.lane details.sa[data-sa="dec"] [data-action="sa-head"][data-head="1.2"]');
    const map = '.lane details.sa[data-sa="dec"] svg.hm-pick';
    assert.equal(await page.$$eval(`${map} [tabindex="0"]`, (c) => c.length), 1, 'one cell in the tab order');
    await page.focus(`${map} [tabindex="0"]`);
    const at = () => page.evaluate(() => `${document.activeElement.dataset.row},${document.activeElement.dataset.col}`);
    assert.equal(await at(), '0,0', 'the keyboard enters at the first cell');
    const step = await page.evaluate(() => seq2seqPage.t);
    await page.keyboard.press('ArrowRight');   // BEGIN sees no later key: nothing to the right
    assert.equal(await at(), '0,0');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    assert.equal(await at(), '2,1');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await at(), '2,0');
    assert.equal(await page.evaluate(() => seq2seqPage.t), step, 'the arrows move in the map, not through the steps');
    await page.keyboard.press('Enter');
    await page.waitForSelector('details.inside[open] table.in-scores', { timeout: 20000 });
    assert.equal(await page.getAttribute('details.inside [data-action="in-pick"][data-stack="decoder"][data-layer="1"][data-sub="self"]', 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('details.inside [data-action="in-head"][data-head="2"]', 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('details.inside [data-action="in-pos"][data-pos="2"]', 'aria-pressed'), 'true');
    // The map's rows are the inside's query rows, head for head.
    const inside = await insideMatrix(page);
    const rows = await page.$$eval('.lane details.sa[data-sa="dec"] table.sa-table tbody tr', (rs) => rs.map((r) => [...r.querySelectorAll('td')].map((c) => (c.dataset.v === undefined ? null : Number(c.dataset.v)))));
    rows.forEach((r, i) => r.forEach((v, k) => { if (v !== null) close(inside[i][k], v, 2e-3, `weight ${i}→${k}`); }));
    // Its scores against the module.
    const model = await moduleModel(AR);
    const tokens = await page.evaluate(() => { const s = seq2seqPage.lanes[0].snaps[4]; return (s.live[0] ?? s.finished[0]).tokens.slice(0, -1); });
    const a = model.inspect('DELETE', tokens).decoder.layers[1].selfAttention.attention;
    const n = a.keys;
    const scores = await scoresTable(page);
    for (let k = 0; k <= 2; k++) close(scores[0][k], a.scores[(2 * a.queries + 2) * n + k], 1.5e-3, `raw ${k}`);
    // Without scaling, then a reload: the same view.
    await page.click('details.inside [data-action="in-scale"]');
    await page.waitForFunction(() => /lane=greedy:inside=dec-self-L2-h3-q3-raw(&|$)/.test(location.search));
    const rawSoftmax = (await scoresTable(page))[2];
    await page.reload();
    await waitReady(page);
    await page.waitForSelector('details.inside[open] table.in-scores', { timeout: 20000 });
    assert.equal(await page.getAttribute('details.inside [data-action="in-scale"]', 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('details.inside [data-action="in-head"][data-head="2"]', 'aria-pressed'), 'true');
    assert.deepEqual((await scoresTable(page))[2], rawSoftmax);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the encoder\'s map opens the encoder\'s self-attention at that letter', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=greedy&t=2'));
    await waitReady(page);
    await page.click('.lane details.sa[data-sa="enc"] > summary');
    await page.click('.lane details.sa[data-sa="enc"] svg.hm-pick rect[data-row="4"][data-col="1"]');
    await page.waitForSelector('details.inside[open] .in-scores', { timeout: 20000 });
    assert.equal(await page.getAttribute('details.inside [data-action="in-pick"][data-stack="encoder"][data-layer="2"][data-sub="self"]', 'aria-pressed'), 'true');
    assert.equal(await page.textContent('details.inside .in-pos [aria-pressed="true"]'), 'T');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('old addresses: no inside is open, and one the page cannot read is left out', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=greedy:inside=nonsense&lane=mp&t=2'));
    await waitReady(page);
    assert.equal(await page.locator('details.inside[open]').count(), 0);
    assert.equal(await page.locator('details.inside').count(), 2);
    await page.waitForFunction(() => !location.search.includes('inside'));
    assert.equal(await page.isHidden('#message'), true, 'nothing to say about it');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('each lane names its passes and its scores', () => {
  test('the one-pass lane says one pass; Mask-Predict says iterations, and how many lengths each decodes', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=HOURGLASS&lane=nar&lane=mp&lane=mp:lengthCandidates=1'));
    await waitReady(page);
    const stats = await page.$$eval('.lane .lane-stats', (ls) => ls.map((l) => l.textContent));
    const lengths = await page.evaluate(() => seq2seqPage.lanes.map((l) => l.snaps.at(-1).lengths.length));
    assert.deepEqual(lengths, [1, 3, 1]);
    assert.ok(stats[0].includes(en['stats.passesOne']), stats[0]);
    assert.doesNotMatch(stats[0], /Mask-Predict/);
    assert.ok(stats[1].includes(en['stats.passesMpLengths'].replace('{n}', '3')), stats[1]);
    assert.ok(stats[2].includes(en['stats.passesMp']), stats[2]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('DELETE, Mask-Predict: the result\'s score is the winning draft\'s; the forced table\'s other score has another name', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=nar&lane=mp'));
    await waitReady(page);
    await page.waitForFunction(() => document.querySelectorAll('.forced:not([data-diagnosis="pending"])').length === 2, null, { timeout: 20000 });
    const read = (k) => page.evaluate((i) => {
      const l = seq2seqPage.lanes[i];
      const line = l.el.querySelector('.result-prob').textContent.split('·')[0].trim();
      const tab = l.el.querySelector('.draft-tabs [aria-pressed="true"] small')?.textContent.split('=')[0].trim() ?? null;
      const headers = [...l.el.querySelectorAll('table.forced-scores thead th')].map((th) => th.textContent);
      const out = l.el.querySelector('table.forced-scores tr.out');
      return { line, tab, tabScore: Number(l.el.querySelector('.draft-tabs [aria-pressed="true"]')?.dataset.score), scoreHeader: headers[2], out: Number(out.dataset.score),
        result: l.snaps.at(-1).results[0].score, model: l.model.id, options: l.decodedOptions };
    }, k);
    const split = (s) => { const m = /^(.*\S)\s+(\S+)$/.exec(s); return { name: m[1].toLowerCase(), value: num(m[2]) }; };
    const mp = await read(1);
    const line = split(mp.line), tab = split(mp.tab);
    // One score of an output, called so wherever it is shown: the one the search ranked its drafts by,
    // the ranking value (the page's word for it, result.score), the module's number for the decode.
    assert.equal(line.name, en['result.score'].replace('{score}', '').trim().toLowerCase());
    assert.equal(line.name, tab.name);
    assert.equal(line.value, tab.value);
    const want = (await moduleModel(models.find((m) => m.id === mp.model))).decode('DELETE', mp.options);
    close(mp.result, want[0].score, 1e-6, 'the result\'s ranking value is the module\'s');
    close(line.value, want[0].score, 0.006, 'the ranking value written on the result line');
    // The table's number for the output is another quantity: it must not pass for the same one.
    const tableName = mp.scoreHeader.toLowerCase();
    assert.ok(Math.abs(mp.out - mp.result) < 0.005 || tableName !== line.name, `the table calls ${mp.out} "${mp.scoreHeader}", the result calls ${mp.result} "${line.name}"`);
    assert.equal(mp.scoreHeader, en['forced.colScore1']);
    close(mp.tabScore, mp.result, 1e-9, 'the winning tab is the result');
    // The one-pass lane's first pass is its only one: there the two are the same number.
    const one = await read(0);
    close(one.out, one.result, 1e-4, 'a one-pass decode\'s first-pass score is its score');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the inside of a non-autoregressive pass: axe and layout', () => {
  for (const [lang, [width, height]] of VIEW_CHECKS) {
    test(`${lang} at ${width}×${height}`, async () => {
      const { page, errors } = await openPage(served.context);
      await page.setViewportSize({ width, height });
      await page.goto(served.url(`?w=HOURGLASS&lane=mp:inside=dec-self-L2-h1-q3&t=2${lang === 'en' ? '' : `&lang=${lang}`}`));
      await waitReady(page);
      await page.waitForSelector('details.inside[open] .in-scores', { timeout: 20000 });
      await page.click('.lane-mp details.sa[data-sa="dec"] > summary');
      await page.addScriptTag({ path: axePath });
      for (const sub of ['self', 'out']) {
        await page.click(`details.inside [data-action="in-pick"][data-stack="decoder"][data-sub="${sub}"] >> nth=0`);
        const bad = await page.evaluate(async () => (await window.axe.run(document.querySelector('.lane-mp'), { resultTypes: ['violations'] })).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(' | ')}`));
        assert.deepEqual(bad, [], sub);
      }
      if (width < 500) await assertFitsPhone(page);
      await page.locator('.lane-mp details.inside').screenshot({ path: artifact(`nar-inside-${lang}-${width}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
