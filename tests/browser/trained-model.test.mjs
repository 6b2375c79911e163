// A model trained by the package's trainer, opened in the lanes as Train mode's "Decode
// with this model" opens it (app.openTrainedModel, web/js/trained-model.js): its greedy,
// beam and sampling lanes decode its first held-out source to what the native CLI decodes
// with the same file and the lanes' own options; the reference is its held-out target;
// the inside view, the attention map and the beam tree are drawn on it; the word list
// scores its held-out set with the exact-match share of the CLI's outputs; and an address
// naming it after a reload says it is gone. One Transformer, one RNN.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createTrainer } from '../../wasm/src/train.js';
import { wordSeed } from '../../web/js/lane-types.js';
import en from '../../web/i18n/en.js';
import { openPage, root, servedSite, settled, waitReady } from './helpers.mjs';
import { cliPath } from '../node/helpers.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'trained-model-'));
const served = servedSite({ cleanup: () => rmSync(scratch, { recursive: true, force: true }) });

// Small and quick (about a second each); trained far enough that some held-out strings come
// out right and some wrong, so that an exact-match share has something to tell.
const RUNS = {
  transformer: { task: 'reverse', arch: 'transformer', layers: 1, heads: 2, dModel: 32, dFf: 64, steps: 300, minLength: 3, maxLength: 6, evalSize: 20, seed: 3 },
  rnn: { task: 'sort', arch: 'rnn', attention: 'additive', embDim: 16, encHidden: 32, decHidden: 64, attnDim: 32, steps: 200, minLength: 3, maxLength: 6, evalSize: 20, seed: 3 },
};

/** A trained model: its file's bytes (written to `file` too), the trainer's info and held-out set. */
async function train(name) {
  const trainer = await createTrainer(RUNS[name]);
  try {
    while (!trainer.done) trainer.step(100);
    const bytes = trainer.export();
    const file = join(scratch, `${name}.safetensors`);
    writeFileSync(file, bytes);
    return { file, bytes, info: trainer.info, heldOut: trainer.heldOut() };
  } finally {
    trainer.dispose();
  }
}

/** The module options (as lane.decodedOptions holds them) as the CLI's flags. */
function flags(options) {
  const out = [];
  for (const [k, v] of Object.entries(options)) {
    if (v === '' || v == null || (Array.isArray(v) && !v.length)) continue;
    out.push(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(v));
  }
  return out;
}

/** The native CLI's best output for each source under `options`, in order. */
function native(file, sources, options) {
  const lines = execFileSync(cliPath(), ['decode', '--model', file, ...flags(options)], { input: `${sources.join('\n')}\n`, encoding: 'utf8' }).split('\n').filter(Boolean);
  const best = new Map();
  for (const line of lines) {
    const [src, out] = line.split('\t');
    if (!best.has(src)) best.set(src, out);   // the n-best come best first
  }
  return sources.map((s) => best.get(s));
}

const exactShare = (outs, heldOut) => outs.filter((o, i) => o === heldOut[i].target).length / heldOut.length;

async function openTrained(page, model) {
  const ready = await page.evaluate(() => Number(document.body.dataset.ready ?? 0));
  const entry = await page.evaluate(async ({ b64, info, heldOut }) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const e = await seq2seqPage.openTrainedModel(bytes, { info, heldOut });
    return { id: e.id, file: e.file, examples: e.examples, arch: e.arch, sourceVocab: e.sourceVocab };
  }, { b64: Buffer.from(model.bytes).toString('base64'), info: model.info, heldOut: model.heldOut });
  await waitReady(page, ready, 30000);
  await settled(page);
  return entry;
}

