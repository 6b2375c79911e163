// The guided tour's training stops (web/js/tour.js, the Train mode's: train-view.js,
// train-run.js, train-lessons.js): walked by Next from the last stop of the lanes, each
// starts its run, its address names the mode and the lesson, its elements are outlined
// and in view, its run ends within the stop, and the measured line is the run's own
// numbers: the one run's records and probe, or the lesson's sentences as measureLesson
// writes them from the two runs' records, probes and info (recomputed here in Node from
// what the page holds, and the figures they quote checked against the records directly).
// Each stop in English and Chinese at 1400 and 390 px (a language switch and a resize of
// the same finished run), axe serious/critical 0, every chart inside a phone's width,
// screenshots. Then a reload and a link come back to a lesson, a run survives the tab
// being hidden and frozen, and a page going away ends its trainer workers.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { STOPS, isTrainStop } from '../../web/js/tour.js';
import { measureLesson } from '../../web/js/train-lessons.js';
import { fmt } from '../../web/js/format.js';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { artifact, assertFitsPhone, openPage, servedSite, tourTargets } from './helpers.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const served = servedSite();
const TEXT = { en, zh };
const fill = (lang, key, params) => TEXT[lang][key].replace(/\{(\w+)\}/g, (m, k) => (Object.hasOwn(params, k) ? String(params[k]) : m));
const TRAIN = STOPS.map((s, i) => [i + 1, s]).filter(([, s]) => isTrainStop(s));
const FIRST = TRAIN[0][0];
const pct = (x) => Math.round(x * 1000) / 10;
const evaluations = (records) => records.filter((r) => typeof r.wordAccuracy === 'number');

async function shown(page, n) {
  await page.waitForFunction((k) => document.getElementById('tour')?.dataset.shown === String(k), n, { timeout: 60000 });
}

/** Until the stop's runs have ended (each a few to some tens of seconds on two cores). */
async function ended(page) {
  await page.waitForFunction(() => {
    const v = window.seq2seqPage.trainView;
    const panels = v.lessonId ? v.lessonPanels : [v.panel];
    return panels.length && panels.every((p) => p.status === 'done' || p.status === 'failed');
  }, null, { timeout: 150000, polling: 250 });
}

/** The stop's runs as the page holds them, typed arrays as arrays: {lesson, runs: [{records, probes, info, config, status}]}. */
function runsNow(page) {
  return page.evaluate(() => {
    const v = window.seq2seqPage.trainView;
    const plain = (p) => ({
      status: p.status, records: p.records, info: p.info, config: { ...p.config, data: undefined },
      probes: p.probes.map((x) => Object.fromEntries(Object.entries(x).map(([k, val]) => [k, ArrayBuffer.isView(val) ? [...val] : val]))),
    });
    return { lesson: v.lessonId, runs: (v.lessonId ? v.lessonPanels : [v.panel]).map(plain) };
  });
}

// What each stop's measured line must be, from the runs (stops in tour.js order), and the
// figures it quotes checked against the records themselves, not only through measureLesson.
const MEASURED = {
  xent: (lang, [run]) => {
    const { records, probes, config } = run;
    const p = probes.at(-1);
    assert.equal(p.step, config.steps, 'the last probe is the run\'s end');
    assert.ok(records.at(-1).loss < records[0].loss / 4, `the loss falls: ${records[0].loss} → ${records.at(-1).loss}`);
    const worst = p.tokenNll.indexOf(Math.max(...p.tokenNll));
    return fill(lang, 'tour.xent.measured', {
      steps: config.steps, firstStep: records[0].step, first: fmt(records[0].loss, 3), last: fmt(records.at(-1).loss, 3),
      source: p.source, reference: p.reference, positions: p.tokenNll.length, sum: fmt(p.tokenNll.reduce((x, y) => x + y, 0), 3),
      worst: p.targetTokens[worst], worstNll: fmt(p.tokenNll[worst], 3),
    });
  },
  forcing: (lang, [a, b], said) => {
    // Run A's first evaluation with half its outputs exact: the positions after each first mistake.
    const at = evaluations(a.records).find((r) => r.wordAccuracy >= 0.5);
    assert.ok(at && at.firstErrorCount > 0, 'run A had first mistakes to follow');
    for (const v of [at.step, at.firstErrorCount, pct(at.wrongAfterFirstError), pct(at.forcedWrongAfterFirstError)]) {
      assert.ok(said.includes(String(v)), `${v} is said: ${said}`);
    }
  },
  scheduledSampling: (lang, [a, b], said) => {
    const [la, lb] = [a, b].map((r) => evaluations(r.records).at(-1));
    for (const v of [la.step, pct(la.heldOutTokenAccuracy - la.freeTokenAccuracy), pct(lb.heldOutTokenAccuracy - lb.freeTokenAccuracy)]) {
      assert.ok(said.includes(String(v)), `${v} is said: ${said}`);
    }
    assert.ok(b.info.options.scheduledSampling !== 'off' && a.info.options.scheduledSampling === 'off', 'run B samples, run A is teacher forcing');
  },
  copy: (lang, [a, b], said) => {
    const [la, lb] = [a, b].map((r) => evaluations(r.records).at(-1));
    // Within the stop: the copy model writes held-out names it has no word for, the other cannot.
    assert.ok(lb.wordAccuracy >= 0.9 && la.wordAccuracy <= 0.1, `copy ${lb.wordAccuracy}, no copy ${la.wordAccuracy}`);
    for (const v of [pct(la.wordAccuracy), pct(lb.wordAccuracy), lb.heldOut]) assert.ok(said.includes(String(v)), `${v} is said: ${said}`);
  },
  guided: (lang, [a, b], said) => {
    const first = (r) => evaluations(r.records).find((x) => x.attentionDiagonal >= 0.75)?.step;
    for (const v of [first(a), first(b)].filter((x) => x !== undefined)) assert.ok(said.includes(`${v}`), `${v} is said: ${said}`);
    assert.ok(first(b) !== undefined, 'the guided run reaches the band');
  },
};

