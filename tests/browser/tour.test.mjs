// The guided tour (web/js/tour.js): every stop, in English and Chinese, wide and at
// phone width, opened by the "Take the tour" button and Next pressed from the
// keyboard. At each stop its elements (on a phone, in the lane the tour opened) are
// outlined and wholly in view, below the sticky step bar and clear of the panel; in
// English wide and Chinese on a phone the page still
// shows what the stop's text says, read from the lanes' rendered results of the
// shipped models, with axe and screenshots. Back, Escape, a reload at a stop. The
// stops of the lanes only: the training stops, each a run, are tour-train.test.mjs's.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { STOPS, isTrainStop } from '../../web/js/tour.js';
import { decodeState } from '../../web/js/address.js';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { moduleModel, releaseModels } from './expect.mjs';
import { makeLane, moduleOptions } from './lanes.mjs';
import { fmt } from '../../web/js/format.js';
import { VIEW_CHECKS, artifact, assertFitsPhone, filledFrom, openPage, servedSite, site, tourTargets } from './helpers.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const served = servedSite({ cleanup: releaseModels });
const AR = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8')).models.find((m) => m.id === 'g2p-transformer');
const SIZES = [[1400, 1000], [390, 844]];
// The lanes' stops come first; Next from the last of them opens the Train mode.
const LANE_STOPS = STOPS.findIndex(isTrainStop);
const TEXT = { en, zh };
// Two numbers the stops' checks look for on the page, from the models themselves: the
// lowest q·k of the inside stops' head (DELETE's second pass, last layer, head 3, query D)
// and the RNN without attention's WER on the longest words (models.json).
const LOWEST_QK = await (async () => {
  const a = (await moduleModel(AR)).inspect('DELETE', ['D']).decoder.layers[2].crossAttention.attention;
  return (Math.min(...Array.from({ length: a.keys }, (_, j) => a.scores[(2 * a.queries + 1) * a.keys + j]))).toFixed(3);
})();
const LONGEST_NONE = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8')).models
  .find((m) => m.arch === 'rnn' && m.attentionScore === 'none')?.testWerByLength.at(-1).wer.toFixed(1);

/**
 * Waits until stop n is shown: its panel up, the lanes decoded and the target scrolled to.
 * (A stop can load another model and decode four lanes; on two cores shared by two
 * browsers that once took over 30 s, so the wait is for a hang, not for speed.)
 */
async function shown(page, n) {
  await page.waitForFunction((k) => document.getElementById('tour')?.dataset.shown === String(k), n, { timeout: 90000 });
}

/** What the page shows now, read from the rendered lanes. */
function readPage(page) {
  return page.evaluate(() => {
    const lanes = [...document.querySelectorAll('#lanes > .lane')];
    const passes = (el) => Number(el.querySelector('[data-k="passes"]')?.textContent);
    return {
      lang: document.documentElement.lang === 'en' ? 'en' : 'zh',
      said: document.getElementById('tour-text').textContent,
      reference: window.seq2seqPage.reference?.prons ?? [],
      measured: document.getElementById('tour-measured').hidden ? null : document.getElementById('tour-measured').textContent,
      lanes: lanes.map((el, i) => ({
        type: window.seq2seqPage.lanes[i].type,
        result: el.querySelector('.result-main')?.dataset.result ?? null,
        diagnosis: el.querySelector('.forced')?.dataset.diagnosis ?? null,
        passes: passes(el),
        // The wall time: the last figure of the stats line ("12.3 ms", "12.3 毫秒").
        ms: Number([...el.querySelectorAll('.lane-stats strong')].at(-1)?.textContent.match(/[\d.]+/)?.[0] ?? NaN),
        tree: !!el.querySelector('.tree-wrap svg'),
        liveNodes: el.querySelectorAll('.tree-wrap .node.live').length,
        // The NAR grid's last row (the current iteration): its repeats (↻).
        repeats: el.querySelectorAll('.nar-grid tr.current td.rep').length,
        bestLength: Number(el.querySelector('.lenbar.best')?.dataset.length ?? NaN),
        refLength: Number(el.querySelector('.lenbar.ref')?.dataset.length ?? NaN),
        forcedChips: [...el.querySelectorAll('.strip .chip.forced .arpa')].map((c) => c.textContent),
        panels: [...el.querySelectorAll('.score-panel')].map((p) => ({ score: p.dataset.score, result: p.querySelector('.cmp-out')?.dataset.result ?? null })),
      })),
    };
  });
}

const softmaxOf = (xs) => {
  const m = Math.max(...xs);
  const e = xs.map((v) => Math.exp(v - m));
  const z = e.reduce((x, y) => x + y, 0);
  return e.map((v) => v / z);
};

