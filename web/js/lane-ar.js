// An autoregressive lane (greedy, beam search, sampling): one token per
// decoder pass, the search tree of hypotheses, what-if forcing of a token.
import { ipa, label } from './phonemes.js';
import { PAGE_OPTIONS, cleanOption } from './lane-types.js';
import { fmt, normalizedScore, scoreFormula } from './format.js';
import { bars, esc, explain, outputStrip, scrollRegion } from './views.js';
import { heatmap } from './heatmap.js';
import { SCORES, scoreWords } from './scores.js';
import { t } from './i18n.js';
import { beamTree } from './tree.js';
import { Lane } from './lane.js';
import { fmtProb } from './forced.js';
import { selfAttentionView } from './self-attention.js';

export class ArLane extends Lane {
  onAction(a, b) {
    if (a === 'force') this.force(Number(b.dataset.step), b.dataset.token);
    else if (a === 'unforce') this.app.updateLane(this, { prefix: '', max: 0 });
    else if (a === 'head') { this.ui.head = b.dataset.head; this.render(this.app.t); }
    else if (a === 'select') { this.ui.selected = Number(b.dataset.node); this.render(this.app.t); }
    else if (a === 'reseed') this.app.updateLane(this, { seed: (this.opts.seed % 1000) + 1 });
  }

  onChange(e) {
    const el = e.target;
    if (el.dataset.ui === 'pruned') { this.ui.pruned = el.value; this.render(this.app.t); return; }
    super.onChange(e);
  }

  // Length normalisation re-ranks at once while its slider moves.
  onInput(e) {
    super.onInput(e);
    const el = e.target;
    if (this.type === 'beam' && el.dataset.opt === 'alpha') {
      this.opts.alpha = cleanOption('beam', 'alpha', el.value);
      this.render(this.app.t);      // re-rank now, re-decode on change
    }
  }

  // A click on a candidate bar at step k: that token replaces token k, the
  // tokens before it are kept (the `prefix` option), and the lane re-decodes.
  force(step, token) {
    const s = this.snaps[step];
    const h = s && (s.live[0] ?? s.finished[0]);
    if (!h) return;
    const before = h.tokens.slice(0, step - 1).map((_, i) => h.texts[i]);
    if (token === '</s>') this.app.updateLane(this, { prefix: before.join(' '), max: step });
    else this.app.updateLane(this, { prefix: [...before, token].join(' '), max: 0 });
  }

  get title() { return this.type === 'beam' ? t('lane.beamTitle', { k: this.opts.k }) : super.title; }

  optionControls({ num, range, select }, o) {
    const parts = [];
    if (this.type === 'beam') {
      parts.push(range('k', t('opt.k'), t('opt.kHelp')),
        select('norm', t('opt.norm'), [['none', t('opt.normNone')], ['average', t('opt.normAverage')], ['gnmt', t('opt.normGnmt')]]),
        range('alpha', t('opt.alpha'), t('opt.alphaHelp')),
        num('nbest', t('opt.nbest'), t('opt.nbestHelp'), { max: o.k }));
    } else if (this.type === 'sample') {
      parts.push(range('temp', t('opt.temp'), t('opt.tempHelp')),
        num('topk', t('opt.topk')),
        range('topp', t('opt.topp'), t('opt.toppHelp')),
        `${num('seed', t('opt.seed'))}<button type="button" data-action="reseed" class="small">${esc(t('opt.newSeed'))}</button>`);
    }
    if (o.prefix || o.max) parts.push(this.forcedNote());
    return parts;
  }

  /** What a what-if forced (the `prefix` and `max` options), with its undo button. */
  forcedNote() {
    const o = this.opts;
    const forced = o.prefix ? o.prefix.split(' ').map(label).join(' ') : '';
    const what = forced && o.max ? 'forced.both_html' : forced ? 'forced.tokens_html' : 'forced.end_html';
    return `<p class="forced-note">${t(what, { tokens: esc(forced), n: o.max })} <button type="button" class="small" data-action="unforce">${esc(t('forced.undo'))}</button></p>`;
  }

