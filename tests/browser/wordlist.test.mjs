// The word-list mode (web/js/wordlist.js): the page's lanes over many words in
// the decoder worker, with a progress bar, Cancel, and tables of WER, PER,
// passes, repeats and search/model errors. The numbers on the page are checked
// against the packed npm module in Node and the native CLI, on the shipped
// models and the standard test split.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, test } from 'node:test';
import { makeLane, moduleOptions, wordSeed } from '../../web/js/lane-types.js';
import en from '../../web/i18n/en.js';
import zh from '../../web/i18n/zh.js';
import { cliPath, installPackage } from '../node/helpers.mjs';
import { artifact, assertFitsPhone, openPage, root, servedSite, site, waitReady } from './helpers.mjs';
import { SPLIT, firstWords } from './test-split.mjs';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');
const CMLM = models.find((m) => m.id === 'g2p-cmlm');

/** WER and PER (%) of outputs[i] for words[i], by models/train/metrics.py: the metrics the models are evaluated with. */
function werPer(words, outputs) {
  const script = `import json, sys
from models.train.metrics import load_references, score
hyps = json.load(sys.stdin)
refs = load_references('models/data/cmudict-0.7b.test')
wer, per = score({w: tuple(o.split()) for w, o in hyps.items()}, {w: refs[w] for w in hyps})
print(json.dumps({'wer': wer, 'per': per}))`;
  const hyps = Object.fromEntries(words.map((w, i) => [w, outputs[i]]));
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { cwd: root, input: JSON.stringify(hyps), encoding: 'utf8' }));
}

let pkg;
const loaded = new Map();
/** The packed module's Model for a models.json entry, on the file the site serves. */
async function packedModel(m) {
  pkg ??= await installPackage().importPackage();
  if (!loaded.has(m.id)) loaded.set(m.id, pkg.loadModel(join(site, m.file)));
  return loaded.get(m.id);
}
async function release() {
  for (const p of loaded.values()) (await p).delete();
}

const served = servedSite({ cleanup: release });

/** Opens `query` and waits for its list run (body[data-list-runs]) to end. */
async function runList(query, { runs = 1, context = served.context } = {}) {
  const { page, errors } = await openPage(context, served.url(query));
  await page.waitForFunction((n) => Number(document.body.dataset.listRuns ?? 0) >= n, runs, { timeout: 240000 });
  return { page, errors };
}

/** The summary table as shown: per row its method, numbers and data. */
function summary(page) {
  return page.evaluate(() => [...document.querySelectorAll('#wl-summary tbody tr')].map((r) => ({
    lane: r.dataset.lane,
    name: r.querySelector('th').textContent,
    wer: Number(r.dataset.wer),
    per: Number(r.dataset.per),
    passes: Number(r.dataset.passes),
    repeats: Number(r.dataset.repeats),
    search: Number(r.dataset.search),
    model: Number(r.dataset.model),
    cells: Object.fromEntries([...r.querySelectorAll('td')].map((c) => [c.dataset.k, c.textContent])),
  })));
}

/** The per-word table: word and each method's output, ✓/✗ and error kind. */
function perWord(page) {
  return page.evaluate(() => [...document.querySelectorAll('#wl-words-table tbody tr')].map((r) => ({
    word: r.dataset.word,
    cells: [...r.querySelectorAll('td[data-ok]')].map((c) => ({ output: c.querySelector('.arpa-line').textContent, ok: c.dataset.ok, kind: c.dataset.kind })),
  })));
}

