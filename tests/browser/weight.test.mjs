// The bound on what a first visit costs, counted from the network events of
// headless Chromium (the page's requests and its workers'), with an empty cache:
// the whole first visit (page, one wasm, the default lanes' one model) at most 2.5 MB,
// so that on a 10 Mbit/s link the page has decoded within about 2 s. That holds
// because g2p-transformer is stored at 4 bits (1.99 MB gzipped) and the default lanes
// (greedy and beam search, lane-models.js DEFAULT_LANES) all use it: the
// non-autoregressive lanes' g2p-cmlm (about 3 MB gzipped, which at 4 bits lost 0.4
// test WER points, docs/training-log.md) comes only when the learner adds such a lane.
// The wasm is budgeted at about 0.3 MB, one module whichever build the browser gets.
// And no model is downloaded that no shown lane uses (boot.js must pick the first
// lane's model as the page does; the RNN models load only when a lane asks for them).
// Time to first result is measured by bench/page-load.mjs, not here: the
// machine is shared, so a time bound would fail for reasons of its own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launch, openPage, site, startServer, waitReady } from './helpers.mjs';
import { recordNetwork, timeline, transferredBy } from './load-record.mjs';
import { compareModels } from '../../web/shared/lane-models.js';

const LIMIT = 2_500_000;
const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** A first visit (a fresh profile, so an empty HTTP cache) to `query`: bytes transferred, model files downloaded, the lanes' models. */
async function firstVisit(query) {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser.context);
    const net = recordNetwork(page);
    await page.goto(new URL(query, server.url).href);
    await waitReady(page);
    const used = await page.evaluate(() => [...new Set(seq2seqPage.lanes.flatMap((l) => (l.models ?? [l.model]).map((m) => m.file)))]);
    const { bytes, responses } = await net.total();
    const tl = await timeline(page);
    const downloaded = responses.filter((r) => r.url.endsWith('.safetensors') && r.body > 0).map((r) => new URL(r.url).pathname.slice(1));
    assert.deepEqual(errors, []);
    return { bytes, responses, downloaded, used, tl };
  } finally {
    await browser.close();
  }
}

test('a first visit transfers one model, the default lanes\' own, and at most 2.5 MB in all', async () => {
  const { bytes, responses, downloaded, used, tl } = await firstVisit('/');
  const by = (re) => responses.filter((r) => re.test(new URL(r.url).pathname)).reduce((a, r) => a + r.body + r.headers, 0);
  console.log(`first visit: ${responses.length} responses, ${bytes} bytes (models ${by(/\.safetensors$/)}, wasm ${by(/\.wasm$/)}, everything else ${bytes - by(/\.safetensors$|\.wasm$/)}); by the first result (${Math.round(tl.firstResult)} ms) ${transferredBy(tl, tl.firstResult)}`);
  assert.ok(bytes <= LIMIT, `a first visit transferred ${bytes} bytes, over the ${LIMIT} allowed`);
  // One model, the autoregressive one every default lane decodes with.
  const firstModel = models.find((m) => m.autoregressive).file;
  assert.deepEqual(downloaded, [firstModel]);
  assert.deepEqual(used, [firstModel]);
  // The count is real: the models and the wasm are in it, each once.
  assert.ok(by(/\.wasm$/) > 50_000, 'the WebAssembly is counted');
  assert.deepEqual([...downloaded].sort(), [...used].sort(), 'each model a lane uses is downloaded once, and no other');
  assert.ok(!models.some((m) => m.arch === 'rnn' && downloaded.includes(m.file)), 'no RNN model on a first visit');
  // The modules it loads are the ones index.html preloads and the decoder worker names
  // (scripts/gen-module-lists.mjs), each of them, and no other: no module waits for the
  // one that imports it, and no preload is fetched for nothing.
  const listed = (file, re) => [...readFileSync(join(site, file), 'utf8').matchAll(re)].map((m) => new URL(m[1], new URL(file, 'http://site/')).pathname.slice(1));
  const preloaded = listed('index.html', /<link rel="modulepreload" href="([^"]+)">/g);
  const named = listed('js/decoder-worker.js', /^import '([^']+)';$/gm);
  const modules = [...new Set(responses.map((r) => new URL(r.url).pathname.slice(1)).filter((p) => /\.m?js$/.test(p)))];
  assert.deepEqual(modules.filter((p) => p !== 'js/decoder-worker.js').sort(), [...new Set([...preloaded, ...named])].sort(),
    'the modules a first visit loads, against index.html\'s preloads and decoder-worker.js\'s imports');
});