/** The least likely token after position k (EOS aside) of a forced score's tokens. */
const leastAfter = (lps, k, n) => Math.min(...lps.slice(k + 1, n));

/** A beam lane's live hypotheses after decoder pass k, best first. */
function liveAt(page, lane, k) {
  return page.evaluate(([l, s]) => window.seq2seqPage.lanes[l].snaps[s].live.slice()
    .sort((a, b) => b.logprob - a.logprob).map((h) => h.texts.join(' ')), [lane, k]);
}
const bestLiveAt = async (page, lane, k) => (await liveAt(page, lane, k))[0];

// What each stop's text says, checked on the page (stops in tour.js order).
const CLAIMS = [
  async (page, { reference, lanes: [greedy, beam] }) => {
    assert.equal(greedy.result, 'M IH R AA ZH');
    assert.ok(!reference.includes(greedy.result), 'greedy is wrong');
    assert.equal(greedy.diagnosis, 'search', 'the reference scores higher: a search error');
    assert.ok(reference.includes(beam.result), `beam ${beam.result} is the reference ${reference}`);
    assert.equal(beam.result, 'M ER AA ZH');
  },
  async (page, { said, lanes: [greedy, beam] }) => {
    // Step 2: greedy has taken IH over ER (the notes' A and B); the k = 5 tree holds both.
    assert.equal(await page.evaluate(() => window.seq2seqPage.t), 2);
    assert.ok(beam.tree, 'the beam tree is drawn');
    assert.equal(beam.liveNodes, 5);
    assert.ok((await liveAt(page, 1, 2)).includes('M ER'));
    assert.equal(await page.evaluate(() => window.seq2seqPage.lanes[0].snaps[2].live[0].texts.join(' ')), 'M IH');
    // Every number the text gives, from the module: the bars, the later steps, the two paths' probabilities.
    const bars = await page.$$eval('.lane:nth-child(1) .bars .bar', (bs) => Object.fromEntries(bs.map((b) => [b.querySelector('.bar-label').firstChild.textContent.trim(), b.querySelector('.bar-value').firstChild.textContent.trim()])));
    const model = await moduleModel(AR);
    const options = moduleOptions(makeLane('greedy'));
    const [ih, er] = ['M IH R AA ZH', 'M ER AA ZH'].map((y) => model.score('MIRAGE', y, options));
    const pct = (lp) => (Math.exp(lp) * 100).toFixed(1);
    for (const [what, v] of [['P(IH)', `IH ${pct(ih.tokenLogprobs[1])} %`], ['P(ER)', `ER ${pct(er.tokenLogprobs[1])} %`],
      ['after ER', `${pct(leastAfter(er.tokenLogprobs, 1, 4))} %`], ['P(AA | M IH R)', `${pct(ih.tokenLogprobs[3])} %`],
      ['P(M ER AA ZH)', Math.exp(er.logprob).toFixed(3)], ['P(M IH R AA ZH)', Math.exp(ih.logprob).toFixed(3)], ['k', 'k = 5']]) {
      assert.ok(said.includes(v), `${what} = ${v} is in the text: ${said}`);
    }
    assert.equal(leastAfter(ih.tokenLogprobs, 1, 5), ih.tokenLogprobs[3], 'AA is the least likely phoneme after IH');
    assert.equal(bars.IH, `${pct(ih.tokenLogprobs[1])}%`);
    assert.equal(bars.ER, `${pct(er.tokenLogprobs[1])}%`);
    assert.ok(ih.tokenLogprobs[1] > er.tokenLogprobs[1] && er.logprob > ih.logprob, 'A first, B over the whole path');
    assert.ok(leastAfter(er.tokenLogprobs, 1, 4) > ih.tokenLogprobs[3], 'surer after ER');
    // "Press → to the end, where M ER wins": from the keyboard, focus staying on Next.
    for (let i = 0; i < 30 && await page.evaluate(() => window.seq2seqPage.t < window.seq2seqPage.maxT()); i++) await page.keyboard.press('ArrowRight');
    const end = await readPage(page);
    assert.equal(end.lanes[0].result, 'M IH R AA ZH');
    assert.ok(end.reference.includes(end.lanes[1].result), `k = 5 gives ${end.lanes[1].result}`);
    assert.equal(end.lanes[1].result, 'M ER AA ZH');
  },
  async (page, { said, reference, lanes: [none, average] }) => {
    assert.notEqual(none.result, average.result, 'the two norms pick different winners');
    assert.equal(none.result, 'AY ER N IH K L IY');
    assert.ok(!reference.includes(none.result));
    assert.ok(reference.includes(average.result));
    assert.equal(average.result, 'AY R AA N IH K L IY');
    assert.equal(none.result.split(' ').length + 1, average.result.split(' ').length, 'one phoneme short');
    for (const y of [none.result, average.result]) assert.ok(said.includes(`${y}, ${y.split(' ').length} phonemes`) || said.includes(`${y}（${y.split(' ').length} 个音素）`), `${y} and its length in ${said}`);
  },
  async (page, { said }) => {
    // The table is models.json's (the manifest's) WER by length; the text quotes its ends.
    const rows = await page.$$eval('table.by-length tbody tr', (rs) => rs.map((r) => ({ id: r.dataset.model, none: r.classList.contains('bottleneck'), cells: [...r.querySelectorAll('td')].map((c) => Number(c.textContent.replace('−', '-'))) })));
    const none = rows.filter((r) => r.none);
    const att = rows.filter((r) => !r.none);
    assert.equal(none.length, 1);
    assert.equal(att.length, 4);
    const range = (k) => [Math.min(...att.map((r) => r.cells[k])), Math.max(...att.map((r) => r.cells[k]))].map((v) => v.toFixed(1)).join('-');
    const last = none[0].cells.length - 2;   // the last length bucket (12+); the last cell is "all"
    for (const v of [none[0].cells[0].toFixed(1), range(0), none[0].cells[last].toFixed(1), range(last)]) assert.ok(said.includes(v), `${v} is in the text`);
    assert.ok(none[0].cells[last] - Math.max(...att.map((r) => r.cells[last])) > 10, 'far worse on long words');
    assert.ok(none[0].cells[0] - Math.min(...att.map((r) => r.cells[0])) < 1.5, 'as good on short ones');
  },
  async (page, { said, reference, lanes: [compare] }) => {
    assert.deepEqual(compare.panels.map((p) => p.score), ['dot', 'multiplicative', 'reduced_rank', 'additive']);
    // The raw scores' spreads, as each panel computes them (max − min of e_j at step 2), are the text's.
    await page.waitForFunction(() => document.querySelectorAll('.lane-compare dl.raw-e').length === 4, null, { timeout: 20000 });
    const spreads = await page.$$eval('.lane-compare dl.raw-e', (ts) => ts.map((t) => {
      const e = [...t.querySelectorAll('dd')].map((c) => Number(c.dataset.e));
      return (Math.max(...e) - Math.min(...e)).toFixed(1);
    }));
    for (const v of spreads) assert.ok(said.includes(v), `spread ${v} is in the text`);
    // At the end the two right and two wrong.
    for (let i = 0; i < 30 && await page.evaluate(() => window.seq2seqPage.t < window.seq2seqPage.maxT()); i++) await page.keyboard.press('ArrowRight');
    const end = (await readPage(page)).lanes[0];
    const right = end.panels.filter((p) => reference.includes(p.result));
    assert.equal(right.length, 2, JSON.stringify(end.panels));
    for (const p of end.panels) if (!right.includes(p)) assert.equal(p.result, 'D EH L IY T');
    assert.ok(said.endsWith('2 of the models get it right, 2 say D EH L IY T.') || said.endsWith('2 个模型读对了，另外 2 个读成 D EH L IY T。'), said);
  },
  // Inside the pass that chose EH (DELETE, step 2): the inputs are BEGIN and D.
  async (page, { said }) => {
    const d = (await moduleModel(AR)).inspect('DELETE', ['D']);
    const enc = d.encoder;
    const W = d.dModel;
    const row = (f, r) => Array.from(f.subarray(r * W, (r + 1) * W));
    // The three E's (positions 2, 4, 6): one token embedding, three inputs.
    assert.deepEqual(row(enc.tokenEmbedding, 1), row(enc.tokenEmbedding, 3));
    assert.deepEqual(row(enc.tokenEmbedding, 1), row(enc.tokenEmbedding, 5));
    assert.notDeepEqual(row(enc.input, 1), row(enc.input, 3));
    assert.notDeepEqual(row(enc.input, 3), row(enc.input, 5));
    // Sinusoidal: sin and cos of the position at falling frequencies; left columns fast, right ones slow.
    assert.equal(d.positionalKind, 'sinusoidal');
    for (const p of [0, 1, 3, 5]) {
      const pe = row(enc.positional, p);
      for (let i = 0; i < W / 2; i++) {
        const angle = p / 10000 ** ((2 * i) / W);
        assert.ok(Math.abs(pe[2 * i] - Math.sin(angle)) < 1e-4 && Math.abs(pe[2 * i + 1] - Math.cos(angle)) < 1e-4, `PE[${p}][${2 * i}]`);
      }
    }
    const step = (j) => Math.abs(row(enc.positional, 1)[j] - row(enc.positional, 0)[j]);
    assert.ok(step(0) > 0.5 && step(W - 2) < 1e-3, `${step(0)} ${step(W - 2)}`);
    // The page shows the second E: its token embedding and its input, the module's numbers.
    const shown = await page.$$eval('.lane .inside [data-stage="embed"] .vec-row', (rs) => rs.map((r) => [...r.querySelectorAll('.vec-table td')].map((c) => Number(c.textContent.replace('−', '-')))));
    assert.equal(shown.length, 3);
    row(enc.tokenEmbedding, 3).forEach((v, j) => assert.ok(Math.abs(shown[0][j] - v) < 1.5e-3, `embedding ${j}`));
    row(enc.input, 3).forEach((v, j) => assert.ok(Math.abs(shown[2][j] - v) < 1.5e-3, `input ${j}`));
    assert.ok(said.includes(`becomes ${d.dModel} numbers`) || said.includes(`变成 ${d.dModel} 个数`), said);
    assert.ok(said.includes('EH'), 'the pass that chose EH');
  },
  async (page, { said }) => {
    const d = (await moduleModel(AR)).inspect('DELETE', ['D']);
    const a = d.decoder.layers[2].crossAttention.attention;
    const nq = a.queries, nk = a.keys, h = 2, q = 1;
    const at = (flat, j) => flat[(h * nq + q) * nk + j];
    const raw = Array.from({ length: nk }, (_, j) => at(a.scores, j));
    const weights = Array.from({ length: nk }, (_, j) => at(a.weights, j));
    const unscaled = softmaxOf(raw);
    for (const v of [fmt(Math.min(...raw), 3), fmt(Math.max(...raw), 3), fmt(a.scale, 3), fmt(weights[0], 3), fmt(weights[2], 3), fmt(unscaled[0], 3), String(d.headDim), String(d.heads)]) {
      assert.ok(said.includes(v), `${v} is in the text`);
    }
    assert.equal(Math.max(...weights), weights[0], 'D has the largest weight');
    assert.equal(Math.max(...unscaled), unscaled[0]);
    // The page's table is these numbers; without scaling its softmax row is the raw scores'.
    // Its columns (a key a row): the raw scores, scaled, the softmax.
    const table = () => page.$eval('.lane .inside table.in-scores', (tb) => ['raw', 'scaled', 'softmax']
      .map((c) => [...tb.querySelectorAll(`td[data-col="${c}"]`)].map((x) => Number(x.textContent.replace('−', '-')))));
    const rows = await table();
    raw.forEach((v, j) => assert.ok(Math.abs(rows[0][j] - v) < 1.5e-3, `raw ${j}`));
    raw.forEach((v, j) => assert.ok(Math.abs(rows[1][j] - v * a.scale) < 1.5e-3, `scaled ${j}`));
    weights.forEach((v, j) => assert.ok(Math.abs(rows[2][j] - v) < 1.5e-3, `softmax ${j}`));
    await page.click('.lane .inside [data-action="in-scale"]');
    const off = await table();
    unscaled.forEach((v, j) => assert.ok(Math.abs(off[2][j] - v) < 1.5e-3, `without scaling ${j}`));
    await page.focus('#tour-next');   // as a learner would return to the tour after trying the toggle
  },
  async (page, { said }) => {
    const d = (await moduleModel(AR)).inspect('DELETE', ['D']);
    const a = d.decoder.layers[2].crossAttention.attention;
    const nq = a.queries, nk = a.keys, q = 1;
    const w = (h) => Array.from({ length: nk }, (_, j) => a.weights[(h * nq + q) * nk + j]);
    const peak = (h) => { const x = w(h); const j = x.indexOf(Math.max(...x)); return { j, v: x[j] }; };
    // Heads 1 and 2 on the first E, head 4 on the last; head 3 between D and L.
    assert.deepEqual([peak(0).j, peak(1).j, peak(3).j], [1, 1, 5]);
    for (const v of [peak(0).v, peak(1).v, peak(3).v, w(2)[0], w(2)[2]].map((x) => fmt(x, 3))) assert.ok(said.includes(v), `${v} is in the text`);
    // The page: head 3's weighted values, and Y = concat · W_O as the module's delta.
    const labels = await page.$$eval('.lane .inside [data-stage="values"] .vec-name', (ns) => ns.map((n) => n.textContent));
    assert.ok(labels.some((l) => l.startsWith(`${fmt(w(2)[0], 3)} × v`)) && labels.some((l) => l.startsWith(`${fmt(w(2)[2], 3)} × v`)), labels.join(' | '));
    const rows = await page.$$eval('.lane .inside [data-stage="heads"] .vec-row', (rs) => rs.map((r) => [...r.querySelectorAll('.vec-table td')].map((c) => Number(c.textContent.replace('−', '-')))));
    assert.equal(rows.length, d.heads + 2, 'each head, the concatenation, Y');
    const delta = d.decoder.layers[2].crossAttention.delta;
    rows.at(-1).forEach((v, j) => assert.ok(Math.abs(v - delta[q * d.dModel + j]) < 1.5e-3, `Y ${j}`));
    const concat = a.headOutputs.subarray(q * d.dModel, (q + 1) * d.dModel);
    rows.at(-2).forEach((v, j) => assert.ok(Math.abs(v - concat[j]) < 1.5e-3, `concatenation ${j}`));
  },
  async (page, { said }) => {
    const d = (await moduleModel(AR)).inspect('DELETE', ['D']);
    assert.equal(d.norm, 'pre');
    const f = d.decoder.layers[2].ffn;
    const W = d.dModel;
    const input = Array.from(f.norm.input.subarray(W, 2 * W));
    const zeros = Array.from(f.ffnHidden.subarray(d.ffnDim, 2 * d.ffnDim)).filter((v) => v === 0).length;
    const nums = [fmt(f.norm.mean[1], 3), fmt(f.norm.std[1], 3), fmt(Math.min(...input), 3), fmt(Math.max(...input), 3), String(zeros), String(d.ffnDim), String(W)];
    for (const v of nums) assert.ok(said.includes(v), `${v} is in the text`);
    const norm = await page.textContent('.lane .inside [data-stage="norm"]');
    for (const v of nums.slice(0, 4)) assert.ok(norm.includes(v), `${v} is on the page`);
    assert.ok((await page.textContent('.lane .inside [data-stage="ffn"] .in-relu')).includes(String(zeros)));
  },
  async (page, { said, lanes: [greedy, nar], measured }) => {
    assert.ok(nar.passes < greedy.passes, `NAR ${nar.passes} passes, greedy ${greedy.passes}`);
    // The panel repeats both lanes' figures side by side, as their stats lines show them.
    const figures = (text) => text.match(/\d+(\.\d+)?/g).map(Number);
    assert.deepEqual(figures(measured), [greedy.passes, greedy.ms, nar.passes, nar.ms], measured);
    // A step back: the figures follow the lanes' (greedy one pass fewer, the NAR lane unchanged).
    await page.keyboard.press('ArrowLeft');
    const back = await readPage(page);
    assert.equal(back.lanes[0].passes, greedy.passes - 1);
    assert.deepEqual(figures(back.measured), [back.lanes[0].passes, back.lanes[0].ms, back.lanes[1].passes, back.lanes[1].ms], back.measured);
    await page.keyboard.press('ArrowRight');
    assert.equal(nar.passes, 1);
    assert.equal(greedy.passes, 7);
    assert.equal(greedy.result.split(' ').length, 6);
    assert.ok(said.includes(`HOURGLASS takes 7 passes (6 phonemes`) || said.includes('HOURGLASS 需要运行 7 次（6 个音素'), said);
    assert.ok(greedy.ms > 0 && nar.ms > 0, `both lanes show their wall time: ${greedy.ms}, ${nar.ms}`);
  },
  async (page, { said, reference, lanes: [nar] }) => {
    assert.ok(nar.repeats >= 1, 'the one pass shows a repeat');
    assert.equal(nar.result, 'AW R G G L AE S');
    assert.equal(nar.bestLength, 7);
    assert.equal(nar.refLength, 6);
    for (const v of ['AW R G G L AE S', ' 7 ', ' 6 ']) assert.ok(said.includes(v), `${v} in ${said}`);
    assert.ok(reference.some((r) => r.split(' ').length === nar.refLength));
    // "The dictionary says HOUR as AW ER or AW R": the page's own dictionary.
    const hour = await page.evaluate(async () => (await import(new URL('js/dict.js', document.baseURI).href)).lookup('HOUR'));
    assert.deepEqual(hour.prons.slice().sort(), ['AW ER', 'AW R']);
  },
  async (page, { said, reference, lanes: [nar, mp] }) => {
    assert.ok(mp.repeats < nar.repeats, `Mask-Predict ${mp.repeats} repeats, one pass ${nar.repeats}`);
    assert.equal(mp.repeats, 0);
    assert.ok(reference.includes(mp.result), `Mask-Predict ${mp.result}`);
    assert.equal(mp.result, 'AW ER G L AE S');
    // The length-7 draft (its tab): iterations took the repeat away, not the extra phoneme.
    const seven = await page.evaluate(() => {
      const s = window.seq2seqPage.lanes[1].snaps.at(-1);
      return { best: s.drafts[s.bestDraft].length, texts: s.drafts.find((d) => d.length === 7)?.texts };
    });
    assert.equal(seven.best, 6);
    assert.equal(seven.texts.filter((x) => x !== '</s>').join(' '), 'AW ER R G L AE S');
    assert.equal(await page.locator('.lane-mp .draft-tabs button').count(), 3);
    for (const re of [/length-7 tab|“长度 7”/, /\(AW ER R G L AE S\)|（AW ER R G L AE S）/, /the 3 likeliest|最可能的 3 个/, /length 6, AW ER G L AE S|长度 6 的 AW ER G L AE S/]) assert.match(said, re);
    assert.ok(mp.passes > 1 && mp.passes <= 10, `a few passes: ${mp.passes}`);
  },
  async (page, { said, reference, lanes: [greedy] }) => {
    assert.ok(!reference.includes(greedy.result), `greedy ${greedy.result} is wrong`);
    // The table: the reference fed (teacher forcing) beside free running, parted at position 2.
    const table = await page.$eval('.lane .forcing', (v) => ({
      split: Number(v.dataset.split),
      rows: [...v.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((c) => c.dataset.p ?? c.textContent)),
    }));
    assert.equal(table.split, 1, 'they part at position 2');
    const model = await moduleModel(AR);
    const options = moduleOptions(makeLane('greedy'));
    const ref = model.score('MIRAGE', 'M ER AA ZH', options);
    const out = model.score('MIRAGE', 'M IH R AA ZH', options);
    ref.tokenLogprobs.forEach((lp, k) => assert.ok(Math.abs(Number(table.rows[k][1]) - Math.exp(lp)) < 1e-4, `reference position ${k + 1}`));
    const pct = (lp) => (Math.exp(lp) * 100).toFixed(1);
    // The reference's ER and greedy's IH at position 2, the least likely later reference
    // phoneme, and greedy's AA after its own IH R (its least likely later phoneme).
    for (const v of [`ER ${pct(ref.tokenLogprobs[1])} %`, `${pct(out.tokenLogprobs[1])} %`, `${pct(leastAfter(ref.tokenLogprobs, 1, 4))} %`, `${pct(out.tokenLogprobs[3])} %`]) {
      assert.ok(said.includes(v), `${v} is in the text: ${said}`);
    }
    assert.equal(leastAfter(out.tokenLogprobs, 1, 5), out.tokenLogprobs[3], 'AA is greedy\'s least likely later phoneme');
    assert.ok(out.tokenLogprobs[3] < leastAfter(ref.tokenLogprobs, 1, 4), 'less sure after its own IH');
  },
];

