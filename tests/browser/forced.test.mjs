// Scores under a lane's result (web/js/forced.js): P = exp(log P), the CMUdict
// reference scored by the lane's own model, and the search error / model error
// label of a wrong output. Real words on the shipped models; the numbers on the
// page are checked against the npm module's model.score in Node.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeLane, moduleOptions } from '../../web/js/lane-types.js';
import { moduleModel, releaseModels } from './expect.mjs';
import { openPage, servedSite, site, waitReady } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');
const CMLM = models.find((m) => m.id === 'g2p-cmlm');

const served = servedSite({ cleanup: releaseModels });

/** Every lane's forced-score block once it has its scores: the label and each row's numbers as shown. */
async function forcedBlocks(page) {
  await page.waitForFunction(() => seq2seqPage.lanes.every((l) => {
    const f = l.el.querySelector('.forced');
    return f && f.dataset.diagnosis !== 'pending';
  }), null, { timeout: 20000 });
  return page.evaluate(() => seq2seqPage.lanes.map((l) => {
    const f = l.el.querySelector('.forced');
    return {
      type: l.type,
      opts: l.opts,
      shown: l.el.querySelector('.result-main').dataset.result,
      resultProb: l.el.querySelector('.result-prob').textContent,
      diagnosis: f.dataset.diagnosis,
      label: f.querySelector('.error-label')?.textContent ?? null,
      why: f.querySelector('.error-kind')?.textContent ?? null,
      rows: [...f.querySelectorAll('tr[data-text]')].map((r) => ({
        who: r.className,
        text: r.dataset.text,
        score: Number(r.dataset.score),
        logprob: Number(r.dataset.logprob),
        cells: [...r.querySelectorAll('td.num')].map((c) => c.textContent),
      })),
    };
  }));
}

// The page writes minus signs as U+2212.
const num = (s) => Number(s.replace(/−/g, '-'));

/** A row's numbers equal model.score's under the lane's options, and its cells show them. */
async function sameForced(row, model, word, options, what) {
  const want = model.score(word, row.text, options);
  assert.ok(Math.abs(row.score - want.score) < 1e-6, `${what}: score ${row.score} vs model.score ${want.score}`);
  assert.ok(Math.abs(row.logprob - want.logprob) < 1e-6, `${what}: log P ${row.logprob} vs model.score ${want.logprob}`);
  const [score, logprob, p] = row.cells.map(num);
  assert.ok(Math.abs(score - want.score) <= 5e-4, `${what}: score shown ${row.cells[0]} for ${want.score}`);
  assert.ok(Math.abs(logprob - want.logprob) <= 5e-3, `${what}: log P shown ${row.cells[1]} for ${want.logprob}`);
  // P = exp(log P), to the two significant digits shown.
  const P = Math.exp(want.logprob);
  assert.ok(Math.abs(p - P) <= 0.051 * P, `${what}: P shown ${row.cells[2]} for exp(${want.logprob}) = ${P}`);
  return want;
}

/** A wrong greedy output: its label and the two rows (output, reference) as model.score has them. */
async function wrongGreedy(block, model, word, [output, reference], [kind, label]) {
  assert.equal(block.shown, output);
  assert.equal(block.diagnosis, kind);
  assert.equal(block.label, label);
  assert.deepEqual(block.rows.map((r) => [r.who, r.text]), [['out', output], ['ref', reference]]);
  const opts = moduleOptions(makeLane('greedy', block.opts));
  const out = await sameForced(block.rows[0], model, word, opts, `${word} greedy output`);
  const ref = await sameForced(block.rows[1], model, word, opts, `${word} greedy reference`);
  return { opts, out, ref };
}

