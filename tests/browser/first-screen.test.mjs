// The first screen, en and zh, at 1400×1000 and 390×844: a first visit (no word, no
// step in the address) opens its two lanes (greedy and beam search, one model:
// lane-models.js DEFAULT_LANES) already decoded to step 2 of MIRAGE, where greedy has
// committed to M IH and beam search still holds M ER (app.js FIRST_VISIT_STEP), with the beam tree on the first screen of a wide window; an
// address with t=0 still opens at step 0. On a phone one lane shows at a time
// behind tabs (lane-tabs.js; four lanes, as an address can name), reached by touch and by the keyboard, the step bar
// moving every lane; the page stays a few screens long and no wider than the phone.
// The tour's panel keeps to a quarter of a phone's screen, its text one "More" away.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { STOPS, isTrainStop } from '../../web/js/tour.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, assertFitsPhone, openPage, servedSite, site, waitReady } from './helpers.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const served = servedSite();
const TEXT = { en, zh };
const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const WIDE = [1400, 1000];
const PHONE = [390, 844];
// The page's height on a phone, whichever lane is shown at the end of its decode, is
// held under this (stacked, the four default lanes made about 8,000 px).
const PHONE_HEIGHT = 4000;

const langQuery = (lang) => (lang === 'en' ? '' : `?lang=${lang}`);

/** Per lane, as drawn: its type, the decoder passes its stats line shows, whether it waits for a first step, its visibility. */
const lanesShown = (page) => page.evaluate(() => window.seq2seqPage.lanes.map((l) => ({
  type: l.type,
  passes: Number(l.el.querySelector('[data-k="passes"]')?.textContent),
  waiting: !!l.el.querySelector('.lane-body .waiting'),
  visible: l.el.getBoundingClientRect().height > 0,
  title: document.getElementById(`${l.id}-title`).textContent,
})));

const axe = async (page) => {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
};

