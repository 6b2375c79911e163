// A vector as a colour strip with its numbers: the piece "Inside this step" draws with
// (inside-parts.js) that the compare lane draws with too (compare.js). Apart from the
// rest of the inside's pieces, which load only when a lane's inside is first opened.
import { esc, scrollRegion } from './views.js';
import { t } from './i18n.js';
import { fmt } from './format.js';

export function diverge(v, max) {
  const x = Math.max(-1, Math.min(1, max > 0 ? v / max : 0));
  const a = Math.abs(x);
  const [r, g, b] = x >= 0 ? [203, 24, 29] : [33, 102, 172];
  const mix = (c) => Math.round(255 + (c - 255) * a);
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

export const maxAbs = (xs) => xs.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
export const d3 = (v) => fmt(v, 3);

/** A vector as a colour strip (one cell per value, its number on hover) with a table twin. */
export function strip(values, name, { max = maxAbs(values), cell = 6 } = {}) {
  const n = values.length;
  const W = Math.max(1, n) * cell;
  let svg = `<svg class="vec" width="${W}" height="14" viewBox="0 0 ${W} 14" role="img" aria-label="${esc(t('inside.vecAria', { name, n }))}">`;
  for (let i = 0; i < n; i++) svg += `<rect x="${i * cell}" y="0" width="${cell}" height="14" fill="${diverge(values[i], max)}"><title>${esc(name)}[${i}] = ${d3(values[i])}</title></rect>`;
  svg += '</svg>';
  const cells = Array.from(values, (v, i) => `<td data-i="${i}">${d3(v)}</td>`).join('');
  return `<div class="vec-row" data-vec="${esc(name)}"><span class="vec-name">${esc(name)}</span>${scrollRegion(svg, t('inside.vecAria', { name, n }))}`
    + `<details class="twin"><summary>${esc(t('inside.numbers'))}</summary>${scrollRegion(`<table class="vec-table"><caption class="visually-hidden">${esc(name)}</caption><tbody><tr>${cells}</tr></tbody></table>`)}</details></div>`;
}
