// axe-core (a devDependency) run in the page on every lane type, at desktop and
// phone size, in English and Chinese: no serious or critical violation. Each
// language once and each width once (VIEW_CHECKS: English on the desktop,
// Chinese on the phone); the tour's walks run axe at all four combinations.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { VIEW_CHECKS, openPage, servedSite, site, waitReady } from './helpers.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.autoregressive);
const NAR = models.find((m) => !m.autoregressive);
const WORD = AR.examples.find((w) => NAR.examples.includes(w));
const served = servedSite();

const LANES = ['greedy', 'beam', 'sample', 'nar', 'mp', 'compare'];
for (const [lang, [width, height]] of VIEW_CHECKS) {
  test(`axe: no serious or critical violation, ${lang} at ${width}×${height}`, async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width, height });
    const found = [];
    // On a desktop the lanes stand side by side, so two pages hold all six; on a
    // phone one lane is shown at a time (the others are hidden, and axe skips
    // what is hidden), so each lane is a page of its own.
    const pages = width > 600 ? [LANES.slice(0, 4), LANES.slice(4)] : LANES.map((l) => [l]);
    for (const lanes of pages) {
      const lane = lanes.join('+');
      // Step 2: bars, trees and grids are drawn, and the answer is not yet in.
      await page.goto(served.url(`?w=${WORD}&${lanes.map((l) => `lane=${l}`).join('&')}&t=2${lang === 'en' ? '' : `&lang=${lang}`}`));
      await waitReady(page);
      await page.addScriptTag({ path: axePath });
      const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
      found.push(...violations.map((v) => `${lane}: ${v}`));
    }
    assert.deepEqual(found, []);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
