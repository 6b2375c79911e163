// Shared by the browser tests: build-free server start/stop on a free port and
// Debian's Chromium through playwright-core (which never downloads a browser). Firefox
// and WebKit, for the checks every engine runs: engines.mjs.
import { after, before } from 'node:test';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const site = process.env.SEQ2SEQ_SITE ? resolve(process.env.SEQ2SEQ_SITE) : join(root, 'build/site');
export const artifacts = join(root, 'tests/artifacts');

export async function startServer(dir = site) {
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`${dir} is missing: run node scripts/build-web.mjs`);
  const proc = spawn(process.execPath, [join(root, 'scripts/serve.mjs'), dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  // A server that failed to start is killed: left running, it would keep the test file's process alive for ever.
  const url = await new Promise((res, rej) => {
    let buf = '';
    // The rejection waits one more turn of the event loop: when a test file's other set-up
    // blocked the loop past the deadline (installPackage() packs synchronously), the
    // server's "serving" line is already waiting to be read, and it must win.
    const timer = setTimeout(() => setImmediate(() => rej(new Error('server did not start'))), 10000);
    proc.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/serving (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); res(m[1]); }
    });
    proc.on('exit', (c) => rej(new Error(`server exited with ${c}`)));
  }).catch((e) => { proc.kill('SIGKILL'); throw e; });
  return { url, stop: () => new Promise((r) => { proc.once('exit', r); proc.kill('SIGTERM'); }) };
}

export async function launch() {
  const userDir = mkdtempSync(join(tmpdir(), 'seq2seq-chromium-'));
  const context = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
    viewport: { width: 1500, height: 1000 },
  });
  return { context, close: async () => { await context.close(); rmSync(userDir, { recursive: true, force: true }); } };
}

/** The set-up most browser test files share: the site served and one Chromium
 * for the whole file (started in before(), stopped in after(), then `cleanup`).
 * Returns { context, url(query) }, usable once the tests run. */
export function servedSite({ cleanup } = {}) {
  let server;
  let browser;
  before(async () => {
    server = await startServer();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await cleanup?.();
  });
  return {
    get context() { return browser.context; },
    url: (q) => new URL(q, server.url).href,
  };
}

/** Fails if the page is wider than the phone viewport it is shown in. */
export async function assertFitsPhone(page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 1) throw new Error(`the page is ${overflow}px wider than a phone screen`);
}

/**
 * On a narrow screen the lanes show one at a time behind tabs (web/js/lane-tabs.js):
 * opens the tab of the lane that holds `selector`'s first match, if it is hidden.
 */
export async function openLaneOf(page, selector) {
  const id = await page.$eval(selector, (el) => { const lane = el.closest('.lane'); return lane?.hidden ? lane.id : null; });
  if (id) await page.click(`#${id}-tab`);
}

/** The lanes' tabs as shown now, by id; [null] when every lane is in view (a wide screen). */
export async function laneTabs(page) {
  const ids = await page.$$eval('#lane-tabs:not([hidden]) [role="tab"]', (ts) => ts.map((t) => t.id));
  return ids.length ? ids : [null];
}

/** A page that records console errors and uncaught exceptions. */
export async function openPage(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message} ${(e.stack ?? "").split("\n").slice(1, 4).join(" | ")}`));
  // A goto or reload while the last page still downloads (its wasm, a model) makes Chromium
  // abort those requests: that is the test leaving the page, not the page failing. The page
  // never aborts a request itself, so an abort counts unless it came while the main frame
  // was being navigated (from its navigation request to its commit: the document being left
  // still asks until then, and its requests fail before the commit is reported) or hit a
  // request of a document already left (its worker's, stopped after the commit).
  let leaving = false;
  let documents = 0;
  const madeIn = new WeakMap();
  page.on('request', (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) leaving = true;
    madeIn.set(r, documents);
  });
  page.on('framenavigated', (f) => {
    // Only a navigation that sent a request commits a new document; a changed hash does not.
    if (f === page.mainFrame() && leaving) { leaving = false; documents += 1; }
  });
  page.on('requestfailed', (r) => {
    const text = r.failure()?.errorText;
    if (text === 'net::ERR_ABORTED' && (leaving || madeIn.get(r) < documents)) return;
    errors.push(`requestfailed: ${r.url()} ${text}`);
  });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  if (url) await page.goto(url);
  return { page, errors };
}

/** Waits until every lane has decoded the current word (body[data-ready] grows).
 * A load over an emulated slow network (bench/page-load.mjs) needs a longer timeout. */
export async function waitReady(page, previous = 0, timeout = 20000) {
  await page.waitForFunction((p) => Number(document.body?.dataset.ready ?? 0) > p && window.seq2seqPage?.lanes.every((l) => !l.busy), previous, { timeout });
  return page.evaluate(() => Number(document.body.dataset.ready));
}

/** Waits until the page has settled after a step: every lane decoded and nothing in the
 * lanes still asked of the model (an inside view's intermediates, a reference's score:
 * each placeholder carries `data-loading`). Text read before then may hold a placeholder. */
export async function settled(page, timeout = 20000) {
  await page.waitForFunction(() => window.seq2seqPage?.lanes.every((l) => !l.busy)
    && !document.querySelector('#lanes [data-loading]'), null, { timeout });
}

/** Where a view's axe-and-layout test runs: each language once and each width once,
 * English on the desktop and Chinese on the phone (the tour walks all four). */
export const VIEW_CHECKS = [['en', [1400, 1000]], ['zh', [390, 844]]];

export function artifact(name) {
  mkdirSync(artifacts, { recursive: true });
  return join(artifacts, name);
}

/**
 * Where a tour stop's elements stand (tour.test.mjs, tour-train.test.mjs): each of
 * `selectors` looked up under the element `rootId`, whether it was found, whether they
 * alone are outlined, each one's box, outline and how many of its corners and centre
 * something else covers; the step bar's, the panel's and the window's size; the lane tab shown.
 */
export function tourTargets(page, rootId, selectors) {
  return page.evaluate(({ rootId, selectors }) => {
    const rect = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, width: r.width }; };
    const root = document.getElementById(rootId);
    const want = selectors.map((sel) => root.querySelector(sel));
    const outlined = [...document.querySelectorAll('.tour-target')];
    return {
      found: want.map((el) => !!el),
      same: outlined.length === want.length && want.every((el) => outlined.includes(el)),
      targets: want.filter(Boolean).map((t) => {
        const r = rect(t);
        // What is drawn at the target's corners and centre: the target, not the panel or the bar.
        const pts = [[r.left + 6, r.top + 6], [r.right - 6, r.top + 6], [r.left + 6, r.bottom - 6], [r.right - 6, r.bottom - 6], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]];
        const covered = pts.filter(([x, y]) => { const hit = document.elementFromPoint(x, y); return !hit || !t.contains(hit); }).length;
        return { r, covered, outline: getComputedStyle(t).outlineStyle };
      }),
      bar: rect(document.querySelector('.transport-bar')),
      panel: rect(document.getElementById('tour')),
      width: window.innerWidth,
      tab: document.querySelector('#lane-tabs [aria-selected="true"]')?.getAttribute('aria-controls') ?? null,
    };
  }, { rootId, selectors });
}

/**
 * Whether `text` is the stop's words with every placeholder filled: the template with
 * each {name} standing for some text without a brace or an ellipsis.
 */
export function filledFrom(template, text) {
  const parts = template.split(/\{\w+\}/).map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('([^{}…]+?)')}$`, 's').test(text);
}
