// What one page load transfers and when, seen from headless Chromium. Shared
// by the transfer-size test (tests/browser/weight.test.mjs) and the
// time-to-first-result benchmark (bench/page-load.mjs).
//
//   const net = recordNetwork(page);   // before page.goto
//   ... load, wait until ready ...
//   const { bytes, responses } = await net.total();
//   const tl = await timeline(page);   // marks and resources on the page's clock
//   transferredBy(tl, tl.firstResult)  // bytes of the responses complete by then

/**
 * Every response the page and its dedicated workers receive (Playwright
 * reports workers' requests on their page). bytes = encoded body + headers, as
 * they crossed the wire; a revalidated (304) response counts its headers only.
 */
export function recordNetwork(page) {
  const pending = [];
  const responses = [];
  page.on('requestfinished', (request) => {
    pending.push((async () => {
      const sizes = await request.sizes().catch(() => null);
      const response = await request.response().catch(() => null);
      if (!sizes || !response) return;
      responses.push({
        url: request.url(),
        status: response.status(),
        body: sizes.responseBodySize,
        headers: sizes.responseHeadersSize,
      });
    })());
  });
  return {
    responses,
    async total() {
      // New requests may finish while we wait for the earlier ones.
      for (let n = -1; n !== pending.length;) {
        n = pending.length;
        await Promise.all(pending);
      }
      return { bytes: responses.reduce((a, r) => a + r.body + Math.max(0, r.headers), 0), responses };
    },
  };
}

/**
 * The page's Performance API timeline, with its workers' resource entries
 * moved onto the page's clock (ms since navigation start): navigation, first
 * contentful paint, the page's marks (web/js/app.js, engine.js, lane.js) and
 * the body[data-*] times the page records for its first results. resources
 * holds the document itself too (where: 'page'), and each entry's bytes is its
 * transferSize: the encoded body + 300 for the headers (Chromium's fixed figure;
 * the page is not shown the real ones), 300 for a revalidation (304), 0 from
 * the cache. Chromium lists a dedicated worker's module scripts on the page
 * that started it, the worker's fetch() calls on the worker.
 */
export async function timeline(page) {
  const pageSide = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = (e) => ({ name: e.name, start: e.fetchStart, end: e.responseEnd, bytes: e.transferSize });
    return {
      document: nav ? res(nav) : null,
      origin: performance.timeOrigin,
      html: nav ? nav.responseEnd : null,
      domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
      marks: Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])),
      resources: performance.getEntriesByType('resource').map(res),
      firstResult: Number(document.body.dataset.firstLaneMs) || null,
      allLanes: Number(document.body.dataset.allLanesMs) || null,
    };
  });
  const { document: doc, ...rest } = pageSide;
  const resources = [doc, ...rest.resources].filter(Boolean).map((r) => ({ ...r, where: 'page' }));
  for (const w of page.workers()) {
    const side = await w.evaluate(() => ({
      origin: performance.timeOrigin,
      resources: performance.getEntriesByType('resource').map((e) => ({ name: e.name, start: e.fetchStart, end: e.responseEnd, bytes: e.transferSize })),
    })).catch(() => null);
    if (!side) continue;
    const shift = side.origin - pageSide.origin;
    for (const r of side.resources) resources.push({ ...r, start: r.start + shift, end: r.end + shift, where: 'worker' });
  }
  return { ...rest, resources };
}

/** Bytes (transferSize, as in timeline()) of the responses that had fully
 * arrived by `ms` on the page's clock; null when `ms` is unknown. */
export function transferredBy(tl, ms) {
  if (ms == null) return null;
  return tl.resources.filter((r) => r.end > 0 && r.end <= ms).reduce((a, r) => a + r.bytes, 0);
}
