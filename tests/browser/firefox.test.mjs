// The engine checks (engine-checks.mjs) in Firefox ESR (Debian's firefox-esr),
// headless, driven by puppeteer-core over WebDriver BiDi.
//   node scripts/build-web.mjs && node --test tests/browser/firefox.test.mjs
import { engineChecks } from './engine-checks.mjs';
import { firefox } from './engines.mjs';

engineChecks('Firefox ESR', firefox);
