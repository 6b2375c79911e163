// Self-attention matrices of a Transformer lane, under its cross-attention:
// the encoder's (letters × letters, from step 1's snapshot) and the decoder's
// (autoregressive: the masked lower triangle, one row per step, built from the
// hypothesis's ancestry, in a beam lane the one selected; Mask-Predict and
// one-pass NAR: the draft's full map).
// Both are disclosures, closed by default: their contents are drawn only once
// opened, so a lane's first view stays calm and its markup small, and they are drawn
// by self-attention-maps.js, loaded with import() at the first opening, so a first
// visit does not download it. Where the rows
// are the queries of the pass "Inside this step" shows, a cell opens it there
// (the inside view's link).
import { esc, loadStylesheet } from './views.js';
import { t } from './i18n.js';
import { registerView } from './view-registry.js';

const MATRICES = ['enc', 'dec'];

// Every function below takes `lane`: the view's facade of the lane (view-registry.js laneFacade).

/** Once per lane: the state, and the listeners to its disclosures and head buttons. */
function init(lane) {
  const sa = { open: { enc: false, dec: false }, twin: { enc: false, dec: false }, head: { enc: 'avg', dec: 'avg' }, i: 0 };
  lane.state = sa;
  // toggle does not bubble: listen in the capture phase.
  lane.on('toggle', (e) => {
    const d = e.target;
    const which = d.closest?.('[data-sa]')?.dataset.sa;
    if (!which) return;
    if (d.classList.contains('twin')) { sa.twin[which] = d.open; return; }
    if (!d.classList.contains('sa') || sa.open[which] === d.open) return;
    sa.open[which] = d.open;
    if (d.open) fill(lane, which);
  }, true);
  lane.on('click', (e) => {
    const b = e.target.closest('[data-action="sa-head"]');
    if (!b || !lane.contains(b)) return;
    const which = b.closest('[data-sa]').dataset.sa;
    sa.head[which] = b.dataset.head;
    fill(lane, which);
    // The buttons were drawn anew: keep the keyboard where it was.
    lane.query(`[data-sa="${which}"] [data-action="sa-head"][data-head="${b.dataset.head}"]`)?.focus();
  });
}

// The module that draws the matrices' contents (self-attention-maps.js), once loaded.
let maps = null;
let loading = null;

/** Loads it once for every lane; a failed load is tried again at the next opening. */
function loadMaps() {
  loading ??= Promise.all([import('./self-attention-maps.js'), loadStylesheet('style-open.css')]).then(([m]) => { maps = m; }, (e) => { loading = null; throw e; });
  return loading;
}

/** A matrix's contents at step i, or a line saying they are on their way. */
function content(lane, i, which) {
  return maps ? maps.content(lane, i, which) : `<p class="pending" data-loading>${esc(t('sa.pending'))}</p>`;
}

/** Draws one matrix's contents into its (open) disclosure, at the step the lane last drew. */
function fill(lane, which) {
  const box = lane.query(`[data-sa="${which}"] .sa-body`);
  if (!box) return;
  box.innerHTML = content(lane, lane.state.i, which);
  if (maps) return;
  loadMaps().then(() => { if (lane.state.open[which]) fill(lane, which); }, (e) => {
    const now = lane.query(`[data-sa="${which}"] .sa-body`);
    if (now) now.innerHTML = `<p class="note">${esc(t('sa.failed', { error: String(e?.message ?? e) }))}</p>`;
  });
}

/**
 * The self-attention section of `lane` at step i ('' where there is none: an
 * RNN, or nothing decoded yet).
 */
function render(lane, i) {
  const s = lane.snapshot(i);
  if (!s || lane.model?.arch === 'rnn') return '';
  const sa = lane.state;
  sa.i = i;
  const summary = {
    enc: t('sa.encSummary'),
    dec: t(lane.kind.ar ? 'sa.decSummaryAr' : 'sa.decSummaryNar'),
  };
  const parts = MATRICES.map((which) => `<details class="sa" data-sa="${which}"${sa.open[which] ? ' open' : ''}><summary>${esc(summary[which])}</summary><div class="sa-body">${sa.open[which] ? content(lane, i, which) : ''}</div></details>`);
  if (!maps && MATRICES.some((which) => sa.open[which])) queueMicrotask(() => MATRICES.forEach((which) => { if (sa.open[which]) fill(lane, which); }));
  return `<div class="view sa-view"><h3>${esc(t('sa.heading'))}</h3>${parts.join('')}</div>`;
}

export default registerView({
  id: 'self-attention',
  slot: 'body',
  // A Transformer's lanes (render says '' for an RNN's); the compare lane's are RNNs.
  lanes: (kind) => !kind.compare,
  init,
  render,
});
