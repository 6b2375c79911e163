// The context-vector bottleneck and the four raw scores on the page: the compare
// lane's WER-by-length table (models.json, from models/manifest.json) with the
// attention-free RNN falling behind as words grow; each panel's raw scores e_j equal
// to the module's Model.inspect, on scales that differ; a lane on the attention-free
// model says it has no attention (no map of zeros), and its inside shows the same c.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { moduleModel, releaseModels } from './expect.mjs';
import { openPage, servedSite, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const NONE = models.find((m) => m.arch === 'rnn' && m.attentionScore === 'none' && !m.fixture);
const served = servedSite({ cleanup: releaseModels });
const num = (s) => Number(String(s).replace('−', '-'));

describe('the bottleneck and the raw scores', { skip: NONE ? false : 'this build has no attention-free RNN' }, () => {
  test('compare lane, DELETE step 2: WER by length from the manifest, raw scores from the module', async () => {
    const { page, errors } = await openPage(served.context, served.url('?w=DELETE&lane=compare&t=2'));
    await waitReady(page);
    await page.waitForFunction(() => document.querySelectorAll('.lane-compare dl.raw-e').length === 4, null, { timeout: 20000 });
    const table = await page.$$eval('table.by-length tbody tr', (rs) => rs.map((r) => ({ id: r.dataset.model, cells: [...r.querySelectorAll('td')].map((c) => c.textContent) })));
    const rnns = models.filter((m) => m.arch === 'rnn' && m.testWerByLength);
    assert.deepEqual(table.map((r) => r.id), rnns.map((m) => m.id));
    for (const [k, m] of rnns.entries()) {
      m.testWerByLength.forEach((b, j) => assert.equal(num(table[k].cells[j]), Number(b.wer.toFixed(1)), `${m.id} ${b.letters}`));
      assert.equal(num(table[k].cells.at(-1)), Number(m.testWer.toFixed(1)));
    }
    // The claim under it: the gap to the best attention model grows from short words to long.
    const gap = (j) => NONE.testWerByLength[j].wer - Math.min(...rnns.filter((m) => m !== NONE).map((m) => m.testWerByLength[j].wer));
    assert.ok(gap(0) < 2 && gap(NONE.testWerByLength.length - 1) > 10, `gaps ${gap(0)} … ${gap(NONE.testWerByLength.length - 1)}`);
    assert.match(await page.textContent('.lane-compare .by-length-note'), /grows with the length/);

    const panels = await page.evaluate(() => {
      const lane = seq2seqPage.lanes[0];
      return lane.panels.map((p) => ({ id: p.model.id, tokens: (p.snaps[2].live[0] ?? p.snaps[2].finished[0]).tokens }));
    });
    const shown = await page.$$eval('.lane-compare dl.raw-e', (ts) => ts.map((t) => ({ cells: [...t.querySelectorAll('dd')].map((c) => c.textContent), lo: Number(t.dataset.lo), hi: Number(t.dataset.hi) })));
    const spreads = [];
    for (const [k, p] of panels.entries()) {
      const model = await moduleModel(models.find((m) => m.id === p.id));
      const d = model.inspect('DELETE', p.tokens.slice(0, -1));
      const S = d.sourceLength, last = d.target.length - 1;
      const e = Array.from(d.scores.subarray(last * S, (last + 1) * S));
      e.forEach((v, j) => assert.ok(Math.abs(num(shown[k].cells[j]) - v) <= 0.006, `${p.id} e_${j}: ${shown[k].cells[j]} vs ${v}`));
      spreads.push(Math.max(...e) - Math.min(...e));
    }
    assert.ok(Math.max(...spreads) / Math.min(...spreads) > 2, `the four scores' scales differ: spreads ${spreads.map((x) => x.toFixed(1))}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a greedy lane on the attention-free model: no attention map, the same c at every step', async () => {
    const { page, errors } = await openPage(served.context, served.url(`?w=COLONEL&lane=greedy:m=${NONE.id}&t=3`));
    await waitReady(page);
    assert.ok(await page.$('.lane .no-attention'), 'it says the model has no attention');
    assert.equal(await page.$$eval('.lane .view:has(.no-attention) svg.heatmap', (s) => s.length), 0, 'no map of zeros');
    await page.evaluate(() => document.querySelector('details.inside').setAttribute('open', ''));
    await page.waitForSelector('details.inside .vec-row[data-vec="a_3"]', { timeout: 20000 });
    const model = await moduleModel(NONE);
    const tokens = await page.evaluate(() => seq2seqPage.lanes[0].snaps[3].live[0].tokens);
    const d = model.inspect('COLONEL', tokens.slice(0, -1));
    const a = await page.$$eval('details.inside .vec-row[data-vec="a_3"] td', (cs) => cs.map((c) => c.textContent));
    assert.equal(a.length, d.encoderWidth);
    a.forEach((v, j) => assert.ok(Math.abs(num(v) - d.contextVector[j]) < 1.5e-3, `a_3[${j}] is c[${j}]`));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
