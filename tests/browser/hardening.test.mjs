// Hand-edited and hostile addresses: names every object answers to
// (constructor, toString, __proto__) are no lanes or options, malformed
// escapes, a NUL in the word, words CMUdict has no shard for. Each is a
// message on the page (or a plain "not in CMUdict"), never an uncaught error,
// a blank page or a failed request, and the lanes that make sense still decode.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeLane, moduleOptions } from '../../web/js/lane-types.js';
import { moduleModel as model, releaseModels, sameResults } from './expect.mjs';
import { openPage, servedSite, site, waitReady } from './helpers.mjs';
import { SPLIT_BYTES, shardKey, shardName, shardNames } from '../../web/shared/dict-shards.js';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.autoregressive);
const NAR = models.find((m) => !m.autoregressive);
const WORD = AR.examples.find((w) => NAR.examples.includes(w));
const dictIndex = JSON.parse(readFileSync(join(site, 'dict/index.json'), 'utf8'));
const dictShards = new Set(shardNames(dictIndex));

const served = servedSite({ cleanup: releaseModels });
const url = served.url;
const laneState = (page) => page.evaluate(() => seq2seqPage.lanes.map((l) => ({
  type: l.type, opts: l.opts, error: l.error,
  title: document.getElementById(`${l.id}-title`)?.textContent ?? '',
  results: l.snaps.at(-1)?.results ?? null,
})));
const message = async (page) => ({ text: await page.textContent('#message'), visible: await page.isVisible('#message') });

/** Each lane decoded WORD as the npm module does with the lane's options. */
async function lanesMatchModule(lanes, word = WORD) {
  for (const l of lanes) {
    assert.equal(l.error, null, `${l.type}: ${l.error}`);
    const want = (await model(l.type === 'nar' || l.type === 'mp' ? NAR : AR)).decode(word, moduleOptions(makeLane(l.type, l.opts)));
    sameResults(l.results, want, `${l.type} ${JSON.stringify(l.opts)}`);
  }
}

