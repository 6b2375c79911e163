// Content cut off at a box's edge shows that it is (web/js/scroll-hint.js, style.css):
// phones, macOS and headless Chromium draw no scrollbar until a box is scrolled, so
// every box of the page that scrolls and has more than it shows must fade out at the
// edge where the rest is, and the fade must follow the scroll. Checked on the views
// where a learner met cut content: four lanes side by side on a desktop (the
// Mask-Predict grid, the one-pass table), the attention-score comparison at 1400 px,
// the inside of a step and teacher forcing on a phone, the word list's WER table on a
// phone. The numbers a stop of the tour cites are held in view by the tour's own test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { artifact, openPage, servedSite, settled } from './helpers.mjs';

const served = servedSite();

/** Every box that scrolls (overflow auto or scroll) and is cut: its edges with more beyond, its mask, its data-cut. */
function cutBoxes(page) {
  return page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const cs = getComputedStyle(el);
      const scrolls = (v) => v === 'auto' || v === 'scroll';
      if (!scrolls(cs.overflowX) && !scrolls(cs.overflowY)) continue;
      if (!el.clientWidth || !el.clientHeight || !el.checkVisibility()) continue;
      const edges = [
        scrolls(cs.overflowX) && el.scrollLeft > 1 && 'left',
        scrolls(cs.overflowX) && el.scrollLeft + el.clientWidth < el.scrollWidth - 1 && 'right',
        scrolls(cs.overflowY) && el.scrollTop > 1 && 'top',
        scrolls(cs.overflowY) && el.scrollTop + el.clientHeight < el.scrollHeight - 1 && 'bottom',
      ].filter(Boolean);
      if (!edges.length) continue;
      const name = el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}${el.firstElementChild ? ` > ${el.firstElementChild.tagName.toLowerCase()}.${[...el.firstElementChild.classList].join('.')}` : ''}`;
      out.push({ name, edges, mask: cs.maskImage !== 'none' ? cs.maskImage : cs.webkitMaskImage, cut: el.dataset.cut ?? '' });
    }
    return out;
  });
}

function assertHinted(boxes, label) {
  for (const b of boxes) {
    assert.ok(b.mask && b.mask !== 'none', `${label}: ${b.name} is cut at its ${b.edges.join(', ')} edge with nothing to show it`);
    for (const e of b.edges) assert.ok(b.cut.split(' ').includes(e), `${label}: ${b.name} fades at ${b.cut || 'no edge'}, not at ${e}`);
  }
}

const VIEWS = [
  ['four lanes side by side', [1400, 1000], '?w=HOURGLASS&lane=greedy&lane=beam&lane=nar&lane=mp', '.lane-mp .table-scroll:has(> .nar-grid)'],
  ['the attention scores compared', [1400, 1000], '?w=DELETE&lane=compare&t=2', null],
  ['inside a step, on a phone', [390, 844], '?w=DELETE&lane=greedy:inside=dec-cross-L3-h3-q2&t=2', '.inside [data-stage="qk"] .table-scroll'],
  ['the word list, on a phone', [390, 844], '?view=list&n=12&src=test&lane=greedy&lane=beam&lane=nar', '.table-scroll:has(> #wl-summary)'],
];

for (const [what, [width, height], query, must] of VIEWS) {
  test(`${what} (${width} px): every box cut off at an edge fades out there, and the fade follows its scroll`, async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width, height });
    await page.goto(served.url(query));
    if (query.includes('view=list')) await page.waitForFunction(() => Number(document.body.dataset.listRuns ?? 0) >= 1, null, { timeout: 120000 });
    else await settled(page);
    await page.waitForTimeout(100);   // the boxes are measured once a frame
    const before = await cutBoxes(page);
    assert.ok(before.length > 0, `${what}: some box is cut (the check has something to check)`);
    if (must) assert.ok(await page.evaluate((sel) => !!document.querySelector(sel)?.dataset.cut, must), `${what}: ${must} is cut and says so`);
    assertHinted(before, what);
    await page.screenshot({ path: artifact(`scroll-hint-${what.replaceAll(/\W+/g, '-')}-${width}.png`) });
    // Scrolled to its far end, each box fades at the edge it came from and no longer at the one it reached.
    await page.evaluate(() => {
      for (const el of document.querySelectorAll('[data-cut]')) { el.scrollLeft = el.scrollWidth; el.scrollTop = el.scrollHeight; }
    });
    await page.waitForTimeout(100);
    const after = await cutBoxes(page);
    assertHinted(after, `${what}, scrolled`);
    for (const b of before.filter((x) => x.edges.includes('right'))) {
      const now = after.find((x) => x.name === b.name);
      if (now) assert.ok(!now.cut.split(' ').includes('right') || now.edges.includes('right'), `${what}: ${b.name} still fades at its right edge, scrolled to it`);
    }
    assert.ok(after.some((b) => b.cut.split(' ').includes('left')), `${what}: a box scrolled to its end fades at its left edge`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