describe('scores under the results', () => {
  test('MIRAGE: greedy is a search error (the reference scores higher), beam 5 finds the reference', async () => {
    const { page, errors } = await openPage(served.context, served.url('/?w=MIRAGE&lane=greedy&lane=beam:beamSize=5'));
    await waitReady(page);
    const [greedy, beam] = await forcedBlocks(page);
    const model = await moduleModel(AR);

    const { opts, out, ref } = await wrongGreedy(greedy, model, 'MIRAGE', ['M IH R AA ZH', 'M ER AA ZH'], ['search', 'Search error']);
    assert.match(greedy.why, /wider search/);
    assert.ok(ref.score > out.score, 'the reference scores higher under greedy\'s model');
    // The output's forced score is its decoded score, and its P line shows exp(log P).
    const decoded = model.decode('MIRAGE', opts)[0];
    assert.ok(Math.abs(decoded.score - out.score) < 1e-6);
    assert.match(greedy.resultProb, new RegExp(`P ${String(Number(Math.exp(decoded.logprob).toPrecision(2)))}\\b`));

    assert.equal(beam.shown, 'M ER AA ZH');
    assert.equal(beam.diagnosis, 'right');
    assert.equal(beam.label, null);
    await sameForced(beam.rows[0], model, 'MIRAGE', moduleOptions(makeLane('beam', beam.opts)), 'beam output');
    assert.equal(await page.locator('.lane-beam .error-label').count(), 0);
    // The beam's hypothesis tables: P beside each log P (both rounded as shown).
    const cells = await page.$$eval('.lane-beam table.hyps .seq-p', (ps) => ps.map((p) => [p.parentElement.firstChild.textContent, p.textContent]));
    assert.ok(cells.length >= 1);
    for (const [lp, p] of cells) {
      const P = Math.exp(num(lp));
      assert.ok(Math.abs(num(p.replace('P ', '')) - P) <= 0.06 * P, `beam table: ${p} beside log P ${lp}`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('ABID: greedy is a model error (the model prefers its wrong output); Mask-Predict is labelled by its CMLM scores', async () => {
    const { page, errors } = await openPage(served.context, served.url('/?w=ABID&lane=greedy&lane=mp'));
    await waitReady(page);
    const [greedy, mp] = await forcedBlocks(page);
    const model = await moduleModel(AR);

    const { out, ref } = await wrongGreedy(greedy, model, 'ABID', ['AH B IH D', 'EY B IH D'], ['model', 'Model error']);
    assert.match(greedy.why, /no search ranking by log P \/ \|Y\| would find the reference/);
    assert.ok(ref.score < out.score);

    // The CMLM: both pronunciations scored as Mask-Predict's first iteration, the label from those scores.
    const cmlm = await moduleModel(CMLM);
    const mpOpts = moduleOptions(makeLane('mp', mp.opts));
    const rows = [];
    for (const r of mp.rows) rows.push(await sameForced(r, cmlm, 'ABID', mpOpts, `Mask-Predict ${r.who}`));
    if (mp.shown === 'EY B IH D') assert.equal(mp.diagnosis, 'right');
    else assert.equal(mp.diagnosis, rows[1].score > rows[0].score ? 'search' : 'model');
    console.log(`ABID Mask-Predict: ${mp.shown} (${mp.diagnosis}), forced scores ${rows.map((r) => `${r.text} ${r.score.toFixed(4)}`).join(', ')}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('IRONICALLY: the diagnosis names the ranking it is relative to, and its numbers are model.score\'s', async () => {
    // Unnormalised, the model puts the one-phoneme-short output above the reference
    // (a model error by log P); averaged over the length, the lane beside it finds the
    // reference. The diagnosis must say which ranking it speaks of. Then beam 1 with
    // GNMT α = 1.2: another ranking, named in its turn.
    const { page, errors } = await openPage(served.context, served.url('/?w=IRONICALLY&lane=beam:lengthNorm=none&lane=beam&lane=beam:beamSize=1,lengthNorm=gnmt,gnmtAlpha=1.2'));
    await waitReady(page);
    const blocks = await forcedBlocks(page);
    const model = await moduleModel(AR);
    const [none, average, gnmt] = blocks;
    assert.equal(none.diagnosis, 'model');
    assert.equal(average.diagnosis, 'right');
    assert.equal(average.shown, 'AY R AA N IH K L IY');
    const ranks = await page.$$eval('.lane .forced', (fs) => fs.map((f) => [f.dataset.rank, f.querySelector('.note:last-child').textContent]));
    assert.deepEqual(ranks.map((r) => r[0]), ['log P', 'log P / |Y|', 'log P / ((5+|Y|)/6)^1.2']);
    for (const [rank, note] of ranks) assert.ok(note.startsWith(`Ranking value: ${rank}, what this lane ranks`), note);
    for (const block of [none, gnmt]) {
      const opts = moduleOptions(makeLane('beam', block.opts));
      const out = model.score('IRONICALLY', block.shown, opts);
      const ref = model.score('IRONICALLY', 'AY R AA N IH K L IY', opts);
      const rank = block.opts.lengthNorm === 'none' ? 'log P' : 'log P / ((5+|Y|)/6)^1.2';
      if (block.diagnosis === 'right') continue;
      assert.equal(block.diagnosis, ref.score > out.score ? 'search' : 'model');
      const [first, second] = block.diagnosis === 'search' ? [ref.score, out.score] : [out.score, ref.score];
      const d3 = (x) => x.toFixed(3).replace('-', '−');
      assert.ok(block.why.includes(`error By this lane's ranking, ${rank}, the model puts `), block.why);
      assert.ok(block.why.indexOf(`(${d3(first)})`) < block.why.indexOf(`(${d3(second)})`) && block.why.includes(`(${d3(second)})`),
        `${rank}: ${block.why} names ${d3(first)} above ${d3(second)}`);
      assert.ok(block.why.includes(`ranking by ${rank}`), 'the cure is worded under the same ranking');
    }
    assert.match(none.why, /another length normalisation/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Mask-Predict\'s first-pass scores follow the rule their caption states: with w × log P(length) where the length was predicted, without where it was imposed', async () => {
    // Length weight 0.5 at the predicted length; 0.35 with length 6 imposed (both off the defaults).
    const { page, errors } = await openPage(served.context, served.url('/?w=DELETE&lane=mp:lengthScoreWeight=0.5&lane=mp:lengthScoreWeight=0.35,narLength=given,narGivenLength=6'));
    await waitReady(page);
    const blocks = await forcedBlocks(page);
    const notes = await page.$$eval('.lane .forced', (fs) => fs.map((f) => f.querySelector('p.note:last-child').textContent));
    const cmlm = await moduleModel(CMLM);
    for (const [j, block] of blocks.entries()) {
      const opts = moduleOptions(makeLane('mp', block.opts));
      const imposed = block.opts.narLength === 'given';
      for (const r of block.rows) {
        const want = await sameForced(r, cmlm, 'DELETE', opts, `lane ${j} ${r.who}`);
        const avg = want.logprob / want.tokens.length;
        // The number as the caption says it is made.
        const stated = imposed ? avg : avg + block.opts.lengthScoreWeight * want.lengthLogprob;
        assert.ok(Math.abs(want.score - stated) < 1e-6, `lane ${j} ${r.who}: score ${want.score}, the caption's rule gives ${stated}`);
      }
      if (imposed) {
        assert.ok(notes[j].includes('at the pronunciation\'s own length: avg log P.'), notes[j]);
        assert.match(notes[j], /The length was imposed, so log P\(length\) does not enter/);
      } else {
        assert.ok(notes[j].includes(`at the pronunciation's own length: avg log P + ${block.opts.lengthScoreWeight} × log P(length).`), notes[j]);
      }
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('in Chinese: the label and its explanation', async () => {
    const { page, errors } = await openPage(served.context, served.url('/?w=MIRAGE&lane=greedy&lang=zh'));
    await waitReady(page);
    const [greedy] = await forcedBlocks(page);
    assert.equal(greedy.label, '搜索错误');
    assert.match(greedy.why, /按本通道的排序依据 log P \/ \|Y\|，.*按 log P \/ \|Y\| 排序的更宽的搜索/);
    assert.match(greedy.resultProb, /对数概率 .* · 序列概率 /);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
