// index.html as the site serves it: the modulepreload links of the modules a first visit
// loads (scripts/gen-module-lists.mjs), the site data (models.json's content) and boot.js
// inline, so that the first decoder worker starts while the HTML is parsed with no
// request to wait for first, and the stylesheet inline, so that the first paint waits
// for no request either; the page's static words filled in in English (web/index.html
// holds keys: data-i18n, data-i18n-html, data-i18n-attr; web/js/i18n.js applyStatic),
// so that the first paint has words before the modules run.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import en from '../../web/i18n/en.js';
import { preloadLinks } from '../gen-module-lists.mjs';

// Where index.html takes the modulepreload links.
const PRELOADS = /<!-- scripts\/build-web\.mjs writes here the modulepreload links[^>]*-->\n/;

// What boot.js shares with the page (web/shared/, each importing nothing), inlined at the
// start of its function with their `export`s dropped: boot.js picks the first lane's
// model by the page's own rules.
const BOOT_SHARES = ['web/shared/lane-models.js'];

/** The static words of index.html in `strings` (a language file's). */
export function fillStatic(html, strings) {
  const get = (key) => {
    if (!Object.hasOwn(strings, key)) throw new Error(`web/index.html names the unknown string ${key}`);
    return strings[key];
  };
  const attr = (v) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const text = (v) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return html
    .replace(/(<(\w+)\b[^>]*\bdata-i18n(-html)?="([^"]+)"[^>]*>)(<\/\2>)/g, (m, open, tag, isHtml, key, close) => open + (isHtml ? get(key) : text(get(key))) + close)
    .replace(/\bdata-i18n-attr="([^"]+)"/g, (m, spec) => m + spec.split(';').map((pair) => {
      const [name, key] = pair.split(':').map((x) => x.trim());
      return ` ${name}="${attr(get(key))}"`;
    }).join(''));
}

/** boot.js with the shared modules inlined at the start of its function. */
export function bootScript(root) {
  const shared = BOOT_SHARES.map((f) => {
    const text = readFileSync(join(root, f), 'utf8');
    if (/^\s*import\b/m.test(text)) throw new Error(`${f} must import nothing: boot.js inlines it`);
    return text.replace(/^export /gm, '');
  }).join('\n');
  const source = readFileSync(join(root, 'web/js/boot.js'), 'utf8');
  const opening = '\n(() => {\n';
  if (source.split(opening).length !== 2) throw new Error('web/js/boot.js must hold one function opening "(() => {"');
  const boot = source.replace(opening, () => `${opening}${shared}\n`);
  if (/<\/script/i.test(boot)) throw new Error('web/js/boot.js must not contain "</script"');
  return boot;
}

/** Rewrites `out`/index.html with `site` (the site data), boot.js and style.css inline; removes the two files. */
export function writeIndexHtml(root, out, site) {
  const htmlPath = join(out, 'index.html');
  let html = readFileSync(htmlPath, 'utf8');
  const inline = (tag, text) => {
    if (!html.includes(tag)) throw new Error(`web/index.html lacks ${tag}`);
    html = html.replace(tag, () => text);
  };
  const json = JSON.stringify(site).replace(/</g, '\\u003c');
  inline('<script src="js/boot.js"></script>', `<script type="application/json" id="site-data">${json}</script>\n<script>\n${bootScript(root)}</script>`);
  const css = readFileSync(join(root, 'web/style.css'), 'utf8');
  if (/<\/style/i.test(css)) throw new Error('web/style.css must not contain "</style"');
  inline('<link rel="stylesheet" href="style.css">', `<style>\n${css}</style>`);
  if (!PRELOADS.test(html)) throw new Error('web/index.html lacks the comment the modulepreload links replace');
  html = html.replace(PRELOADS, () => `${preloadLinks(root).join('\n')}\n`);
  writeFileSync(htmlPath, fillStatic(html, en));
  rmSync(join(out, 'style.css'));   // now in index.html, as boot.js is
  rmSync(join(out, 'js/boot.js'));
}