describe('hostile addresses', () => {
  test('options named like Object.prototype\'s keys are reported and ignored; the lanes decode', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=beam:constructor=1,toString=1,hasOwnProperty=1,beamSize=3&lane=greedy:valueOf=2&lane=mp:__proto__=x`));
    await waitReady(page);
    const lanes = await laneState(page);
    assert.deepEqual(lanes.map((l) => l.type), ['beam', 'greedy', 'mp']);
    assert.equal(lanes[0].opts.beamSize, 3, 'the known option next to them is read');
    for (const l of lanes) assert.deepEqual(Object.keys(l.opts).sort(), Object.keys(makeLane(l.type).opts).sort());
    await lanesMatchModule(lanes);
    const m = await message(page);
    assert.ok(m.visible);
    for (const [name, lane] of [['constructor', 'beam'], ['toString', 'beam'], ['hasOwnProperty', 'beam'], ['valueOf', 'greedy'], ['__proto__', 'mp']]) {
      assert.match(m.text, new RegExp(`“${name}” in the address is not an option of the ${lane} lane \\(options: [^)]*\\); it is ignored\\.`));
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('lanes named like Object.prototype\'s keys are reported and left out; the others decode', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=constructor&lane=greedy&lane=toString:k=2&lane=__proto__&lane=hasOwnProperty&lane=nar`));
    await waitReady(page);
    const lanes = await laneState(page);
    assert.deepEqual(lanes.map((l) => l.type), ['greedy', 'nar']);
    for (const l of lanes) assert.doesNotMatch(l.title, /undefined/);
    await lanesMatchModule(lanes);
    const m = await message(page);
    assert.ok(m.visible);
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      assert.match(m.text, new RegExp(`“${name}” in the address is not a lane \\(lanes: greedy, beam, [^)]*\\); it is left out\\.`));
    }
    // The address the page writes back holds only what it understood; a new word clears the notes.
    await page.waitForFunction(() => !/constructor|toString|__proto__|hasOwnProperty/.test(location.search));
    const ready = await page.evaluate(() => Number(document.body.dataset.ready));
    await page.fill('#word', WORD.toLowerCase());
    await page.press('#word', 'Enter');
    await waitReady(page, ready);
    assert.ok(await page.isHidden('#message'), await page.textContent('#message'));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('only unknown lanes: the message says so, and no lane is made up', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=constructor`));
    await page.waitForFunction(() => window.seq2seqPage && !document.getElementById('message').hidden);
    assert.equal(await page.evaluate(() => seq2seqPage.lanes.length), 0);
    assert.match((await message(page)).text, /“constructor” in the address is not a lane/);
    assert.match(await page.textContent('#lanes'), /No lanes/);
    // Many unknown names: a few notes and a count, not a wall of text.
    await page.goto(url(`?w=${WORD}&${Array.from({ length: 40 }, (_, i) => `lane=nosuch${i}`).join('&')}`));
    await page.waitForFunction(() => window.seq2seqPage && !document.getElementById('message').hidden);
    const { text } = await message(page);
    assert.equal(text.split('is not a lane').length - 1, 4, text);
    assert.match(text, /36 more parts of the address are left out\./);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('markup in unknown names is shown as text, never run', async () => {
    const markup = '<img src=x onerror="window.injected=1">';
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=${encodeURIComponent(markup)}&lane=greedy:${encodeURIComponent(`<b>x</b>`)}=1`));
    await waitReady(page);
    const { text } = await message(page);
    assert.ok(text.includes(`“${markup}”`), text);
    assert.ok(text.includes('“<b>x</b>”'), text);
    assert.equal(await page.evaluate(() => document.querySelectorAll('#message *, img[src="x"]').length + (window.injected ?? 0)), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a malformed escape in a model name is kept as is, as the page reads it', async () => {
    // %25 is "%": the lane parameter holds "m=%E0%A4%A", which decodeURIComponent refuses.
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy:m=%25E0%25A4%25A&lane=beam:m=%25`));
    await waitReady(page);
    const lanes = await laneState(page);
    assert.deepEqual(lanes.map((l) => l.type), ['greedy', 'beam']);
    await lanesMatchModule(lanes);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a NUL in the word is named by its code point, and the message names the models', async () => {
    const word = `${WORD.slice(0, 2)}\u0000${WORD.slice(2)}`;
    const { page, errors } = await openPage(served.context, url(`?w=${encodeURIComponent(word)}&lane=greedy&lane=nar`));
    await waitReady(page);
    const m = await message(page);
    assert.ok(m.visible);
    assert.ok(!m.text.includes('\u0000'), JSON.stringify(m.text));
    for (const text of [m.text, ...(await laneState(page)).map((l) => l.error)]) {
      assert.match(text, /^U\+0000 is not in the alphabet of [^“]+, which is: “/, JSON.stringify(text));
    }
    for (const name of [AR.name, NAR.name]) assert.ok(m.text.includes(name), `${name} named: ${m.text}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('options beyond what the lane\'s model takes', () => {
  // The page's own ranges (PAGE_OPTIONS) are wider than a model's: the CMLM's length
  // head and the decoders' positions narrow an imposed length and a max length.
  const cmlm = models.find((m) => m.id === 'g2p-cmlm');
  const ar = models.find((m) => m.id === 'g2p-transformer');
  const WORDS = 'HELLO';
  test('an imposed length over the CMLM\'s range is lowered to its last, said so, and decodes as the module does', async () => {
    const L = cmlm.maxTargetLength;
    const { page, errors } = await openPage(served.context, url(`?w=${WORDS}&lane=nar:len=given,L=${L + 1}&lane=mp:len=given,L=${L + 50}`));
    await waitReady(page);
    const lanes = await laneState(page);
    for (const l of lanes) {
      assert.equal(l.error, null, `${l.type}: ${l.error}`);
      assert.equal(l.opts.narGivenLength, L);
      sameResults(l.results, (await model(cmlm)).decode(WORDS, moduleOptions(makeLane(l.type, l.opts))), l.type);
    }
    const m = await message(page);
    assert.ok(m.visible && m.text.includes(`narGivenLength = ${L + 1}`) && m.text.includes(`${L}`), m.text);
    await page.waitForFunction((n) => new URLSearchParams(location.search).getAll('lane').every((x) => x.includes(`narGivenLength=${n}`)), L);
    // The control takes no more than the model does.
    await page.click('.lane-nar .lane-settings summary');
    assert.equal(await page.getAttribute('.lane-nar input[data-opt="narGivenLength"]', 'max'), String(L));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an imposed length with no length: the predicted one, said so; a max length over the decoder\'s positions is lowered', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORDS}&lane=nar:len=given&lane=greedy:maxLength=${ar.maxPositions + 100}`));
    await waitReady(page);
    const [nar, greedy] = await laneState(page);
    assert.equal(nar.error, null);
    assert.equal(nar.opts.narLength, 'predicted');
    assert.equal(greedy.error, null);
    assert.equal(greedy.opts.maxLength, ar.maxPositions);
    const m = await message(page);
    assert.ok(m.text.includes(`maxLength = ${ar.maxPositions + 100}`), m.text);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the dictionary\'s shards', () => {
  test('every word is found in the shard the page asks for, the index names every shard, and a large key is split', () => {
    const files = readdirSync(join(site, 'dict')).filter((f) => f.endsWith('.tsv') && f !== 'test.tsv').map((f) => f.slice(0, -4));
    assert.deepEqual([...shardNames(dictIndex)].sort(), files.sort());
    const sizeOfKey = new Map();
    for (const name of files) {
      const text = readFileSync(join(site, 'dict', `${name}.tsv`), 'utf8');
      for (const line of text.split('\n').filter(Boolean)) {
        const word = line.split('\t')[0];
        assert.equal(shardName(word, dictIndex), name, `${word} is looked up in dict/${shardName(word, dictIndex)}.tsv, not dict/${name}.tsv`);
        sizeOfKey.set(shardKey(word), (sizeOfKey.get(shardKey(word)) ?? 0) + line.length + 1);
      }
    }
    for (const [key, size] of sizeOfKey) assert.equal(key in dictIndex.split, size > SPLIT_BYTES, `key ${key}: ${size} bytes`);
    if (files.length > 1) assert.ok(Object.keys(dictIndex.split).length > 0, 'the full dictionary has keys over the split size');
  });
});

describe('words CMUdict has no shard for', () => {
  for (const word of ['3D', "'TIS", '-ISH', 'Ü']) {
    test(`${word}: not in CMUdict, and no request for a shard that is not there`, async () => {
      const { page, errors } = await openPage(served.context);
      const dictRequests = [];
      page.on('request', (r) => { if (/\/dict\//.test(r.url())) dictRequests.push(new URL(r.url()).pathname); });
      await page.goto(url(`?w=${encodeURIComponent(word)}&lane=greedy`));
      await waitReady(page);
      await page.waitForFunction(() => /not in CMUdict|CMUdict;/.test(document.getElementById('reference').textContent));
      assert.match(await page.textContent('#reference'), /is not in CMUdict/);
      for (const p of dictRequests) {
        const shard = /\/dict\/(.+)\.tsv$/.exec(p)?.[1];
        assert.ok(p.endsWith('/dict/index.json') || dictShards.has(shard), `requested ${p}`);
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('a dictionary word still finds its reference', async () => {
    const { page, errors } = await openPage(served.context, url(`?w=${WORD}&lane=greedy`));
    await waitReady(page);
    await page.waitForFunction(() => /not in CMUdict|CMUdict;/.test(document.getElementById('reference').textContent));
    const name = shardName(WORD, dictIndex);
    const shard = join(site, 'dict', `${name}.tsv`);
    const inDict = name !== null && existsSync(shard) && readFileSync(shard, 'utf8').split('\n').some((l) => l.startsWith(`${WORD}\t`));
    assert.match(await page.textContent('#reference'), inDict ? /CMUdict;/ : /not in CMUdict/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
