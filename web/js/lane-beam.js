// The beam search lane: k hypotheses kept per step, their tree, the live and
// finished ones ranked (length normalisation re-ranks the finished at once).
import { ipa, label } from './phonemes.js';
import { PAGE_OPTIONS, cleanOption } from './lane-types.js';
import { fmt, normalizedScore, rankingFormula, scoreFormula } from './format.js';
import { esc, explain, scrollRegion } from './views.js';
import { t } from './i18n.js';
import { beamTree } from './tree.js';
import { ArLane } from './lane-ar.js';
import { fmtProb } from './forced.js';

export class BeamLane extends ArLane {
  get title() { return t('lane.beamTitle', { k: this.opts.beamSize }); }

  // Length normalisation re-ranks at once while its slider moves.
  onInput(e) {
    super.onInput(e);
    const el = e.target;
    if (el.dataset.opt === 'gnmtAlpha') {
      this.opts.gnmtAlpha = cleanOption(this.type, 'gnmtAlpha', el.value);
      this.render(this.ctx.step);      // re-rank now, re-decode on change
    }
  }

  ownControls({ num, range, select }) {
    return [range('beamSize', t('opt.k'), t('opt.kHelp')),
      select('lengthNorm', t('opt.norm'), [['none', t('opt.normNone')], ['average', t('opt.normAverage')], ['gnmt', t('opt.normGnmt')]]),
      range('gnmtAlpha', t('opt.alpha'), t('opt.alphaHelp')),
      num('nBest', t('opt.nbest'), t('opt.nbestHelp'))];
  }

  /** The hypothesis its views follow at step i: the one picked in the tree or the tables, else the best finished, else the best live. */
  selectedAt(i, map = this.nodes(i)) {
    const s = this.snaps[i];
    if (!s) return null;
    if (this.ui.selected != null && this.ui.selected !== 0 && map.has(this.ui.selected)) return map.get(this.ui.selected);
    const o = this.opts;
    const rank = (h) => normalizedScore(h.logprob, h.tokens.length, o.lengthNorm, o.gnmtAlpha);
    const best = (hs, key) => hs.reduce((a, h) => (!a || key(h) > key(a) ? h : a), null);
    return best(s.finished, rank) ?? best(s.live, (h) => h.logprob);
  }

  // "Inside this step" follows the selected hypothesis too: the pass that chose its last token.
  insideRequest(i) {
    const h = this.selectedAt(i);
    if (!h) return null;
    return { kind: 'ar', word: this.word, tokens: h.tokens.slice(0, -1), next: [...h.tokens], id: h.id };
  }

  // The registered views (the decoder's self-attention) follow the hypothesis picked in the table.
  get selectsHypothesis() { return true; }

  afterControls() {
    const a = this.el.querySelector(`#${this.id}-gnmtAlpha`);
    if (a) a.disabled = this.opts.lengthNorm !== 'gnmt';
  }

