// "Inside this step" (web/js/inside.js) on the shipped Transformer: the numbers it
// shows — the scores q·k, the scaling, the softmax with and without it, the logits'
// softmax at a chosen temperature — against the npm module's Model.inspect for the
// same pass; the step it shows follows the step slider; axe finds nothing serious
// in it, en and zh, at 1400 and 390 px. And the sampling lane's bars: the tempered,
// cut distribution drawn from, the model's own behind it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { moduleModel, releaseModels } from './expect.mjs';
import { VIEW_CHECKS, artifact, assertFitsPhone, openPage, servedSite, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const served = servedSite({ cleanup: releaseModels });
const WORD = 'COLONEL';

async function openInside(page) {
  await page.evaluate(() => document.querySelector('details.inside').setAttribute('open', ''));
  await page.waitForSelector('details.inside .arch', { timeout: 20000 });
}

/** The scores table as shown, a key a row: per stage (raw, scaled, softmax) its header and numbers (masked cells null). */
const scoresTable = (page) => page.$eval('details.inside table.in-scores', (tb) => ['raw', 'scaled', 'softmax'].map((c) => ({
  name: tb.querySelector(`thead th[data-col="${c}"]`).textContent,
  cells: [...tb.querySelectorAll(`td[data-col="${c}"]`)].map((x) => (x.classList.contains('sa-masked') ? null : Number(x.textContent.replace('−', '-')))),
})));

const softmax = (xs) => {
  const m = Math.max(...xs);
  const e = xs.map((v) => Math.exp(v - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
};

describe('inside this step', () => {
  test('greedy, COLONEL step 3: the cross-attention scores, scaling and softmax of a head are the module\'s', async () => {
    const { page, errors } = await openPage(served.context, served.url(`?w=${WORD}&lane=greedy&t=3`));
    await waitReady(page);
    await openInside(page);
    await page.click('details.inside [data-action="in-pick"][data-stack="decoder"][data-layer="2"][data-sub="cross"]');
    await page.click('details.inside [data-action="in-head"][data-head="1"]');
    const model = await moduleModel(AR);
    const snap = await page.evaluate(() => { const l = seq2seqPage.lanes[0]; const s = l.snaps[3]; const h = s.live[0] ?? s.finished[0]; return { tokens: h.tokens, candidates: h.candidates }; });
    const inside = model.inspect(WORD, snap.tokens.slice(0, -1));
    const a = inside.decoder.layers[2].crossAttention.attention;
    const q = a.queries - 1, nk = a.keys, h = 1;
    const at = (flat, j) => flat[(h * a.queries + q) * nk + j];
    const shown = await scoresTable(page);
    assert.equal(shown.length, 3);
    for (let j = 0; j < nk; j++) {
      assert.ok(Math.abs(shown[0].cells[j] - at(a.scores, j)) < 1.5e-3, `raw ${j}: ${shown[0].cells[j]} vs ${at(a.scores, j)}`);
      assert.ok(Math.abs(shown[1].cells[j] - at(a.scaled, j)) < 1.5e-3, `scaled ${j}`);
      assert.ok(Math.abs(shown[2].cells[j] - at(a.weights, j)) < 1.5e-3, `softmax ${j}`);
    }
    assert.ok(shown[1].name.includes((1 / Math.sqrt(inside.headDim)).toFixed(3)), shown[1].name);
    // Without scaling: the softmax of the raw scores, more peaked than the scaled one.
    await page.click('details.inside [data-action="in-scale"]');
    const unscaled = (await scoresTable(page))[2].cells;
    const want = softmax(Array.from({ length: nk }, (_, j) => at(a.scores, j)));
    want.forEach((v, j) => assert.ok(Math.abs(unscaled[j] - v) < 1.5e-3, `unscaled softmax ${j}: ${unscaled[j]} vs ${v}`));
    assert.ok(Math.max(...want) > Math.max(...Array.from({ length: nk }, (_, j) => at(a.weights, j))), 'without scaling the softmax is more peaked');
    await page.locator('details.inside').screenshot({ path: artifact('inside-cross-attention.png') });

    // The output block: at temperature 1 the probabilities are the step's bars.
    await page.click('details.inside [data-action="in-pick"][data-sub="out"]');
    const probs = await page.$$eval('details.inside table.in-logits tbody tr', (rows) => rows.map((r) => ({ token: r.dataset.token, p: Number(r.dataset.p) })));
    const info = model.info;
    for (const c of snap.candidates.slice(0, 3)) {
      const row = probs.find((r) => r.token === info.targetVocab[c.token]);
      assert.ok(row && Math.abs(row.p - c.prob) < 2e-3, `${c.text}: ${row?.p} vs ${c.prob}`);
    }
    await page.$eval('details.inside input[data-action="in-temp"]', (s) => { s.value = '2'; s.dispatchEvent(new Event('input', { bubbles: true })); });
    const hot = await page.$$eval('details.inside table.in-logits tbody tr', (rows) => rows.map((r) => Number(r.dataset.pt)));
    assert.ok(hot[0] < probs[0].p, `temperature 2 flattens the top probability: ${hot[0]} vs ${probs[0].p}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('DELETE step 2, last layer\'s cross-attention, head 3: the weighted values sum to the head\'s output, W_O gives Y; LayerNorm\'s distributions', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=greedy:inside=dec-cross-L3-h3-q2&t=2'));
    await waitReady(page);
    await page.waitForSelector('details.inside [data-stage="values"]', { timeout: 20000 });
    const d = (await moduleModel(AR)).inspect('DELETE', ['D']);
    const sub = d.decoder.layers[2].crossAttention;
    const a = sub.attention;
    const W = d.dModel, dh = d.headDim, h = 2, q = 1, nk = a.keys;
    const numbers = (sel) => page.$$eval(sel, (rs) => rs.map((r) => ({ name: r.querySelector('.vec-name').textContent, v: [...r.querySelectorAll('.vec-table td')].map((c) => Number(c.textContent.replace('−', '-'))) })));
    const values = await numbers('details.inside [data-stage="values"] .vec-row');
    assert.equal(values.length, nk + 1, 'one product per key, then their sum');
    const sum = new Array(dh).fill(0);
    for (let j = 0; j < nk; j++) {
      const w = a.weights[(h * a.queries + q) * nk + j];
      const v = a.v.subarray(j * W + h * dh, j * W + (h + 1) * dh);
      v.forEach((x, i) => { sum[i] += w * x; assert.ok(Math.abs(values[j].v[i] - w * x) < 1.5e-3, `w·v, key ${j}, ${i}`); });
    }
    const out = a.headOutputs.subarray(q * W + h * dh, q * W + (h + 1) * dh);
    out.forEach((x, i) => {
      assert.ok(Math.abs(sum[i] - x) < 1e-4, `the module's head output is Σ w·v (${i})`);
      assert.ok(Math.abs(values[nk].v[i] - x) < 1.5e-3, `the page's Σ (${i})`);
    });
    const heads = await numbers('details.inside [data-stage="heads"] .vec-row');
    heads.at(-1).v.forEach((x, i) => assert.ok(Math.abs(x - sub.delta[q * W + i]) < 1.5e-3, `Y = concat · W_O (${i})`));
    // Pre-LN: the norm this sublayer reads, drawn as three distributions.
    const hists = await page.$$eval('details.inside [data-stage="norm"] .hist', (fs) => fs.map((f) => ({ mean: Number(f.dataset.mean), std: Number(f.dataset.std) })));
    assert.equal(hists.length, 3);
    assert.ok(Math.abs(hists[0].mean - sub.norm.mean[q]) < 1e-3, `mean before: ${hists[0].mean} vs ${sub.norm.mean[q]}`);
    assert.ok(Math.abs(hists[0].std - sub.norm.std[q]) / sub.norm.std[q] < 1e-3, `std before: ${hists[0].std} vs ${sub.norm.std[q]}`);
    assert.ok(Math.abs(hists[1].mean) < 1e-4 && Math.abs(hists[1].std - 1) < 1e-3, `standardised: ${hists[1].mean}, ${hists[1].std}`);
    const after = Array.from(sub.norm.output.subarray(q * W, (q + 1) * W));
    const m = after.reduce((x, y) => x + y, 0) / W;
    assert.ok(Math.abs(hists[2].mean - m) < 1e-4, 'after γ and β: the module\'s output');
    await page.locator('details.inside [data-stage="values"]').screenshot({ path: artifact('inside-values.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a beam lane: the inside follows the hypothesis picked, and its map\'s cells open it', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=beam&t=3'));
    await waitReady(page);
    // Pick the live hypothesis D IH L in the table: the pass that chose its L read BEGIN D IH.
    const ids = await page.evaluate(() => seq2seqPage.lanes[0].snaps[3].live.map((h) => ({ id: h.id, text: h.texts.join(' ') })));
    const pick = ids.find((h) => h.text === 'D IH L');
    assert.ok(pick, ids.map((h) => h.text).join(' | '));
    await page.click(`.lane [data-action="select"][data-node="${pick.id}"]`);
    await openInside(page);
    await page.click('details.inside [data-action="in-pick"][data-sub="out"]');
    await page.waitForSelector('details.inside .in-bars');   // the numbers' table is the bars' twin, folded
    const probs = await page.$$eval('details.inside table.in-logits tbody tr', (rows) => rows.map((r) => ({ token: r.dataset.token, p: Number(r.dataset.p) })));
    const model = await moduleModel(AR);
    const d = model.inspect('DELETE', ['D', 'IH']);
    const V = d.vocabSize;
    const last = Array.from(d.logits.subarray((d.target.length - 1) * V, d.target.length * V));
    const want = softmax(last);
    const vocab = model.info.targetVocab;
    for (const r of probs.slice(0, 3)) assert.ok(Math.abs(r.p - want[vocab.indexOf(r.token)]) < 2e-3, `${r.token}: ${r.p} vs ${want[vocab.indexOf(r.token)]}`);
    assert.equal(probs[0].token, 'L');
    // The selected path's cross-attention map: a cell opens the inside at that row's query.
    await page.click('details.inside [data-action="in-pick"][data-sub="embed"][data-stack="encoder"]');
    const cell = page.locator('.lane .view [data-in-stack="decoder"] [data-row="2"]').first();
    await cell.click();
    await page.waitForSelector('details.inside table.in-scores');
    const st = await page.evaluate(() => { const s = seq2seqPage.lanes[0].viewStateOf('inside'); return { sub: s.sub, pos: s.pos, stack: s.stack }; });
    assert.deepEqual(st, { sub: 'cross', pos: 2, stack: 'decoder' });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the step slider moves what it shows; the embedding and FFN views carry the module\'s numbers', async () => {
    const { page, errors } = await openPage(served.context, served.url(`?w=${WORD}&lane=greedy&t=2`));
    await waitReady(page);
    await openInside(page);
    await page.click('details.inside [data-action="in-pick"][data-stack="decoder"][data-sub="embed"]');
    const model = await moduleModel(AR);
    const read = (name) => page.$$eval(`details.inside .vec-row[data-vec="${name}"] td`, (cs) => cs.map((c) => Number(c.textContent.replace('−', '-'))));
    const inside2 = model.inspect(WORD, await page.evaluate(() => seq2seqPage.lanes[0].snaps[2].live[0].tokens.slice(0, -1)));
    const pe = await read('positional encoding');
    const d = inside2.dModel, last = inside2.decoder.length - 1;
    assert.equal(pe.length, d);
    pe.forEach((v, i) => assert.ok(Math.abs(v - inside2.decoder.positional[last * d + i]) < 1.5e-3, `PE ${i}`));
    await page.click('#step');
    // Step 3 reads BEGIN and the two tokens before its own: three positions.
    await page.waitForFunction(() => document.querySelector('details.inside .in-pos')?.querySelectorAll('button').length === 3, null, { timeout: 10000 });
    await page.click('details.inside [data-action="in-pick"][data-stack="decoder"][data-layer="0"][data-sub="ffn"]');
    const inside3 = model.inspect(WORD, await page.evaluate(() => seq2seqPage.lanes[0].snaps[3].live[0].tokens.slice(0, -1)));
    const F = inside3.ffnDim;
    const hidden = inside3.decoder.layers[0].ffn.ffnHidden.subarray(2 * F, 3 * F);
    const zeros = hidden.filter((v) => v === 0).length;
    const note = await page.textContent('details.inside .in-relu');
    assert.ok(note.includes(String(zeros)), `${note} names ${zeros} zero units`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('positions are counted from 1 inside as everywhere on the page: the embedding of position 2 is the pass\'s second row', async () => {
    // The address's q2, the second button of the position picker, the heading and the
    // numbers (the module's row 1, counting from 0) all speak of one position. Decoder
    // at step 3 of greedy; encoder at step 2 of beam search with k = 1.
    for (const [lane, t, stack, q, sub] of [['greedy', 3, 'dec', 2, 'embed'], ['beam:beamSize=1', 2, 'enc', 3, 'embed']]) {
      const { page, errors } = await openPage(served.context, served.url(`?w=${WORD}&t=${t}&lane=${lane}${lane.includes(':') ? ',' : ':'}inside=${stack}-${sub}-q${q}`));
      await waitReady(page);
      await openInside(page);
      await page.waitForSelector('details.inside [data-stage="embed"] h4', { timeout: 20000 });
      const shown = await page.evaluate(() => ({
        heading: document.querySelector('details.inside [data-stage="embed"] h4').textContent,
        picked: [...document.querySelectorAll('details.inside .in-pos button')].findIndex((b) => b.getAttribute('aria-pressed') === 'true'),
        names: [...document.querySelectorAll('details.inside .in-pos button')].map((b) => b.textContent),
        tokens: (() => { const s = seq2seqPage.lanes[0].snaps[seq2seqPage.t]; return (s.live[0] ?? s.finished[0]).tokens; })(),
        pe: [...document.querySelectorAll('details.inside .vec-row[data-vec="positional encoding"] td')].map((c) => Number(c.textContent.replace('−', '-'))),
      }));
      assert.equal(shown.picked, q - 1, `q${q} picks the ${q}th position`);
      assert.equal(shown.heading, `Position ${q} (${shown.names[q - 1]}): token embedding + positional encoding`);
      const d = (await moduleModel(AR)).inspect(WORD, shown.tokens.slice(0, -1));
      const st = stack === 'enc' ? d.encoder : d.decoder;
      shown.pe.forEach((v, i) => assert.ok(Math.abs(v - st.positional[(q - 1) * d.dModel + i]) < 1.5e-3, `${stack} PE ${i} of position ${q}`));
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('a sampling lane at temperature 3: the output block opens at 3, its probabilities softmax(log p / 3) over the tokens search emits', async () => {
    const { page, errors } = await openPage(served.context, served.url(`?w=${WORD}&lane=sample:temperature=3,seed=1&t=1`));
    await waitReady(page);
    await openInside(page);
    await page.click('details.inside [data-action="in-pick"][data-sub="out"]');
    assert.equal(await page.$eval('details.inside input[data-action="in-temp"]', (s) => s.value), '3');
    const model = await moduleModel(AR);
    const d = model.inspect(WORD, []);
    const logits = Array.from(d.logits.subarray(d.logits.length - d.vocabSize));
    // As the engine samples: the tokens search may emit (not PAD, UNK, BEGIN, MASK), log p / 3, renormalised.
    const sp = model.info.targetSpecials;
    const never = new Set([sp.pad, sp.unk, sp.bos, sp.mask].filter((v) => v !== undefined));
    const lp = softmax(logits).map(Math.log);
    const want = softmax(lp.map((v, i) => (never.has(i) ? -Infinity : v / 3)));
    const rows = await page.$$eval('details.inside table.in-logits tbody tr', (rs) => rs.map((r) => ({ token: r.dataset.token, p: Number(r.dataset.pt) })));
    for (const r of rows.slice(0, 3)) assert.ok(Math.abs(r.p - want[model.info.targetVocab.indexOf(r.token)]) < 1e-4, r.token);
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const [lang, [width, height]] of VIEW_CHECKS) {
    test(`axe and layout, ${lang} at ${width}×${height}`, async () => {
      const { page, errors } = await openPage(served.context);
      await page.setViewportSize({ width, height });
      await page.goto(served.url(`?w=${WORD}&lane=greedy&t=3${lang === 'en' ? '' : `&lang=${lang}`}`));
      await waitReady(page);
      await openInside(page);
      // Every kind of view once (en, desktop); the attention view, the densest, everywhere.
      for (const sub of lang === 'en' && width > 500 ? ['self', 'embed', 'ffn', 'out'] : ['self', 'out']) {
        await page.click(`details.inside [data-action="in-pick"][data-stack="decoder"][data-sub="${sub}"] >> nth=0`);
        await page.addScriptTag({ path: axePath });
        const bad = await page.evaluate(async () => (await window.axe.run(document.querySelector('details.inside'), { resultTypes: ['violations'] })).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(' | ')}`));
        assert.deepEqual(bad, [], sub);
      }
      if (width < 500) await assertFitsPhone(page);
      await page.locator('details.inside').screenshot({ path: artifact(`inside-${lang}-${width}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});

describe('sampling bars', () => {
  test('temperature 3 on COLONEL step 1: the bars are the distribution drawn from, the model\'s ghosted behind', async () => {
    const { page, errors } = await openPage(served.context, served.url(`?w=${WORD}&lane=sample:temperature=3,seed=1&t=1`));
    await waitReady(page);
    const bars = await page.$$eval('.lane .bars.drawn li', (ls) => ls.map((l) => ({
      fill: parseFloat(l.querySelector('.bar-fill').style.width),
      ghost: parseFloat(l.querySelector('.bar-ghost').style.width),
      label: l.querySelector('.bar-label').textContent,
    })));
    assert.ok(bars.length > 3, 'the sampling lane draws its bars as a drawn distribution');
    const model = await moduleModel(AR);
    const s = model.createSession({ strategy: 'sample', temperature: 3, seed: 1 });
    s.start(WORD);
    const h = s.step().live[0];
    s.delete();
    // The module's numbers: softmax(log p / 3) over the allowed tokens.
    const top = h.candidates[0];
    assert.ok(typeof top.drawnProb === 'number' && top.drawnProb < top.prob, `tempered: ${top.drawnProb} < ${top.prob}`);
    assert.ok(Math.abs(bars[0].fill - Math.max(0.5, top.drawnProb * 100)) < 0.11, `bar ${bars[0].fill} vs ${top.drawnProb * 100}`);
    assert.ok(Math.abs(bars[0].ghost - top.prob * 100) < 0.11, `ghost ${bars[0].ghost} vs ${top.prob * 100}`);
    // The drawn token's own bar is its drawn probability, not the model's tiny one.
    const chosen = await page.$eval('.lane .bars.drawn .bar.chosen .bar-fill', (f) => parseFloat(f.style.width));
    assert.ok(Math.abs(chosen - Math.max(0.5, h.tokenDrawnProb * 100)) < 0.11, `drawn bar ${chosen} vs ${h.tokenDrawnProb * 100}`);
    assert.ok(h.tokenDrawnProb > h.tokenProb, 'at temperature 3 a rare token is likelier to be drawn than the model says');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