/** What the module says per method: outputs, passes (stepped), repeats and error kinds, as the page should count them. */
async function expected(type, words) {
  const model = await packedModel(type === 'nar' ? CMLM : AR);
  const options = moduleOptions(makeLane(type));
  const outputs = model.decodeBatch(words, options).map((l) => l[0].text);
  let passes = 0;
  let repeats = 0;
  let search = 0;
  let modelErrors = 0;
  const kinds = [];
  for (const [i, w] of words.entries()) {
    const s = model.createSession(options);
    s.start(w);
    let snap;
    do snap = s.step(); while (!snap.done);
    assert.equal(snap.results[0].text, outputs[i], `${type} ${w}: stepped and batch decodes agree`);
    passes += snap.step;
    s.delete();
    const toks = outputs[i].split(' ');
    repeats += toks.filter((x, j) => j > 0 && x === toks[j - 1]).length;
    let kind = '';
    if (!SPLIT.get(w).includes(outputs[i])) {
      const out = model.score(w, outputs[i], options).score;
      const best = Math.max(...SPLIT.get(w).map((r) => model.score(w, r, options).score));
      kind = best > out ? 'search' : 'model';
      if (kind === 'search') search++; else modelErrors++;
    }
    kinds.push(kind);
  }
  return { outputs, passes: passes / words.length, repeats, search, model: modelErrors, kinds, ...werPer(words, outputs) };
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

describe('word-list mode', () => {
  const N = 40;
  let run;
  before(async () => {
    run = await runList(`?view=list&n=${N}&src=test&lane=greedy&lane=beam&lane=nar`);
  });

  test('greedy, beam and one-pass NAR over the first 40 test words: progress reaches its total, the tables equal the packed module', async () => {
    const { page } = run;
    const progress = await page.evaluate(() => ({ value: document.getElementById('wl-progress').value, max: document.getElementById('wl-progress').max, status: document.getElementById('wl-status').textContent }));
    assert.equal(progress.max, 2 * N * 3, 'two units per word and method');
    assert.equal(progress.value, progress.max);
    assert.equal(progress.status, `Done: ${N} words, 3 methods.`);
    // The progress bar is named.
    assert.equal(await page.evaluate(() => document.getElementById('wl-progress').labels[0].textContent), en['list.progress']);
    const rows = await summary(page);
    assert.deepEqual(rows.map((r) => r.lane), ['greedy', 'beam', 'nar']);
    const words = firstWords(N);
    const table = await perWord(page);
    assert.deepEqual(table.map((r) => r.word), words);
    for (const [k, row] of rows.entries()) {
      const want = await expected(row.lane, words);
      close(row.wer, want.wer, `${row.lane} WER`);
      close(row.per, want.per, `${row.lane} PER`);
      close(row.passes, want.passes, `${row.lane} passes per word`);
      assert.equal(row.repeats, want.repeats, `${row.lane} repeats`);
      assert.equal(row.search, want.search, `${row.lane} search errors`);
      assert.equal(row.model, want.model, `${row.lane} model errors`);
      assert.equal(row.cells.wer, want.wer.toFixed(1));
      assert.equal(row.cells.per, want.per.toFixed(1));
      assert.deepEqual(table.map((r) => r.cells[k].output), want.outputs, `${row.lane} outputs`);
      assert.deepEqual(table.map((r) => r.cells[k].kind), want.kinds, `${row.lane} error kinds`);
      assert.deepEqual(table.map((r) => r.cells[k].ok), words.map((w, i) => String(SPLIT.get(w).includes(want.outputs[i]))));
      console.log(`${row.lane}: WER ${want.wer.toFixed(1)}% PER ${want.per.toFixed(2)}% passes ${want.passes.toFixed(2)} repeats ${want.repeats} search ${want.search} model ${want.model}`);
    }
    // Some word is wrong, so that the error kinds are tested at all.
    assert.ok(rows.some((r) => r.search + r.model > 0));
    assert.deepEqual(run.errors, []);
  });

  test('the tables sort from the keyboard, and say so with aria-sort', async () => {
    const { page } = run;
    const header = (table, key) => page.locator(`button[data-table="${table}"][data-sort="${key}"]`);
    const sortState = (table, key) => page.evaluate(([t, k]) => document.querySelector(`button[data-table="${t}"][data-sort="${k}"]`).closest('th').getAttribute('aria-sort'), [table, key]);
    await header('summary', 'wer').focus();
    await page.keyboard.press('Enter');
    assert.equal(await sortState('summary', 'wer'), 'ascending');
    let wers = (await summary(page)).map((r) => r.wer);
    assert.deepEqual(wers, [...wers].sort((a, b) => a - b));
    // Focus stays on the header, so a second Enter reverses the order.
    await page.keyboard.press('Enter');
    assert.equal(await sortState('summary', 'wer'), 'descending');
    wers = (await summary(page)).map((r) => r.wer);
    assert.deepEqual(wers, [...wers].sort((a, b) => b - a));
    assert.equal(await sortState('summary', 'per'), null, 'only the sorted column has aria-sort');
    await header('words', 'word').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    assert.equal(await sortState('words', 'word'), 'descending');
    const words = (await perWord(page)).map((r) => r.word);
    assert.deepEqual(words, [...firstWords(N)].sort().reverse());
  });

  test('a word of the table opens in the lanes view, decoded there', async () => {
    const { page } = run;
    const word = firstWords(N)[1];
    const ready = await page.evaluate(() => Number(document.body.dataset.ready ?? 0));
    await page.locator(`#wl-words-table button[data-word="${word}"]`).click();
    await waitReady(page, ready);
    assert.equal(await page.locator('#lanes').isVisible(), true);
    assert.equal(await page.locator('#wordlist').isVisible(), false);
    assert.equal(await page.inputValue('#word'), word);
    await page.waitForFunction((w) => new URLSearchParams(location.search).get('w') === w && !location.search.includes('view=list'), word);
    const decoded = await page.evaluate(() => seq2seqPage.lanes.map((l) => l.word));
    assert.deepEqual(decoded, [word, word, word]);
    assert.deepEqual(run.errors, []);
  });
});

test('greedy WER over the first 100 test words equals the native CLI\'s and the packed module\'s, decoded across a pool of workers', async () => {
  const { page, errors } = await runList('?view=list&n=100&src=test&lane=greedy');
  // A list this long goes to a pool, one worker per core (at most 8); its lists are one worker's.
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  assert.equal(await page.evaluate(() => document.body.dataset.listWorkers), String(Math.min(8, cores)));
  // The milliseconds column says how it was measured: the list's rate across those workers.
  assert.match(await page.textContent('#wl-ms-note'), new RegExp(`^Milliseconds per word: the time the whole list took, over its number of words\\. A list of 16 words or more is shared out among ${Math.min(8, cores)} workers, one per core`));
  const [row] = await summary(page);
  const words = firstWords(100);
  const cli = execFileSync(cliPath(), ['decode', '--model', join(site, AR.file)], { input: `${words.join('\n')}\n`, encoding: 'utf8' })
    .trim().split('\n').map((l) => l.split('\t')[1]);
  const model = await packedModel(AR);
  const packed = model.decodeBatch(words, moduleOptions(makeLane('greedy'))).map((l) => l[0].text);
  const shown = (await perWord(page)).map((r) => r.cells[0].output);
  assert.deepEqual(shown, cli, 'the page\'s outputs are the CLI\'s');
  assert.deepEqual(packed, cli);
  const want = werPer(words, cli);
  close(row.wer, want.wer, 'greedy WER, page vs CLI');
  close(row.per, want.per, 'greedy PER, page vs CLI');
  console.log(`greedy, first 100 test words: WER ${want.wer.toFixed(1)}%, PER ${want.per.toFixed(2)}% (page, CLI and packed module)`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a seeded sample is the same words every time, and the address keeps it', async () => {
  const { page, errors } = await runList('?view=list&n=25&src=sample&seed=7&lane=nar');
  const first = (await perWord(page)).map((r) => r.word);
  assert.equal(first.length, 25);
  assert.ok(first.every((w) => SPLIT.has(w)), 'sampled from the test split');
  assert.notDeepEqual(first, firstWords(25));
  assert.match(await page.evaluate(() => location.search), /view=list&n=25&src=sample&seed=7/);
  await page.reload();
  await page.waitForFunction(() => Number(document.body.dataset.listRuns ?? 0) >= 1, null, { timeout: 60000 });
  assert.deepEqual((await perWord(page)).map((r) => r.word), first);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a sampling lane draws each word with the word\'s own seed, as its lane does; one method is one method', async () => {
  const { page, errors } = await runList('?view=list&n=12&src=test&lane=sample');
  const words = firstWords(12);
  const model = await packedModel(AR);
  const want = words.map((w) => model.decode(w, moduleOptions(makeLane('sample'), w))[0].text);
  assert.deepEqual((await perWord(page)).map((r) => r.cells[0].output), want, 'the page\'s outputs are the module\'s under each word\'s seed');
  // One seed for the whole list would draw the same uniforms for every word: a list that differs.
  const shared = model.decodeBatch(words, moduleOptions(makeLane('sample', { seed: wordSeed(words[0]) }), words[0])).map((l) => l[0].text);
  assert.notDeepEqual(shared, want);
  assert.equal(await page.textContent('#wl-status'), 'Done: 12 words, 1 method.');
  // Twelve words, one worker: the milliseconds are its own.
  assert.match(await page.textContent('#wl-ms-note'), /^Milliseconds per word: the time one worker took for the whole list/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Cancel stops the run: progress stops, a message says so', async () => {
  const { page, errors } = await openPage(served.context, served.url('?view=list&n=2000&src=sample&seed=3&lane=beam&lane=mp'));
  await page.waitForFunction(() => document.getElementById('wl-progress')?.value > 0, null, { timeout: 60000 });
  await page.click('#wl-cancel');
  await page.waitForFunction(() => Number(document.body.dataset.listRuns ?? 0) >= 1, null, { timeout: 60000 });
  const msg = await page.textContent('#wl-message');
  assert.match(msg, /^Cancelled after \d+ of 8000 steps/);
  const at = await page.evaluate(() => document.getElementById('wl-progress').value);
  assert.ok(at > 0 && at < 8000, `stopped at ${at}`);
  await page.waitForTimeout(1500);
  assert.equal(await page.evaluate(() => document.getElementById('wl-progress').value), at, 'no progress after Cancel');
  assert.equal(await page.locator('#wl-cancel').isDisabled(), true);
  assert.equal(await page.locator('#wl-run').isDisabled(), false);
  // The worker is free again: the lanes view decodes a word.
  await page.click('button[data-view="lanes"]');
  const ready = await page.evaluate(() => Number(document.body.dataset.ready ?? 0));
  await page.fill('#word', 'KNIGHT');
  await page.press('#word', 'Enter');
  await waitReady(page, ready);
  assert.deepEqual(errors, []);
  await page.close();
});

test('pasted words: bad input gets a message and runs nothing; a word with no reference is decoded but not scored', async () => {
  const { page, errors } = await runList('?view=list&src=paste&words=KNIGHT+QUE%40UE+%E6%97%A5%E6%9C%AC&lane=greedy');
  let msg = await page.textContent('#wl-message');
  assert.ok(msg.startsWith(en['list.pasteBad']), msg);
  assert.match(msg, /“QUE@UE”: .*“@”/);
  assert.match(msg, /“日本”/);
  assert.equal(await page.locator('#wl-summary').count(), 0);
  // Too long, then empty, typed into the form.
  await page.fill('#wl-words', 'A'.repeat(60));
  await page.click('#wl-run');
  await page.waitForFunction(() => Number(document.body.dataset.listRuns) >= 2);
  msg = await page.textContent('#wl-message');
  assert.match(msg, /too long/i);
  await page.fill('#wl-words', '  ');
  await page.click('#wl-run');
  await page.waitForFunction(() => Number(document.body.dataset.listRuns) >= 3);
  assert.equal(await page.textContent('#wl-message'), en['list.pasteEmpty']);
  // Good words, one made up: decoded, left out of WER, and the page says so.
  // MIRAGE: greedy misses the reference it scores higher (a search error, as forced.test.mjs finds).
  await page.fill('#wl-words', 'knight, blorptastic\nqueue mirage');
  await page.click('#wl-run');
  await page.waitForFunction(() => Number(document.body.dataset.listRuns) >= 4);
  assert.equal(await page.locator('#wl-message').isHidden(), true);
  const table = await perWord(page);
  assert.deepEqual(table.map((r) => r.word), ['KNIGHT', 'BLORPTASTIC', 'QUEUE', 'MIRAGE']);
  const model = await packedModel(AR);
  const options = moduleOptions(makeLane('greedy'));
  const out = model.decodeBatch(['MIRAGE'], options)[0][0];
  const ref = model.score('MIRAGE', 'M ER AA ZH', options);
  assert.ok(ref.score > out.score && out.text !== 'M ER AA ZH', 'MIRAGE is a search error for greedy');
  assert.deepEqual(table[3].cells[0], { output: out.text, ok: 'false', kind: 'search' });
  assert.equal(table[1].cells[0].ok, '', 'no reference: neither right nor wrong');
  assert.ok(table[1].cells[0].output.length > 0, 'decoded all the same');
  assert.match(await page.textContent('#wl-results'), new RegExp(en['list.noRefOne'].slice(0, 30)));
  const [row] = await summary(page);
  const okCount = table.filter((r) => r.cells[0].ok === 'true').length;
  close(row.wer, (100 * (3 - okCount)) / 3, 'WER over the three words with a reference');
  assert.ok(row.search >= 1);
  // The words ride in the fragment (never sent to a server), the rest in the query.
  assert.match(await page.evaluate(() => location.search), /view=list&src=paste(&|$)/);
  assert.equal(await page.evaluate(() => location.hash), '#words=knight+blorptastic+queue+mirage');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a long pasted list: the address a server sees stays under 8 KB, and a reload runs the same list', async () => {
  // 2,000 test words (the most a list runs), under the 20,000 characters the box takes: in
  // the query such a list made an address over Node's 16 KB header limit, and the page's
  // own server refused it (HTTP 431).
  const words = firstWords(2000).join(' ');
  assert.ok(words.length > 16000 && words.length <= 20000, `${words.length} characters`);
  const { page, errors } = await openPage(served.context, served.url('?view=list&src=paste&lane=greedy'));
  await page.waitForSelector('#wl-words');
  await page.fill('#wl-words', words);
  await page.waitForFunction(() => location.hash.length > 16000);
  const address = await page.evaluate(() => ({ search: location.search, hash: location.hash, href: location.href }));
  assert.ok(address.search.length < 8192, `the query is ${address.search.length} characters`);
  assert.ok(new URL(address.href).pathname.length + address.search.length < 8192);
  // Reloaded (as a shared link is opened): the server answers, and the box holds the same words.
  const response = await page.reload();
  assert.equal(response.status(), 200);
  await page.waitForSelector('#wl-words');
  assert.equal(await page.inputValue('#wl-words'), words);
  await page.waitForFunction(() => Number(document.body.dataset.listRuns ?? 0) >= 1, null, { timeout: 240000 });
  assert.equal(await page.evaluate(() => seq2seqPage.wordlist.result.words.length), 2000, 'the reload ran the 2,000 words');
  // An older address with ?words= is still read, and rewritten into the fragment.
  await page.goto(served.url('?view=list&src=paste&words=KNIGHT+QUEUE&lane=greedy'));
  await page.waitForFunction(() => location.hash === '#words=KNIGHT+QUEUE' && !location.search.includes('words='));
  assert.equal(await page.inputValue('#wl-words'), 'KNIGHT QUEUE');
  await page.waitForFunction(() => Number(document.body.dataset.listRuns ?? 0) >= 1, null, { timeout: 60000 });
  assert.deepEqual(errors, []);
  await page.close();
});

for (const lang of ['en', 'zh']) {
  test(`${lang}: the list view renders, axe finds nothing serious at desktop and phone width; screenshots`, async () => {
    const { page, errors } = await runList(`?view=list&n=20&src=test&lane=greedy&lane=beam&lane=nar${lang === 'en' ? '' : '&lang=zh'}`);
    const strings = lang === 'en' ? en : zh;
    assert.equal(await page.textContent('#wl-title'), strings['list.heading']);
    assert.equal(await page.textContent('button[data-table="summary"][data-sort="wer"]'), `${strings['list.colWer']} ↕`);
    assert.equal(await page.getAttribute('#wl-summary', 'id'), 'wl-summary');
    // Tables scroll inside named, focusable regions (views.js scrollRegion).
    const regions = await page.evaluate(() => [...document.querySelectorAll('#wl-results .table-scroll')].map((r) => [r.tabIndex, r.getAttribute('role'), r.getAttribute('aria-label')]));
    assert.equal(regions.length, 2);
    for (const [tabIndex, role, label] of regions) {
      assert.equal(tabIndex, 0);
      assert.equal(role, 'region');
      assert.ok(label);
    }
    await page.addScriptTag({ path: axePath });
    for (const [width, height] of [[1400, 1000], [390, 844]]) {
      await page.setViewportSize({ width, height });
      const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
      assert.deepEqual(violations, [], `${lang} at ${width}×${height}`);
      if (width < 500) {
        await assertFitsPhone(page);
        // The per-word table is wider than a phone: its region scrolls from the keyboard
        // (the lanes' arrow-key stepping stays out of the list view).
        await page.focus('#wl-results .table-scroll:last-of-type');
        for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
        await page.waitForFunction(() => document.querySelector('#wl-results .table-scroll:last-of-type').scrollLeft > 0);
        await page.evaluate(() => { document.querySelector('#wl-results .table-scroll:last-of-type').scrollLeft = 0; });
      }
      await page.screenshot({ path: artifact(`wordlist-${lang}-${width}.png`), fullPage: true });
    }
    // The other language from its button: the view, its results and the address stay.
    const other = lang === 'en' ? 'zh' : 'en';
    const rows = (await summary(page)).length;
    await page.click(`#lang-${other}`);
    // Chinese strings load on first use: the page is relabelled once they are in.
    await page.waitForFunction((text) => document.getElementById('wl-title').textContent === text, (other === 'en' ? en : zh)['list.heading'], { timeout: 10000 });
    assert.equal((await summary(page)).length, rows);
    await page.waitForFunction(() => location.search.includes('view=list&n=20&src=test'));
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the list\'s address: values out of range are clamped, unknown ones fall back, and it reads back as written', async () => {
  // From the built site, where js/engine.js finds the npm module's worker client.
  const { decodeList, encodeList, sample } = await import(pathToFileURL(join(site, 'js/wordlist.js')).href);
  // The default list: a seeded sample of 1,000 test words (the split's first words are
  // alphabetical and too few to rank the methods).
  assert.deepEqual(decodeList('?view=list'), { n: 1000, src: 'sample', seed: 1, words: '' });
  assert.deepEqual(decodeList('?view=list&n=99999&src=nope&seed=-4'), { n: 2000, src: 'sample', seed: 0, words: '' });
  assert.deepEqual(decodeList('?n=abc&view=lists'), { n: 1000, src: 'sample', seed: 1, words: '' });
  for (const s of [{ n: 7, src: 'sample', seed: 42, words: '' }, { n: 1000, src: 'paste', seed: 1, words: 'KNIGHT QUEUE' }]) {
    const { query, hash } = encodeList(s);
    assert.deepEqual(decodeList(query, hash), s);
  }
  assert.deepEqual(encodeList({ n: 1000, src: 'paste', seed: 1, words: 'KNIGHT QUEUE' }), { query: '&src=paste', hash: '#words=KNIGHT+QUEUE' });
  // The mode is the page's (address.js), the list's part follows it.
  const { decodeState, encodeState } = await import(pathToFileURL(join(site, 'js/address.js')).href);
  assert.equal(decodeState('?w=A&view=list').mode, 'list');
  assert.equal(decodeState('?w=A&view=lists').mode, 'lanes');
  assert.match(encodeState({ word: 'A', step: null, lanes: [], mode: 'list' }) + encodeList({ n: 7, src: 'test', seed: 1, words: '' }).query, /&view=list&n=7&src=test$/);
  // A sample: n distinct items, in the list's order, the same for the same seed.
  const items = [...Array(500).keys()];
  const a = sample(items, 50, 9);
  assert.equal(new Set(a).size, 50);
  assert.deepEqual(a, [...a].sort((x, y) => x - y));
  assert.deepEqual(sample(items, 50, 9), a);
  assert.notDeepEqual(sample(items, 50, 10), a);
  assert.deepEqual(sample(items, 900, 1), items);
});