/** The measured line the stop must show in `lang`: its own numbers (the one run) or the lesson's sentences. */
function measuredLine(lang, stop, { lesson, runs }) {
  if (!stop.lesson) return MEASURED.xent(lang, runs);
  assert.equal(lesson, stop.lesson);
  const m = measureLesson(stop.lesson, runs[0], runs[1]);
  const line = fill(lang, 'tour.trainMeasured', { sentences: stop.said.map((i) => fill(lang, m.sentences[i].key, m.sentences[i].params)).join(' ') });
  MEASURED[stop.lesson](lang, runs, line);
  return line;
}

/** The stop's elements: found, outlined (they alone), drawn, in the window, above the panel, nothing over them. */
async function assertTargetsInView(page, stop, label, width) {
  const sels = (width <= 720 && stop.narrow) || stop.targets;
  const got = await tourTargets(page, 'trainview', sels);
  got.found.forEach((f, i) => assert.ok(f, `${label}: ${sels[i]} is on the page`));
  assert.ok(got.same, `${label}: the stop's elements, and only they, are outlined`);
  got.targets.forEach(({ r, covered, outline }, i) => {
    const what = `${label}, ${sels[i]}`;
    assert.equal(outline, 'solid', `${what}: outline`);
    assert.ok(r.height > 0 && r.width > 0, `${what}: drawn`);
    assert.ok(r.top >= -1 && r.bottom <= got.panel.top + 1, `${what}: between the window's top and the panel (${r.top}–${r.bottom}, panel at ${got.panel.top})`);
    assert.ok(r.left >= -1 && r.right <= got.width + 1, `${what}: across the window (${r.left}–${r.right} of ${got.width})`);
    assert.equal(covered, 0, `${what}: nothing drawn over it`);
  });
}

/** Every chart of the runs within the window's width (none cut off or scrolled sideways on a phone). */
async function assertChartsFit(page, label) {
  await assertFitsPhone(page);
  const out = await page.$$eval('#trainview .tr-panel svg', (svgs) => svgs.map((s) => {
    const r = s.getBoundingClientRect();
    return { cls: s.getAttribute('class'), left: r.left, right: r.right, width: r.width };
  }).filter((r) => r.width > 0 && (r.left < -1 || r.right > innerWidth + 1)));
  assert.deepEqual(out, [], `${label}: charts wider than the window`);
}

async function axe(page) {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
}