  afterControls() {
    if (this.type !== 'beam') return;
    const a = this.el.querySelector(`#${this.id}-alpha`);
    if (a) a.disabled = this.opts.norm !== 'gnmt';
  }

  view(i) {
    return this.type === 'beam' ? this.beamView(i) : this.arView(i);
  }

  afterRender(body) {
    const tree = body.querySelector('.tree-wrap');
    if (tree) this.scrollTree(tree);
  }

  soFar(s) {
    const h = s.live[0] ?? s.finished[0];
    return h ? h.texts.filter((x) => x !== '</s>').join(' ') : '';
  }

  // The frontier (the current step) is at the right, so show that; but the selected
  // hypothesis, the best finished one once the search has ended, may have finished many
  // steps earlier or sit below the fold: then centre the view on it.
  scrollTree(tree) {
    tree.scrollLeft = tree.scrollWidth;
    const node = tree.querySelector('.node.sel');
    if (!node) return;
    const w = tree.getBoundingClientRect();
    const r = node.getBoundingClientRect();
    if (r.left < w.left || r.right > w.right) tree.scrollLeft += r.left - w.left - (w.width - r.width) / 2;
    if (r.top < w.top || r.bottom > w.bottom) tree.scrollTop += r.top - w.top - (w.height - r.height) / 2;
  }

  // All nodes of the AR search tree up to step i, by id.
  nodes(i) {
    const map = new Map();
    map.set(0, { id: 0, parent: -1, texts: [], tokens: [], logprob: 0, step: 0, root: true });
    for (let k = 1; k <= i; k++) {
      const s = this.snaps[k];
      for (const h of [...s.live, ...s.finished]) if (!map.has(h.id)) map.set(h.id, { ...h, step: k });
    }
    return map;
  }

  path(map, id) {
    const out = [];
    for (let n = map.get(id); n && !n.root; n = map.get(n.parent)) out.unshift(n);
    return out;
  }

  attentionView(pathNodes, caption) {
    const s0 = this.snaps[this.lastIndex];
    const layers = s0?.layers ?? 0;
    const heads = s0?.heads ?? 0;
    const S = this.sourceLetters().length;
    const sel = this.ui.head;
    const rows = pathNodes.map((n) => {
      if (sel === 'avg' || !n.attentionHeads) return n.attention ?? new Float32Array(S);
      const [l, h] = sel.split('.').map(Number);
      const off = (l * heads + h) * S;
      return n.attentionHeads.subarray(off, off + S);
    });
    // An RNN has one attention, no layers or heads to pick from.
    const score = this.model?.arch === 'rnn' && Object.hasOwn(SCORES, this.model.attention) ? scoreWords(this.model.attention) : null;
    const which = score ? t('attn.whichScore', { score: score.short }) : sel === 'avg' ? t('attn.whichAvg') : t('attn.whichHead', { l: Number(sel.split('.')[0]) + 1, h: Number(sel.split('.')[1]) + 1 });
    // Each head's thumbnail: its rows of the path's per-head maps (none yet: zeros).
    const matrixOf = (l, h) => pathNodes.map((n) => n.attentionHeads?.subarray((l * heads + h) * S, (l * heads + h + 1) * S) ?? []);
    return heatmap({ matrix: rows, rowLabels: pathNodes.map((n) => label(n.texts.at(-1))), colLabels: this.sourceLetters(),
      caption: t('attn.captionWhich', { caption, which }), highlightRow: rows.length - 1, empty: t('heatmap.empty'),
      heads: { layers, heads, selected: sel, action: 'head', aria: t('thumbs.aria'), matrixOf, cols: S } });
  }