/**
 * The stop's elements (its narrow ones on a phone, all in the lane the tour opened there):
 * every one found, outlined, drawn, and wholly in view between the sticky step bar and
 * the panel, touching neither; nothing else outlined.
 */
async function assertTargetInView(page, n, label, width) {
  const s = STOPS[n - 1];
  const sels = (width <= 720 && s.narrow) || s.targets;
  const got = await tourTargets(page, 'lanes', sels);
  got.found.forEach((f, i) => assert.ok(f, `${label}: ${sels[i]} is on the page`));
  assert.ok(got.same, `${label}: the stop's elements, and only they, are outlined`);
  const { bar, panel } = got;
  assert.ok(bar.bottom <= panel.top, `${label}: the panel (top ${panel.top}) leaves the step bar (bottom ${bar.bottom}) alone`);
  got.targets.forEach(({ r, covered, outline }, i) => {
    const what = `${label}, ${sels[i]}`;
    assert.equal(outline, 'solid', `${what}: outline`);
    assert.ok(r.height > 0 && r.width > 0, `${what}: drawn (its lane shown)`);
    assert.ok(r.top >= bar.bottom - 1, `${what}: starts (${r.top}) below the step bar (${bar.bottom})`);
    assert.ok(r.bottom <= panel.top + 1, `${what}: ends (${r.bottom}) above the panel (top ${panel.top})`);
    const apart = r.bottom <= panel.top + 1 || r.top >= panel.bottom - 1 || r.right <= panel.left + 1 || r.left >= panel.right - 1;
    assert.ok(apart, `${what}: does not meet the panel`);
    assert.ok(r.left >= -1 && r.right <= got.width + 1, `${what}: across the window (${r.left}–${r.right} of ${got.width})`);
    assert.equal(covered, 0, `${what}: nothing drawn over it`);
  });
}