/** The stop as shown now in `lang` at `width`: its texts, its elements, its measured line, axe, a screenshot. */
async function checkView(page, n, stop, lang, [width, height], runs) {
  const label = `stop ${n} ${lang} ${width}px`;
  await page.setViewportSize({ width, height });
  await page.waitForFunction((l) => document.documentElement.lang.startsWith(l), lang);
  // The tour places the stop again once the layout changed (the panel's size, the one column).
  await page.waitForTimeout(300);
  assert.equal(await page.textContent('#tour-title'), TEXT[lang][stop.title]);
  assert.equal(await page.textContent('#tour-text'), TEXT[lang][stop.text]);
  assert.equal(await page.textContent('#tour-measured'), measuredLine(lang, stop, runs), `${label}: the measured line is the run's`);
  await assertTargetsInView(page, stop, label, width);
  // The panel holds its words and buttons without a scrollbar of its own (on a phone its text is folded).
  const panel = await page.$eval('#tour', (el) => [el.scrollHeight, el.clientHeight]);
  assert.ok(panel[0] <= panel[1] + 1, `${label}: the tour's panel scrolls (${panel[0]} in ${panel[1]} px)`);
  if (width < 500) {
    await assertChartsFit(page, label);
    // As the lanes' stops (first-screen.test.mjs): folded, the panel keeps to a quarter of a
    // phone's screen; "More" shows the whole text and the measured line, "Less" folds it.
    assert.ok(await page.$eval('#tour', (p) => p.getBoundingClientRect().height) <= 0.25 * height, `${label}: the panel is over a quarter of the screen`);
    await page.click('#tour-more');
    const open = await page.$eval('#tour-body', (b) => b.scrollHeight <= b.clientHeight + 1 && document.getElementById('tour-measured').getBoundingClientRect().height > 0);
    assert.ok(open, `${label}: unfolded, the text and the measured line are whole`);
    await page.click('#tour-more');
  }
  assert.deepEqual(await axe(page), [], `${label}: axe`);
  await page.screenshot({ path: artifact(`tour-${n}-${lang}-${width}x${height}.png`) });
}

