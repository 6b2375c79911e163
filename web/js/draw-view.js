// How a sampled token was drawn: the distribution it was drawn from laid end to end
// over [0, 1), likeliest first, the uniform number u the engine drew (the snapshot's
// `draw`), and the token whose stretch holds it (from `drawnBelow`). A rare token comes
// out when u lands in its thin stretch: the picture shows where, and zooms in when the
// stretch is too thin to see.
import { label } from './phonemes.js';
import { fmt } from './format.js';
import { esc } from './views.js';
import { t } from './i18n.js';
import { wordSeed } from './lane-types.js';

// Below this share of the bar a stretch is too thin to see: the view zooms in on it.
const THIN = 0.03;

/**
 * The stretches of hypothesis `h`'s drawn distribution as the page knows them: its top
 * candidates the distribution kept, in the engine's order (drawn probability, then token
 * id), each from where the ones before it end; the token drawn, if it is not among them,
 * where the engine says its stretch starts. What lies between is other tokens'.
 */
function stretches(h) {
  const kept = h.candidates.filter((c) => c.drawnProb > 0).sort((a, b) => b.drawnProb - a.drawnProb || a.token - b.token);
  let at = 0;
  const out = kept.map((c) => { const s = { token: c.token, text: c.text, p: c.drawnProb, start: at }; at += c.drawnProb; return s; });
  const chosen = h.tokens.at(-1);
  if (!out.some((s) => s.token === chosen)) out.push({ token: chosen, text: h.texts.at(-1), p: h.tokenDrawnProb, start: h.drawnBelow });
  return out;
}

/** Digits enough to tell u from the ends of a stretch of length p. */
const digitsFor = (p) => Math.min(6, Math.max(3, Math.ceil(-Math.log10(Math.max(p, 1e-6))) + 1));

/** One bar over [lo, hi] of the cumulative distribution: the stretches in it, u marked. */
function bar(segs, u, chosen, lo, hi, { zoom = false, aria, window = null }) {
  const span = hi - lo;
  const x = (v) => (100 * (Math.min(hi, Math.max(lo, v)) - lo)) / span;
  const parts = segs.filter((s) => s.start < hi && s.start + s.p > lo).map((s, j) => {
    const left = x(s.start);
    const width = x(s.start + s.p) - left;
    const cls = s.token === chosen ? 'chosen' : j % 2 ? 'odd' : 'even';
    const name = label(s.text);
    const text = width > 3 + 1.2 * name.length ? `<span class="draw-lab">${esc(name)}</span>` : '';
    return `<span class="draw-seg ${cls}" data-token="${esc(s.text)}" data-start="${s.start}" data-p="${s.p}" style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%" title="${esc(t('draw.segTitle', { token: name, lo: fmt(s.start, digitsFor(s.p)), hi: fmt(s.start + s.p, digitsFor(s.p)) }))}">${text}</span>`;
  }).join('');
  const ux = x(u);
  // The label of u sits over its line, kept inside the bar near either end.
  const side = ux > 80 ? 'end' : ux < 20 ? 'start' : 'mid';
  // Where the zoomed bar below is, on this one: at least a sliver wide, to be seen.
  const win = window ? `<span class="draw-window" style="left:${Math.min(99, x(window[0])).toFixed(3)}%;width:${Math.max(1, x(window[1]) - x(window[0])).toFixed(3)}%"></span>` : '';
  return `<div class="draw-bar${zoom ? ' zoom' : ''}" role="img" aria-label="${esc(aria)}" data-lo="${lo}" data-hi="${hi}">${parts}${win}`
    + `<span class="draw-u ${side}" style="left:${ux.toFixed(3)}%" data-u="${u}"><span class="draw-u-lab">u = ${fmt(u, digitsFor(Math.min(span, 1)))}</span></span></div>`
    + `<div class="draw-axis" aria-hidden="true"><span>${fmt(lo, zoom ? digitsFor(span / 4) : 0)}</span><span>${fmt(hi, zoom ? digitsFor(span / 4) : 0)}</span></div>`;
}

/**
 * The view, for hypothesis `h` at step `i`: `seed` the lane drew with, `word` when the
 * seed is the word's own (it follows the word), null when it was set.
 */
function drawView(h, i, { seed, word }) {
  const pos = h.tokens.length;
  const head = `<h3>${esc(t('draw.title', { pos }))}</h3>`;
  if (!(h.draw >= 0)) return `<div class="view draw">${head}<p class="note">${esc(t('draw.forced', { pos }))}</p></div>`;
  const segs = stretches(h);
  const chosen = h.tokens.at(-1);
  const mine = segs.find((s) => s.token === chosen);
  const d = digitsFor(mine.p);
  const f = (v) => fmt(v, d);
  const u = h.draw;
  const lo = h.drawnBelow;
  const hi = lo + h.tokenDrawnProb;
  const name = label(h.texts.at(-1));
  const aria = t('draw.aria', { u: f(u), token: name, lo: f(lo), hi: f(hi) });
  const thin = h.tokenDrawnProb < THIN;
  // A window a few stretches wide around the token's, inside [0, 1], for a thin one.
  const w = Math.max(h.tokenDrawnProb, 0.0005) * 4;
  const a = Math.max(0, Math.min(lo - w, 1 - 2 * w - h.tokenDrawnProb));
  const b = Math.min(1, a + 2 * w + h.tokenDrawnProb);
  let html = bar(segs, u, chosen, 0, 1, { aria, window: thin ? [a, b] : null });
  // Hatched: the stretches of tokens the bars above do not list (each below the last listed).
  const listed = segs.reduce((a, s) => a + s.p, 0);
  if (listed < 1 - 1e-6) html += `<p class="draw-key"><span class="draw-hatch"></span> ${esc(t('draw.rest', { n: h.candidates.length }))}</p>`;
  if (thin) {
    html += `<p class="draw-zoom-cap">${esc(t('draw.zoom', { lo: fmt(a, digitsFor(w)), hi: fmt(b, digitsFor(w)) }))}</p>`
      + bar(segs, u, chosen, a, b, { zoom: true, aria: t('draw.zoomAria', { lo: fmt(a, digitsFor(w)), hi: fmt(b, digitsFor(w)), token: name }) });
  }
  const top = segs[0];
  const whose = word != null ? t('draw.seedWord', { seed, word }) : t('draw.seedSet', { seed });
  let how = t('draw.how_html', { u: esc(f(u)), i, whose: esc(whose), token: esc(name), lo: esc(f(lo)), hi: esc(f(hi)) });
  if (top && top.token !== chosen) how += ` ${t('draw.missed_html', { top: esc(label(top.text)), hi: esc(f(top.p)), token: esc(name), p: esc(f(h.tokenDrawnProb)) })}`;
  return `<div class="view draw" data-u="${u}" data-below="${lo}" data-token="${esc(h.texts.at(-1))}">${head}${html}<p class="note">${how}</p></div>`;
}

// `lane` is the view's facade of the lane (view-registry.js laneFacade). A seed equal to the word's
// own is the word's, as the address reads it (address.js).
function render(lane, i) {
  const h = lane.focus(i)?.hyp;
  const seed = lane.options?.seed;
  if (!h || seed == null) return '';
  return drawView(h, i, { seed, word: seed === wordSeed(lane.word) ? lane.word : null });
}

// Registered in lane-views.js (id 'draw', slot 'choice', the sampling lane's), which
// loads this module when a sampling lane is first drawn.
export default { render };
