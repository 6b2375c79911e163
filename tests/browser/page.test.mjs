// Browser tests of the page: Debian's Chromium, headless, driven by
// playwright-core against build/site served from 127.0.0.1 on a free port.
//   node scripts/build-web.mjs && node --test tests/browser/
// Expected values come from the npm module itself (wasm/src/index.js) in Node.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeLane, moduleOptions } from './lanes.mjs';
import { moduleModel as model, releaseModels, sameResults } from './expect.mjs';
import { artifact, assertFitsPhone, openPage, root, servedSite, settled, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.autoregressive);
const NAR = models.find((m) => !m.autoregressive);
// A word both default models can read; a dictionary word when the models are real.
const WORD = AR.examples.find((w) => NAR.examples.includes(w));
const WORD2 = AR.examples.filter((w) => NAR.examples.includes(w))[1];

async function expected(spec, word) {
  const lane = makeLane(spec.type, spec.opts);
  const m = await model(lane.type === 'nar' || lane.type === 'mp' ? NAR : AR);
  return m.decode(word, moduleOptions(lane, word));
}

const served = servedSite({ cleanup: releaseModels });
const url = served.url;
const urlMatches = (page, re) => page.waitForFunction((src) => new RegExp(src).test(decodeURIComponent(location.href)), re.source, { timeout: 5000 });
const laneState = (page) => page.evaluate(() => seq2seqPage.lanes.map((l) => ({
  type: l.type, opts: l.opts, error: l.error, last: l.lastIndex,
  results: l.snaps.at(-1)?.results ?? null,
  shown: l.el.querySelector('.result-main')?.dataset.result ?? null,
})));
const stepStatus = (page) => page.textContent('#step-status');
// The last step, through the step slider: moved to its end as a drag would.
const toEnd = async (page) => {
  await page.$eval('#scrub', (s) => { s.value = s.max; s.dispatchEvent(new Event('input', { bubbles: true })); });
  assert.match(await stepStatus(page), /^step (\d+) of \1$/);
};