/**
 * The numbers the stop's text cites (a decimal point: 44.3, −28.858) that its elements
 * show: at least one showing of each within the visible area of every box it sits in
 * (a table's scroll region, a lane), so that nothing the text points at is scrolled out
 * of sight with no sign of it. Returns the numbers checked.
 */
async function assertCitedInView(page, n, label, width, said) {
  const s = STOPS[n - 1];
  const sels = (width <= 720 && s.narrow) || s.targets;
  const num = /(−)?(\d+\.\d+)/g;
  const cited = [...new Set([...said.matchAll(num)].map((m) => (m[1] ? '-' : '') + m[2]))];
  const found = await page.evaluate(([selectors, wanted, src]) => {
    const re = new RegExp(src, 'g');
    const clipped = (r, el) => {
      for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
        const b = a.getBoundingClientRect();
        const left = b.left + a.clientLeft, top = b.top + a.clientTop;
        if (r.left < left - 1 || r.right > left + a.clientWidth + 1 || r.top < top - 1 || r.bottom > top + a.clientHeight + 1) return true;
      }
      return r.left < -1 || r.right > innerWidth + 1 || r.top < -1 || r.bottom > innerHeight + 1;
    };
    const out = {};
    for (const sel of selectors) {
      const root = document.getElementById('lanes').querySelector(sel);
      if (!root) continue;
      const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        for (const m of node.data.matchAll(re)) {
          const v = (m[1] ? '-' : '') + m[2];
          if (!wanted.includes(v)) continue;
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const r = range.getBoundingClientRect();
          if (r.width <= 1 || r.height <= 1) continue;   // not drawn: a closed disclosure, a screen reader's words
          (out[v] ??= []).push(!clipped(r, node.parentElement));
        }
      }
    }
    return out;
  }, [sels, cited, num.source]);
  for (const [v, shown] of Object.entries(found)) assert.ok(shown.some(Boolean), `${label}: ${v}, which the text cites, is on the page but out of its box's visible area`);
  return Object.keys(found);
}

