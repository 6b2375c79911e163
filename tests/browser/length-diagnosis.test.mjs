// The diagnosis under a non-autoregressive result (web/js/forced.js): a reference of a
// length the decode never tried, or not the length it was told to use, is a length
// error, named with the lengths tried and the length head's probability of the
// reference's length; no "search error" that a wider search could not fix.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { moduleModel, releaseModels } from './expect.mjs';
import { openPage, servedSite, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const CMLM = models.find((m) => m.id === 'g2p-cmlm');
const served = servedSite({ cleanup: releaseModels });

async function diagnosis(page) {
  await page.waitForFunction(() => seq2seqPage.lanes.every((l) => l.el.querySelector('.forced')?.dataset.diagnosis !== 'pending'), null, { timeout: 20000 });
  return page.evaluate(() => seq2seqPage.lanes.map((l) => ({
    kind: l.el.querySelector('.forced')?.dataset.diagnosis,
    why: l.el.querySelector('.forced .error-kind')?.textContent ?? '',
    lengths: [...(l.snaps.at(-1)?.lengths ?? [])],
    reference: l.el.querySelector('.forced tr.ref')?.dataset.text ?? null,
  })));
}

describe('length errors', () => {
  test('COLONEL, one-pass NAR and Mask-Predict: the reference\'s 5 phonemes were never decoded, and the page says so', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=COLONEL&lane=nar&lane=mp'));
    await waitReady(page);
    const model = await moduleModel(CMLM);
    const lengthLogprobs = (() => {
      const s = model.createSession({ strategy: 'nar' });
      s.start('COLONEL');
      const snap = s.step();
      s.delete();
      return snap.lengthLogprobs;
    })();
    for (const d of await diagnosis(page)) {
      const n = d.reference.split(' ').length;
      assert.ok(!d.lengths.includes(n), `the decode tried ${d.lengths}, not the reference's ${n}`);
      assert.equal(d.kind, 'length', d.why);
      assert.match(d.why, new RegExp(`\\b${n}\\b`));
      assert.ok(d.why.includes(d.lengths.join(', ')), d.why);
      const p = Math.exp(lengthLogprobs[n]);
      assert.ok(d.why.includes(String(Number(p.toPrecision(2)))) || d.why.includes(p.toExponential(1).replace('e-', 'e−')), `${d.why} gives P(length ${n}) = ${p}`);
      assert.doesNotMatch(d.why, /bigger beam|wider search could/);
      assert.doesNotMatch(d.why, /told to use/, 'a predicted length was not imposed');
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an imposed length that is not the reference\'s is a length error too', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=COLONEL&lane=mp:narLength=given,narGivenLength=7'));
    await waitReady(page);
    const [d] = await diagnosis(page);
    assert.deepEqual(d.lengths, [7]);
    assert.equal(d.kind, 'length', d.why);
    assert.match(d.why, /told to use lengths 7/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
