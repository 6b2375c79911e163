// The non-autoregressive lane ties its repeats (↻) to the length: under a draft
// with repeats, the length decoded beside CMUdict's and the cause that fits
// (web/js/nar-length.js). Real words on the shipped g2p-cmlm, one per case; the
// length the page shows is the npm module's in Node, the reference's is the
// site's dictionary's. The chart of candidate lengths keeps every bar on
// screen and its labels inside it and apart, at desktop and phone size.
//   node scripts/build-web.mjs && node --test tests/browser/nar-length.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { makeLane, moduleOptions } from '../../web/js/lane-types.js';
import { moduleModel, releaseModels } from './expect.mjs';
import { VIEW_CHECKS, artifact, assertFitsPhone, openLaneOf, openPage, servedSite, site, waitReady } from './helpers.mjs';
import { shardName } from '../../web/shared/dict-shards.js';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const CMLM = models.find((m) => m.id === 'g2p-cmlm');
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const STRINGS = { en, zh };

const served = servedSite({ cleanup: releaseModels });

const dictIndex = JSON.parse(readFileSync(join(site, 'dict/index.json'), 'utf8'));

/** CMUdict's pronunciations of a word, from the dictionary shard the site serves. */
function prons(word) {
  const shard = readFileSync(join(site, 'dict', `${shardName(word, dictIndex)}.tsv`), 'utf8');
  const line = shard.split('\n').find((l) => l.startsWith(`${word}\t`));
  assert.ok(line, `${word} is in CMUdict`);
  return line.split('\t')[2].split('|');
}

/** The NAR lane's single pass in Node: the best draft's length, its tokens up to END, and the length head's argmax. */
async function nodePass(word) {
  const model = await moduleModel(CMLM);
  const options = moduleOptions(makeLane('nar'));
  const session = model.createSession(options);
  try {
    session.start(word);
    const snap = session.step();
    const draft = snap.drafts[snap.bestDraft];
    const logp = Array.from(snap.lengthLogprobs);
    const argmax = logp.indexOf(Math.max(...logp.slice(1)));
    const end = draft.texts.indexOf('</s>');
    const tokens = end >= 0 ? draft.texts.slice(0, end) : draft.texts;
    return { length: draft.length, argmax, tokens, result: model.decode(word, options)[0].text };
  } finally {
    session.delete();
  }
}

