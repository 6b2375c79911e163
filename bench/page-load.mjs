#!/usr/bin/env node
// Time to first result of the page (the aim: the first result within 1 s of load),
// first visits in headless Chromium: each load gets a fresh browser profile (an
// empty HTTP cache), the server stays warm. Each load runs under a network
// profile (Chromium's emulation through CDP, Network.emulateNetworkConditions,
// set before navigation): unthrottled (the loopback), 10mbit (10 Mbit/s each
// way, 20 ms latency) and 1.6mbit (1.6 Mbit/s down, 750 kbit/s up, 150 ms: the
// link DevTools calls "Slow 4G"; its preset scales these to 0.9 of the rates
// and 562.5 ms, to stand in for packet-level effects, where these are the
// nominal figures). Prints every load's timeline and the median of each column.
//
//   node scripts/build-web.mjs && node bench/page-load.mjs [--runs N] [--profiles unthrottled,10mbit,1.6mbit] [--query '?w=KNIGHT'] [--against DIR]
//
// --against DIR also loads another build of the site (e.g. an older commit's,
// built with its own scripts/build-web.mjs DIR), alternating with this one so
// that the machine's load hits both alike, and prints both medians, per profile.
//
// The emulation set on the page's CDP session throttles the page's dedicated
// workers too (Chromium 156, measured): a worker's fetch() of the wasm (260 KB
// gzip, cache: 'no-store') took 1,477 ms at 1.6mbit, as long as the same fetch
// from the page, against 75 ms unthrottled; the decoder worker's module scripts
// (listed on the page's timeline) and its revalidation of the wasm (listed on
// the worker's) each took at least the 150 ms latency. So no session is
// attached to the workers; a throttled load warns if a worker's request came
// back sooner than the latency, which would mean that this stopped holding.
//
// Columns (ms since navigation start, from the Performance API; worker
// resources are moved onto the page's clock):
//   html      the document has arrived           fcp     first contentful paint
//   app       the page's modules have run        worker  the first decoder worker's code has loaded (its first fetch)
//   wasm      the WebAssembly has arrived        model   the first lane's model has arrived
//   loaded    the worker has compiled the wasm and parsed the model
//   first     the first lane's result is drawn   all     every lane's result is drawn
//   cpu       CPU time all Chromium processes spent from navigation to every lane's
//             result (ms; /proc): it depends less on what else runs than the times do
//   kbFirst   KB that had arrived when the first result was drawn, kbAll when every
//             lane's was (resource timings' transferSize: encoded bodies + 300 B of
//             headers each, tests/browser/load-record.mjs)
// and, from one more (unthrottled) load, the KB transferred as the network events
// count it (encoded bodies + the real headers). Not a test: the machine is
// shared, so the figures are reported, never asserted.
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { launch, openPage, startServer, waitReady } from '../tests/browser/helpers.mjs';
import { recordNetwork, timeline, transferredBy } from '../tests/browser/load-record.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(arg('runs', 7));
const QUERY = arg('query', '');

// Rates in bytes/s, latency in ms (what Network.emulateNetworkConditions takes);
// timeout: how long a load may take to show every lane's result.
const PROFILES = {
  unthrottled: { conditions: null, timeout: 20000 },
  '10mbit': { conditions: { latency: 20, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 }, timeout: 60000 },
  '1.6mbit': { conditions: { latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 }, timeout: 180000 },
};
const profileNames = arg('profiles', Object.keys(PROFILES).join(',')).split(',');
for (const p of profileNames) if (!PROFILES[p]) throw new Error(`--profiles: unknown profile ${p}; known: ${Object.keys(PROFILES).join(', ')}`);

