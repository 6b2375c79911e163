// Pieces of HTML/SVG the lanes are drawn from. Pure functions: data in, markup out.
import { editDistance, ipa, ipaOf, label } from './phonemes.js';
import { t } from './i18n.js';
import { fmtPct, pctDigits } from './format.js';

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

// Sequential blue scale for attention (0 = white, 1 = dark blue).
const BLUES = [[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]];
function blueRgb(v) {
  const x = Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0)) * (BLUES.length - 1);
  const i = Math.min(BLUES.length - 2, Math.floor(x));
  const f = x - i;
  return BLUES[i].map((a, j) => Math.round(a + (BLUES[i + 1][j] - a) * f));
}
export function blue(v) {
  return `rgb(${blueRgb(v).join(',')})`;
}
// Confidence scale: pale to dark green (dark enough for white text at the top).
function greenRgb(v) {
  const x = Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0));
  const a = [255, 255, 255];
  const b = [0, 100, 40];
  return a.map((p, j) => Math.round(p + (b[j] - p) * x));
}
export function green(v) {
  return `rgb(${greenRgb(v).join(',')})`;
}
// Black or white, whichever has the higher contrast on a background colour.
function inkOn(rgb) {
  const lin = (c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  const [r, g, b] = rgb.map(lin);
  const L = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (L + 0.05) > (L + 0.05) / 0.05 ? '#fff' : '#000';
}
/** Black or white, whichever reads better on green(v): at least 4.5:1 (WCAG AA) all along the scale. */
export function inkOnGreen(v) {
  return inkOn(greenRgb(v));
}
/** The same on blue(v): a fixed switch at 0.45 put white on the mid blues, below 4.5:1. */
export function inkOnBlue(v) {
  return inkOn(blueRgb(v));
}

/** One token as a chip: ARPAbet over IPA. */
export function chip(text, { cls = '', title = '' } = {}) {
  const i = ipaOf(text);
  return `<span class="chip ${cls}"${title ? ` title="${esc(title)}"` : ''}><span class="arpa">${esc(label(text))}</span>${i ? `<span class="ipa">${esc(i)}</span>` : ''}</span>`;
}

/**
 * A lane's prose, folded by default: the first screen shows decoding, and the words
 * are one click away (the tour's panel says them at its stops).
 */
export function explain(title, html, open = false) {
  return `<details class="explain"${open ? ' open' : ''}><summary>${esc(title)}</summary><div>${html}</div></details>`;
}

/**
 * Top-k bars of a next-token distribution. `leftOut` (sampling): the tokens the
 * distribution drawn from leaves out ([{text, prob}], the snapshot's), named in the key.
 */
export function bars(cands, chosen, { clickable = false, laneId = '', step = 0, leftOut = null } = {}) {
  // A sampled step's candidates carry drawnProb, the distribution the token was drawn
  // from (tempered, top-k / top-p cut): that is the bar; the model's own is a ghost behind it.
  const drawn = cands.some((c) => typeof c.drawnProb === 'number');
  const rows = cands.map((c) => {
    const model = c.prob * 100;
    const pct = drawn ? (c.drawnProb ?? 0) * 100 : model;
    const isChosen = c.token === chosen;
    const ghost = drawn ? `<span class="bar-ghost" style="width:${Math.max(0.5, model).toFixed(1)}%"></span>` : '';
    const inner = `<span class="bar-label">${esc(label(c.text))}<span class="ipa">${esc(ipaOf(c.text))}</span></span>`
      + `<span class="bar-track">${ghost}<span class="bar-fill" style="width:${pct > 0 ? Math.max(0.5, pct).toFixed(1) : 0}%"></span></span>`
      + `<span class="bar-value">${fmtPct(pct / 100)}${drawn ? `<span class="bar-model" title="${esc(t('bars.modelTitle'))}">${esc(t('bars.model', { pct: fmtPct(c.prob) }))}</span>` : ''}</span>`;
    const desc = drawn
      ? t(isChosen ? 'bars.descDrawnChosen' : 'bars.descDrawn', { token: label(c.text), pct: pctDigits(pct / 100), model: pctDigits(c.prob) })
      : t(isChosen ? 'bars.descChosen' : 'bars.desc', { token: label(c.text), pct: pctDigits(pct / 100) });
    if (clickable && !isChosen) {
      return `<li><button type="button" class="bar${isChosen ? ' chosen' : ''}" data-action="force" data-token="${esc(c.text)}" data-step="${step}" title="${esc(t('bars.forceTitle', { token: label(c.text) }))}">${inner}<span class="visually-hidden"> ${esc(t('bars.forceAria', { desc }))}</span></button></li>`;
    }
    return `<li><div class="bar${isChosen ? ' chosen' : ''}" aria-label="${esc(desc)}">${inner}</div></li>`;
  });
  // What renormalising over the tokens search may emit leaves out: drawn differs from the
  // model by that much even with every filter off, so the key says what and how much.
  const left = leftOut?.length ? leftOut.reduce((a, x) => a + x.prob, 0) : 0;
  const leftText = left > 0 ? ` ${t('bars.leftOut_html', { tokens: esc(leftOut.map((x) => label(x.text)).join(', ')), pct: esc(fmtPct(left)), keep: (1 - left).toFixed(4) })}` : '';
  const key = drawn ? `<p class="note bars-key" data-left-out="${left}">${t('bars.drawnKey_html')}${leftText}</p>` : '';
  return `${key}<ol class="bars${drawn ? ' drawn' : ''}" data-lane="${esc(laneId)}">${rows.join('')}</ol>`;
}

// A table that may scroll sideways: focusable and named, so that keyboard users can scroll it.
export function scrollRegion(inner, name = t('table.scroll')) {
  return `<div class="table-scroll" tabindex="0" role="region" aria-label="${esc(name)}">${inner}</div>`;
}

// The key to heatmap colours: the blue ramp from 0 to 1, as blue() draws it.
export function colourScale(label = t('heatmap.scale')) {
  const stops = BLUES.map((c, i) => `rgb(${c.join(',')}) ${Math.round((100 * i) / (BLUES.length - 1))}%`).join(', ');
  return `<p class="hm-scale"><span>0</span><span class="hm-ramp" style="background:linear-gradient(to right, ${stops})"></span><span>1</span> ${esc(label)}</p>`;
}

/** Output tokens as chips, with BEGIN in front. */
export function outputStrip(texts, { forced = [], newest = true, begin = true } = {}) {
  const chips = [];
  if (begin) chips.push(chip('<s>', { cls: 'special' }));
  texts.forEach((tok, i) => {
    const cls = [tok === '</s>' ? 'special' : '', forced[i] ? 'forced' : '', newest && i === texts.length - 1 ? 'newest' : ''].join(' ');
    chips.push(chip(tok, { cls, title: forced[i] ? t('chip.forced') : '' }));
  });
  return `<div class="strip">${chips.join('')}</div>`;
}

/** Whether an output matches the dictionary's reference(s) ({prons}); '' without one. */
export function verdict(refs, text) {
  if (!refs) return '';
  if (refs.prons.includes(text)) return `<span class="right">${esc(t('verdict.right'))}</span>`;
  const dist = Math.min(...refs.prons.map((p) => editDistance(p, text)));
  return `<span class="wrong">${esc(t(dist === 1 ? 'verdict.offOne' : 'verdict.offMany', { n: dist }))}</span>`;
}

export function phonemeLine(text) {
  const toks = String(text).split(/\s+/).filter(Boolean);
  if (!toks.length) return `<span class="empty">${esc(t('out.empty'))}</span>`;
  return `<span class="arpa-line">${esc(toks.join(' '))}</span> <span class="ipa-line">${esc(ipa(toks))}</span>`;
}

const stylesheets = new Map();

/**
 * Loads the site's stylesheet `href` once (a <link> in the document's head); resolves when
 * its rules apply, rejects when it cannot be fetched. What a view draws only once opened
 * is styled by web/style-open.css, loaded with the module that draws it.
 */
export function loadStylesheet(href) {
  if (!stylesheets.has(href)) {
    stylesheets.set(href, new Promise((resolve, reject) => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      link.onload = () => resolve();
      link.onerror = () => { stylesheets.delete(href); link.remove(); reject(new Error(`${href} could not be loaded`)); };
      document.head.append(link);
    }));
  }
  return stylesheets.get(href);
}
