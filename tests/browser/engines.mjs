// Two browser engines besides Chromium, behind one small interface so that one test
// body serves both (tests/browser/engine-checks.mjs):
//   - Firefox ESR (Debian's firefox-esr), driven by puppeteer-core over WebDriver BiDi;
//   - WebKitGTK (the engine of Safari): its MiniBrowser through WebKitWebDriver, classic
//     W3C WebDriver over HTTP, on an Xvfb display of its own (the GTK MiniBrowser has no
//     headless mode; WPE's has).
// An engine: { name, version, open(url), evaluate(fn, arg), waitFor(fn, arg, what, timeout),
// screenshot(path), errors(), close() }, its page 1400×1000. evaluate runs fn (its source:
// it closes over nothing) in the page as an async function of one JSON argument and
// resolves to its JSON result; waitFor polls it until it returns something truthy.
// errors(): the console errors and uncaught exceptions seen since open(), or null where
// the engine's protocol does not report them (classic WebDriver has no console).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import puppeteer from 'puppeteer-core';

const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';
const WEBDRIVER = process.env.WEBKIT_WEBDRIVER ?? '/usr/bin/WebKitWebDriver';
const MINIBROWSER = process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const SIZE = { width: 1400, height: 1000 };

/** Polls fn(arg) in the page until it returns a truthy value (which it resolves to). */
async function poll(evaluate, fn, arg, what, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    // A navigation under way can make one evaluation fail: the next one is on the new page.
    const got = await evaluate(fn, arg).catch((e) => (Date.now() < deadline ? null : Promise.reject(e)));
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function engine(name, impl) {
  return { name, ...impl, waitFor: (fn, arg, what = 'the page', timeout = 30000) => poll(impl.evaluate, fn, arg, what, timeout) };
}

export async function firefox() {
  // A start-up deadline that outlasts the synchronous set-up a test file may run while the
  // browser starts (engine-checks.mjs: installPackage()), whose timer would fire first.
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, protocol: 'webDriverBiDi', headless: true,
    timeout: 180000 });
  const page = (await browser.pages())[0] ?? await browser.newPage();
  await page.setViewport(SIZE);
  let errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  return engine('Firefox', {
    version: await browser.version(),
    async open(url) {
      errors = [];
      await page.goto(url);
    },
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    screenshot: (path) => page.screenshot({ path }),
    errors: () => errors.slice(),
    close: () => browser.close(),
  });
}

/** A port nothing listens on now. */
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
    s.on('error', rej);
  });
}

/** Xvfb on a display number it picks itself (-displayfd): { display, stop() }. */
async function startXvfb() {
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1600x1200x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const display = await new Promise((res, rej) => {
    let out = '';
    // The rejection waits one more turn of the event loop: after synchronous set-up that
    // blocked it past the deadline, the display number is already waiting to be read.
    const timer = setTimeout(() => setImmediate(() => rej(new Error(`Xvfb did not start: ${log}`))), 10000);
    proc.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) { clearTimeout(timer); res(`:${out.trim()}`); }
    });
    proc.on('exit', (c) => { clearTimeout(timer); rej(new Error(`Xvfb exited with ${c}: ${log}`)); });
  }).catch((e) => { proc.kill('SIGKILL'); throw e; });
  return { display, stop: () => stopProcess(proc) };
}

function stopProcess(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((r) => { proc.once('exit', r); proc.kill('SIGTERM'); });
}

/** WebKitWebDriver on a free port, with one MiniBrowser session on its own Xvfb display. */
export async function webkit() {
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = spawn(WEBDRIVER, [`--port=${port}`], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DISPLAY: xvfb.display } });
  let log = '';
  driver.stderr.on('data', (d) => { log += d; });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const r = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    const { value } = await r.json();
    if (!r.ok) throw new Error(`WebDriver ${method} ${path}: ${value?.error}: ${value?.message}`);
    return value;
  };
  const s = (path) => `/session/${session.sessionId}${path}`;
  let session;
  try {
    // It answers /status once it listens (slow to start on a loaded machine).
    const deadline = Date.now() + 30000;
    for (;;) {
      const status = await call('GET', '/status').catch((e) => ({ ready: false, why: e.message }));
      if (status.ready) break;
      if (Date.now() > deadline || driver.exitCode !== null) {
        throw new Error(`WebKitWebDriver did not start (exit ${driver.exitCode}, ${status.why}): ${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    session = await call('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } } });
    await call('POST', s('/timeouts'), { script: 120000, pageLoad: 60000 });
    // WebDriver sets the window's outer size: grown until the page's viewport has SIZE.
    let rect = SIZE;
    for (let i = 0; i < 3; i++) {
      await call('POST', s('/window/rect'), rect);
      const [width, height] = await call('POST', s('/execute/sync'), { script: 'return [innerWidth, innerHeight]', args: [] });
      if (width === SIZE.width && height === SIZE.height) break;
      rect = { width: rect.width + SIZE.width - width, height: rect.height + SIZE.height - height };
    }
  } catch (e) {
    if (session) await call('DELETE', s('')).catch(() => {});
    await stopProcess(driver);
    await xvfb.stop();
    throw e;
  }
  return engine('WebKit', {
    version: `${session.capabilities.browserName} ${session.capabilities.browserVersion}`,
    open: (url) => call('POST', s('/url'), { url }),
    async evaluate(fn, arg) {
      // The function's own exception comes back as a value, with its message (WebKit's stack has none).
      const script = `const done = arguments[arguments.length - 1];
        Promise.resolve().then(() => (${fn.toString()})(arguments[0]))
          .then((value) => done({ value: value === undefined ? null : value }), (e) => done({ error: String(e) + '\\n' + (e?.stack ?? '') }));`;
      const got = await call('POST', s('/execute/async'), { script, args: [arg ?? null] });
      if (got?.error) throw new Error(`in the page: ${got.error}`);
      return got?.value;
    },
    async screenshot(path) {
      writeFileSync(path, Buffer.from(await call('GET', s('/screenshot')), 'base64'));
    },
    errors: () => null,
    async close() {
      await call('DELETE', s('')).catch(() => {});
      await stopProcess(driver);
      await xvfb.stop();
    },
  });
}