const median = (xs) => {
  const v = xs.filter((x) => x != null && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return null;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

// CPU time (ms, user + system) of this process's Chromium descendants, from
// /proc: what a load costs, whatever else the machine is doing. Linux only.
function chromiumCpuMs() {
  let pids;
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const stat = new Map();
  for (const pid of pids) {
    try {
      const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = s.lastIndexOf(')');
      const comm = s.slice(s.indexOf('(') + 1, close);
      const f = s.slice(close + 2).split(' ');   // f[0] is field 3 (state)
      stat.set(Number(pid), { comm, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* gone */ }
  }
  const mine = (pid) => {
    for (let p = pid; p > 1; p = stat.get(p)?.ppid ?? 0) if (p === process.pid) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, s] of stat) if (/chrom/i.test(s.comm) && mine(pid)) ticks += s.ticks;
  return (ticks * 1000) / 100;   // USER_HZ is 100 on Linux
}

const kib = (bytes) => (bytes == null ? null : bytes / 1024);

// Recording the network (Playwright asks the browser about every response)
// slows a load down, so timed loads do not; one extra load counts the bytes.
async function oneLoad(url, { record = false, profile = PROFILES.unthrottled } = {}) {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser.context);
    if (profile.conditions) {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...profile.conditions });
    }
    const net = record ? recordNetwork(page) : null;
    const cpu0 = chromiumCpuMs();
    await page.goto(url, { waitUntil: 'commit', timeout: profile.timeout });
    await waitReady(page, 0, profile.timeout);
    const cpu = cpu0 == null ? null : chromiumCpuMs() - cpu0;
    const tl = await timeline(page);
    const bytes = net ? (await net.total()).bytes : null;
    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
    const firstModel = Object.keys(tl.marks).find((m) => m.startsWith('loaded '))?.slice('loaded '.length);
    const res = (pred) => tl.resources.filter(pred).sort((a, b) => a.end - b.end)[0];
    if (profile.conditions) {
      const quick = tl.resources.filter((r) => r.where === 'worker' && r.bytes > 0 && r.end - r.start < profile.conditions.latency);
      if (quick.length) console.warn(`warning: a worker's request came back sooner than the emulated latency (${quick.map((r) => `${r.name} ${Math.round(r.end - r.start)} ms`).join(', ')}): are workers still throttled?`);
    }
    const workerStart = tl.resources.filter((r) => /\/wasm\/src\/(?!worker-client)/.test(r.name) && r.where === 'worker')
      .concat(tl.resources.filter((r) => /seq2seq_core\.(wasm|mjs)$/.test(r.name)))
      .sort((a, b) => a.start - b.start)[0];
    return {
      html: tl.html,
      fcp: tl.fcp,
      app: tl.marks['app-main'],
      worker: workerStart?.start,
      wasm: res((r) => r.name.endsWith('.wasm'))?.end,
      model: firstModel ? res((r) => r.name.endsWith(`/${firstModel}`))?.end : null,
      loaded: firstModel ? tl.marks[`loaded ${firstModel}`] : null,
      first: tl.firstResult,
      all: tl.allLanes,
      cpu,
      kbFirst: kib(transferredBy(tl, tl.firstResult)),
      kbAll: kib(transferredBy(tl, tl.allLanes)),
      kb: kib(bytes),
    };
  } finally {
    await browser.close();
  }
}

// The parts of a first result, each timed on its own in a fresh profile (the
// page's main thread; the worker does the same work): the WebAssembly compiled
// from its bytes, the Emscripten module set up (compile + instantiate), the
// model parsed into the engine, the first greedy decode (baseline-compiled
// wasm) and a later one.
async function parts(baseUrl) {
  const browser = await launch();
  try {
    const { page } = await openPage(browser.context, new URL('/models.json', baseUrl).href);
    return await page.evaluate(async () => {
      const site = await (await fetch('/models.json')).json();
      const ar = site.models.find((m) => m.autoregressive);
      const now = () => performance.now();
      let t = now();
      const wasm = await (await fetch('/wasm/dist/seq2seq_core.wasm')).arrayBuffer();
      const modelBytes = new Uint8Array(await (await fetch(`/${ar.file}`)).arrayBuffer());
      const download = now() - t;
      t = now();
      await WebAssembly.compile(wasm);
      const compile = now() - t;
      t = now();
      const { loadCore } = await import('/wasm/src/core.js');
      const { loadModel } = await import('/wasm/src/index.js');
      await loadCore();
      const setup = now() - t;
      t = now();
      const model = await loadModel(modelBytes);
      const parse = now() - t;
      const word = ar.examples[0];
      t = now();
      model.decode(word, { strategy: 'greedy' });
      const firstDecode = now() - t;
      t = now();
      model.decode(word, { strategy: 'greedy' });
      const laterDecode = now() - t;
      return { model: ar.id, word, download, compile, setup, parse, firstDecode, laterDecode };
    });
  } finally {
    await browser.close();
  }
}

