// The page's one heatmap: a matrix of numbers in [0, 1] on the blue scale of
// views.js, drawn as SVG (role img, named by its caption) with its row and
// column labels, the colour key, and a table twin of the same numbers for
// screen readers and exact values; optionally a grid of small multiples, one
// per (layer, head), each a button that picks that head. Cross-attention
// (output tokens × letters), the compare lane's maps, and the encoder's and
// decoder's self-attention are all drawn with it.
import { blue, colourScale, esc, inkOnBlue, scrollRegion } from './views.js';
import { t } from './i18n.js';

// Label text widths in the SVG's monospace font, for margins fitted to the labels.
const CHAR_W = 7.8;
const CELL_W = 28;
const CELL_H = 24;

/**
 * heatmap({ matrix, rowLabels, colLabels, caption, ... }): the markup.
 *   matrix: rows of numbers in [0, 1] (matrix[i][j]: row i, column j; missing = 0)
 *   rowLabels, colLabels: the labels as shown (text, escaped here)
 *   caption: names the SVG (aria-label) and the table twin
 *   arrow: between a row's and a column's label in a cell's tooltip ('←': the row
 *     attends to the column, read right to left; '→' for queries to keys)
 *   masked(i, j): a cell with no number (drawn hatched; maskedText says why)
 *   highlightRow: the row outlined (the newest step), -1 for none
 *   fit: margins fitted to the labels, long column labels upright (else fixed margins)
 *   svgClass, tableClass: extra classes
 *   region: a name for the SVG's sideways-scrolling region (else a plain wrapper)
 *   above, legend: markup before the SVG, and after the colour key
 *   empty: the words drawn where there are no rows
 *   corner: the markup of the table's corner cell; headerSuffix(k): markup after header k's label
 *   values: the table's cells carry their number (data-v)
 *   twinOpen: the table twin starts open
 *   heads: { layers, heads, selected, action, aria, matrixOf(l, h), cols } for the per-head grid
 */
export function heatmap({
  matrix, rowLabels, colLabels, caption, arrow = '←', masked = null, maskedText = '', highlightRow = -1, fit = false,
  svgClass = '', tableClass = '', region = null, above = '', legend = '', empty = '', corner = esc(t('heatmap.output')),
  headerSuffix = () => '', values = false, twinOpen = false, heads = null,
}) {
  const isMasked = masked ?? (() => false);
  const longest = Math.max(1, ...[...rowLabels, ...colLabels].map((x) => String(x).length));
  const rotate = fit && longest > 2;   // long column labels stand upright
  const left = fit ? Math.ceil(longest * CHAR_W) + 10 : 46;
  const top = rotate ? Math.ceil(longest * CHAR_W) + 10 : 20;
  const W = left + colLabels.length * CELL_W + 2;
  const H = top + Math.max(1, rowLabels.length) * CELL_H + 2;
  let svg = `<svg class="heatmap${svgClass ? ` ${svgClass}` : ''}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(caption)}">`;
  colLabels.forEach((c, j) => {
    const x = left + j * CELL_W + CELL_W / 2;
    svg += rotate
      ? `<text transform="translate(${x + 4} ${top - 5}) rotate(-90)" class="hm-col sa-col">${esc(c)}</text>`
      : `<text x="${x}" y="${top - 6}" class="hm-col">${esc(c)}</text>`;
  });
  matrix.forEach((vals, i) => {
    const y = top + i * CELL_H;
    const last = i === highlightRow;
    svg += `<text x="${left - 4}" y="${y + CELL_H / 2 + 4}" class="hm-row${last ? ' last' : ''}">${esc(rowLabels[i])}</text>`;
    for (let j = 0; j < colLabels.length; j++) {
      const v = vals[j] ?? 0;
      const cell = `x="${left + j * CELL_W}" y="${y}" width="${CELL_W - 1}" height="${CELL_H - 1}"`;
      const tip = `${esc(rowLabels[i])} ${arrow} ${esc(colLabels[j])}: `;
      svg += isMasked(i, j)
        ? `<rect ${cell} class="sa-masked-cell"><title>${tip}${esc(maskedText)}</title></rect>`
        : `<rect ${cell} fill="${blue(v)}"><title>${tip}${v.toFixed(3)}</title></rect>`;
    }
    if (last) svg += `<rect x="${left - 1}" y="${y - 1}" width="${colLabels.length * CELL_W + 1}" height="${CELL_H + 1}" class="hm-last"/>`;
  });
  if (!matrix.length && empty) svg += `<text x="${left}" y="${top + 14}" class="hm-empty">${esc(empty)}</text>`;
  svg += '</svg>';
  const head = colLabels.map((c, j) => `<th scope="col">${esc(c)}${headerSuffix(j)}</th>`).join('');
  const body = matrix.map((vals, i) => `<tr><th scope="row">${esc(rowLabels[i])}${headerSuffix(i)}</th>${colLabels.map((_, j) => {
    if (isMasked(i, j)) return `<td class="sa-masked"><span class="visually-hidden">${esc(maskedText)}</span></td>`;
    const v = vals[j] ?? 0;
    return `<td${values ? ` data-v="${v}"` : ''} style="background:${blue(v)};color:${inkOnBlue(v)}">${v.toFixed(2)}</td>`;
  }).join('')}</tr>`).join('');
  const table = `<table class="hm-table${tableClass ? ` ${tableClass}` : ''}"><caption>${esc(caption)}</caption><thead><tr><th scope="col">${corner}</th>${head}</tr></thead><tbody>${body}</tbody></table>`;
  return above + (region ? scrollRegion(svg, region) : `<div class="hm-wrap">${svg}</div>`) + colourScale() + legend
    + `<details class="twin"${twinOpen ? ' open' : ''}><summary>${esc(t('heatmap.twin'))}</summary>${scrollRegion(table)}</details>`
    + (heads && heads.layers * heads.heads > 1 ? headGrid(heads) : '');
}

/** A matrix as a thumbnail: 4-pixel cells, no labels (the button around it names it). */
function thumbnail(matrix, cols) {
  const c = 4;
  const W = Math.max(1, cols) * c;
  const H = Math.max(1, matrix.length) * c;
  let svg = `<svg width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" aria-hidden="true">`;
  matrix.forEach((row, i) => {
    for (let j = 0; j < cols; j++) svg += `<rect x="${j * c}" y="${i * c}" width="${c}" height="${c}" fill="${blue(row[j] ?? 0)}"/>`;
  });
  return svg + '</svg>';
}

/**
 * The average, then one thumbnail per (layer, head): buttons with data-action
 * `action` and data-head "avg" or "l.h"; `selected` is pressed. matrixOf(l, h):
 * that head's matrix, `cols` columns wide.
 */
function headGrid({ layers, heads, selected, action, aria, matrixOf, cols }) {
  const button = (key, inner) => `<button type="button" class="thumb${selected === key ? ' on' : ''}" data-action="${action}" data-head="${key}" aria-pressed="${selected === key}">${inner}</button>`;
  let out = `<div class="thumbs" role="group" aria-label="${esc(aria)}">${button('avg', esc(t('thumbs.average')))}`;
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      out += button(`${l}.${h}`, `<span>L${l + 1} H${h + 1}</span><span class="visually-hidden"> ${esc(t('attn.whichHead', { l: l + 1, h: h + 1 }))}</span>${thumbnail(matrixOf(l, h), cols)}`);
    }
  }
  return out + '</div>';
}