  /** What the AR views say about the decoder and its attention, for a Transformer or an RNN. */
  decoderNotes(pos) {
    const m = this.model;
    if (m?.arch === 'rnn') {
      const sc = Object.hasOwn(SCORES, m.attention) ? SCORES[m.attention] : null;
      return {
        decoder: explain(t('rnn.decoderTitle'), t('rnn.decoder_html', { next: pos + 1, pos }), false),
        attention: explain(t('rnn.attentionTitle'), t('rnn.attention_html', {
          score: sc ? t('rnn.namedScore_html', { name: esc(scoreWords(m.attention).short), formula: sc.formula }) : esc(t('rnn.modelScore')),
          lane: esc(t('lane.compare')),
        }), false),
      };
    }
    return {
      decoder: explain(t('ar.maskedTitle'), t('ar.masked_html', { next: pos + 1, pos }), false),
      attention: explain(t('ar.crossTitle'), t('ar.cross_html'), false),
    };
  }

  arView(i) {
    const s = this.snaps[i];
    const intro = this.type === 'sample'
      ? explain(t('sample.title'), t('sample.explain_html'))
      : explain(t('greedy.title'), t('greedy.explain_html'));
    if (!s) {
      return intro + `<p class="waiting">${t('ar.waiting_html', { letters: esc(this.sourceLetters().join('')) })}</p>`;
    }
    const map = this.nodes(i);
    const cur = s.live[0] ?? s.finished[0];
    const path = this.path(map, cur.id);
    const chosen = cur.tokens.at(-1);
    const cands = cur.candidates.slice();
    if (!cands.some((c) => c.token === chosen)) cands.push({ token: chosen, text: cur.texts.at(-1), prob: cur.tokenProb });
    const pos = cur.tokens.length;
    let html = intro;
    const notes = this.decoderNotes(pos);
    const attn = t(this.model?.arch === 'rnn' ? 'attn.rnn' : 'attn.cross');
    html += `<div class="view"><h3>${esc(t('ar.outputSoFar'))}</h3>${outputStrip(cur.texts, { forced: path.map((n) => n.forced) })}
      ${notes.decoder}</div>`;
    html += `<div class="view"><h3>${esc(t('ar.passProbs', { i, pos }))}</h3>
      ${bars(cands, chosen, { clickable: true, laneId: this.id, step: i })}
      <p class="note">${cur.forced ? `${t('ar.wasForced_html')} ` : ''}${esc(t(this.type === 'sample' ? 'ar.drawn' : 'ar.taken'))} ${esc(t('ar.otherBars'))}</p></div>`;
    html += `<div class="view"><h3>${esc(t('ar.attnHeading', { attn }))}</h3>${this.attentionView(path, t('ar.attnCaption', { attn }))}
      ${notes.attention}</div>`;
    return html + selfAttentionView(this, i);
  }