test('the training stops, by Next from the lanes\' last stop: each starts its run, which ends within the stop; its measured line is the run\'s; en and zh at 1400 and 390 px', async () => {
  const { page, errors } = await openPage(served.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(served.url(`${STOPS[FIRST - 2].query}&tour=${FIRST - 1}`));
  await shown(page, FIRST - 1);
  let lang = 'en';
  const took = [];
  for (const [n, stop] of TRAIN) {
    await page.focus('#tour-next');
    const t0 = Date.now();
    await page.keyboard.press('Enter');
    await shown(page, n);
    // The address: the Train mode, the stop's lesson (or its configuration), the stop.
    await page.waitForFunction(([k, want]) => {
      const q = new URLSearchParams(location.search);
      return q.get('tour') === String(k) && q.get('view') === 'train' && (q.get('lesson') ?? '') === want;
    }, [n, stop.lesson ?? '']);
    if (!stop.lesson) {
      const q = new URLSearchParams(await page.evaluate(() => location.search));
      for (const [k, v] of new URLSearchParams(stop.query)) assert.equal(q.get(k), v, `stop ${n}: ${k}`);
    }
    assert.equal(await page.isHidden('#lanes'), true, `stop ${n}: the Train mode, not the lanes`);
    await ended(page);
    took.push(`stop ${n}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const runs = await runsNow(page);
    assert.ok(runs.runs.every((r) => r.status === 'done'), `stop ${n}: its runs ended (${runs.runs.map((r) => r.status)})`);
    const other = lang === 'en' ? 'zh' : 'en';
    await checkView(page, n, stop, lang, [1400, 1000], runs);
    await checkView(page, n, stop, lang, [390, 844], runs);
    await page.click(`#lang-${other}`);
    await checkView(page, n, stop, other, [390, 844], runs);
    await checkView(page, n, stop, other, [1400, 1000], runs);
    lang = other;
  }
  console.log(took.join('; '));
  // The last stop's Next finishes the tour.
  assert.equal(await page.textContent('#tour-next'), TEXT[lang]['tour.finish']);
  await page.focus('#tour-next');
  await page.keyboard.press('Enter');
  assert.equal(await page.isHidden('#tour'), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a reload at a training stop and a link with lesson= come back to the lesson; Back to the lanes pauses the run', async () => {
  const { page, errors } = await openPage(served.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  const [n, stop] = TRAIN.find(([, s]) => s.lesson === 'copy');
  await page.goto(served.url(`${stop.query}&tour=${n}`));
  await shown(page, n);
  await ended(page);
  const first = await runsNow(page);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('lesson') === 'copy');
  await page.reload();
  await shown(page, n);
  await ended(page);
  const again = await runsNow(page);
  assert.equal(again.lesson, 'copy');
  // One seed: the same run, record for record but the clocks.
  const same = (r) => r.runs.map((x) => x.records.map(({ stepsPerSecond, elapsedSeconds, ...rest }) => rest));
  assert.deepEqual(same(again), same(first));
  assert.equal(await page.textContent('#tour-measured'), measuredLine('en', stop, again));
  // A link without the tour: the lesson opens, its button pressed, and starts.
  await page.goto(served.url('?view=train&lesson=copy'));
  await page.waitForFunction(() => window.seq2seqPage?.trainView?.lessonId === 'copy');
  assert.equal(await page.getAttribute('button[data-lesson="copy"]', 'aria-pressed'), 'true');
  await ended(page);
  assert.deepEqual(same(await runsNow(page)), same(first));
  // A lesson the page has not is said, and none opens.
  await page.goto(served.url('?view=train&lesson=nope'));
  await page.waitForFunction(() => /lesson=nope/.test(document.querySelector('.tr-notes')?.textContent ?? ''));
  assert.equal(await page.evaluate(() => window.seq2seqPage.trainView.lessonId), null);
  // Back from the first training stop: the lanes' last stop, and the run paused.
  await page.goto(served.url(`?tour=${FIRST}`));
  await shown(page, FIRST);
  await page.focus('#tour-back');
  await page.keyboard.press('Enter');
  await shown(page, FIRST - 1);
  assert.equal(await page.isHidden('#trainview'), true);
  await page.waitForFunction(() => ['paused', 'done'].includes(window.seq2seqPage.trainView.panel.status));
  assert.deepEqual(errors, []);
  await page.close();
});

// A run long enough to be mid-way when the tab changes (a tiny model on names: a few seconds).
const LONG = '?view=train&task=names&preset=tiny&steps=400&evalEvery=100&evalSize=20';

test('a run survives a tab change: hidden, then frozen and resumed, it ends with every record', async () => {
  const { page, errors } = await openPage(served.context);
  await page.goto(served.url(LONG));
  await page.waitForSelector('.tr-main [data-action="train"]');
  await page.click('.tr-main [data-action="train"]');
  await page.waitForFunction(() => window.seq2seqPage.trainView.panel.records.length >= 3);
  // Another tab in front: this one hidden. Headless Chromium keeps every page visible, so
  // the page is told so as a browser tells it (visibilityState, then visibilitychange).
  const before = await page.evaluate(() => window.seq2seqPage.trainView.panel.records.length);
  const setVisibility = (state) => page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
    Object.defineProperty(document, 'hidden', { value: s === 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
  await setVisibility('hidden');
  await page.waitForTimeout(700);
  await setVisibility('visible');
  // A background tab the browser freezes (as phones do), then thaws.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
  await new Promise((r) => setTimeout(r, 700));
  await cdp.send('Page.setWebLifecycleState', { state: 'active' });
  await page.waitForFunction(() => window.seq2seqPage.trainView.panel.status === 'done', null, { timeout: 60000 });
  const steps = await page.evaluate(() => window.seq2seqPage.trainView.panel.records.map((r) => r.step));
  assert.deepEqual(steps, steps.map((_, i) => 10 * (i + 1)), 'one record every 10 steps, none lost or repeated');
  assert.equal(steps.at(-1), 400);
  assert.ok(before < steps.length, `the run was mid-way when the tab changed (${before} of ${steps.length} records)`);
  assert.equal(await page.getAttribute('.tr-main [data-status]', 'data-status'), 'done');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a page going away (pagehide) ends its trainer workers; Train then starts a new run', async () => {
  const { page, errors } = await openPage(served.context);
  const workers = [];
  page.on('worker', (w) => { const entry = { url: w.url(), closed: false }; workers.push(entry); w.on('close', () => { entry.closed = true; }); });
  await page.goto(served.url(LONG));
  await page.waitForSelector('.tr-main [data-action="train"]');
  await page.click('.tr-main [data-action="train"]');
  await page.waitForFunction(() => window.seq2seqPage.trainView.panel.records.length >= 2);
  const trainers = () => workers.filter((w) => /trainer-worker/.test(w.url));
  assert.equal(trainers().length, 1);
  // As the browser fires it when the page is left for another or kept in the back/forward cache.
  await page.evaluate(() => dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true })));
  await page.waitForFunction(() => window.seq2seqPage.trainView.panel.worker === null);
  for (let i = 0; i < 50 && !trainers()[0].closed; i++) await page.waitForTimeout(100);
  assert.equal(trainers()[0].closed, true, 'the trainer worker has ended');
  const kept = await page.evaluate(() => window.seq2seqPage.trainView.panel.records.length);
  assert.ok(kept >= 2, 'the records stay on the page');
  // No failure is said: the run was ended, not broken.
  assert.equal(await page.$('.tr-main .tr-error'), null);
  // Back from the cache, Train starts a new run in a new worker, which ends.
  await page.click('.tr-main [data-action="train"]');
  await page.waitForFunction(() => window.seq2seqPage.trainView.panel.status === 'done', null, { timeout: 60000 });
  assert.equal(trainers().length, 2);
  assert.equal(await page.evaluate(() => window.seq2seqPage.trainView.panel.records.at(-1).step), 400);
  assert.deepEqual(errors, []);
  await page.close();
});
