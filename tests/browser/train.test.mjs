// The Train mode (web/js/train-view.js, train-run.js, train-charts.js, train-config.js):
// it opens from a fresh load without a first visit fetching it; a run trains in its
// worker and its charts are its records; pause, step and resume; leaving the mode pauses;
// the address holds the configuration and a link repeats the run record for record; a
// run over the page's memory bound and a run that diverges say so; a language switch
// redraws a run without stopping it; axe finds nothing serious at desktop and phone
// size, in English and Chinese. Runs are small (a tiny model, tens of steps).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { pathToFileURL } from 'node:url';
import { VIEW_CHECKS, artifact, assertFitsPhone, openPage, servedSite, site } from './helpers.mjs';

// The page's module as the site lays it out (it imports the npm module's table from wasm/src/).
const { PAGE_MEMORY_LIMIT_MB } = await import(pathToFileURL(join(site, 'js/train-config.js')).href);
const { measureLesson } = await import(pathToFileURL(join(site, 'js/train-lessons.js')).href);

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const served = servedSite();
// A small run: a tiny Transformer, 60 steps, a record every 10 and an evaluation every 30.
const SMALL = '?view=train&preset=tiny&steps=60&evalEvery=30&evalSize=20&maxLength=8';

const status = (page) => page.getAttribute('.tr-main [data-status]', 'data-status');
const records = (page) => page.evaluate(() => seq2seqPage.trainView.panel.records.map(({ stepsPerSecond, elapsedSeconds, ...r }) => r));
const until = (page, states, timeout = 30000) => page.waitForFunction((s) => s.includes(document.querySelector('.tr-main [data-status]')?.dataset.status), states, { timeout });

async function openTrain(page, query = SMALL) {
  await page.goto(served.url(query));
  await page.waitForSelector('.tr-main .tr-panel button[data-action="train"]', { timeout: 20000 });
}

