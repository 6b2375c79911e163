// The page's words: one flat map of key -> string per language (web/i18n/*.js),
// and t(key, params) to read one. "{name}" in a string is a placeholder, filled
// from params. Strings whose key ends in "_html" hold markup (the callers put
// them in as HTML, and escape what they fill in); the others are plain text.
// tests/node/i18n-keys.test.mjs holds both maps to the same keys and placeholders,
// and to the keys the page uses.
import en from '../i18n/en.js';

// English is always here (the fallback); another language's strings arrive the
// first time it is chosen, so an English visit does not fetch them.
const LOADERS = { zh: () => import('../i18n/zh.js') };
const STRINGS = { en };
export const LANGS = ['en', ...Object.keys(LOADERS)];
// The value of <html lang> for each.
const HTML_LANG = { en: 'en', zh: 'zh-Hans' };

let current = 'en';

export function lang() { return current; }

/**
 * Switches the language t() answers in, loading its strings first if they are
 * not here yet ('en' for anything unknown); resolves to the language set.
 */
export async function setLang(l) {
  if (Object.hasOwn(LOADERS, l) && !Object.hasOwn(STRINGS, l)) STRINGS[l] = (await LOADERS[l]()).default;
  current = Object.hasOwn(STRINGS, l) ? l : 'en';
  if (globalThis.document) document.documentElement.lang = HTML_LANG[current];
  return current;
}

export function t(key, params) {
  const table = STRINGS[current];
  // A key missing here is a bug the key test catches; English is better than nothing meanwhile.
  const s = Object.hasOwn(table, key) ? table[key] : Object.hasOwn(en, key) ? en[key] : key;
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, name) => (Object.hasOwn(params, name) ? String(params[name]) : m));
}

/**
 * Fills the page's static text from the current language: data-i18n="key"
 * sets the text, data-i18n-html="key" the markup, data-i18n-attr="attr:key;attr:key"
 * attributes.
 */
export function applyStatic(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-html]')) el.innerHTML = t(el.dataset.i18nHtml);
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':');
      el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}