/** axe-core's serious and critical violations inside `selector`. */
async function axeViolations(page, selector) {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async (sel) => (await window.axe.run(document.querySelector(sel), { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`), selector);
}

const repeats = (tokens) => tokens.filter((x, p) => p > 0 && x === tokens[p - 1]).length;

/** What the NAR lane's length note shows, once the reference is in. */
async function shownNote(page) {
  await page.waitForFunction(() => document.querySelector('.lane-nar .nar-length') || document.querySelector('#reference').textContent, null, { timeout: 20000 });
  return page.evaluate(() => {
    const n = document.querySelector('.lane-nar .nar-length');
    return n && {
      case: n.dataset.case,
      length: Number(n.dataset.length),
      ref: n.dataset.ref,
      ours: n.querySelector('.nar-length-ours').textContent,
      refText: n.querySelector('.nar-length-ref').textContent,
      why: n.querySelector('.note').textContent,
      marks: document.querySelectorAll('.lane-nar .nar-grid .rep-mark').length,
      result: document.querySelector('.lane-nar .result-main')?.dataset.result,
    };
  });
}

// Found by decoding CMUdict's test words with the lane's options (one pass, predicted length).
const WORDS = [
  // CH EY S AH N N: length 6 against CHASTEN's 5; the extra position repeats N.
  { word: 'CHASTEN', case: 'longer', inRef: false },
  // K OW L EH T T ER AO L: 9 positions as in both references, and still T T.
  { word: 'CHOLESTEROL', case: 'same', inRef: false },
  // K ER IH N N AH N: 7 against 8; the repeat stands where G belongs.
  { word: 'CARIGNAN', case: 'differs', inRef: false },
  // K EY T ER ER Z: the reference has ER ER too.
  { word: 'CATERERS', case: 'same', inRef: true },
];

describe('NAR lane: repeats and the length', () => {
  // Every word in English; in Chinese the cases whose wording differs most (a
  // length too long, one that matches no reference).
  for (const lang of ['en', 'zh']) {
    for (const w of WORDS.filter((x) => lang === 'en' || x.case !== 'same')) {
      test(`${w.word} (${lang}): the predicted length beside the reference's, ${w.case}`, async () => {
        const { page, errors } = await openPage(served.context, served.url(`/?w=${w.word}&lane=nar${lang === 'en' ? '' : `&lang=${lang}`}`));
        await waitReady(page);
        const note = await shownNote(page);
        const S = STRINGS[lang];
        const node = await nodePass(w.word);
        const refLengths = [...new Set(prons(w.word).map((p) => p.split(' ').length))].sort((a, b) => a - b);
        // The module's pass: a predicted length (the length head's argmax), repeats, the case claimed.
        assert.equal(node.length, node.argmax, 'one length candidate: the argmax');
        assert.equal(node.tokens.join(' '), node.result, 'one pass: the draft is the result');
        assert.ok(repeats(node.tokens) > 0, `${w.word}: ${node.result} has repeats`);
        const want = refLengths.includes(node.length) ? 'same' : node.length > Math.max(...refLengths) ? 'longer' : 'differs';
        assert.equal(want, w.case, `${w.word}: length ${node.length}, reference ${refLengths}`);
        // The page shows the same.
        assert.ok(note, 'a note under the draft');
        assert.equal(note.result, node.result);
        assert.equal(note.length, node.length);
        assert.equal(note.ours, S['narlen.predicted'].replace('{L}', node.length));
        assert.equal(note.ref, refLengths.join(' '));
        assert.equal(note.refText, S['narlen.reference'].replace('{n}', refLengths.join(S['narlen.or'])));
        assert.equal(note.case, w.case);
        assert.equal(note.marks, repeats(node.tokens), 'one ↻ per repeat');
        const why = S[`narlen.${w.case}`];
        assert.equal(note.why, w.inRef ? `${why} ${S['narlen.inReference']}` : why);
        assert.deepEqual(errors, []);
        await page.close();
      });
    }
  }

  test('a draft without repeats gets no note', async () => {
    const word = 'PHONEME';
    const node = await nodePass(word);
    assert.equal(repeats(node.tokens), 0, `${word}: ${node.result}`);
    const { page, errors } = await openPage(served.context, served.url(`/?w=${word}&lane=nar`));
    await waitReady(page);
    assert.equal(await shownNote(page), null);
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const [lang, size] of VIEW_CHECKS) {
    test(`axe and screenshots: the note, ${lang} at ${size.join('×')}`, async () => {
      const { page, errors } = await openPage(served.context);
      for (const [width, height] of [size]) {
        await page.setViewportSize({ width, height });
        await page.goto(served.url(`/?w=CHASTEN&lane=nar${lang === 'en' ? '' : `&lang=${lang}`}`));
        await waitReady(page);
        assert.ok(await shownNote(page));
        if (width < 500) await assertFitsPhone(page);
        assert.deepEqual(await axeViolations(page, '.lane-nar'), [], `${width}×${height}`);
        const grid = page.locator('.lane-nar .nar-grid').first();
        await grid.scrollIntoViewIfNeeded();
        await page.locator('.lane-nar .lane-body').screenshot({ path: artifact(`nar-length-${lang}-${width}.png`) });
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});

/** The length chart as laid out: its box, each bar's fill and each visible label. */
function chartLayout(page, lane) {
  return page.evaluate((sel) => {
    const chart = document.querySelector(`${sel} .lenbars`);
    const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height }; };
    const bars = [...chart.querySelectorAll('.lenbar')];
    return {
      box: box(chart),
      scroll: chart.scrollWidth - chart.clientWidth,
      bars: bars.map((b) => ({ L: Number(b.dataset.length), cls: b.className, fill: box(b.querySelector('.lenfill')) })),
      labels: bars.map((b) => b.querySelector('.lenlab'))
        .filter((l) => l.textContent && getComputedStyle(l).visibility !== 'hidden')
        .map((l) => ({ text: l.textContent, L: Number(l.parentElement.dataset.length), ...box(l) })),
    };
  }, lane);
}

/** Every bar on screen and drawn; labels inside the chart, none over another. */
function assertReadable(c, what) {
  assert.ok(c.scroll <= 0, `${what}: the chart scrolls by ${c.scroll}px`);
  for (const b of c.bars) {
    assert.ok(b.fill.height >= 1, `${what}: bar ${b.L} has no height`);
    assert.ok(b.fill.left >= c.box.left - 0.5 && b.fill.right <= c.box.right + 0.5, `${what}: bar ${b.L} outside the chart`);
  }
  for (const l of c.labels) {
    assert.equal(l.text, String(l.L), `${what}: label of bar ${l.L}`);
    assert.ok(l.left >= c.box.left - 0.5 && l.right <= c.box.right + 0.5 && l.top >= c.box.top && l.bottom <= c.box.bottom + 0.5,
      `${what}: label ${l.text} [${l.left}, ${l.right}] outside the chart [${c.box.left}, ${c.box.right}]`);
  }
  for (const [i, a] of c.labels.entries()) {
    for (const b of c.labels.slice(i + 1)) {
      assert.ok(a.right <= b.left || b.right <= a.left, `${what}: labels ${a.text} and ${b.text} overlap`);
    }
  }
}

describe('the length chart: every bar visible, labels inside and apart', () => {
  for (const [lang, size] of VIEW_CHECKS) {
    test(`fixed maximum length (NAR) and a length beam (Mask-Predict), ${lang} at ${size.join('×')}`, async () => {
      const { page, errors } = await openPage(served.context);
      for (const [width, height] of [size]) {
        await page.setViewportSize({ width, height });
        // DIRECTORY: Mask-Predict decodes the neighbouring lengths 7, 8 and 9.
        await page.goto(served.url(`/?w=DIRECTORY&lane=nar:narLength=fixed&lane=mp${lang === 'en' ? '' : `&lang=${lang}`}`));
        await waitReady(page);
        const what = `${lang} ${width}×${height}`;
        await openLaneOf(page, '.lane-nar .lenbars');
        const fixed = await chartLayout(page, '.lane-nar');
        assertReadable(fixed, `${what} fixed`);
        // The fixed length is the longest there is: its bar is the last, dark and tall enough to see.
        const last = fixed.bars.at(-1);
        assert.match(last.cls, /\bdecoded\b/, `${what}: the fixed length ${last.L} is the one decoded`);
        assert.ok(last.fill.height >= 4, `${what}: the bar of length ${last.L} is ${last.fill.height}px high`);
        assert.ok(fixed.labels.some((l) => l.L === last.L), `${what}: the longest length is labelled`);
        await openLaneOf(page, '.lane-mp .lenbars');
        const mp = await chartLayout(page, '.lane-mp');
        assertReadable(mp, `${what} Mask-Predict`);
        const decoded = mp.bars.filter((b) => /\bdecoded\b/.test(b.cls)).map((b) => b.L);
        assert.ok(decoded.length >= 2 && decoded.every((L, i) => i === 0 || L === decoded[i - 1] + 1), `${what}: neighbouring lengths decoded (${decoded})`);
        const best = mp.bars.find((b) => /\bbest\b/.test(b.cls));
        assert.ok(mp.labels.some((l) => l.L === best.L), `${what}: the best length ${best.L} keeps its label`);
        if (width < 500) await assertFitsPhone(page);
        for (const lane of ['nar', 'mp']) {
          await openLaneOf(page, `.lane-${lane}`);
          assert.deepEqual(await axeViolations(page, `.lane-${lane}`), [], `${what} ${lane}`);
          const chart = page.locator(`.lane-${lane} .lenbars`).first();
          await chart.scrollIntoViewIfNeeded();
          await chart.screenshot({ path: artifact(`nar-length-chart-${lane}-${lang}-${width}.png`) });
        }
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('the labels are refitted when the chart narrows', async () => {
    const { page, errors } = await openPage(served.context);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(served.url('/?w=DIRECTORY&lane=mp'));
    await waitReady(page);
    const wide = await chartLayout(page, '.lane-mp');
    assertReadable(wide, 'wide');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction((n) => {
      const labs = [...document.querySelectorAll('.lane-mp .lenlab')].filter((l) => l.textContent && getComputedStyle(l).visibility !== 'hidden');
      return labs.length < n;
    }, wide.labels.length, { timeout: 5000 });
    assertReadable(await chartLayout(page, '.lane-mp'), 'narrowed');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