test('the Train mode opens from a fresh load; a first visit fetches none of it', async () => {
  const { page, errors } = await openPage(served.context);
  const paths = [];
  page.context().on('request', (r) => paths.push(new URL(r.url()).pathname));
  await page.goto(served.url('/'));
  await page.waitForFunction(() => window.seq2seqPage && Number(document.body.dataset.ready ?? 0) > 0, null, { timeout: 20000 });
  assert.deepEqual(paths.filter((p) => /train|style-train/.test(p)), [], 'nothing of the Train mode on a first visit');
  await page.click('[data-view="train"]');
  await page.waitForSelector('#trainview:not([hidden]) .tr-panel');
  // The address is written a moment after a change (app.js saveUrl).
  await page.waitForFunction(() => /[?&]view=train(&|$)/.test(location.search));
  assert.equal(await page.getAttribute('[data-view="train"]', 'aria-pressed'), 'true');
  assert.ok(await page.isHidden('#lanes'));
  assert.ok(!paths.some((p) => p.endsWith('seq2seq_train.wasm')), 'the trainer\'s wasm waits for a run');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a run on reverse trains in its worker: the loss chart is its records, the probe bars its last probe', async () => {
  const { page, errors } = await openPage(served.context);
  await openTrain(page);
  await page.click('.tr-main [data-action="train"]');
  await until(page, ['done']);
  const recs = await records(page);
  assert.deepEqual(recs.map((r) => r.step), [10, 20, 30, 40, 50, 60]);
  assert.ok(recs.at(-1).loss < recs[0].loss, `the loss falls: ${recs.map((r) => r.loss)}`);
  // Each point of the loss chart is a record's loss, at its step.
  const dots = await page.$$eval('.tr-main .tr-loss-view circle', (cs) => cs.map((c) => [Number(c.dataset.x), Number(c.dataset.y)]));
  assert.deepEqual(dots, recs.map((r) => [r.step, r.loss]));
  // The free-running curve: the held-out measure at the evaluation points (30 and 60).
  const free = await page.$$eval('.tr-main .tr-acc-view circle.tr-free', (cs) => cs.map((c) => [Number(c.dataset.x), Number(c.dataset.y)]));
  const freeOf = (r) => r.freeTokenAccuracy ?? r.wordAccuracy;
  assert.deepEqual(free, recs.filter((r) => freeOf(r) !== undefined).map((r) => [r.step, freeOf(r)]));
  assert.deepEqual(free.map(([s]) => s), [30, 60]);
  // The probe's bars: -log p of each reference token as the last probe has them.
  const probe = await page.evaluate(() => { const p = seq2seqPage.trainView.panel.probes.at(-1); return { step: p.step, nll: [...p.tokenNll], tokens: p.targetTokens }; });
  assert.equal(probe.step, 60);
  const bars = await page.$$eval('.tr-main .tr-nll .tr-bar', (rs) => rs.map((r) => Number(r.dataset.v)));
  assert.deepEqual(bars, probe.nll);
  assert.equal(probe.tokens.at(-1), '</s>');
  assert.equal(await page.$$eval('.tr-main .tr-attn-view svg.heatmap rect[fill]', (rs) => rs.length), probe.tokens.length * (probe.tokens.length - 1));
  assert.match(await page.textContent('.tr-main .tr-progress'), /step 60 of 60/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('pause stops a run at a record, step takes one record\'s steps, resume goes on to the end; leaving the mode pauses', async () => {
  const { page, errors } = await openPage(served.context);
  await openTrain(page, '?view=train&preset=tiny&steps=3000&evalEvery=0&evalSize=10');
  await page.click('.tr-main [data-action="train"]');
  await page.waitForFunction(() => seq2seqPage.trainView.panel.records.length >= 2);
  await page.click('.tr-main [data-action="pause"]');
  await until(page, ['paused']);
  const paused = (await records(page)).at(-1).step;
  await page.waitForTimeout(400);
  assert.equal((await records(page)).at(-1).step, paused, 'a paused run takes no steps');
  await page.click('.tr-main [data-action="step"]');
  await page.waitForFunction((s) => seq2seqPage.trainView.panel.records.at(-1).step === s + 10, paused);
  await until(page, ['paused']);
  assert.equal(await page.textContent('.tr-main [data-action="train"]'), en['train.resume']);
  await page.click('.tr-main [data-action="train"]');
  await page.waitForFunction((s) => seq2seqPage.trainView.panel.records.at(-1).step > s + 20, paused);
  // Leaving the mode pauses the run; it goes on from where it stood.
  await page.click('[data-view="lanes"]');
  await until(page, ['paused']);
  const left = (await records(page)).at(-1).step;
  await page.waitForTimeout(400);
  assert.equal((await records(page)).at(-1).step, left);
  await page.click('[data-view="train"]');
  const steps = (await records(page)).map((r) => r.step);
  assert.deepEqual(steps, steps.map((_, i) => 10 * (i + 1)), 'one record every 10 steps, none lost or repeated');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the address holds the configuration: a link restores it and repeats the run record for record', async () => {
  const { page, errors } = await openPage(served.context);
  await openTrain(page);
  await page.selectOption('#tr-task', 'sort');
  await page.fill('#tr-opt-seed', '7');
  await page.press('#tr-opt-seed', 'Tab');
  await page.fill('#tr-opt-learningRate', '0.005');
  await page.press('#tr-opt-learningRate', 'Tab');
  await page.waitForFunction(() => location.search.includes('learningRate=0.005'));
  const search = await page.evaluate(() => location.search);
  const q = new URLSearchParams(search);
  assert.equal(q.get('task'), 'sort');
  assert.equal(q.get('seed'), '7');
  assert.equal(q.get('steps'), '60');
  assert.ok(!q.has('batchSize') && !q.has('arch'), 'defaults are not written');
  await page.click('.tr-main [data-action="train"]');
  await until(page, ['done']);
  const first = await records(page);
  const { page: other, errors: otherErrors } = await openPage(served.context);
  await openTrain(other, search);
  assert.equal(await other.inputValue('#tr-task'), 'sort');
  assert.equal(await other.inputValue('#tr-opt-seed'), '7');
  assert.equal(await other.inputValue('#tr-opt-learningRate'), '0.005');
  await other.click('.tr-main [data-action="train"]');
  await until(other, ['done']);
  assert.deepEqual(await records(other), first);
  // A value out of its range is left out, and the page says so.
  await openTrain(other, '?view=train&learningRate=7&task=nope');
  assert.match(await other.textContent('.tr-notes'), /learningRate=7/);
  assert.equal(await other.inputValue('#tr-opt-learningRate'), '0.003');
  assert.deepEqual([...errors, ...otherErrors], []);
  await page.close();
  await other.close();
});

test('a configuration over the page\'s memory bound is refused with a message; a diverging run says it diverged', async () => {
  const { page, errors } = await openPage(served.context);
  await openTrain(page, '?view=train&preset=medium&dModel=1024&dFf=4096&batchSize=2048');
  await page.click('.tr-main [data-action="train"]');
  await until(page, ['failed']);
  const tooBig = await page.textContent('.tr-main .tr-error');
  assert.ok(tooBig.startsWith(en['train.tooBig'].replace('{limit}', String(PAGE_MEMORY_LIMIT_MB))), tooBig);
  assert.match(tooBig, /memoryLimitMb = 256/);
  await openTrain(page, '?view=train&learningRate=1&beta2=0&clipNorm=0&warmupSteps=0&lrDecay=none&weightDecay=0&tieOutput=false&steps=100');
  await page.click('.tr-main [data-action="train"]');
  await until(page, ['failed']);
  const diverged = await page.textContent('.tr-main .tr-error');
  const step = Number(diverged.match(/step (\d+)/)?.[1]);
  assert.equal(diverged, en['train.diverged'].replace('{step}', String(step)));
  assert.ok(step >= 1 && step <= 100);
  // In Chinese too, redrawn on a language switch.
  await page.click('[data-lang="zh"]');
  await page.waitForFunction((s) => document.querySelector('.tr-main .tr-error')?.textContent === s, zh['train.diverged'].replace('{step}', String(step)));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a language switch redraws a running run without stopping it; the views pass axe at desktop and phone size', async () => {
  // VIEW_CHECKS' two, and the other two pairs for the screenshots.
  for (const [lang, [width, height]] of [...VIEW_CHECKS, ['zh', [1400, 1000]], ['en', [390, 844]]]) {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width, height });
    await openTrain(page, `${SMALL.replace('steps=60', 'steps=200')}&task=names&copy=true&evalEvery=100`);
    await page.click('.tr-main [data-action="train"]');
    if (lang !== 'en') {
      await page.waitForFunction(() => seq2seqPage.trainView.panel.records.length >= 1);
      await page.click(`[data-lang="${lang}"]`);
      await page.waitForFunction((s) => document.querySelector('#tr-title')?.textContent === s, zh['train.title']);
    }
    await until(page, ['done'], 60000);
    assert.equal((await records(page)).length, 20, 'every record, the switch or not');
    assert.ok(await page.$('.tr-main .tr-copy-view') || !(await page.evaluate(() => !!seq2seqPage.trainView.panel.probes.at(-1).copyGate)),
      'a copy model\'s probe with p_gen is drawn');
    await page.$$eval('.tr-main details.twin', (ds) => ds.forEach((d) => { d.open = true; }));
    if (width < 500) await assertFitsPhone(page);
    await page.addScriptTag({ path: axePath });
    const result = await page.evaluate(() => axe.run('#trainview'));
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target).join(' | ')}`), []);
    await page.$$eval('.tr-main details.twin', (ds) => ds.forEach((d) => { d.open = false; }));
    await page.screenshot({ path: artifact(`train-${lang}-${width}.png`), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('the copy lesson: the copied map is (1 − p_gen) × the copy attention of the run\'s own probe, its rows summing to 1 − p_gen', async () => {
  const { page, errors } = await openPage(served.context);
  await openTrain(page, '?view=train');
  await page.click('button[data-lesson="copy"]');
  await page.waitForFunction(() => {
    const s = [...document.querySelectorAll('.tr-lesson-panels [data-status]')].map((e) => e.dataset.status);
    return s.length === 2 && s.every((x) => x === 'done');
  }, null, { timeout: 60000 });
  // Run B has the copy mechanism; its probe is the one the view draws.
  const probe = await page.evaluate(() => {
    const p = seq2seqPage.trainView.lessonPanels[1].probes.at(-1);
    return { gate: [...p.copyGate], attention: [...p.copyAttention], T: p.targetTokens.length, N: p.sourceTokens.length, source: p.source };
  });
  assert.ok(probe.gate.length > 0);
  const view = page.locator('.tr-lesson-panels .tr-panel').nth(1).locator('.tr-copied-view');
  const cells = await view.locator('table.hm-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
  assert.equal(cells.length, probe.T);
  cells.forEach((row, i) => {
    assert.equal(row.length, probe.N);
    row.forEach((v, j) => assert.ok(Math.abs(v - (1 - probe.gate[i]) * probe.attention[i * probe.N + j]) <= 0.005, `cell ${i},${j}`));
    const sum = probe.attention.slice(i * probe.N, (i + 1) * probe.N).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-4, 'the copy attention is a distribution over the source');
  });
  // The key says what the colours are: copied probability, rows summing to 1 − p_gen (not attention weights).
  assert.equal((await view.locator('.hm-scale').textContent()).trim(), `01 ${en['train.copiedScale']}`);
  // Under the buttons, every sentence the lesson measured from these two runs, in order.
  const runs = await page.evaluate(() => seq2seqPage.trainView.lessonPanels.map((p) => ({ records: p.records, probes: p.probes, info: p.info })));
  const m = measureLesson('copy', runs[0], runs[1]);
  const fill = (x) => en[x.key].replace(/\{(\w+)\}/g, (_, k) => String(x.params[k]));
  assert.ok(m.sentences.length >= 2);
  assert.deepEqual(await page.locator('.tr-sentence').allTextContents(), m.sentences.map(fill));
  // Its columns are the source as written: a held-out name the model reads as <unk> is copied as itself.
  const cols = await view.locator('table.hm-table thead th').evaluateAll((ths) => ths.slice(1).map((th) => th.textContent));
  assert.deepEqual(cols, probe.source.split(/\s+/));
  assert.deepEqual(errors, []);
  await page.close();
});

test('under label smoothing the loss chart draws the floor the loss cannot pass: the smoothed target\'s entropy', async () => {
  const { page, errors } = await openPage(served.context);
  await openTrain(page, `${SMALL}&labelSmoothing=0.1&logEvery=15`);
  await page.click('.tr-main [data-action="train"]');
  await until(page, ['done']);
  const { floor, V, every } = await page.evaluate(() => {
    const { info } = seq2seqPage.trainView.panel;
    return { floor: info.lossFloor, V: info.targetVocabSize, every: info.options.logEvery };
  });
  // The entropy of (1 - e) one-hot + e/V, computed here.
  const e = 0.1, top = 1 - e + e / V;
  const entropy = -top * Math.log(top) - (V - 1) * (e / V) * Math.log(e / V);
  assert.ok(Math.abs(floor - entropy) < 1e-6, `${floor} vs ${entropy}`);
  assert.equal(Number(await page.getAttribute('.tr-main .tr-loss-view line.tr-floor', 'data-y')), floor);
  for (const r of await records(page)) assert.ok(r.loss > floor, `step ${r.step}: ${r.loss}`);
  // Each point is the mean over the run's logEvery steps, as the caption says.
  assert.equal(every, 15);
  assert.ok((await page.textContent('.tr-main .tr-loss-view')).includes(en['train.lossCaption'].replace('{every}', '15')));
  // Without label smoothing there is no floor to draw.
  await openTrain(page);
  await page.click('.tr-main [data-action="train"]');
  await until(page, ['done']);
  assert.equal(await page.locator('.tr-main .tr-loss-view line.tr-floor').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