describe('a model trained on the page, in the lanes', () => {
  for (const name of Object.keys(RUNS)) {
    test(`${name}: greedy, beam and sampling decode its held-out source as the CLI does; views, word list, reload`, async () => {
      const model = await train(name);
      const { page, errors } = await openPage(served.context, served.url('/?w=DELETE&lane=greedy'));
      await waitReady(page);
      const entry = await openTrained(page, model);
      assert.equal(entry.id, 'trained');
      assert.match(entry.file, /^blob:/);
      assert.equal(entry.arch, name, 'the entry is the engine\'s info() of the bytes');
      const word = model.heldOut[0].source;
      const lanes = await page.evaluate(() => seq2seqPage.lanes.map((l) => ({
        type: l.type, model: l.model.id, word: l.word, error: l.error, options: l.decodedOptions,
        text: l.snaps.at(-1)?.results?.[0]?.text ?? null,
      })));
      assert.deepEqual(lanes.map((l) => [l.type, l.model, l.word, l.error]), ['greedy', 'beam', 'sample'].map((t) => [t, 'trained', word, null]));
      for (const l of lanes) {
        const [want] = native(model.file, [word], l.options);
        assert.equal(l.text, want, `${l.type}: the page decodes ${word} to ${l.text}, the CLI to ${want}`);
      }
      assert.equal(lanes[2].options.seed, wordSeed(word), 'the sampling lane draws with the word\'s seed');
      // The reference under the results: the held-out target, not a CMUdict lookup.
      const ref = await page.$eval('#reference', (el) => el.textContent);
      assert.ok(ref.includes(model.heldOut[0].target) && !ref.includes('CMUdict'), ref);
      const right = await page.$eval('.lane-greedy .result-main', (el) => !!el.querySelector('.right'));
      assert.equal(right, lanes[0].text === model.heldOut[0].target, 'the output is judged against the held-out target');
      // CMUdict's longest training word says nothing of what this model learned from: no such note, however short it were.
      await page.evaluate(() => { seq2seqPage.longestTraining = 1; seq2seqPage.renderAll(); });
      assert.equal(await page.$('.lane .beyond-training'), null);
      // Letters, not phonemes: no IPA beside them (no "/????/").
      assert.equal(await page.$eval('.lane-greedy .result-main .ipa-line', (el) => el.textContent), '');
      // The address names the trained model in every lane.
      await page.waitForFunction(() => new URLSearchParams(location.search).getAll('lane').every((l) => l.includes('m=trained')));
      assert.equal(await page.evaluate(() => new URLSearchParams(location.search).getAll('lane').length), 3);

      // The inside view on step 2, the cross-attention map with a row per step, the beam tree.
      await page.evaluate(() => seq2seqPage.go(2));
      await settled(page);
      await page.evaluate(() => document.querySelector('.lane-greedy details.inside').setAttribute('open', ''));
      await page.waitForSelector('.lane-greedy details.inside .in-stage', { timeout: 20000 });
      // It shows the pass that chose step 2's token, for the held-out word.
      const chosen = await page.evaluate(() => { const s = seq2seqPage.lanes[0].snaps[2]; return (s.live[0] ?? s.finished[0]).texts[1]; });
      const intro = await page.$eval('.lane-greedy details.inside .note b', (b) => b.parentElement.textContent);
      assert.ok(intro.includes(`chose ${chosen} for ${word}`), intro);
      const rows = await page.$$eval('.lane-greedy svg.heatmap rect[data-row]', (rs) => rs.reduce((a, r) => {
        (a[r.dataset.row] ??= [])[Number(r.dataset.col)] = Number(r.querySelector('title').textContent.match(/[\d.]+$/)[0]);
        return a;
      }, []));
      assert.equal(rows.filter(Boolean).length, 2, 'one attention row per token decoded by step 2');
      // Its heading names the task's tokens, not CMUdict's letters and phonemes.
      const heads = await page.$$eval('.lane-greedy .view > h3', (hs) => hs.map((h) => h.textContent));
      assert.ok(heads.some((h) => h.endsWith(en['ar.attnHeadingTokens'].replace('{attn}: ', ''))), heads.join(' | '));
      assert.ok(!heads.some((h) => h.includes('letters × phonemes')), heads.join(' | '));
      for (const r of rows.filter(Boolean)) {
        assert.equal(r.length, [...word].length, 'a column per source letter');
        assert.ok(Math.abs(r.reduce((a, b) => a + b, 0) - 1) < 0.02, `a row of attention weights sums to 1: ${r}`);
      }
      assert.ok(await page.$('.lane-beam .tree .node[data-node]'), 'the beam tree is drawn');

      // The word list: the held-out set, scored as the CLI's outputs score.
      await page.click('[data-view="list"]');
      await page.waitForSelector('#wordlist input[value="heldout"]:checked');
      const runs = await page.evaluate(() => Number(document.body.dataset.listRuns ?? 0));
      await page.click('#wl-run');
      await page.waitForFunction((n) => Number(document.body.dataset.listRuns ?? 0) > n, runs, { timeout: 30000 });
      const summary = await page.$$eval('#wl-summary tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.lane, Number(tr.dataset.wer)])));
      const sources = model.heldOut.map((e) => e.source);
      const shares = {
        greedy: exactShare(native(model.file, sources, lanes[0].options), model.heldOut),
        beam: exactShare(native(model.file, sources, lanes[1].options), model.heldOut),
        // Each word with its own seed, as the lane draws it.
        sample: exactShare(sources.map((s) => native(model.file, [s], { ...lanes[2].options, seed: wordSeed(s) })[0]), model.heldOut),
      };
      for (const [type, share] of Object.entries(shares)) {
        assert.ok(Math.abs(summary[type] - 100 * (1 - share)) < 1e-9, `${type}: WER ${summary[type]} %, the CLI's exact match ${share}`);
      }
      console.log(`${name}: held-out exact match greedy ${shares.greedy}, beam ${shares.beam}, sampling ${shares.sample}`);

      // A reload loses the model: the address's m=trained gets a message, the lanes decode with the site's.
      await page.click('[data-view="lanes"]');
      await page.reload();
      await waitReady(page);
      const after = await page.evaluate(() => ({
        message: document.getElementById('message').textContent,
        models: seq2seqPage.lanes.map((l) => l.model.id),
        errors: seq2seqPage.lanes.map((l) => l.error),
      }));
      assert.match(after.message, /trained in Train mode.*reloaded/, after.message);
      assert.ok(after.models.length === 3 && after.models.every((m) => m !== 'trained'), String(after.models));
      assert.deepEqual(after.errors, [null, null, null]);
      await page.waitForFunction(() => !location.search.includes('m=trained'));
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('what is no autoregressive model file, or no held-out set, is refused with a message; the lanes stay', async () => {
    const { page, errors } = await openPage(served.context, served.url('/?w=DELETE&lane=greedy'));
    await waitReady(page);
    const cmlm = readFileSync(join(root, 'tests/fixtures/cmlm_pre_sin_tied_relu.safetensors'));
    const heldOut = [{ source: 'abc', target: 'c b a' }];
    const cases = [
      [[1, 2, 3], { info: { options: { task: 'reverse' } }, heldOut }, 'ModelError', /cannot be opened in the lanes/],
      [[...cmlm], { info: { options: { task: 'reverse' } }, heldOut }, 'UsageError', /not autoregressive/],
      [[...cmlm], { info: { options: {} }, heldOut: [] }, 'UsageError', /details\.heldOut must be/],
      [[], { info: { options: {} }, heldOut }, 'UsageError', /bytes must be/],
    ];
    for (const [bytes, details, kind, message] of cases) {
      const got = await page.evaluate(async ({ bytes, details }) => {
        try {
          await seq2seqPage.openTrainedModel(new Uint8Array(bytes), details);
          return null;
        } catch (e) {
          return { kind: e.kind, message: e.message, shown: document.getElementById('message').textContent };
        }
      }, { bytes, details });
      assert.equal(got?.kind, kind, JSON.stringify(got));
      assert.match(got.shown, message);
      assert.ok(got.shown.includes(got.message), 'the page shows the error');
    }
    const lanes = await page.evaluate(() => seq2seqPage.lanes.map((l) => [l.type, l.model.id, l.error]));
    assert.deepEqual(lanes, [['greedy', 'g2p-transformer', null]]);
    assert.ok(!(await page.evaluate(() => seq2seqPage.models.some((m) => m.id === 'trained'))));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Train mode\'s "Decode with this model" opens the run\'s model in the lanes, on its first held-out source', async () => {
    const { page, errors } = await openPage(served.context, served.url('/?view=train&preset=tiny&steps=60&evalEvery=30&evalSize=20&maxLength=8'));
    await page.waitForSelector('.tr-main .tr-panel button[data-action="train"]', { timeout: 20000 });
    await page.click('.tr-main [data-action="train"]');
    await page.waitForFunction(() => document.querySelector('.tr-main [data-status]')?.dataset.status === 'done', null, { timeout: 30000 });
    const ready = await page.evaluate(() => Number(document.body.dataset.ready ?? 0));
    await page.click('.tr-main [data-action="decode"]');
    await waitReady(page, ready, 30000);
    await settled(page);
    await page.waitForFunction(() => !/[?&]view=/.test(location.search));
    const got = await page.evaluate(async () => {
      const m = seq2seqPage.models.find((x) => x.id === 'trained');
      const bytes = new Uint8Array(await (await fetch(m.file)).arrayBuffer());
      let b64 = '';
      for (let i = 0; i < bytes.length; i += 0x8000) b64 += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return {
        b64: btoa(b64), first: m.trainedOn.heldOut[0], held: m.trainedOn.heldOut.length, task: m.trainedOn.task,
        lanes: seq2seqPage.lanes.map((l) => ({ type: l.type, model: l.model.id, word: l.word, options: l.decodedOptions, text: l.snaps.at(-1)?.results?.[0]?.text ?? null })),
        shown: !document.getElementById('lanes').hidden,
      };
    });
    assert.equal(got.task, 'reverse');
    assert.equal(got.held, 20, 'the run\'s held-out set (evalSize)');
    assert.ok(got.shown, 'the lanes are shown');
    assert.deepEqual(got.lanes.map((l) => [l.type, l.model, l.word]), ['greedy', 'beam', 'sample'].map((t) => [t, 'trained', got.first.source]));
    const file = join(scratch, 'from-train-mode.safetensors');
    writeFileSync(file, Buffer.from(got.b64, 'base64'));
    for (const l of got.lanes) assert.equal(l.text, native(file, [l.word], l.options)[0], `${l.type}: as the CLI decodes the run's model`);
    // The word box shows the word as this model reads it (lower case), not in CMUdict's capitals.
    const box = await page.$eval('#word', (el) => ({ value: el.value, transform: getComputedStyle(el).textTransform }));
    assert.deepEqual(box, { value: got.first.source, transform: 'none' });
    assert.deepEqual(errors, []);
    // The site's models read capitals, and the box shows them so.
    const site = await openPage(served.context, served.url('/?w=delete&lane=greedy'));
    await site.page.waitForFunction(() => Number(document.body.dataset.ready ?? 0) > 0, null, { timeout: 30000 });
    assert.equal(await site.page.$eval('#word', (el) => getComputedStyle(el).textTransform), 'uppercase');
    await site.page.close();
    await page.close();
  });
});