  view(i) {
    const s = this.snaps[i];
    const o = this.opts;
    let html = explain(t('beam.title'), t('beam.explain_html', { k: o.beamSize }));
    if (!s) {
      return html + `<p class="waiting">${t('beam.waiting_html')}</p>`;
    }
    const map = this.nodes(i);
    const rank = (h) => normalizedScore(h.logprob, h.tokens.length, o.lengthNorm, o.gnmtAlpha);
    const finished = s.finished.slice().sort((a, b) => rank(b) - rank(a));
    const live = s.live.slice().sort((a, b) => b.logprob - a.logprob);
    const selected = this.selectedAt(i, map)?.id;
    const pruned = (v, key) => `<option value="${v}"${this.ui.pruned === v ? ' selected' : ''}>${esc(t(key))}</option>`;
    const lg = (cls, key) => `<span class="lg-item">${cls ? `<span class="lg ${cls}"></span> ` : ''}${esc(t(key))}</span>`;
    // The tree straight under its heading (on the first screen); which dropped
    // candidates it draws is chosen under it, beside the legend that names them.
    html += `<div class="view"><h3>${esc(t('beam.tree', { i }))}</h3>
      ${beamTree({ snaps: this.snaps, i, map, norm: o.lengthNorm, alpha: o.gnmtAlpha, pruned: this.ui.pruned, selected })}
      <p class="legend">${lg('live', 'beam.lgLive')} ${lg('fin', 'beam.lgFin')} ${lg('dead', 'beam.lgDead')} ${lg('sel', 'beam.lgSel')} <span class="lg-numbers">${esc(t('beam.lgNumbers', { rank: rankingFormula(o.lengthNorm, o.gnmtAlpha) }))}</span></p>
      <label class="inline">${esc(t('beam.dropped'))} <select data-ui="pruned">
        ${pruned('none', 'beam.prunedNone')}${pruned('best', 'beam.prunedBest')}${pruned('all', 'beam.prunedAll')}</select></label></div>`;
    // A hypothesis's score is its log P, as the course notes define it: live ones are kept
    // by it. Finished ones are ranked by the length-normalised value beside it, shown with
    // its formula (format.js, as the engine computes it).
    const row = (h, j, fin) => `<tr class="${h.id === selected ? 'sel' : ''}"><td>${j + 1}</td>
      <td><button type="button" class="linkish" data-action="select" data-node="${h.id}" >${esc(h.texts.filter((x) => x !== '</s>').map(label).join(' ') || t('out.empty'))}<span class="visually-hidden"> ${esc(t('beam.showAttn', { n: j + 1 }))}</span></button><br><span class="ipa">${esc(ipa(h.texts))}</span>${fin ? ' <span class="endmark">END</span>' : ''}</td>
      <td class="num">${fmt(h.logprob)}<br><small class="seq-p">P ${fmtProb(h.logprob)}</small></td><td class="num">${h.tokens.length}</td>${fin ? `<td class="num"><strong>${fmt(rank(h))}</strong></td></tr>
      <tr class="formula-row${h.id === selected ? ' sel' : ''}"><td></td><td colspan="4" class="formula">${esc(scoreFormula(h.logprob, h.tokens.length, o.lengthNorm, o.gnmtAlpha))}</td></tr>` : '</tr>'}`;
    const head = (fin) => `<thead><tr><th scope="col">#</th><th scope="col">${esc(t('beam.colHyp'))}</th><th scope="col">${t('beam.colScore_html')}</th><th scope="col">|Y|</th>${fin ? `<th scope="col" class="col-narrow">${esc(t('beam.colRank'))}</th>` : ''}</tr></thead>`;
    html += `<div class="view"><h3>${esc(t('beam.live', { n: live.length }))}</h3>${live.length ? scrollRegion(`<table class="hyps live">${head(false)}<tbody>${live.map((h, j) => row(h, j, false)).join('')}</tbody></table>`) : `<p class="note">${esc(t('beam.noneLeft'))}</p>`}</div>`;
    const shown = finished.slice(0, 8);
    const normName = { none: 'beam.normNone', average: 'beam.normAverage', gnmt: 'beam.normGnmt' };
    const alphaUi = PAGE_OPTIONS.gnmtAlpha.ui;   // the same slider as the lane's options
    html += `<div class="view"><h3>${esc(t('beam.finished', { rank: rankingFormula(o.lengthNorm, o.gnmtAlpha) }))}</h3>
      <div class="norm-inline" role="group" aria-label="${esc(t('beam.normAria'))}">
      ${['none', 'average', 'gnmt'].map((n) => `<label><input type="radio" name="${this.id}-norm" data-opt="lengthNorm" value="${n}"${o.lengthNorm === n ? ' checked' : ''}> ${esc(t(normName[n]))}</label>`).join(' ')}
      <label>α <input type="range" id="${this.id}-alpha2" data-opt="gnmtAlpha" min="${alphaUi.min}" max="${alphaUi.max}" step="${alphaUi.step}" value="${o.gnmtAlpha}"${o.lengthNorm === 'gnmt' ? '' : ' disabled'}><output for="${this.id}-alpha2">${o.gnmtAlpha}</output></label></div>
      ${shown.length ? scrollRegion(`<table class="hyps finished">${head(true)}<tbody>${shown.map((h, j) => row(h, j, true)).join('')}</tbody></table>`) : `<p class="note">${esc(t('beam.noneYet'))}</p>`}
      ${finished.length > shown.length ? `<p class="note">${esc(t('beam.more', { n: finished.length - shown.length }))}</p>` : ''}
      ${explain(t('beam.normTitle'), t('beam.norm_html'), false)}</div>`;
    const selNode = map.get(selected);
    if (selNode) {
      const path = this.path(map, selected);
      const attn = t(this.model?.arch === 'rnn' ? 'attn.rnn' : 'attn.cross');
      const pick = this.viewLink('inside', i, { stack: 'decoder', sub: 'cross', sel: this.model?.arch === 'rnn' ? '0.0' : this.ui.head, written: true });
      html += `<div class="view"><h3>${esc(t('beam.selAttn', { attn }))}</h3>${this.attentionView(path, t('beam.selCaption', { attn }), pick)}
        ${explain(attn, t('beam.selExplain_html'), false)}</div>`;
    }
    return html;
  }
}