test('an address with a non-autoregressive lane downloads its model too, once the first result is drawn', async () => {
  const { downloaded, used, tl } = await firstVisit('/?lane=greedy&lane=nar');
  const firstModel = models.find((m) => m.autoregressive).file;
  const cmlm = models.find((m) => !m.autoregressive && m.arch !== 'rnn').file;
  assert.deepEqual([...used].sort(), [firstModel, cmlm].sort());
  assert.deepEqual([...downloaded].sort(), [...used].sort());
  // By the first result: the first lane's model, and no other (web/js/engine.js's gate).
  const modelsByFirst = tl.resources.filter((r) => r.name.endsWith('.safetensors') && r.end > 0 && r.end <= tl.firstResult && r.bytes > 0);
  assert.deepEqual(modelsByFirst.map((r) => new URL(r.name).pathname.slice(1)), [firstModel]);
  const later = tl.resources.filter((r) => r.name.endsWith(`/${cmlm}`));
  assert.ok(later.length === 1 && later[0].start >= tl.firstResult - 1, 'the other lane\'s model is asked for after the first result');
});

test('a link to the compare lane downloads the RNN models it compares, and nothing else', async () => {
  const compare = compareModels(models).filter(Boolean);
  if (!compare.length) return;
  const files = compare.map((m) => m.file);
  const word = compare[0].examples[0];
  const { downloaded, used, tl } = await firstVisit(`/?w=${word}&lane=compare`);
  assert.deepEqual([...used].sort(), [...files].sort());
  assert.deepEqual([...downloaded].sort(), [...files].sort());
  // The compare lane's result needs all of its models: each loads as soon as the one
  // before it has, not after the first-result gate's fallback (2 s after the first).
  const names = files.map((f) => f.split('/').pop());
  for (let i = 1; i < names.length; i++) {
    const gap = tl.marks[`spawn ${names[i]}`] - tl.marks[`loaded ${names[i - 1]}`];
    assert.ok(gap < 1000, `${names[i]} started ${Math.round(gap)} ms after ${names[i - 1]} had loaded`);
  }
});

test('a link to lanes on other models downloads exactly those models', async () => {
  const rnn = models.find((m) => m.arch === 'rnn');
  const other = rnn ?? models.find((m) => m.autoregressive && m !== models.find((x) => x.autoregressive));
  if (!other) return;
  const word = other.examples[0];
  const { downloaded, used } = await firstVisit(`/?w=${word}&lane=greedy:m=${other.id}&lane=beam:m=${other.id}`);
  assert.deepEqual(used, [other.file]);
  assert.deepEqual(downloaded, [other.file]);
});

test('the tests\' error record: leaving a page mid-download is no failure, an abort by the page itself is', async () => {
  // openPage() forgives requests Chromium aborts because the test navigated away; it must
  // forgive nothing else. The network is slowed so that each page is left with its wasm and
  // model still on the wire.
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser.context);
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 50, downloadThroughput: 200_000, uploadThroughput: 200_000 });
    const left = [];
    page.on('requestfailed', (r) => left.push(r.url()));
    // Not waiting for the load event: at this bandwidth the page's modules share the wire
    // with the model boot.js starts at once, and the event can come after 30 s.
    const modelAsked = page.waitForRequest((r) => r.url().endsWith('.safetensors'), { timeout: 60000 });
    await page.goto(server.url, { waitUntil: 'commit' });
    await modelAsked;
    // The reload's own response shares the slowed wire with what the page had in flight:
    // with two browsers on two busy cores its commit once took over 30 s.
    await page.reload({ waitUntil: 'commit', timeout: 60000 });
    await page.waitForRequest((r) => r.url().endsWith('.wasm'), { timeout: 60000 });
    await page.goto(server.url, { waitUntil: 'commit', timeout: 60000 });
    assert.ok(left.some((u) => u.endsWith('.safetensors')), `a model download was cut off: ${left.join(', ')}`);
    assert.deepEqual(errors, []);
    await page.evaluate(async () => {
      const stop = new AbortController();
      const asked = fetch('models.json?aborted', { signal: stop.signal }).catch(() => {});
      stop.abort();
      await asked;
    });
    await new Promise((r) => setTimeout(r, 200));   // the failure event's round trip
    assert.deepEqual(errors.filter((e) => !e.includes('?aborted')), []);
    assert.equal(errors.length, 1, errors.join('\n'));
  } finally {
    await browser.close();
  }
});
