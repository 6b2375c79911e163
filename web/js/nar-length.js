// The non-autoregressive lane's length: what repeats in the output have to do
// with the length decoded (lengthNote), and the chart of candidate lengths kept
// readable at any width (fitLengthChart).
import { esc } from './views.js';
import { t } from './i18n.js';

/** Positions (index p) whose token equals its left neighbour's, before the first END. */
export function repeatPositions(texts) {
  const firstEnd = texts.indexOf('</s>');
  const out = [];
  texts.forEach((tx, p) => {
    if (p > 0 && tx === texts[p - 1] && tx !== '</s>' && (firstEnd < 0 || p < firstEnd)) out.push(p);
  });
  return out;
}

/**
 * How the length of a draft compares with CMUdict's: 'longer' (than every
 * reference), 'same' (as one of them) or 'differs' (shorter, or between two).
 */
export function lengthCase(length, refLengths) {
  if (refLengths.includes(length)) return 'same';
  return length > Math.max(...refLengths) ? 'longer' : 'differs';
}

/**
 * A note under a draft with repeats: the length decoded beside the reference's,
 * and the usual cause of the repeats for that case. '' when the draft has no
 * repeat or there is no reference to compare with.
 * mode: the lane's narLength ('predicted' | 'given' | 'fixed'); prons: CMUdict's.
 */
export function lengthNote(draft, mode, prons) {
  const reps = repeatPositions(draft.texts);
  if (!reps.length || !prons?.length) return '';
  const firstEnd = draft.texts.indexOf('</s>');
  // At a fixed maximum the output is what comes before the first END.
  const length = mode === 'fixed' && firstEnd >= 0 ? firstEnd : draft.length;
  const refs = prons.map((p) => p.split(' '));
  const refLengths = [...new Set(refs.map((r) => r.length))].sort((a, b) => a - b);
  const which = lengthCase(length, refLengths);
  // A repeat the reference has too (CATERERS: K EY T ER ER Z) is the word's, not the decoder's.
  const pairs = new Set(refs.flatMap((r) => r.slice(1).map((x, j) => `${r[j]} ${x}`)));
  const allInRef = reps.every((p) => pairs.has(`${draft.texts[p - 1]} ${draft.texts[p]}`));
  const lengthKey = { predicted: 'narlen.predicted', given: 'narlen.imposed', fixed: 'narlen.fixed' }[mode];
  const why = { longer: 'narlen.longer', same: 'narlen.same', differs: 'narlen.differs' }[which];
  return `<div class="nar-length" data-case="${which}" data-length="${length}" data-ref="${refLengths.join(' ')}">
    <p class="nar-length-nums"><span class="nar-length-ours">${esc(t(lengthKey, { L: length }))}</span> · <span class="nar-length-ref">${esc(t('narlen.reference', { n: refLengths.join(t('narlen.or')) }))}</span></p>
    <p class="note">${esc(t(why))}${allInRef ? ` ${esc(t('narlen.inReference'))}` : ''}</p></div>`;
}

// Which axis labels win when two would overlap: the best draft's length, the
// other decoded lengths, the reference's, the longest length, then every fifth.
function rank(bar, last) {
  if (bar.classList.contains('best')) return 0;
  if (bar.classList.contains('decoded')) return 1;
  if (bar.classList.contains('ref')) return 2;
  if (bar === last) return 3;
  return 4;
}

/**
 * Shows as many of the chart's axis labels as fit: each label is centred under
 * its bar, held inside the chart at the two ends, and hidden when it would
 * overlap one that ranks higher (rank). Measured, so it holds for any width and
 * either language; called after each drawing and when the chart is resized.
 */
export function fitLengthChart(chart) {
  if (!chart) return;
  const bars = [...chart.querySelectorAll('.lenbar')];
  const last = bars[bars.length - 1];
  const labs = bars.map((b) => b.querySelector('.lenlab')).filter((l) => l && l.textContent);
  for (const l of labs) { l.classList.remove('thinned', 'at-start', 'at-end'); }
  const box = chart.getBoundingClientRect();
  if (!box.width) return;
  for (const l of labs) {
    const r = l.getBoundingClientRect();
    if (r.left < box.left) l.classList.add('at-start');
    else if (r.right > box.right) l.classList.add('at-end');
  }
  const kept = [];
  const gap = 3;   // px between two labels, so that "8" and "9" do not read as "89"
  const order = labs.map((l) => ({ l, k: rank(l.parentElement, last), x: Number(l.parentElement.dataset.length) }))
    .sort((a, b) => a.k - b.k || a.x - b.x);
  for (const { l } of order) {
    const r = l.getBoundingClientRect();
    if (kept.some((q) => r.left < q.right + gap && q.left < r.right + gap)) l.classList.add('thinned');
    else kept.push(r);
  }
}

/** Refits the chart's labels whenever its width changes (a phone turned, a lane added). */
export function watchLengthChart(chart) {
  let width = chart.getBoundingClientRect().width;
  const ro = new ResizeObserver(() => {
    const w = chart.getBoundingClientRect().width;
    if (w !== width) { width = w; fitLengthChart(chart); }
  });
  ro.observe(chart);
  return ro;
}
