// Teacher forcing beside free running (web/js/forced.js forcingView) under a wrong
// greedy output: the reference's per-token probabilities with the reference fed (the
// module's model.score tokenLogprobs) beside the output's as decoded (the snapshots'
// tokenProb), the first divergence marked; en and zh.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { moduleModel, releaseModels } from './expect.mjs';
import { makeLane, moduleOptions } from './lanes.mjs';
import { artifact, openPage, servedSite, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');
const served = servedSite({ cleanup: releaseModels });

describe('teacher forcing and free running', () => {
  for (const lang of ['en', 'zh']) {
    test(`DELETE, greedy (${lang}): the two columns are the module's, and they part where the outputs do`, async () => {
      const { page, errors } = await openPage(served.context, served.url(`?w=DELETE&lane=greedy${lang === 'en' ? '' : `&lang=${lang}`}`));
      await waitReady(page);
      await page.waitForSelector('.lane .forcing-table', { timeout: 20000 });
      const shown = await page.$eval('.lane .forcing', (v) => ({
        split: Number(v.dataset.split),
        rows: [...v.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((c) => c.dataset.p ?? c.textContent)),
      }));
      const model = await moduleModel(AR);
      const options = moduleOptions(makeLane('greedy'));
      const out = model.decode('DELETE', options)[0];
      const refText = await page.$eval('.lane .forcing tbody', (b) => [...b.querySelectorAll('tr')].map((r) => r.querySelectorAll('td')[0].textContent).filter((x) => x && x !== '</s>').join(' '));
      assert.notEqual(out.text, refText, 'greedy is wrong on DELETE');
      const forced = model.score('DELETE', refText, options);
      forced.tokenLogprobs.forEach((lp, k) => assert.ok(Math.abs(Number(shown.rows[k][1]) - Math.exp(lp)) < 1e-4, `reference position ${k + 1}`));
      // The free-running column: each step's probability of the token greedy took.
      const s = model.createSession(options);
      s.start('DELETE');
      const probs = [];
      let snap;
      do { snap = s.step(); const h = snap.live[0] ?? snap.finished[0]; probs.push(h.tokenProb); } while (!snap.done);
      s.delete();
      probs.forEach((p, k) => assert.ok(Math.abs(Number(shown.rows[k][3]) - p) < 1e-4, `output position ${k + 1}`));
      const outToks = [...out.text.split(' '), '</s>'];
      const refToks = [...refText.split(' '), '</s>'];
      const first = outToks.findIndex((x, k) => x !== refToks[k]);
      assert.equal(shown.split, first, 'the first divergence is marked');
      await page.locator('.lane .forcing').screenshot({ path: artifact(`teacher-forcing-${lang}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
