// What the non-autoregressive lanes share (OnePassLane, MaskPredictLane): every
// position at once, after a length is chosen; drafts per length candidate, one
// picked in the tabs; the inside of the pass that wrote the picked draft. A type
// gives its intro(), its number of iterations, its own controls and notes, and the
// words of its stats line (passesKeys).
import { label } from './phonemes.js';
import { fmt, pctDigits } from './format.js';
import { esc, explain, green, inkOnGreen, scrollRegion } from './views.js';
import { heatmap } from './heatmap.js';
import { Lane } from './lane.js';
import { t } from './i18n.js';
import { fitLengthChart, repeatPositions, watchLengthChart } from './nar-length.js';

export class NarLane extends Lane {
  onAction(a, b) {
    if (a === 'draft') { this.ui.draft = Number(b.dataset.draft); this.render(this.ctx.step); this.ctx.viewChanged?.(); }
    else if (a === 'length') this.ctx.update(this, { narLength: 'given', narGivenLength: Number(b.dataset.length) });
    else if (a === 'predicted') this.ctx.update(this, { narLength: 'predicted', narGivenLength: 0 });
  }

  /**
   * The index of the draft the views show in snapshot s: the one picked in the tabs,
   * else the best. A draft the address named (by its length) is taken up here, once
   * the decode it belongs to is on screen.
   */
  draftIndex(s) {
    const named = this.addressView.draft;
    if (named != null) {
      delete this.addressView.draft;
      const j = s.drafts.findIndex((x) => x.length === named);
      if (j >= 0) this.ui.draft = j;
    }
    return this.ui.draft != null && this.ui.draft < s.drafts.length ? this.ui.draft : s.bestDraft;
  }

  viewState() {
    const s = this.snaps[this.lastIndex];
    const d = s && !s.autoregressive && this.ui.draft != null ? s.drafts[this.ui.draft]?.length : undefined;
    return { draft: this.addressView.draft ?? d };
  }

  /** What the registered views follow at iteration i: the draft picked in the tabs, else the best. */
  viewFocus(i) {
    const s = this.snaps[i];
    if (!s || s.autoregressive) return null;
    const draft = s.drafts[this.draftIndex(s)];
    return draft ? { draft } : null;
  }

  /**
   * The decoder pass "Inside this step" shows at iteration i (inside.js): the one over
   * the picked draft as that iteration read it, its tokens with MASK where it re-masked
   * them (src/nar_search.cpp: the draft it wrote, kept tokens as they were). next[p]: the
   * token at p after the pass; masked, probs: what the iteration re-predicted, with what
   * confidence.
   */
  insideRequest(i) {
    const s = this.snaps[i];
    const mask = this.slot.decoder?.info?.targetSpecials?.mask;
    if (!s || s.autoregressive || mask == null) return null;
    const dr = s.drafts[this.draftIndex(s)];
    if (!dr) return null;
    return {
      kind: 'cmlm', word: this.word, tokens: Array.from(dr.tokens, (tok, p) => (dr.masked[p] ? mask : tok)),
      next: Array.from(dr.tokens), masked: dr.masked, probs: dr.probs, iteration: s.iteration,
    };
  }

  /** Mask-Predict's iterations T: the type's fixed number (the one-pass lane's 1), else the lane's option. */
  get iterations() { return this.kind.fixed.iterations ?? this.opts.iterations; }

  /** The stats line's words (keys): [one length, several lengths side by side in each pass]. */
  get passesKeys() { return []; }

  passesLabel(s) {
    const n = s?.lengths?.length ?? 0;
    const [one, many] = this.passesKeys;
    return n > 1 ? t(many, { n }) : t(one);
  }

  // A length imposed from the picker starts at the length on screen.
  patchFor(key, value) {
    const patch = { [key]: value };
    if (key === 'narLength' && value !== 'given') patch.narGivenLength = 0;
    if (key === 'narLength' && value === 'given' && !this.opts.narGivenLength) patch.narGivenLength = this.currentLength() || 5;
    return patch;
  }

  // An address that imposes a length and gives none (len=given, no L): the length head's is used, and said so.
  fitToModel() {
    const notes = super.fitToModel();
    if (this.opts.narLength === 'given' && !(this.opts.narGivenLength >= 1)) {
      notes.push(() => t('address.noGivenLength', { lane: this.title }));
      Object.assign(this.opts, { narLength: 'predicted', narGivenLength: 0 });
    }
    return notes;
  }

  currentLength() {
    const s = this.snaps[this.index(this.ctx.step)] ?? this.snaps[this.lastIndex];
    return s && !s.autoregressive && s.drafts[s.bestDraft] ? s.drafts[s.bestDraft].length : 0;
  }