const AGAINST = arg('against', null);
const cols = ['html', 'fcp', 'app', 'worker', 'wasm', 'model', 'loaded', 'first', 'all', 'cpu', 'kbFirst', 'kbAll'];
const cell = (v) => (v == null ? '–' : Math.round(v));
const kb = (v) => Math.round(v).toLocaleString('en-US');
const sites = [{ name: 'this build', server: await startServer() }];
if (AGAINST) sites.push({ name: AGAINST, server: await startServer(AGAINST) });
try {
  console.log(`page load, first visits${QUERY ? ` of ${QUERY}` : ''}; profiles ${profileNames.join(', ')}; ${RUNS} runs each${AGAINST ? ', alternating builds' : ''}; ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}; load average ${loadavg()[0].toFixed(1)} at start`);
  // The first load of each warms its server's file cache (a real server has
  // its files in memory too) and counts the bytes; not timed.
  for (const s of sites) {
    s.url = new URL(QUERY || '/', s.server.url).href;
    s.rows = Object.fromEntries(profileNames.map((p) => [p, []]));
    s.kb = (await oneLoad(s.url, { record: true })).kb;
  }
  console.log(`| profile | site | run | ${cols.join(' | ')} |`);
  console.log(`| --- | --- | ---: | ${cols.map(() => '---:').join(' | ')} |`);
  for (const p of profileNames) {
    for (let i = 0; i < RUNS; i++) {
      for (const s of sites) {
        const r = await oneLoad(s.url, { profile: PROFILES[p] });
        s.rows[p].push(r);
        console.log(`| ${p} | ${s.name} | ${i + 1} | ${cols.map((c) => cell(r[c])).join(' | ')} |`);
      }
    }
    for (const s of sites) console.log(`| ${p} | ${s.name} | median | ${cols.map((c) => cell(median(s.rows[p].map((r) => r[c])))).join(' | ')} |`);
  }
  console.log('');
  for (const s of sites) {
    if (sites.length > 1) console.log(`${s.name}:`);
    for (const p of profileNames) {
      const rows = s.rows[p];
      const first = rows.map((r) => r.first);
      console.log(`${p}: first result median ${Math.round(median(first))} ms (min ${Math.round(Math.min(...first))}, max ${Math.round(Math.max(...first))}); `
        + `${kb(median(rows.map((r) => r.kbFirst)))} KB before the first result, ${kb(median(rows.map((r) => r.kbAll)))} KB in all`);
    }
    console.log(`${s.name}: ${kb(s.kb)} KB transferred in one unthrottled load, as the network events count it (real headers)`);
  }
  const p = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) p.push(await parts(sites[0].url));
  const m = (k) => Math.round(median(p.map((x) => x[k])));
  console.log(`\nparts (median of ${p.length}, ${p[0].model}, ${p[0].word}): downloads (wasm + model, cache empty) ${m('download')} ms; WebAssembly.compile ${m('compile')} ms; `
    + `Emscripten set-up (compile + instantiate) ${m('setup')} ms; model parse ${m('parse')} ms; first greedy decode ${m('firstDecode')} ms, a later one ${m('laterDecode')} ms`);
  console.log(`load average ${loadavg()[0].toFixed(1)} at end`);
} finally {
  for (const s of sites) await s.server.stop();
}
