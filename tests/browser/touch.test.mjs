// On a touch screen (no hover, a coarse pointer) the page shows no keyboard hints:
// the lines that tell of ← → and space are hidden, on the page and in the tour's panel;
// with a mouse and keyboard they are there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, servedSite, waitReady } from './helpers.mjs';

const served = servedSite();

for (const touch of [false, true]) {
  test(`keyboard hints ${touch ? 'hidden on a touch screen' : 'shown with a mouse'}, 390×844`, async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: 390, height: 844 });
    const cdp = await page.context().newCDPSession(page);
    if (touch) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    await page.goto(served.url('?w=DELETE&lane=greedy&tour=1'));
    await waitReady(page);
    await page.waitForSelector('#tour:not([hidden])');
    const shown = await page.evaluate(() => ['.keys', '#tour-keys'].map((s) => getComputedStyle(document.querySelector(s)).display !== 'none'));
    assert.deepEqual(shown, [!touch, !touch]);
    if (touch) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