/** A finger's tap at the centre of `selector` (touch emulated, as on a phone). */
async function tap(page, cdp, selector) {
  const b = await page.locator(selector).boundingBox();
  const point = { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

for (const lang of ['en', 'zh']) {
  for (const [width, height] of [WIDE, PHONE]) {
    test(`a first visit shows every lane decoded to step 2, no click, ${lang} at ${width}×${height}`, async () => {
      const { page, errors } = await openPage(served.context);
      await page.setViewportSize({ width, height });
      await page.goto(served.url(`/${langQuery(lang)}`));
      await waitReady(page);
      const state = await page.evaluate(() => ({ word: seq2seqPage.word, t: seq2seqPage.t, max: seq2seqPage.maxT(), status: document.getElementById('step-status').textContent }));
      assert.equal(state.word, 'MIRAGE');
      assert.equal(state.t, 2);
      assert.equal(state.status, TEXT[lang]['transport.status'].replace('{t}', 2).replace('{max}', state.max));
      const lanes = await lanesShown(page);
      assert.deepEqual(lanes.map((l) => l.type), ['greedy', 'beam']);
      for (const l of lanes) {
        assert.ok(l.passes >= 1, `${l.type}: ${l.passes} decoder passes shown`);
        assert.equal(l.waiting, false, `${l.type} waits for a step`);
      }
      // The moment the step stands for: greedy has taken M IH, beam search (k = 5) holds M ER beside it.
      const moment = await page.evaluate(() => ({
        greedy: [...document.querySelectorAll('.lane-greedy .strip .chip .arpa')].map((c) => c.textContent),
        beam: [...document.querySelectorAll('.lane-beam table.hyps')][0]?.innerText ?? '',
        live: document.querySelectorAll('.lane-beam .tree-wrap .node.live').length,
      }));
      assert.deepEqual(moment.greedy, ['BEGIN', 'M', 'IH']);
      assert.match(moment.beam, /M IH/);
      assert.match(moment.beam, /M ER/);
      assert.equal(moment.live, 5);
      // The lane picker says what a lane on a model not yet loaded would download (the CMLM's,
      // the four RNNs'); the default lanes' model is loaded, so their types say nothing.
      const picker = await page.$$eval('#add-type option', (os) => Object.fromEntries(os.map((o) => [o.value, o.textContent])));
      const cmlm = models.find((m) => !m.autoregressive);
      const mb = TEXT[lang]['size.mb'].replace('{n}', (cmlm.fileBytes / 1e6).toFixed(1));
      for (const type of ['nar', 'mp']) assert.equal(picker[type], TEXT[lang]['add.withDownload'].replace('{lane}', TEXT[lang][`lane.${type}`]).replace('{size}', mb));
      for (const type of ['greedy', 'beam', 'sample']) assert.equal(picker[type], TEXT[lang][`lane.${type}`]);
      assert.ok(picker.compare.startsWith(TEXT[lang]['add.compare']) && picker.compare !== TEXT[lang]['add.compare'], picker.compare);
      // The address now holds the step: a reload or a copied link comes back to it.
      await page.waitForFunction(() => /[?&]t=2(&|$)/.test(location.search) && /[?&]w=MIRAGE(&|$)/.test(location.search));
      if (width === WIDE[0]) {
        // The beam tree on the first screen, nothing scrolled.
        const tree = await page.evaluate(() => {
          const svg = document.querySelector('.lane-beam .tree-wrap svg');
          const r = svg.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + 20, r.top + 12);
          const wrap = svg.closest('.tree-wrap').getBoundingClientRect();
          return { top: r.top, height: r.height, shown: Math.min(wrap.bottom, window.innerHeight) - r.top, drawn: wrap.bottom - r.top,
            scrollY: window.scrollY, visible: getComputedStyle(svg).visibility === 'visible', inside: !!hit && svg.closest('.tree-wrap').contains(hit) };
        });
        assert.equal(tree.scrollY, 0);
        assert.ok(tree.top > 0 && tree.top < height, `the beam tree starts at ${tree.top}, below the ${height} px window`);
        assert.ok(tree.height > 100 && tree.visible && tree.inside, JSON.stringify(tree));
        // Not just its top edge: 300 px of it (or all of it, if shorter) in the window.
        assert.ok(tree.shown >= Math.min(300, tree.drawn), `${tree.shown} px of the tree in view`);
        console.log(`${lang}: the beam tree's top at ${Math.round(tree.top)} px of ${height}`);
        // Side by side, both in view.
        assert.ok(lanes.every((l) => l.visible));
      } else {
        await assertFitsPhone(page);
      }
      await page.screenshot({ path: artifact(`first-screen-${lang}-${width}x${height}.png`) });
      // Reset still goes to step 0, where the lanes wait for a first step.
      await page.click('#reset');
      assert.equal(await page.evaluate(() => seq2seqPage.t), 0);
      assert.ok((await lanesShown(page)).every((l) => l.passes === 0 && l.waiting));
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
}

test('an address with t=0 and no word opens at step 0, nothing decoded on screen', async () => {
  const { page, errors } = await openPage(served.context, served.url('/?t=0'));
  await waitReady(page);
  assert.equal(await page.evaluate(() => seq2seqPage.t), 0);
  assert.ok((await lanesShown(page)).every((l) => l.passes === 0 && l.waiting));
  assert.deepEqual(errors, []);
  await page.close();
});

for (const lang of ['en', 'zh']) {
  test(`on a phone one lane at a time behind tabs, by touch and keyboard; the step bar moves them all, ${lang}`, async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: PHONE[0], height: PHONE[1] });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    await page.goto(served.url(`/?lane=greedy&lane=beam&lane=nar&lane=mp${lang === 'en' ? '' : `&lang=${lang}`}`));
    await waitReady(page);
    const tabs = () => page.evaluate(() => {
      const list = document.getElementById('lane-tabs');
      return {
        role: list.getAttribute('role'),
        label: list.getAttribute('aria-label'),
        tabs: [...list.querySelectorAll('[role="tab"]')].map((b) => ({ text: b.textContent, selected: b.getAttribute('aria-selected'),
          controls: b.getAttribute('aria-controls'), tabindex: b.tabIndex })),
        panels: seq2seqPage.lanes.map((l) => ({ id: l.id, role: l.el.getAttribute('role'), visible: l.el.getBoundingClientRect().height > 0 })),
      };
    });
    let s = await tabs();
    assert.equal(s.role, 'tablist');
    assert.equal(s.label, TEXT[lang]['lanes.tabsAria']);
    const titles = (await lanesShown(page)).map((l) => l.title);
    assert.deepEqual(s.tabs.map((x) => x.text), titles, 'each tab is its lane\'s title');
    assert.deepEqual(s.tabs.map((x) => x.controls), s.panels.map((p) => p.id));
    assert.deepEqual(s.panels.map((p) => p.role), ['tabpanel', 'tabpanel', 'tabpanel', 'tabpanel']);
    assert.deepEqual(s.panels.map((p) => p.visible), [true, false, false, false]);
    assert.deepEqual(s.tabs.map((x) => [x.selected, x.tabindex]), [['true', 0], ['false', -1], ['false', -1], ['false', -1]]);
    // Every lane by a tap on its tab: it alone is shown, drawn at the page's step.
    const heights = [];
    for (let i = 0; i < titles.length; i++) {
      await tap(page, cdp, `#lane-tabs [role="tab"]:nth-child(${i + 1})`);
      s = await tabs();
      assert.deepEqual(s.panels.map((p) => p.visible), titles.map((_, j) => j === i), `tab ${i + 1} shows its lane alone`);
      assert.equal(s.tabs[i].selected, 'true');
      const lane = (await lanesShown(page))[i];
      assert.ok(lane.passes >= 1 && !lane.waiting, `${lane.type} is drawn decoded`);
      await assertFitsPhone(page);
    }
    // Stepping moves every lane, shown or not; the tab stays open.
    await page.click('#step');
    const stepped = await page.evaluate(() => seq2seqPage.lanes.map((l) => ({ shown: Number(l.el.querySelector('[data-k="passes"]').textContent), at: l.snaps[l.index(seq2seqPage.t)]?.step ?? 0 })));
    assert.equal(await page.evaluate(() => seq2seqPage.t), 3);
    for (const l of stepped) assert.equal(l.shown, l.at);
    assert.equal((await tabs()).tabs[3].selected, 'true', 'the Mask-Predict tab stays open while stepping');
    // The keyboard: ← → Home End move between the tabs, and do not step the decode.
    await page.focus('#lane-tabs [aria-selected="true"]');
    await page.keyboard.press('ArrowRight');
    s = await tabs();
    assert.equal(s.tabs[0].selected, 'true', '→ from the last tab wraps to the first');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls')), s.panels[0].id);
    await page.keyboard.press('End');
    assert.equal((await tabs()).tabs[3].selected, 'true');
    await page.keyboard.press('ArrowLeft');
    assert.equal((await tabs()).tabs[2].selected, 'true');
    await page.keyboard.press('Home');
    assert.equal((await tabs()).tabs[0].selected, 'true');
    assert.equal(await page.evaluate(() => seq2seqPage.t), 3, 'the arrows on a tab did not step');
    // At the end of the decode, whichever lane is shown, the page stays a few screens long.
    await page.$eval('#scrub', (el) => { el.value = el.max; el.dispatchEvent(new Event('input', { bubbles: true })); });
    for (let i = 0; i < titles.length; i++) {
      await tap(page, cdp, `#lane-tabs [role="tab"]:nth-child(${i + 1})`);
      await page.waitForFunction(() => !document.querySelector('.forced[data-diagnosis="pending"]'));
      heights.push(await page.evaluate(() => document.documentElement.scrollHeight));
      await assertFitsPhone(page);
    }
    console.log(`${lang}: page height at the end, per tab: ${heights.join(', ')} px`);
    for (const h of heights) assert.ok(h < PHONE_HEIGHT, `the page is ${h} px tall (bound ${PHONE_HEIGHT})`);
    await page.screenshot({ path: artifact(`first-screen-tabs-${lang}-390.png`), fullPage: true });
    assert.deepEqual(await axe(page), []);
    // A wide window shows the lanes side by side again, no tabs, no tab panels.
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await page.setViewportSize({ width: WIDE[0], height: WIDE[1] });
    // The tabs go when the media query's change event arrives, after the resize.
    await page.waitForFunction(() => !document.querySelector('#lane-tabs [role="tab"]'));
    s = await tabs();
    assert.equal(s.tabs.length, 0);
    assert.equal(await page.isHidden('#lane-tabs'), true);
    assert.deepEqual(s.panels.map((p) => [p.role, p.visible]), titles.map(() => [null, true]));
    assert.deepEqual(errors, []);
    await page.close();
  });
}

// Each language once and each input once: English by touch, Chinese with a
// keyboard (the tour's own walks take every stop in both languages at both widths).
for (const [lang, touch] of [['en', true], ['zh', false]]) {
  test(`the tour's panel covers at most a quarter of a phone's screen, every stop's text one "More" away, ${lang}${touch ? ', touch' : ''}`, async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: PHONE[0], height: PHONE[1] });
    const cdp = await page.context().newCDPSession(page);
    if (touch) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    await page.goto(served.url(`/?tour=1${lang === 'en' ? '' : `&lang=${lang}`}`));
    // The lanes' stops (the training ones, each a run, are tour-train.test.mjs's, which holds them to the same).
    const last = STOPS.findIndex(isTrainStop);
    for (let n = 1; n <= last; n++) {
      await page.waitForFunction((k) => document.getElementById('tour')?.dataset.shown === String(k), n, { timeout: 30000 });
      const panel = await page.evaluate(() => {
        const p = document.getElementById('tour');
        const text = document.getElementById('tour-text');
        return { height: p.getBoundingClientRect().height, font: parseFloat(getComputedStyle(text).fontSize),
          keys: getComputedStyle(document.getElementById('tour-keys')).display !== 'none' };
      });
      assert.ok(panel.height <= 0.25 * PHONE[1], `stop ${n}: the panel is ${panel.height} px tall, over a quarter of ${PHONE[1]}`);
      assert.ok(panel.font >= 14, `stop ${n}: the text is ${panel.font} px`);
      assert.equal(panel.keys, !touch, 'keyboard hints only with a keyboard');
      // "More" shows the whole text (and the measured figures), "Less" folds it again.
      const more = page.locator('#tour-more');
      if (await more.isVisible()) {
        assert.equal(await more.textContent(), TEXT[lang]['tour.more']);
        assert.equal(await more.getAttribute('aria-expanded'), 'false');
        if (touch) await tap(page, cdp, '#tour-more'); else await more.click();
        const open = await page.evaluate(() => {
          const b = document.getElementById('tour-body');
          const p = document.getElementById('tour');
          const r = b.getBoundingClientRect();
          return { whole: b.scrollHeight <= b.clientHeight + 1, height: p.getBoundingClientRect().height, scrolls: p.scrollHeight > p.clientHeight, bottom: r.bottom, panelBottom: p.getBoundingClientRect().bottom };
        });
        assert.ok(open.whole, `stop ${n}: unfolded, the text is whole`);
        assert.ok(open.height <= 0.6 * PHONE[1] + 1, `stop ${n}: unfolded, the panel is ${open.height} px`);
        assert.ok(open.bottom <= open.panelBottom || open.scrolls, `stop ${n}: the text can be read to its end`);
        assert.equal(await more.getAttribute('aria-expanded'), 'true');
        if (n === 5) await page.screenshot({ path: artifact(`first-screen-tour-more-${lang}.png`) });
        await more.click();
        assert.ok((await page.evaluate(() => document.getElementById('tour').getBoundingClientRect().height)) <= 0.25 * PHONE[1]);
      } else {
        assert.ok(await page.evaluate(() => { const b = document.getElementById('tour-body'); return b.scrollHeight <= b.clientHeight + 1; }), `stop ${n}: text cut with no "More"`);
      }
      if (n === 2) await page.screenshot({ path: artifact(`first-screen-tour-${lang}${touch ? '-touch' : ''}.png`) });
      if (n < last) await page.click('#tour-next');
    }
    if (touch) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
