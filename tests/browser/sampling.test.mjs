// The sampling lane (web/js/lane-sample.js, draw-view.js): each word draws with its own
// seed until one is set, the address names it, and the lane shows the draw: the uniform
// number u on the cumulative bar of the distribution drawn from. Every number shown is
// checked against the npm module's own snapshots (a session stepped in Node).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeLane, moduleOptions } from './lanes.mjs';
import { wordSeed } from '../../web/js/lane-types.js';
import { moduleModel, releaseModels } from './expect.mjs';
import { openPage, servedSite, settled, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');

const served = servedSite({ cleanup: releaseModels });

/** The module's snapshots of a decode of `word` under module options `options`. */
async function moduleSnaps(word, options) {
  const session = (await moduleModel(AR)).createSession(options);
  session.start(word);
  const snaps = [null];
  for (let done = false; !done;) {
    const s = session.step();
    snaps.push(s);
    done = s.done;
  }
  session.delete?.();
  return snaps;
}

/** The sampling lane's draw view at each step, as drawn: u, where the drawn token's stretch starts, the bar's segments and u's mark. */
async function drawsShown(page, lane) {
  const last = await page.evaluate((i) => seq2seqPage.lanes[i].lastIndex, lane);
  const out = [null];
  for (let i = 1; i <= last; i++) {
    await page.evaluate((k) => seq2seqPage.go(k), i);
    out.push(await page.$eval(`#${await page.evaluate((j) => seq2seqPage.lanes[j].id, lane)} .view.draw`, (v) => ({
      u: v.dataset.u == null ? null : Number(v.dataset.u),
      below: v.dataset.below == null ? null : Number(v.dataset.below),
      token: v.dataset.token ?? null,
      chosen: [...v.querySelectorAll('.draw-bar:not(.zoom) .draw-seg.chosen')].map((s) => ({ start: Number(s.dataset.start), p: Number(s.dataset.p), left: parseFloat(s.style.left), width: parseFloat(s.style.width) })),
      mark: v.querySelector('.draw-bar:not(.zoom) .draw-u') ? parseFloat(v.querySelector('.draw-bar:not(.zoom) .draw-u').style.left) : null,
      zoom: !!v.querySelector('.draw-bar.zoom'),
      text: v.querySelector('.note').textContent,
    })));
  }
  return out;
}

/** Each step's draw as shown equals the module's: u, the stretch that holds it, its place on the bar, the words under it. */
function sameDraws(shown, snaps, what, { seed, word }) {
  assert.equal(shown.length, snaps.length, `${what}: steps`);
  for (let i = 1; i < snaps.length; i++) {
    const h = snaps[i].live[0] ?? snaps[i].finished[0];
    const s = shown[i];
    if (h.forced) { assert.equal(s.u, null, `${what} step ${i}: a forced token shows no draw`); continue; }
    assert.equal(s.u, h.draw, `${what} step ${i}: u`);
    assert.equal(s.below, h.drawnBelow, `${what} step ${i}: where the drawn token's stretch starts`);
    assert.equal(s.token, h.texts.at(-1));
    assert.ok(h.drawnBelow <= h.draw && h.draw < h.drawnBelow + h.tokenDrawnProb + 1e-6, `${what} step ${i}: u in the drawn token's stretch`);
    assert.equal(s.chosen.length, 1, `${what} step ${i}: one stretch drawn as chosen`);
    assert.ok(Math.abs(s.chosen[0].start - h.drawnBelow) < 1e-6, `${what} step ${i}: the chosen stretch starts at ${s.chosen[0].start}, the module says ${h.drawnBelow}`);
    assert.ok(Math.abs(s.chosen[0].p - h.tokenDrawnProb) < 1e-6);
    assert.ok(Math.abs(s.chosen[0].left - 100 * h.drawnBelow) < 1e-2 && Math.abs(s.mark - 100 * h.draw) < 1e-2, `${what} step ${i}: drawn where they are`);
    assert.equal(s.zoom, h.tokenDrawnProb < 0.03, `${what} step ${i}: a thin stretch is zoomed in on`);
    const d = Math.min(6, Math.max(3, Math.ceil(-Math.log10(Math.max(h.tokenDrawnProb, 1e-6))) + 1));
    assert.ok(s.text.includes(`u = ${h.draw.toFixed(d)}`), `${what} step ${i}: ${s.text}`);
    assert.ok(s.text.includes(`from ${h.drawnBelow.toFixed(d)} to ${(h.drawnBelow + h.tokenDrawnProb).toFixed(d)}`), `${what} step ${i}: ${s.text}`);
    assert.ok(s.text.includes(word ? `seed ${seed}, the word ${word}'s own` : `seed ${seed})`), `${what} step ${i}: the seed is named: ${s.text}`);
  }
}

describe('the sampling lane', () => {
  test('each word draws with its own seed, the address names it, and every step shows where u fell', async () => {
    const { page, errors } = await openPage(served.context, served.url('/?w=PHONEME&lane=greedy&lane=sample'));
    let ready = await waitReady(page);
    const seeds = {};
    for (const word of ['PHONEME', 'DELETE']) {
      if (word !== 'PHONEME') {
        await page.fill('#word', word);
        await page.press('#word', 'Enter');
        ready = await waitReady(page, ready);
      }
      await settled(page);
      const lane = await page.evaluate(() => { const l = seq2seqPage.lanes[1]; return { opts: l.opts, decoded: l.decodedOptions, shown: document.getElementById(`${l.id}-seed`).value }; });
      seeds[word] = lane.decoded.seed;
      assert.equal(lane.decoded.seed, wordSeed(word), `${word}: the lane draws with the word's seed`);
      assert.equal(Number(lane.shown), wordSeed(word), `${word}: the seed control shows it`);
      await page.waitForFunction((s) => location.search.includes(`lane=sample:seed=${s}`), wordSeed(word));
      const snaps = await moduleSnaps(word, moduleOptions(makeLane('sample', { seed: wordSeed(word) }), word));
      sameDraws(await drawsShown(page, 1), snaps, word, { seed: wordSeed(word), word });
    }
    assert.notEqual(seeds.PHONEME, seeds.DELETE, 'two words, two seeds');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a link holding a word\'s seed follows the word; a set seed stays; "new seed" sets one', async () => {
    const own = wordSeed('PHONEME');
    const { page, errors } = await openPage(served.context, served.url(`/?w=PHONEME&lane=sample:seed=${own}&lane=sample:seed=9`));
    let ready = await waitReady(page);
    assert.deepEqual(await page.evaluate(() => seq2seqPage.lanes.map((l) => l.opts.seed)), [null, 9]);
    await page.fill('#word', 'KNIGHT');
    await page.press('#word', 'Enter');
    ready = await waitReady(page, ready);
    assert.deepEqual(await page.evaluate(() => seq2seqPage.lanes.map((l) => l.decodedOptions.seed)), [wordSeed('KNIGHT'), 9]);
    await page.waitForFunction((s) => location.search.includes(`lane=sample:seed=${s}&lane=sample:seed=9`), wordSeed('KNIGHT'));
    await page.locator('.lane-sample details.lane-settings').first().evaluate((d) => { d.open = true; });
    await page.locator('.lane-sample [data-action=reseed]').first().click();
    await waitReady(page, ready);
    assert.deepEqual(await page.evaluate(() => seq2seqPage.lanes.map((l) => l.opts.seed)), [(wordSeed('KNIGHT') % 1000) + 1, 9]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('with every filter off the drawn bars are the model\'s over the tokens search may emit: the ones left out are named', async () => {
    // T = 1, no top-k, top-p 1: the bars' caption says drawn = model tempered, cut and
    // renormalised, which would make them equal; they differ by the mass of the tokens the
    // engine never draws (PAD, UNK, BEGIN, MASK), renormalised away. At T = 1.5 the same
    // tokens are left out before tempering.
    const { page, errors } = await openPage(served.context, served.url('/?w=PHONEME&lane=sample:seed=5&lane=sample:temperature=1.5,seed=5'));
    await waitReady(page);
    for (const [j, T] of [[0, 1], [1, 1.5]]) {
      const options = moduleOptions(makeLane('sample', { seed: 5, temperature: T }), 'PHONEME');
      const snaps = await moduleSnaps('PHONEME', options);
      for (const i of [1, 3]) {
        await page.evaluate((k) => seq2seqPage.go(k), i);
        const h = snaps[i].live[0] ?? snaps[i].finished[0];
        assert.ok(h.leftOut?.length >= 3, `step ${i}: the module names what it left out`);
        const left = h.leftOut.reduce((a, x) => a + x.prob, 0);
        const shown = await page.$eval(`#${await page.evaluate((k) => seq2seqPage.lanes[k].id, j)} .bars-key`, (k) => ({ text: k.textContent, left: Number(k.dataset.leftOut) }));
        assert.ok(Math.abs(shown.left - left) < 1e-6, `T ${T} step ${i}: the key's mass ${shown.left} vs the module's ${left}`);
        for (const x of h.leftOut) assert.ok(shown.text.includes({ '<pad>': 'PAD', '<unk>': 'UNK', '<s>': 'BEGIN', '<mask>': 'MASK' }[x.text] ?? x.text), `T ${T} step ${i}: ${x.text} is named: ${shown.text}`);
        const pct = 100 * left;
        assert.ok(shown.text.includes(`${pct >= 0.095 ? pct.toFixed(1) : String(Number(pct.toPrecision(1)))}%`), `T ${T} step ${i}: the mass as a percentage: ${shown.text}`);
        if (T === 1) {
          assert.ok(shown.text.includes(`divided by ${(1 - left).toFixed(4)}`), shown.text);
          // Every candidate: drawn = model / (1 - left out), as the module has it and as the bars show it.
          for (const c of h.candidates) assert.ok(Math.abs(c.drawnProb - c.prob / (1 - left)) < 1e-5, `${c.text}: ${c.drawnProb} vs ${c.prob} / ${1 - left}`);
          const fills = await page.$$eval(`#${await page.evaluate((k) => seq2seqPage.lanes[k].id, j)} .bars.drawn .bar-fill`, (fs) => fs.map((f) => parseFloat(f.style.width)));
          assert.ok(Math.abs(fills[0] - (100 * h.candidates[0].prob) / (1 - left)) < 0.06, `T 1 step ${i}: the top solid bar is ${fills[0]} %`);
        }
      }
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('at temperature 1.5 and under top-k 3 and top-p 0.9, the draws shown are the module\'s', async () => {
    const { page, errors } = await openPage(served.context, served.url('/?w=COLONEL&lane=sample:temperature=1.5,seed=9&lane=sample:topK=3,topP=0.9'));
    await waitReady(page);
    await settled(page);
    const specs = await page.evaluate(() => seq2seqPage.lanes.map((l) => ({ type: l.type, opts: l.opts })));
    for (const [j, spec] of specs.entries()) {
      const options = moduleOptions(makeLane(spec.type, spec.opts), 'COLONEL');
      const snaps = await moduleSnaps('COLONEL', options);
      sameDraws(await drawsShown(page, j), snaps, `COLONEL ${JSON.stringify(spec.opts)}`, spec.opts.seed === null ? { seed: wordSeed('COLONEL'), word: 'COLONEL' } : { seed: 9 });
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
});