async function axe(page) {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
}

const AXE_STOPS = new Set([1, 4, 6, 8, 9, 11, 13]);

// Every stop's claims, axe and screenshots in the two views the other page
// checks take (English wide, Chinese on a phone); the other two walk every stop
// for its text, address and layout only (the claims read the same numbers there).
for (const lang of ['en', 'zh']) {
  for (const [width, height] of SIZES) {
    const full = VIEW_CHECKS.some(([l, [w]]) => l === lang && w === width);
    test(`the tour, ${lang} at ${width}×${height}: every stop by the keyboard, its element in view${full ? ', its claims on the page' : ''}`, async () => {
      const { page, errors } = await openPage(served.context);
      await page.setViewportSize({ width, height });
      await page.goto(served.url(lang === 'en' ? '/' : `/?lang=${lang}`));
      await page.waitForFunction(() => window.seq2seqPage?.lanes?.length && window.seq2seqPage.lanes.every((l) => !l.busy));
      // The tour's module and panel arrive with its first opening, not before.
      assert.deepEqual(await page.evaluate(() => [window.seq2seqPage.tour ?? null, document.getElementById('tour')]), [null, null]);
      assert.equal(await page.textContent('#tour-start'), TEXT[lang]['tour.start']);
      await page.screenshot({ path: artifact(`tour-0-${lang}-${width}x${height}.png`) });
      await page.focus('#tour-start');
      await page.keyboard.press('Enter');
      const violations = [];
      for (let n = 1; n <= LANE_STOPS; n++) {
        const label = `${lang} ${width}px stop ${n}`;
        if (n > 1) {
          assert.equal(await page.evaluate(() => document.activeElement?.id), 'tour-next', `${label}: focus stays on Next`);
          await page.keyboard.press('Enter');
        }
        await shown(page, n);
        const s = STOPS[n - 1];
        // The address is the stop's state, and says which stop.
        await page.waitForFunction((k) => new URLSearchParams(location.search).get('tour') === String(k), n);
        const st = decodeState(await page.evaluate(() => location.search));
        const want = decodeState(s.query);
        assert.equal(st.word, want.word, `${label}: word`);
        assert.deepEqual(st.lanes, want.lanes, `${label}: lanes`);
        assert.equal(st.lang, lang);
        assert.equal(await page.textContent('#tour-title'), TEXT[lang][s.title]);
        // The stop's words, its numbers filled in from the lanes (the claims below check them against the module).
        const said = await page.textContent('#tour-text');
        assert.ok(filledFrom(TEXT[lang][s.text], said), `${label}: the text is the stop's, filled in: ${said}`);
        assert.equal(await page.textContent('#tour-count'), TEXT[lang]['tour.count'].replace('{n}', n).replace('{of}', STOPS.length));
        await assertTargetInView(page, n, label, width);
        const cited = await assertCitedInView(page, n, label, width, said);
        if (n === 7) assert.ok(cited.includes(LOWEST_QK), `${label}: the lowest q·k, ${LOWEST_QK}, is among the numbers checked (${cited})`);
        if (n === 4) assert.ok(cited.includes(LONGEST_NONE), `${label}: the last bucket's WER without attention, ${LONGEST_NONE}, is among the numbers checked (${cited})`);
        if (width < 500) await assertFitsPhone(page);
        if (!full) continue;
        // The stop as it opens (a claim may step the decode on).
        await page.screenshot({ path: artifact(`tour-${n}-${lang}-${width}x${height}.png`) });
        await CLAIMS[n - 1](page, await readPage(page));
        if (AXE_STOPS.has(n)) violations.push(...(await axe(page)).map((v) => `stop ${n}: ${v}`));
      }
      assert.deepEqual(violations, []);
      // Next goes on to the training stops; Escape closes the tour here.
      assert.equal(await page.textContent('#tour-next'), TEXT[lang]['tour.next']);
      await page.keyboard.press('Escape');
      assert.equal(await page.isHidden('#tour'), true);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'tour-start');
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
}

test('a bare ?tour=N (no word, no lanes) opens the stop with its own state, where its claims hold', async () => {
  const { page, errors } = await openPage(served.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  for (const n of [3, 4]) {
    await page.goto(served.url(`?tour=${n}`));
    await shown(page, n);
    const want = decodeState(STOPS[n - 1].query);
    assert.equal(await page.evaluate(() => window.seq2seqPage.word), want.word, `stop ${n}: its word`);
    assert.equal(await page.evaluate(() => window.seq2seqPage.lanes.length), want.lanes.length, `stop ${n}: its lanes`);
    await CLAIMS[n - 1](page, await readPage(page));
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('Back and Escape from the keyboard; a reload comes back to the stop; the language switch keeps it', async () => {
  const { page, errors } = await openPage(served.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  // An address at stop 3 (as a copied link or a reload has it) opens the tour there.
  await page.goto(served.url(`${STOPS[2].query}&tour=3`));
  await shown(page, 3);
  assert.equal(await page.textContent('#tour-title'), en[STOPS[2].title]);
  await CLAIMS[2](page, await readPage(page));
  // Back, pressed from the keyboard, goes to stop 2 and its state.
  await page.focus('#tour-back');
  await page.keyboard.press('Enter');
  await shown(page, 2);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('tour') === '2');
  await CLAIMS[1](page, await readPage(page));
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'tour-back', 'focus stays on Back');
  // Stepping with ← still steps the decode while the tour is open.
  const before = await page.evaluate(() => window.seq2seqPage.t);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => window.seq2seqPage.t), before - 1);
  assert.equal(await page.evaluate(() => document.getElementById('tour').dataset.shown), '2', 'the tour stays at its stop');
  // Back at stop 1 cannot go further: the button is disabled and focus moves to Next.
  await page.keyboard.press('Enter');
  await shown(page, 1);
  assert.equal(await page.isDisabled('#tour-back'), true);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'tour-next');
  // A reload at stop 1 shows stop 1 again.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('tour') === '1');
  await page.reload();
  await shown(page, 1);
  await CLAIMS[0](page, await readPage(page));
  // The language switch keeps the stop and retells it.
  await page.click('#lang-zh');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('lang') === 'zh');
  assert.equal(await page.textContent('#tour-title'), zh[STOPS[0].title]);
  assert.equal(new URLSearchParams(new URL(page.url()).search).get('tour'), '1');
  // Escape closes it: no panel, no outline, no tour in the address, focus on the button that opens it.
  await page.keyboard.press('Escape');
  assert.equal(await page.isHidden('#tour'), true);
  assert.equal(await page.locator('.tour-target').count(), 0);
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('tour'));
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'tour-start');
  // The page stays at the stop's state for the learner to carry on from.
  assert.equal(new URLSearchParams(new URL(page.url()).search).get('w'), 'MIRAGE');
  assert.deepEqual(errors, []);
  await page.close();
});

test('an address with a stop the tour does not have opens no tour', async () => {
  const { page, errors } = await openPage(served.context);
  await page.goto(served.url(`?w=DELETE&tour=${STOPS.length + 1}`));
  await page.waitForFunction(() => window.seq2seqPage?.tour && window.seq2seqPage.lanes.every((l) => !l.busy));
  assert.equal(await page.isHidden('#tour'), true);
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('tour'));
  assert.deepEqual(errors, []);
  await page.close();
});