  beamView(i) {
    const s = this.snaps[i];
    const o = this.opts;
    let html = explain(t('beam.title'), t('beam.explain_html', { k: o.k }));
    if (!s) {
      return html + `<p class="waiting">${t('beam.waiting_html')}</p>`;
    }
    const map = this.nodes(i);
    const rank = (h) => normalizedScore(h.logprob, h.tokens.length, o.norm, o.alpha);
    const finished = s.finished.slice().sort((a, b) => rank(b) - rank(a));
    const live = s.live.slice().sort((a, b) => b.logprob - a.logprob);
    let selected = this.ui.selected != null && map.has(this.ui.selected) ? this.ui.selected : (finished[0] ?? live[0])?.id;
    const pruned = (v, key) => `<option value="${v}"${this.ui.pruned === v ? ' selected' : ''}>${esc(t(key))}</option>`;
    const lg = (cls, key) => `<span class="lg-item">${cls ? `<span class="lg ${cls}"></span> ` : ''}${esc(t(key))}</span>`;
    html += `<div class="view"><h3>${esc(t('beam.tree', { i }))}</h3>
      <label class="inline">${esc(t('beam.dropped'))} <select data-ui="pruned">
        ${pruned('none', 'beam.prunedNone')}${pruned('best', 'beam.prunedBest')}${pruned('all', 'beam.prunedAll')}</select></label>
      ${beamTree({ snaps: this.snaps, i, map, norm: o.norm, alpha: o.alpha, pruned: this.ui.pruned, selected })}
      <p class="legend">${lg('live', 'beam.lgLive')} ${lg('fin', 'beam.lgFin')} ${lg('dead', 'beam.lgDead')} ${lg('sel', 'beam.lgSel')} ${lg('', 'beam.lgNumbers')}</p></div>`;
    const row = (h, j, fin) => `<tr class="${h.id === selected ? 'sel' : ''}"><td>${j + 1}</td>
      <td><button type="button" class="linkish" data-action="select" data-node="${h.id}" >${esc(h.texts.filter((x) => x !== '</s>').map(label).join(' ') || t('out.empty'))}<span class="visually-hidden"> ${esc(t('beam.showAttn', { n: j + 1 }))}</span></button>${fin ? ' <span class="endmark">END</span>' : ''}<br><span class="ipa">${esc(ipa(h.texts))}</span></td>
      <td class="num">${fmt(h.logprob)}<br><small class="seq-p">P ${fmtProb(h.logprob)}</small></td><td class="num">${h.tokens.length}</td><td class="num"><strong>${fmt(normalizedScore(h.logprob, h.tokens.length, o.norm, o.alpha))}</strong></td></tr>
      <tr class="formula-row${h.id === selected ? ' sel' : ''}"><td></td><td colspan="4" class="formula">${esc(t('beam.formula', { formula: scoreFormula(h.logprob, h.tokens.length, o.norm, o.alpha) }))}</td></tr>`;
    const head = `<thead><tr><th scope="col">#</th><th scope="col">${esc(t('beam.colHyp'))}</th><th scope="col">log P</th><th scope="col">|Y|</th><th scope="col">${esc(t('beam.colScore'))}</th></tr></thead>`;
    html += `<div class="view"><h3>${esc(t('beam.live', { n: live.length }))}</h3>${live.length ? scrollRegion(`<table class="hyps">${head}<tbody>${live.map((h, j) => row(h, j, false)).join('')}</tbody></table>`) : `<p class="note">${esc(t('beam.noneLeft'))}</p>`}</div>`;
    const shown = finished.slice(0, 8);
    const normName = { none: 'beam.normNone', average: 'beam.normAverage', gnmt: 'beam.normGnmt' };
    const alphaUi = PAGE_OPTIONS.alpha.ui;   // the same slider as the lane's options
    html += `<div class="view"><h3>${esc(t('beam.finished'))}</h3>
      <div class="norm-inline" role="group" aria-label="${esc(t('beam.normAria'))}">
      ${['none', 'average', 'gnmt'].map((n) => `<label><input type="radio" name="${this.id}-norm" data-opt="norm" value="${n}"${o.norm === n ? ' checked' : ''}> ${esc(t(normName[n]))}</label>`).join(' ')}
      <label>α <input type="range" id="${this.id}-alpha2" data-opt="alpha" min="${alphaUi.min}" max="${alphaUi.max}" step="${alphaUi.step}" value="${o.alpha}"${o.norm === 'gnmt' ? '' : ' disabled'}><output for="${this.id}-alpha2">${o.alpha}</output></label></div>
      ${shown.length ? scrollRegion(`<table class="hyps">${head}<tbody>${shown.map((h, j) => row(h, j, true)).join('')}</tbody></table>`) : `<p class="note">${esc(t('beam.noneYet'))}</p>`}
      ${finished.length > shown.length ? `<p class="note">${esc(t('beam.more', { n: finished.length - shown.length }))}</p>` : ''}
      ${explain(t('beam.normTitle'), t('beam.norm_html'), false)}</div>`;
    const selNode = map.get(selected);
    if (selNode) {
      const path = this.path(map, selected);
      const attn = t(this.model?.arch === 'rnn' ? 'attn.rnn' : 'attn.cross');
      html += `<div class="view"><h3>${esc(t('beam.selAttn', { attn }))}</h3>${this.attentionView(path, t('beam.selCaption', { attn }))}
        ${explain(attn, t('beam.selExplain_html'), false)}</div>`;
    }
    return html + selfAttentionView(this, i);
  }
}
