// The engine checks (engine-checks.mjs) in WebKitGTK, the engine of Safari: Debian's
// MiniBrowser through WebKitWebDriver (classic WebDriver) on an Xvfb display.
//   node scripts/build-web.mjs && node --test tests/browser/webkit.test.mjs
import { engineChecks } from './engine-checks.mjs';
import { webkit } from './engines.mjs';

// Its Cache API forgets a page's entries when that page is loaded again under
// WebDriver (the cached-load test says why).
engineChecks('WebKitGTK', webkit, { cacheLostOnReload: true });