describe('the page', () => {
  // Four lanes, one of each type of a single model (the default two, greedy and beam
  // search, are first-screen.test.mjs's): their results, no console errors.
  test('loads greedy, beam, one-pass and Mask-Predict lanes and their results, no console errors', async () => {
    const { page, errors } = await openPage(served.context);
    const t0 = Date.now();
    // t=0: step 0, where the learner steps or plays; the answers wait at the end. (A
    // first visit, with no step in its address, opens at step 2: first-screen.test.mjs.)
    await page.goto(url('/?t=0&lane=greedy&lane=beam&lane=nar&lane=mp'));
    await waitReady(page);
    const ms = await page.evaluate(() => ({ first: Number(document.body.dataset.firstLaneMs), all: Number(document.body.dataset.allLanesMs) }));
    // Reported, not asserted (a shared machine): bench/page-load.mjs measures it.
    console.log(`first result ${ms.first} ms, all lanes ${ms.all} ms after navigation start (wall ${Date.now() - t0} ms)`);
    assert.match(await stepStatus(page), /^step 0 of [1-9]/);
    assert.equal(await page.isEnabled('#step'), true);
    assert.deepEqual((await laneState(page)).map((l) => l.shown), [null, null, null, null]);
    await toEnd(page);
    const lanes = await laneState(page);
    assert.deepEqual(lanes.map((l) => l.type), ['greedy', 'beam', 'nar', 'mp']);
    for (const l of lanes) {
      assert.equal(l.error, null);
      assert.ok(l.results?.length >= 1);
      assert.equal(l.shown, l.results[0].text);
    }
    assert.equal(await page.inputValue('#word'), WORD);
    // The reference pronunciation(s) and where the word sits in CMUdict.
    const testSplit = readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n').filter((l) => l.startsWith(`${WORD}  `));
    const ref = await page.textContent('#reference');
    if (testSplit.length) {
      assert.match(ref, /held-out test word/);
      for (const l of testSplit) assert.ok(ref.includes(l.split('  ')[1]), `${ref} lacks ${l}`);
    } else {
      assert.match(ref, /trained on|development word|not in CMUdict/);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a typed word: every lane type runs to the end and matches the npm module', async () => {
    const specs = [
      { type: 'greedy', opts: {} },
      { type: 'beam', opts: { beamSize: 4, lengthNorm: 'gnmt', gnmtAlpha: 0.8, nBest: 3 } },
      { type: 'beam', opts: { beamSize: 16, lengthNorm: 'none', nBest: 2 } },
      { type: 'sample', opts: { temperature: 0.7, topK: 5, topP: 0.9, seed: 42 } },
      { type: 'nar', opts: {} },
      { type: 'nar', opts: { narLength: 'fixed' } },
      { type: 'mp', opts: { iterations: 4, lengthCandidates: 2 } },
    ];
    const q = '?w=X&' + specs.map((s) => `lane=${s.type}:${Object.entries(s.opts).map(([k, v]) => `${k}=${v}`).join(',')}`).join('&');
    const { page, errors } = await openPage(served.context, url(q));
    let ready = await waitReady(page);
    await page.fill('#word', WORD2.toLowerCase());
    await page.press('#word', 'Enter');
    ready = await waitReady(page, ready);
    // The address held no step, so it showed the end; a new word starts again at step 0.
    assert.match(await stepStatus(page), /^step 0 of [1-9]/);
    await toEnd(page);
    const lanes = await laneState(page);
    assert.equal(lanes.length, specs.length);
    for (const [i, spec] of specs.entries()) {
      const want = await expected(spec, WORD2);
      assert.equal(lanes[i].error, null, `${spec.type}: ${lanes[i].error}`);
      sameResults(lanes[i].results, want, `${spec.type} ${JSON.stringify(spec.opts)}`);
      assert.equal(lanes[i].shown, want[0].text);
    }
    // Greedy takes the most probable token at every step and stops at the first END.
    const greedy = await page.evaluate(() => seq2seqPage.lanes[0].snaps.slice(1).map((s) => {
      const h = s.live[0] ?? s.finished[0];
      return { chosen: h.tokens.at(-1), top: h.candidates[0].token, live: s.live.length };
    }));
    for (const g of greedy) assert.equal(g.chosen, g.top);
    assert.equal(greedy.at(-1).live, 0);
    // The fixed-maximum lane draws attention rows up to the first END only and says so.
    const fixed = await page.evaluate(() => {
      const lane = seq2seqPage.lanes[5];
      const draft = lane.snaps.at(-1).drafts[0];
      return { length: draft.length, firstEnd: draft.texts.indexOf('</s>'),
        rows: lane.el.querySelectorAll('.hm-table tbody tr').length, body: lane.el.querySelector('.lane-body').innerText };
    });
    assert.ok(fixed.firstEnd >= 0 && fixed.length - fixed.firstEnd > 2, `the fixed-length draft ends early: ${JSON.stringify(fixed)}`);
    assert.equal(fixed.rows, fixed.firstEnd + 1);
    assert.match(fixed.body, new RegExp(`Positions ${fixed.firstEnd + 2}–${fixed.length} come after the first END`));
    await urlMatches(page, new RegExp(`w=${WORD2.toLowerCase()}`));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Step, Back, Reset and the keyboard move all lanes in lockstep; Back decodes nothing again', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&lane=beam:beamSize=3&lane=mp:iterations=3`));
    const ready = await waitReady(page);
    await page.click('#reset');
    assert.match(await stepStatus(page), /^step 0 of \d+/);
    assert.equal(await page.locator('.lane-greedy .strip .chip').count(), 0);
    await page.click('#step');
    await page.click('#step');
    assert.match(await stepStatus(page), /^step 2 of/);
    // Greedy: BEGIN + 2 tokens; beam: 2 passes; Mask-Predict: two iteration rows.
    assert.equal(await page.locator('.lane-greedy .strip .chip').count(), 3);
    assert.equal(await page.textContent('.lane-beam [data-k=passes]'), '2');
    assert.equal(await page.locator('.lane-mp .nar-grid tbody tr').count(), 2);
    await page.locator('body').press('ArrowRight');
    assert.match(await stepStatus(page), /^step 3 of/);
    // Back shows kept snapshots (checked below: nothing is decoded again), which is
    // what makes it instant; a time limit here would only measure the machine's load.
    await page.locator('body').press('ArrowLeft');
    assert.match(await stepStatus(page), /^step 2 of/);
    await page.click('#back');
    assert.match(await stepStatus(page), /^step 1 of/);
    assert.equal(await page.locator('.lane-greedy .strip .chip').count(), 2);
    // Nothing was decoded again.
    assert.equal(await page.evaluate(() => Number(document.body.dataset.ready)), ready);
    await urlMatches(page, /[?&]t=1(&|$)/);
    // Space plays, space pauses.
    await page.click('#reset');
    await page.locator('h1').click();
    await page.keyboard.press(' ');
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true');
    await page.waitForFunction(() => /^step [1-9]/.test(document.getElementById('step-status').textContent), null, { timeout: 5000 });
    await page.keyboard.press(' ');
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'false');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a link with a word and no step shows the end; with a step, exactly that step', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&lane=mp:iterations=3`));
    await waitReady(page);
    assert.match(await stepStatus(page), /^step (\d+) of \1$/);
    const { page: p2, errors: e2 } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&lane=mp:iterations=3&t=2`));
    await waitReady(p2);
    assert.match(await stepStatus(p2), /^step 2 of /);
    assert.equal(await p2.locator('.lane-greedy .strip .chip').count(), 3);
    assert.deepEqual([...errors, ...e2], []);
    await page.close();
    await p2.close();
  });

  test('first minute: Step and Play stand out, four lanes fit 1400 px, the bar stays on a phone', async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(url('/?lane=greedy&lane=beam&lane=nar&lane=mp'));
    await waitReady(page);
    const look = (sel) => page.$eval(sel, (e) => { const c = getComputedStyle(e); return { bg: c.backgroundColor, weight: Number(c.fontWeight) }; });
    const back = await look('#back');
    for (const sel of ['#step', '#play']) {
      const l = await look(sel);
      assert.notEqual(l.bg, back.bg, `${sel} looks like Back`);
      assert.ok(l.weight >= 600, `${sel} is bold`);
    }
    // Both in the first screen, above the lanes.
    for (const sel of ['#step', '#play']) {
      const b = await page.locator(sel).boundingBox();
      assert.ok(b.y >= 0 && b.y + b.height <= 1000, `${sel} at ${b.y}`);
    }
    // The four lanes side by side, none clipped, no sideways scrolling.
    const fit = await page.evaluate(() => {
      const strip = document.getElementById('lanes');
      const s = strip.getBoundingClientRect();
      return { scroll: strip.scrollWidth, client: strip.clientWidth, page: document.documentElement.scrollWidth,
        lanes: [...strip.querySelectorAll('.lane')].map((l) => { const r = l.getBoundingClientRect(); return { left: r.left - s.left, right: s.right - r.right, top: r.top }; }) };
    });
    assert.equal(fit.lanes.length, 4);
    assert.ok(fit.scroll <= fit.client, `the lane strip scrolls: ${fit.scroll} > ${fit.client}`);
    assert.ok(fit.page <= 1400, `the page is ${fit.page} px wide`);
    for (const l of fit.lanes) assert.ok(l.left >= 0 && l.right >= 0 && l.top === fit.lanes[0].top, JSON.stringify(fit.lanes));
    // Moving a lane is not stepping: another glyph, another name, another look.
    const step = { text: await page.textContent('#step'), back: await page.textContent('#back') };
    const moves = await page.$$eval('.lane [data-action=left], .lane [data-action=right]', (bs) => bs.map((b) => ({
      text: b.textContent.trim(), label: b.getAttribute('aria-label'), border: getComputedStyle(b).borderStyle })));
    for (const m of moves) {
      assert.ok(!step.text.includes(m.text) && !step.back.includes(m.text), `lane move glyph ${m.text} is the transport's`);
      assert.match(m.label, /^Move this lane (left|right)$/);
      assert.equal(m.border, 'dashed');
    }
    // The skip link jumps to the lanes below the sticky bar, not under it.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.focus('.skip');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.scrollY > 0);
    const jump = await page.evaluate(() => ({ bar: document.querySelector('.transport-bar').getBoundingClientRect().bottom,
      lanes: document.getElementById('lanes').getBoundingClientRect().top }));
    assert.ok(jump.lanes >= jump.bar, `the lanes start at ${jump.lanes}, under the bar (its bottom at ${jump.bar})`);
    // On a phone the step bar stays reachable while the lanes scroll by (one lane at a
    // time, the last one's tab open).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click('#lane-tabs [role="tab"]:last-child');
    await page.locator('.lane-mp .lane-result').scrollIntoViewIfNeeded();
    await assertFitsPhone(page);
    const b = await page.locator('#step').boundingBox();
    assert.ok(b.y >= 0 && b.y + b.height <= 844, `Step is off screen at ${b.y}`);
    // A first visit opens at step 2.
    assert.match(await stepStatus(page), /^step 2 of /);
    await page.click('#step');
    assert.match(await stepStatus(page), /^step 3 of /);
    await page.screenshot({ path: artifact('first-minute-phone.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the URL round-trips: the same word, lanes, options and step come back', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=beam:beamSize=6,lengthNorm=gnmt,gnmtAlpha=1.2,nBest=4&lane=sample:temperature=1.5,seed=9&lane=mp:iterations=5,lengthCandidates=2,lengthScoreWeight=0.35&lane=nar:narLength=fixed`));
    await waitReady(page);
    await page.click('#reset');
    await page.click('#step');
    await page.click('#step');
    await page.click('#step');
    await page.waitForFunction(() => /[?&]t=3/.test(location.search));
    const link = page.url();
    await settled(page);
    const before = await page.evaluate(() => ({
      word: seq2seqPage.word, t: seq2seqPage.t, specs: seq2seqPage.lanes.map((l) => l.spec),
      bodies: seq2seqPage.lanes.map((l) => l.el.querySelector('.lane-body').innerText),
    }));
    const { page: page2, errors: errors2 } = await openPage(served.context, link);
    await waitReady(page2);
    await settled(page2);
    const afterState = await page2.evaluate(() => ({
      word: seq2seqPage.word, t: seq2seqPage.t, specs: seq2seqPage.lanes.map((l) => l.spec),
      bodies: seq2seqPage.lanes.map((l) => l.el.querySelector('.lane-body').innerText),
    }));
    assert.equal(afterState.word, before.word);
    assert.equal(afterState.t, 3);
    assert.deepEqual(afterState.specs, before.specs);
    assert.equal(before.specs.find((l) => l.type === 'mp')?.opts.lengthScoreWeight, 0.35, 'the Mask-Predict length weight came from the URL');
    assert.deepEqual(afterState.bodies, before.bodies);
    assert.match(await stepStatus(page2), /^step 3 of/);
    assert.deepEqual(errors, []);
    assert.deepEqual(errors2, []);
    await page.close();
    await page2.close();
  });

  test('the head picked for the cross-attention is in the address, and a link brings it back with the module\'s weights', async () => {
    // Greedy, and beam search with k = 1: the head picked, layer 2 head 3, rides in the
    // address as head=2.3; a reload shows that head's map, each weight the module's.
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&t=3&lane=greedy&lane=beam:beamSize=1`));
    await waitReady(page);
    for (const j of [0, 1]) await page.click(`#${await page.evaluate((k) => seq2seqPage.lanes[k].id, j)} .thumb[data-head="1.2"]`);
    await urlMatches(page, /lane=greedy:head=2\.3&lane=beam:beamSize=1,head=2\.3/);
    const link = await page.evaluate(() => location.href);
    const { page: again, errors: errors2 } = await openPage(served.context, link);
    await waitReady(again);
    const shown = await again.evaluate(() => seq2seqPage.lanes.map((l) => ({
      pressed: l.el.querySelector('.thumb[aria-pressed="true"]')?.dataset.head,
      caption: l.el.querySelector('svg.heatmap').getAttribute('aria-label'),
      rows: [...l.el.querySelectorAll('svg.heatmap rect[data-row]')].reduce((a, r) => { (a[r.dataset.row] ??= [])[Number(r.dataset.col)] = Number(r.querySelector('title').textContent.match(/[\d.]+$/)[0]); return a; }, []),
    })));
    const m = await model(AR);
    for (const [j, spec] of [[0, { type: 'greedy', opts: {} }], [1, { type: 'beam', opts: { beamSize: 1 } }]]) {
      assert.equal(shown[j].pressed, '1.2');
      assert.match(shown[j].caption, /layer 2, head 3/);
      const session = m.createSession(moduleOptions(makeLane(spec.type, spec.opts)));
      session.start(WORD);
      const steps = [session.step(), session.step(), session.step()];
      session.delete?.();
      const S = steps[0].sourceLength;
      const heads = steps[0].heads;
      steps.forEach((s, r) => {
        const h = s.live[0] ?? s.finished[0];
        const want = h.attentionHeads.subarray((1 * heads + 2) * S, (1 * heads + 3) * S);
        shown[j].rows[r].forEach((v, c) => assert.ok(Math.abs(v - want[c]) < 6e-4, `lane ${j} row ${r} col ${c}: ${v} vs ${want[c]}`));
      });
    }
    // A head the model has not: the average, quietly.
    await again.goto(url(`?w=${WORD}&t=3&lane=greedy:head=9.9`));
    await waitReady(again);
    assert.equal(await again.evaluate(() => seq2seqPage.lanes[0].el.querySelector('.thumb[aria-pressed="true"]')?.dataset.head), 'avg');
    assert.deepEqual(errors, []);
    assert.deepEqual(errors2, []);
    await page.close();
    await again.close();
  });

  test('every slider shows the value its lane decodes with (a default off the slider\'s step would snap)', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=beam&lane=sample&lane=mp`));
    await waitReady(page);
    const sliders = await page.$$eval('.lane input[type=range]', (els) => els.map((el) => ({
      opt: el.dataset.opt, value: Number(el.value), shown: Number(el.nextElementSibling?.textContent),
      state: seq2seqPage.lanes.find((l) => l.el.contains(el)).opts[el.dataset.opt],
    })));
    assert.ok(sliders.some((s) => s.opt === 'lengthScoreWeight'), 'the Mask-Predict lane has its length weight slider');
    for (const s of sliders) {
      assert.equal(s.value, s.state, `slider ${s.opt}: the input holds ${s.value}, the lane decodes with ${s.state}`);
      assert.equal(s.shown, s.state, `slider ${s.opt}: its label`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a click on a candidate forces that token, a click on END ends the output there; each re-decodes as the module does', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&t=2`));
    let ready = await waitReady(page);
    // Every bar but the chosen one is a button, END's too.
    const tokens = await page.$$eval('.lane-greedy button.bar[data-action=force]', (bs) => bs.map((b) => b.dataset.token));
    const token = tokens.find((x) => x !== '</s>');
    await page.click(`.lane-greedy button.bar[data-action=force][data-token="${token}"]`);
    ready = await waitReady(page, ready);
    let lane = (await laneState(page))[0];
    const firstTwo = await page.evaluate(() => seq2seqPage.lanes[0].snaps[2].live[0]?.texts ?? seq2seqPage.lanes[0].snaps[2].finished[0].texts);
    assert.equal(firstTwo[1], token);
    assert.equal(lane.opts.prefix.split(' ')[1], token);
    await urlMatches(page, new RegExp(`prefix=[^&]*${token}`));
    assert.equal(await page.locator('.lane-greedy .chip.forced').count(), 2);
    sameResults(lane.results, await expected({ type: 'greedy', opts: lane.opts }, WORD), 'forced greedy');
    await page.click('.lane-greedy [data-action=unforce]');
    ready = await waitReady(page, ready);
    assert.equal((await laneState(page))[0].opts.prefix, '');

    // END at the first step k where it is a candidate not chosen: the k - 1 tokens before
    // it kept, the output ends there (max length k, END counted).
    const k = await page.evaluate(() => seq2seqPage.lanes[0].snaps.findIndex((s, i) => i >= 2 && s.live[0]?.candidates.some((c) => c.text === '</s>')));
    assert.ok(k >= 2, `END is a candidate at some step of ${WORD}`);
    await page.evaluate((step) => seq2seqPage.go(step), k);
    await page.click('.lane-greedy button.bar[data-action=force][data-token="</s>"]');
    ready = await waitReady(page, ready);
    lane = (await laneState(page))[0];
    assert.equal(lane.opts.maxLength, k, `END forced at step ${k} is a max length of ${k}`);
    assert.equal(lane.opts.prefix.split(' ').length, k - 1, 'the tokens before END are kept');
    await urlMatches(page, new RegExp(`maxLength=${k}`));
    const end = await page.evaluate(() => seq2seqPage.lanes[0].snaps.at(-1).finished[0]);
    assert.equal(end.texts.length, k);
    assert.equal(end.texts.at(-1), '</s>');
    assert.equal(end.forced, true, 'END was imposed');
    assert.match(await page.textContent('.lane-greedy .forced-note'), new RegExp(`forced .* then END at token ${k}`));
    sameResults(lane.results, await expected({ type: 'greedy', opts: lane.opts }, WORD), 'END forced');
    await page.click('.lane-greedy [data-action=unforce]');
    await waitReady(page, ready);
    assert.deepEqual([(await laneState(page))[0].opts.prefix, (await laneState(page))[0].opts.maxLength], ['', 0]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a click on a length bar imposes that length on the NAR lanes', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=nar&lane=mp:iterations=3`));
    let ready = await waitReady(page);
    const predicted = await page.evaluate(() => seq2seqPage.lanes[0].snaps.at(-1).lengths[0]);
    const L = predicted + 2;
    await page.click(`.lane-nar button.lenbar[data-length="${L}"]`);
    ready = await waitReady(page, ready);
    let lanes = await laneState(page);
    assert.equal(lanes[0].opts.narLength, 'given');
    assert.equal(lanes[0].opts.narGivenLength, L);
    assert.deepEqual(await page.evaluate(() => seq2seqPage.lanes[0].snaps.at(-1).lengths), [L]);
    assert.equal(await page.locator('.lane-nar .nar-grid thead th').count(), L + 1);
    sameResults(lanes[0].results, await expected({ type: 'nar', opts: { narLength: 'given', narGivenLength: L } }, WORD), 'given length');
    await page.click(`.lane-mp button.lenbar[data-length="${L + 1}"]`);
    ready = await waitReady(page, ready);
    lanes = await laneState(page);
    sameResults(lanes[1].results, await expected({ type: 'mp', opts: { iterations: 3, narLength: 'given', narGivenLength: L + 1 } }, WORD), 'given length, Mask-Predict');
    await urlMatches(page, new RegExp(`narLength=given,narGivenLength=${L}`));
    await page.click('.lane-nar [data-action=predicted]');
    await waitReady(page, ready);
    assert.equal((await laneState(page))[0].opts.narLength, 'predicted');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('beam: the length-normalisation control re-ranks the finished hypotheses', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=beam:beamSize=5,lengthNorm=average`));
    const ready = await waitReady(page);
    const order = () => page.evaluate(() => [...document.querySelectorAll('.lane-beam .view:nth-of-type(3) table.hyps tbody tr:not(.formula-row) td:nth-child(5)')].map((td) => Number(td.textContent.replace('−', '-'))));
    const scores = await order();
    assert.ok(scores.length >= 1);
    for (let i = 1; i < scores.length; i++) assert.ok(scores[i - 1] >= scores[i]);
    await page.check('.lane-beam input[data-opt=lengthNorm][value=none]');
    // Re-ranked from log P at once; the lane then decodes again with the new option.
    await waitReady(page, ready);
    const none = await order();
    for (let i = 1; i < none.length; i++) assert.ok(none[i - 1] >= none[i]);
    assert.match(await page.textContent('.lane-beam table.hyps .formula'), /^log P = /);
    const lane = (await laneState(page))[0];
    sameResults(lane.results, await expected({ type: 'beam', opts: lane.opts }, WORD), 'beam, norm none');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('beam: the score is log P, as the course notes have it; beside it the ranking value and its formula, both the module\'s', async () => {
    // Two settings off the defaults: k = 3 unnormalised, and k = 1 under GNMT with α = 1.2.
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=beam:beamSize=3,lengthNorm=none&lane=beam:beamSize=1,lengthNorm=gnmt,gnmtAlpha=1.2`));
    await waitReady(page);
    const lanes = await laneState(page);
    const fmt = (x) => (x < 0 && Number(Math.abs(x).toFixed(2)) !== 0 ? '−' : '') + Math.abs(x).toFixed(2);
    for (const [j, lane] of lanes.entries()) {
      const session = (await model(AR)).createSession(moduleOptions(makeLane('beam', lane.opts)));
      session.start(WORD);
      const snaps = [null];
      for (let done = false; !done;) { const s = session.step(); snaps.push(s); done = s.done; }
      session.delete?.();
      const formula = lane.opts.lengthNorm === 'none' ? 'log P' : 'log P / ((5+|Y|)/6)^1.2';
      for (const i of [2, snaps.length - 1]) {
        await page.evaluate((k) => seq2seqPage.go(k), i);
        const shown = await page.evaluate((k) => {
          const el = seq2seqPage.lanes[k].el;
          const table = (tb) => tb && ({
            head: [...tb.querySelectorAll('thead th')].map((th) => th.innerText.replace(/\s+/g, ' ')),
            rows: [...tb.querySelectorAll('tbody tr:not(.formula-row)')].map((tr) => ({ node: Number(tr.querySelector('[data-node]').dataset.node), cells: [...tr.querySelectorAll('td.num')].map((td) => td.firstChild.textContent) })),
            formulas: [...tb.querySelectorAll('.formula')].map((f) => f.textContent),
          });
          const tables = [table(el.querySelector('table.hyps.live')), table(el.querySelector('table.hyps.finished'))];
          const tags = [...el.querySelectorAll('.tree .node[data-node]')].map((g) => ({ node: Number(g.dataset.node), tag: g.querySelector('text.tag')?.textContent ?? null }));
          return { tables, tags, legend: el.querySelector('.legend').textContent };
        }, j);
        const nodes = new Map();
        for (let k = 1; k <= i; k++) for (const h of [...snaps[k].live, ...snaps[k].finished]) nodes.set(h.id, h);
        const s = snaps[i];
        const [live, fin] = shown.tables;
        assert.equal(!!live, s.live.length > 0);
        assert.equal(!!fin, s.finished.length > 0);
        if (live) {
          assert.deepEqual(live.head, ['#', 'hypothesis', 'score (log P)', '|Y|'], 'live hypotheses are ranked by their score, log P');
          assert.deepEqual(live.rows.map((r) => r.node), s.live.slice().sort((a, b) => b.logprob - a.logprob).map((h) => h.id));
          for (const r of live.rows) assert.deepEqual(r.cells, [fmt(nodes.get(r.node).logprob), String(nodes.get(r.node).tokens.length)]);
          assert.deepEqual(live.formulas, []);
        }
        if (s.finished.length) {
          assert.deepEqual(fin.head, ['#', 'hypothesis', 'score (log P)', '|Y|', 'ranking value']);
          assert.deepEqual(fin.rows.map((r) => r.node), s.finished.slice(0, 8).map((h) => h.id), 'finished in the engine\'s order');
          fin.rows.forEach((r, k) => {
            const h = nodes.get(r.node);
            assert.deepEqual(r.cells, [fmt(h.logprob), String(h.tokens.length), fmt(h.score)], `step ${i}: the engine's log P, |Y| and normalised score`);
            assert.ok(fin.formulas[k].startsWith(`${formula} = ${fmt(h.logprob)}`) && fin.formulas[k].endsWith(`= ${fmt(h.score)}`), fin.formulas[k]);
          });
        }
        for (const { node, tag } of shown.tags) {
          const h = nodes.get(node);
          if (!tag) continue;
          assert.ok(tag.includes(fmt(h.logprob)), `step ${i} node ${node}: the tree shows its score, log P ${fmt(h.logprob)}: ${tag}`);
          if (h.finished) assert.ok(tag.endsWith(`(${fmt(h.score)})`), `step ${i}: a finished node shows its ranking value: ${tag}`);
        }
        assert.ok(shown.legend.includes(`ranking value, ${formula}`), shown.legend);
      }
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('beam: once the search has finished, the tree shows the hypothesis it selected', async () => {
    // The search ends when no live hypothesis can beat the finished ones, often many steps
    // after the best one finished: the frontier at the right is then empty, so the tree
    // must bring the selected node into view instead. (BUBOLZ, a dev word: 20 steps, the
    // best hypothesis finished at step 8.)
    const { page, errors } = await openPage(served.context, url('?w=BUBOLZ&lane=beam:beamSize=5'));
    await waitReady(page);
    const seen = () => page.evaluate(() => {
      const wrap = document.querySelector('.lane-beam .tree-wrap').getBoundingClientRect();
      const node = document.querySelector('.lane-beam .tree-wrap .node.sel').getBoundingClientRect();
      return node.left >= wrap.left && node.right <= wrap.right && node.top >= wrap.top && node.bottom <= wrap.bottom;
    });
    assert.equal(await seen(), true, 'the selected finished hypothesis is inside the visible part of the tree');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('add, remove and reorder lanes', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&lane=nar`));
    let ready = await waitReady(page);
    await page.selectOption('#add-type', 'sample');
    await page.click('#add-form button[type=submit]');
    ready = await waitReady(page, ready);
    assert.deepEqual((await laneState(page)).map((l) => l.type), ['greedy', 'nar', 'sample']);
    await page.click('.lane-sample [data-action=left]');
    assert.deepEqual((await laneState(page)).map((l) => l.type), ['greedy', 'sample', 'nar']);
    await page.click('.lane-greedy [data-action=remove]');
    assert.deepEqual((await laneState(page)).map((l) => l.type), ['sample', 'nar']);
    await page.waitForFunction(() => /lane=sample.*lane=nar/.test(location.search) && !/greedy/.test(location.search));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a non-autoregressive lane\'s code comes when one is added; a failed fetch is a message and the lanes stay', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}`));
    const scripts = [];
    page.on('request', (r) => { if (r.url().endsWith('.js')) scripts.push(new URL(r.url()).pathname); });
    let ready = await waitReady(page);
    const onDemand = ['/js/lane-nar.js', '/js/lane-mp.js', '/js/compare.js'];
    assert.deepEqual(scripts.filter((p) => onDemand.includes(p)), [], 'fetched before a lane asked for them');
    // The module cannot be fetched: a message, and the page as it was.
    await page.route('**/js/lane-mp.js', (route) => route.abort());
    await page.selectOption('#add-type', 'mp');
    await page.click('#add-form button[type=submit]');
    await page.waitForFunction(() => /^This kind of lane could not be loaded \(.+\): check the connection and add it again\.$/.test(document.querySelector('#message').textContent));
    assert.deepEqual((await laneState(page)).map((l) => l.type), ['greedy', 'beam']);
    // Fetched when asked for, and the lane decodes as the module does.
    await page.unroute('**/js/lane-mp.js');
    await page.selectOption('#add-type', 'compare');
    await page.click('#add-form button[type=submit]');
    ready = await waitReady(page, ready);
    assert.deepEqual((await laneState(page)).map((l) => l.type), ['greedy', 'beam', 'compare']);
    assert.ok(scripts.includes('/js/compare.js') && !scripts.includes('/js/lane-nar.js'));
    await page.selectOption('#add-type', 'nar');
    await page.click('#add-form button[type=submit]');
    ready = await waitReady(page, ready);
    // The kind that failed, asked for again, now comes.
    await page.selectOption('#add-type', 'mp');
    await page.click('#add-form button[type=submit]');
    ready = await waitReady(page, ready);
    assert.deepEqual((await laneState(page)).map((l) => l.type), ['greedy', 'beam', 'compare', 'nar', 'mp']);
    await toEnd(page);
    const nar = (await laneState(page)).find((l) => l.type === 'nar');
    assert.equal(nar.error, null, nar.error);
    sameResults(nar.results, await expected({ type: 'nar', opts: nar.opts }, WORD), 'the one-pass lane');
    assert.deepEqual(errors.filter((e) => !/lane-mp\.js|Failed to load resource|Failed to fetch dynamically imported module/.test(e)), []);
    await page.close();
  });

  test('the model picker lists every model of the lane\'s kind, and a lane can switch', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&lane=mp`));
    let ready = await waitReady(page);
    const arOptions = await page.$$eval('.lane-greedy select[data-opt=m] option', (os) => os.map((o) => o.value));
    assert.deepEqual(arOptions, models.filter((m) => m.autoregressive).map((m) => m.id));
    const narOptions = await page.$$eval('.lane-mp select[data-opt=m] option', (os) => os.map((o) => o.value));
    assert.deepEqual(narOptions, models.filter((m) => !m.autoregressive).map((m) => m.id));
    const other = models.find((m) => m.autoregressive && m.id !== AR.id && m.examples.includes(WORD));
    if (other) {
      await page.click('.lane-greedy details.lane-settings > summary');   // the options are folded
      await page.selectOption('.lane-greedy select[data-opt=m]', other.id);
      ready = await waitReady(page, ready);
      const lane = (await laneState(page))[0];
      assert.equal(lane.opts.m, other.id);
      const m = await model(other);
      sameResults(lane.results, m.decode(WORD, moduleOptions(makeLane('greedy', lane.opts))), `greedy on ${other.id}`);
      await urlMatches(page, new RegExp(`lane=greedy:m=${other.id}`));
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('bad input is a message on the page, never a crash', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}`));
    let ready = await waitReady(page);
    await page.fill('#word', `${WORD}ü!`);
    await page.press('#word', 'Enter');
    ready = await waitReady(page, ready);
    assert.match(await page.textContent('#message'), /not in the alphabet/);
    assert.ok(await page.isVisible('#message'));
    for (const l of await laneState(page)) assert.match(l.error, /not in the alphabet/);
    await page.fill('#word', '   ');
    await page.press('#word', 'Enter');
    ready = await waitReady(page, ready);
    assert.match(await page.textContent('#message'), /Type a word/);
    await page.fill('#word', WORD);
    await page.press('#word', 'Enter');
    await waitReady(page, ready);
    assert.ok(await page.isHidden('#message'));
    for (const l of await laneState(page)) assert.equal(l.error, null);
    // A made-up word has no reference.
    const madeUp = [...WORD].reverse().join('') + WORD[0];
    await page.fill('#word', madeUp);
    await page.press('#word', 'Enter');
    ready = await waitReady(page, ready);
    await page.waitForFunction(() => /not in CMUdict|CMUdict;/.test(document.getElementById('reference').textContent));
    assert.match(await page.textContent('#reference'), new RegExp(`${madeUp} is not in CMUdict`));
    // A hand-edited URL with nonsense options falls back to defaults.
    const { page: p2, errors: e2 } = await openPage(served.context, url(`?w=${WORD}&lane=beam:beamSize=999,lengthNorm=bogus&lane=nosuch&t=abc`));
    await waitReady(p2);
    const lanes = await laneState(p2);
    assert.equal(lanes.length, 1);
    assert.equal(lanes[0].opts.beamSize, 16);
    assert.equal(lanes[0].opts.lengthNorm, 'average');
    assert.deepEqual(errors, []);
    assert.deepEqual(e2, []);
    await page.close();
    await p2.close();
  });

  test('a word longer than the page takes is not cut: a message names the limit; a word longer than any trained on says so under its results', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy&lane=mp`));
    let ready = await waitReady(page);
    const { maxLetters } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
    assert.equal(maxLetters, JSON.parse(readFileSync(join(root, 'models/train/data_rules.json'), 'utf8')).maxLength.letters, 'the recipe\'s cap');
    const long = 'PNEUMONOULTRAMICROSCOPICSILICOVOLCANOCONIOSIS';
    await page.fill('#word', long);
    assert.equal(await page.inputValue('#word'), long, 'every letter typed is kept');
    await page.press('#word', 'Enter');
    ready = await waitReady(page, ready);
    assert.match(await page.textContent('#message'), new RegExp(`too long for g2p-transformer, g2p-cmlm: at most ${maxLetters} letters`));
    // 40 letters: decoded, and each result says the word is longer than the longest it learned from.
    let longest = 0;
    for (const f of readdirSync(join(site, 'dict')).filter((x) => x.endsWith('.tsv'))) {
      for (const line of readFileSync(join(site, 'dict', f), 'utf8').split('\n')) {
        const [w, split] = line.split('\t');
        if (split === 'r') longest = Math.max(longest, w.length);
      }
    }
    const forty = long.slice(0, maxLetters);
    await page.fill('#word', forty);
    await page.press('#word', 'Enter');
    await waitReady(page, ready);
    await page.evaluate(() => seq2seqPage.go(seq2seqPage.maxT()));
    const notes = await page.$$eval('.lane .beyond-training', (ns) => ns.map((n) => n.textContent));
    const lanes = await laneState(page);
    assert.equal(notes.length, 2);
    for (const [j, l] of lanes.entries()) {
      const want = await expected(l, forty);
      assert.equal(l.results[0].text, want[0].text);
      const k = want[0].text.split(' ').length;
      assert.equal(notes[j], `This word has ${forty.length} letters; the longest word ${j ? 'g2p-cmlm' : 'g2p-transformer'} learned from has ${longest} (CMUdict's training split). Beyond what a model has seen, its output is a guess: here ${k} phonemes for ${forty.length} letters.`);
    }
    // A word within reach has no such note.
    await page.fill('#word', WORD);
    await page.press('#word', 'Enter');
    await waitReady(page);
    assert.equal(await page.locator('.lane .beyond-training').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('screenshots of every lane type, and at phone width', async () => {
    const shots = [
      ['greedy', `lane=greedy&lane=sample:temperature=1.2,seed=3`, 3],
      ['beam', 'lane=beam:beamSize=4,nBest=3', 4],
      ['nar', 'lane=nar&lane=nar:narLength=fixed', 1],
      ['mask-predict', 'lane=mp:iterations=6,lengthCandidates=3', 3],
    ];
    for (const [name, lanes, t] of shots) {
      const { page, errors } = await openPage(served.context, url(`?w=${WORD}&${lanes}&t=${t}`));
      await waitReady(page);
      await page.screenshot({ path: artifact(`lane-${name}.png`), fullPage: true });
      assert.deepEqual(errors, [], name);
      await page.close();
    }
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url(`?w=${WORD}`));
    await waitReady(page);
    await assertFitsPhone(page);
    await page.screenshot({ path: artifact('phone.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
