// The page's one heatmap: a matrix of numbers in [0, 1] on the blue scale of
// views.js, drawn as SVG (role img, named by its caption) with its row and
// column labels, the colour key, and a table twin of the same numbers for
// screen readers and exact values; optionally a grid of small multiples, one
// per (layer, head), each a button that picks that head; optionally cells that
// can be picked, by pointer or keyboard (pick, pickKeys). Cross-attention
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
 *   scale: what the colour key's 0 to 1 measures (default: attention weights)
 *   empty: the words drawn where there are no rows
 *   corner: the markup of the table's corner cell; headerSuffix(k): markup after header k's label
 *   values: the table's cells carry their number (data-v)
 *   twinOpen: the table twin starts open
 *   heads: { layers, heads, selected, action, aria, matrixOf(l, h), cols } for the per-head grid
 *   pick: { action, attrs, hint }: each cell with a number is a button (data-action
 *     `action`, data-row, data-col, its label ending in `hint`), the map a group
 *     carrying `attrs` (markup); one cell is in the tab order, the arrows move among
 *     them (pickKeys), Enter or Space picks
 */
export function heatmap({
  matrix, rowLabels, colLabels, caption, arrow = '←', masked = null, maskedText = '', highlightRow = -1, fit = false,
  svgClass = '', tableClass = '', region = null, above = '', legend = '', empty = '', corner = esc(t('heatmap.output')),
  headerSuffix = () => '', values = false, twinOpen = false, heads = null, pick = null, scale = undefined,
}) {
  const isMasked = masked ?? (() => false);
  const longest = Math.max(1, ...[...rowLabels, ...colLabels].map((x) => String(x).length));
  const rotate = fit && longest > 2;   // long column labels stand upright
  const left = fit ? Math.ceil(longest * CHAR_W) + 10 : 46;
  const top = rotate ? Math.ceil(longest * CHAR_W) + 10 : 20;
  const W = left + colLabels.length * CELL_W + 2;
  const H = top + Math.max(1, rowLabels.length) * CELL_H + 2;
  // A map of buttons is a group (an image's contents are not reachable); the table twin still reads it out.
  const role = pick ? `role="group" ${pick.attrs}` : 'role="img"';
  let svg = `<svg class="heatmap${svgClass ? ` ${svgClass}` : ''}${pick ? ' hm-pick' : ''}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" ${role} aria-label="${esc(caption)}">`;
  // The cell in the tab order: the first of the outlined row, else the first.
  const tabRow = highlightRow >= 0 && highlightRow < matrix.length ? highlightRow : 0;
  let tabbed = false;
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
      if (isMasked(i, j)) { svg += `<rect ${cell} class="sa-masked-cell"><title>${tip}${esc(maskedText)}</title></rect>`; continue; }
      let button = '';
      if (pick) {
        const first = !tabbed && i === tabRow;
        tabbed ||= first;
        button = ` role="button" tabindex="${first ? 0 : -1}" data-action="${pick.action}" data-row="${i}" data-col="${j}" aria-label="${tip}${v.toFixed(3)}. ${esc(pick.hint)}"`;
      }
      svg += `<rect ${cell} fill="${blue(v)}"${button}><title>${tip}${v.toFixed(3)}</title></rect>`;
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
  return above + (region ? scrollRegion(svg, region) : `<div class="hm-wrap">${svg}</div>`) + colourScale(scale) + legend
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

/**
 * The keyboard of a map drawn with `pick` (a keydown listener on any element around
 * it): the arrows, Home and End move among its cells, the one focused alone in the
 * tab order; Enter or Space picks it, as a click does. Other keys pass on.
 */
export function pickKeys(e) {
  const cell = e.target;
  if (!cell.matches?.('.hm-pick [data-row]')) return;
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    e.stopPropagation();   // Space plays and pauses the page elsewhere
    cell.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    return;
  }
  const cells = [...cell.closest('svg').querySelectorAll('[data-row]')];
  const r = Number(cell.dataset.row), c = Number(cell.dataset.col);
  const rowOf = (x) => Number(x.dataset.row), colOf = (x) => Number(x.dataset.col);
  // The nearest cell in a direction that has a number (a masked cell has none).
  const toward = (dr, dc) => cells
    .filter((x) => (dr ? colOf(x) === c && (rowOf(x) - r) * dr > 0 : rowOf(x) === r && (colOf(x) - c) * dc > 0))
    .sort((a, b) => Math.abs(rowOf(a) - r) + Math.abs(colOf(a) - c) - Math.abs(rowOf(b) - r) - Math.abs(colOf(b) - c))[0];
  const inRow = cells.filter((x) => rowOf(x) === r);
  const moves = { ArrowRight: () => toward(0, 1), ArrowLeft: () => toward(0, -1), ArrowDown: () => toward(1, 0), ArrowUp: () => toward(-1, 0),
    Home: () => inRow[0], End: () => inRow.at(-1) };
  if (!Object.hasOwn(moves, e.key)) return;
  // The arrows step the page elsewhere: in the map they move, even at its edge.
  e.preventDefault();
  e.stopPropagation();
  const to = moves[e.key]();
  if (!to) return;
  cell.tabIndex = -1;
  to.tabIndex = 0;
  to.focus();
}