  // The type's own controls, then the length: how it is chosen, and the one imposed.
  optionControls(builders, o) {
    const { num, select } = builders;
    const len = select('narLength', t('opt.len'), [['predicted', t('opt.lenPredicted')], ['fixed', t('opt.lenFixed')], ['given', t('opt.lenGiven')]]);
    return [...this.ownControls(builders, o), len, ...(o.narLength === 'given' ? [num('narGivenLength', t('opt.L'))] : [])];
  }

  /** The option controls of the lane type (markup pieces), from the builders num, range and select. */
  ownControls() { return []; }

  /** A note under the grid on the length the draft has (the one-pass lane's), or ''. */
  lengthNote() { return ''; }

  view(i) {
    return this.narView(i);
  }

  // The length chart's labels are thinned to what fits, now and whenever its width changes.
  afterRender(body) {
    const chart = body.querySelector('.lenbars');
    fitLengthChart(chart);
    this.chartWatch?.disconnect();
    this.chartWatch = chart ? watchLengthChart(chart) : null;
  }

  soFar(s) {
    const dr = s.drafts[s.bestDraft];
    const cut = dr.texts.indexOf('</s>');
    return (cut >= 0 ? dr.texts.slice(0, cut) : dr.texts).join(' ');
  }

  narView(i) {
    const s = this.snaps[i];
    const o = this.opts;
    const T = this.iterations;
    let html = this.intro();
    if (!s) {
      return html + `<p class="waiting">${t(T > 1 ? 'nar.waitingMp_html' : 'nar.waiting_html', { letters: esc(this.sourceLetters().join('')) })}</p>`;
    }
    // Length distribution.
    const probs = Array.from(s.lengthLogprobs, Math.exp);
    const best = s.drafts[s.bestDraft];
    const ref = this.ctx.reference?.prons?.[0]?.split(' ').length ?? 0;
    const maxP = Math.max(...probs.slice(1));
    const lenHeading = o.narLength === 'predicted' ? t('nar.lenPredicted') : o.narLength === 'fixed' ? t('nar.lenFixed') : t('nar.lenImposed', { L: o.narGivenLength });
    const lenbar = (p, L) => {
      const pct = pctDigits(p);
      const aria = t(s.lengths.includes(L) ? 'nar.lenBarDecodedAria' : 'nar.lenBarAria', { L, pct });
      return `<button type="button" class="lenbar${s.lengths.includes(L) ? ' decoded' : ''}${best && best.length === L ? ' best' : ''}${L === ref ? ' ref' : ''}" data-action="length" data-length="${L}" aria-label="${esc(aria)}" title="${esc(t('nar.lenBarTitle', { L, pct }))}"><span class="lenfill" style="height:${Math.max(2, (p / maxP) * 100).toFixed(1)}%"></span><span class="lenlab">${L % 5 === 0 || s.lengths.includes(L) || L === ref || L === probs.length - 1 ? L : ''}</span></button>`;
    };
    const dark = t(s.lengths.length > 1 ? 'nar.darkMany' : 'nar.darkOne', { lengths: s.lengths.join(', ') });
    html += `<div class="view"><h3>${esc(t('nar.lenHeading', { how: lenHeading }))}</h3>
      <div class="lenbars" role="group" aria-label="${esc(t('nar.lenBarsAria'))}">
      ${probs.map((p, L) => (L === 0 ? '' : lenbar(p, L))).join('')}
      </div>
      <p class="note">${esc(dark)}${ref ? esc(t('nar.dotted', { n: ref })) : ''}${esc(t('nar.clickBar'))}
      ${o.narLength !== 'predicted' ? `<button type="button" class="small" data-action="predicted">${esc(t('nar.backToPredicted'))}</button>` : ''}</p>
      <p class="note nar-len-inside">${esc(t('nar.lenNoInside'))}</p>
      ${explain(t('nar.lenTitle'), t('nar.len_html', { max: probs.length - 1 }), false)}</div>`;
    // Drafts.
    const d = this.draftIndex(s);
    if (s.drafts.length > 1) {
      html += `<div class="draft-tabs" role="group" aria-label="${esc(t('nar.draftsAria'))}">${s.drafts.map((x, j) =>
        `<button type="button" data-action="draft" data-draft="${j}" data-score="${x.score}" aria-pressed="${j === d}" class="${j === d ? 'on' : ''}">${esc(t(j === s.bestDraft ? 'nar.draftBest' : 'nar.draft', { L: x.length }))}<br><small>${esc(t('nar.draftScore', { score: fmt(x.score), avg: fmt(x.avgLogprob), w: o.lengthScoreWeight, len: fmt(x.lengthLogprob) }))}</small></button>`).join('')}</div>
        <p class="note">${esc(t('nar.draftRule'))}</p>`;
    }
    let grid = '';
    for (let k = 1; k <= i; k++) {
      const dr = this.snaps[k].drafts[d];
      if (!dr) continue;
      const firstEnd = dr.texts.indexOf('</s>');
      const reps = new Set(repeatPositions(dr.texts));
      let changed = 0;
      const prev = k > 1 ? this.snaps[k - 1].drafts[d] : null;
      const cells = dr.texts.map((tx, p) => {
        const pr = dr.probs[p];
        const masked = dr.masked[p] === 1;
        const rep = reps.has(p);
        const cut = firstEnd >= 0 && p > firstEnd;
        if (prev && prev.tokens[p] !== dr.tokens[p]) changed++;
        const cls = ['cell', masked ? 'masked' : 'kept', rep ? 'rep' : '', cut ? 'cut' : '', tx === '</s>' ? 'end' : ''].join(' ');
        const desc = t('nar.cell', { p: p + 1, token: label(tx), pct: pctDigits(pr) }) + t(masked ? 'nar.cellMasked' : 'nar.cellKept')
          + (rep ? t('nar.cellRep') : '') + (cut ? t('nar.cellCut') : '');
        return `<td class="${cls}" style="background:${green(pr)};color:${inkOnGreen(pr)}" title="${esc(desc)}"><span class="visually-hidden">${esc(desc)}</span><span aria-hidden="true"><b>${esc(label(tx))}</b>${rep ? '<i class="rep-mark">↻</i>' : ''}<small>${(pr * 100).toFixed(0)}</small></span></td>`;
      });
      const masked = dr.masked.reduce((a, b) => a + b, 0);
      const stopNote = this.snaps[k].done && !this.snaps[k].changed ? t('nar.stop') : '';
      const what = k === 1 ? t('nar.allMasked') : t('nar.remasked', { n: masked }) + (prev ? t('nar.changed', { n: changed }) : '');
      grid += `<tr class="${k === i ? 'current' : ''}"><th scope="row">${k}<small>${esc(what + stopNote)}</small></th>${cells.join('')}</tr>`;
    }
    const dr = this.snaps[i].drafts[d];
    const heading = T > 1 ? t('nar.iterations', { i, T, L: dr.length }) : t('nar.onePass', { L: dr.length });
    html += `<div class="view"><h3>${esc(heading)}</h3>
      ${scrollRegion(`<table class="nar-grid"><caption class="visually-hidden">${esc(t('nar.gridCaption'))}</caption>
      <thead><tr><th scope="col">${esc(t('nar.iter'))}</th>${dr.texts.map((_, p) => `<th scope="col">${p + 1}</th>`).join('')}</tr></thead><tbody>${grid}</tbody></table>`, t('nar.gridCaption'))}
      <p class="legend"><span class="lg-item"><span class="lg masked"></span> ${esc(t('nar.lgMasked'))}</span> <span class="lg-item"><span class="lg kept"></span> ${esc(t('nar.lgKept'))}</span> <span class="lg-item"><span class="rep-mark">↻</span> ${esc(t('nar.lgRep'))}</span> <span class="lg-item">${esc(t('nar.lgNumber'))}</span></p>
      ${this.lengthNote(dr)}</div>`;
    if (dr.attention) {
      const S = this.sourceLetters().length;
      // At a fixed maximum length most rows are END padding the output is cut at: draw up
      // to the first END and say how many were left out, rather than 40 rows of padding.
      const firstEnd = dr.texts.indexOf('</s>');
      const shown = firstEnd >= 0 && dr.length - firstEnd > 2 ? firstEnd + 1 : dr.length;
      const rowLabels = dr.texts.slice(0, shown);
      const rows = rowLabels.map((_, p) => dr.attention.subarray(p * S, (p + 1) * S));
      // Averaged over layers and heads (all a snapshot keeps): a cell opens the inside at one of them.
      const pick = this.viewLink('inside', i, { stack: 'decoder', sub: 'cross', sel: 'avg' });
      html += `<div class="view"><h3>${esc(t('nar.crossHeading', { i }))}</h3>${heatmap({ matrix: rows, rowLabels: rowLabels.map(label), colLabels: this.sourceLetters(), caption: t('nar.crossCaption'), empty: t('heatmap.empty'), pick })}
      ${shown < dr.length ? `<p class="note">${esc(t('nar.cutRows', { from: shown + 1, to: dr.length }))}</p>` : ''}
      ${explain(t('attn.cross'), t('nar.cross_html'), false)}</div>`;
    }
    return html;
  }
}
