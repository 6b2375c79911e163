#!/usr/bin/env node
// Time to first result of the page (the aim: the first result within 1 s of load),
// first visits in headless Chromium: each load gets a fresh browser profile (an
// empty HTTP cache), the server stays warm. Prints every load's timeline and
// the median of each column.
//
//   node scripts/build-web.mjs && node bench/page-load.mjs [--runs N] [--query '?w=KNIGHT'] [--against DIR]
//
// --against DIR also loads another build of the site (e.g. an older commit's,
// built with its own scripts/build-web.mjs DIR), alternating with this one so
// that the machine's load hits both alike, and prints both medians.
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
// and, from one more load, the KB transferred (encoded bodies + headers). Not a
// test: the machine is shared, so the figures are reported, never asserted.
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { launch, openPage, startServer, waitReady } from '../tests/browser/helpers.mjs';
import { recordNetwork, timeline } from '../tests/browser/load-record.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(arg('runs', 7));
const QUERY = arg('query', '');

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

// Recording the network (Playwright asks the browser about every response)
// slows a load down, so timed loads do not; one extra load counts the bytes.
async function oneLoad(url, { record = false } = {}) {
  const browser = await launch();
  try {
    const { page, errors } = await openPage(browser.context);
    const net = record ? recordNetwork(page) : null;
    const cpu0 = chromiumCpuMs();
    await page.goto(url);
    await waitReady(page);
    const cpu = cpu0 == null ? null : chromiumCpuMs() - cpu0;
    const tl = await timeline(page);
    const bytes = net ? (await net.total()).bytes : null;
    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
    const firstModel = Object.keys(tl.marks).find((m) => m.startsWith('loaded '))?.slice('loaded '.length);
    const res = (pred) => tl.resources.filter(pred).sort((a, b) => a.end - b.end)[0];
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
      kb: bytes == null ? null : bytes / 1024,
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
const cols = ['html', 'fcp', 'app', 'worker', 'wasm', 'model', 'loaded', 'first', 'all', 'cpu'];
const cell = (v) => (v == null ? '–' : Math.round(v));
const sites = [{ name: 'this build', server: await startServer() }];
if (AGAINST) sites.push({ name: AGAINST, server: await startServer(AGAINST) });
try {
  console.log(`page load, first visits${QUERY ? ` of ${QUERY}` : ''}; ${RUNS} runs${AGAINST ? ' each, alternating' : ''}; ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}; load average ${loadavg()[0].toFixed(1)} at start`);
  // The first load of each warms its server's file cache (a real server has
  // its files in memory too) and counts the bytes; not timed.
  for (const s of sites) {
    s.url = new URL(QUERY || '/', s.server.url).href;
    s.rows = [];
    s.kb = (await oneLoad(s.url, { record: true })).kb;
  }
  console.log(`| site | run | ${cols.join(' | ')} |`);
  console.log(`| --- | ---: | ${cols.map(() => '---:').join(' | ')} |`);
  for (let i = 0; i < RUNS; i++) {
    for (const s of sites) {
      const r = await oneLoad(s.url);
      s.rows.push(r);
      console.log(`| ${s.name} | ${i + 1} | ${cols.map((c) => cell(r[c])).join(' | ')} |`);
    }
  }
  for (const s of sites) console.log(`| ${s.name} | median | ${cols.map((c) => cell(median(s.rows.map((r) => r[c])))).join(' | ')} |`);
  console.log('');
  for (const s of sites) {
    const first = s.rows.map((r) => r.first);
    console.log(`${s.name}: first result median ${Math.round(median(first))} ms after navigation start (min ${Math.round(Math.min(...first))}, max ${Math.round(Math.max(...first))}); ${Math.round(s.kb)} KB transferred`);
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
