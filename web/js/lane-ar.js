// An autoregressive lane (greedy, beam search, sampling): one token per
// decoder pass, the hypotheses' tree, what-if forcing of a token.
import { label } from './phonemes.js';
import { bars, esc, explain, outputStrip } from './views.js';
import { heatmap } from './heatmap.js';
import { SCORES, scoreWords } from './scores.js';
import { t } from './i18n.js';
import { Lane } from './lane.js';

/**
 * What the autoregressive lanes share (GreedyLane, BeamLane, SampleLane): the
 * what-if forcing, the head picker, the attention of a path. A type gives its
 * intro (intro()), the key of the sentence that says how a token was chosen
 * (chosenKey), its controls (ownControls) and, for a beam, its own view.
 */
export class ArLane extends Lane {
  constructor(ctx, spec) {
    super(ctx, spec);
    // The head the address names (head=2.3), checked against the model's once it has decoded (attentionView).
    if (this.addressView.head) this.ui.head = this.addressView.head;
    delete this.addressView.head;
  }

  // The head picked is part of the moment the address holds.
  viewState() { return this.ui.head === 'avg' ? {} : { head: this.ui.head }; }

  onAction(a, b) {
    if (a === 'force') this.force(Number(b.dataset.step), b.dataset.token);
    else if (a === 'unforce') this.ctx.update(this, { prefix: '', maxLength: 0 });
    else if (a === 'head') { this.ui.head = b.dataset.head; this.render(this.ctx.step); this.ctx.viewChanged(); }
    else if (a === 'select') { this.ui.selected = Number(b.dataset.node); this.render(this.ctx.step); }
  }

  onChange(e) {
    const el = e.target;
    if (el.dataset.ui === 'pruned') { this.ui.pruned = el.value; this.render(this.ctx.step); return; }
    super.onChange(e);
  }

  // A click on a candidate bar at step k: that token replaces token k, the
  // tokens before it are kept (the `prefix` option), and the lane re-decodes.
  force(step, token) {
    const s = this.snaps[step];
    const h = s && (s.live[0] ?? s.finished[0]);
    if (!h) return;
    const before = h.tokens.slice(0, step - 1).map((_, i) => h.texts[i]);
    if (token === '</s>') this.ctx.update(this, { prefix: before.join(' '), maxLength: step });
    else this.ctx.update(this, { prefix: [...before, token].join(' '), maxLength: 0 });
  }

  optionControls(builders, o) {
    return this.ownControls(builders, o);
  }

  // The what-if note of a forced lane stays in view while the settings are folded.
  laneNotes(o) {
    return o.prefix || o.maxLength ? this.forcedNote() : '';
  }

  /** The option controls of the lane type (markup pieces), from the builders num, range and select. */
  ownControls() { return []; }

  /** What a what-if forced (the `prefix` and `maxLength` options), with its undo button. */
  forcedNote() {
    const o = this.opts;
    const forced = o.prefix ? o.prefix.split(' ').map(label).join(' ') : '';
    const what = forced && o.maxLength ? 'forced.both_html' : forced ? 'forced.tokens_html' : 'forced.end_html';
    return `<p class="forced-note">${t(what, { tokens: esc(forced), n: o.maxLength })} <button type="button" class="small" data-action="unforce">${esc(t('forced.undo'))}</button></p>`;
  }

  view(i) {
    return this.arView(i);
  }

  /**
   * What the registered views follow at step i: the hypothesis picked (a beam's table
   * or tree), else the best live one (highest log P), else the best finished one;
   * with its path from the root.
   */
  viewFocus(i) {
    const s = this.snaps[i];
    if (!s?.autoregressive) return null;
    const map = this.nodes(i);
    const picked = this.selectsHypothesis && this.ui.selected ? map.get(this.ui.selected) ?? null : null;
    const hyp = picked ?? s.live.reduce((a, h) => (!a || h.logprob > a.logprob ? h : a), null) ?? s.finished[0];
    if (!hyp) return null;
    return { hyp, path: this.path(map, hyp.id), picked: !!picked, pickable: this.selectsHypothesis };
  }

  /**
   * The decoder pass "Inside this step" shows at step i (inside.js): the step's, over
   * BEGIN and the tokens before its hypothesis's last (the one its bars show). next[p]:
   * the token position p's distribution chose.
   */
  insideRequest(i) {
    const s = this.snaps[i];
    const cur = s?.autoregressive ? s.live[0] ?? s.finished[0] : null;
    if (!cur) return null;
    return { kind: 'ar', word: this.word, tokens: cur.tokens.slice(0, -1), next: [...cur.tokens], id: cur.id };
  }

  // Whether the learner picks the hypothesis the views follow (a beam's), or they follow the best.
  get selectsHypothesis() { return false; }

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

  /** The best result's path as decoded at step i: each token with the probability the model gave it then. */
  freeRunning(i) {
    const best = this.snaps[i]?.finished?.[0];
    if (!best) return null;
    return this.path(this.nodes(i), best.id).map((n) => ({ text: n.texts.at(-1), prob: n.tokenProb }));
  }

  path(map, id) {
    const out = [];
    for (let n = map.get(id); n && !n.root; n = map.get(n.parent)) out.unshift(n);
    return out;
  }

  /** The cross-attention of a path, one row per token; `pick`: its cells open the inside (viewLink), or null. */
  attentionView(pathNodes, caption, pick = null) {
    // An RNN without attention reads one fixed context vector: there is no map to draw.
    if (this.model?.arch === 'rnn' && this.model.attentionScore === 'none') return `<p class="note no-attention">${t('rnn.noAttention_html')}</p>`;
    const s0 = this.snaps[this.lastIndex];
    const layers = s0?.layers ?? 0;
    const heads = s0?.heads ?? 0;
    const S = this.sourceLetters().length;
    // A head the model has not (an address's) is the average.
    const [hl, hh] = this.ui.head.split('.').map(Number);
    if (this.ui.head !== 'avg' && !(hl < layers && hh < heads)) this.ui.head = 'avg';
    const sel = this.ui.head;
    const rows = pathNodes.map((n) => {
      if (sel === 'avg' || !n.attentionHeads) return n.attention ?? new Float32Array(S);
      const [l, h] = sel.split('.').map(Number);
      const off = (l * heads + h) * S;
      return n.attentionHeads.subarray(off, off + S);
    });
    // An RNN has one attention, no layers or heads to pick from.
    const score = this.model?.arch === 'rnn' && Object.hasOwn(SCORES, this.model.attentionScore) ? scoreWords(this.model.attentionScore) : null;
    const which = score ? t('attn.whichScore', { score: score.short }) : sel === 'avg' ? t('attn.whichAvg') : t('attn.whichHead', { l: Number(sel.split('.')[0]) + 1, h: Number(sel.split('.')[1]) + 1 });
    // Each head's thumbnail: its rows of the path's per-head maps (none yet: zeros).
    const matrixOf = (l, h) => pathNodes.map((n) => n.attentionHeads?.subarray((l * heads + h) * S, (l * heads + h + 1) * S) ?? []);
    return heatmap({ matrix: rows, rowLabels: pathNodes.map((n) => label(n.texts.at(-1))), colLabels: this.sourceLetters(),
      caption: t('attn.captionWhich', { caption, which }), highlightRow: rows.length - 1, empty: t('heatmap.empty'),
      heads: { layers, heads, selected: sel, action: 'head', aria: t('thumbs.aria'), matrixOf, cols: S }, pick });
  }

  /** What the AR views say about the decoder and its attention, for a Transformer or an RNN. */
  decoderNotes(pos) {
    const m = this.model;
    if (m?.arch === 'rnn') {
      const sc = Object.hasOwn(SCORES, m.attentionScore) ? SCORES[m.attentionScore] : null;
      return {
        decoder: explain(t('rnn.decoderTitle'), t('rnn.decoder_html', { next: pos + 1, pos }), false),
        attention: m.attentionScore === 'none' ? '' : explain(t('rnn.attentionTitle'), t('rnn.attention_html', {
          score: sc ? t('rnn.namedScore_html', { name: esc(scoreWords(m.attentionScore).short), formula: sc.formula }) : esc(t('rnn.modelScore')),
          lane: esc(t('lane.compare')),
        }), false),
      };
    }
    return {
      decoder: explain(t('ar.maskedTitle'), t('ar.masked_html', { next: pos + 1, pos }), false),
      attention: explain(t('ar.crossTitle'), t('ar.cross_html'), false),
    };
  }

  /** The heading of the step's bars (the sampling lane's are the distribution drawn from). */
  get probsKey() { return 'ar.passProbs'; }

  arView(i) {
    const s = this.snaps[i];
    const intro = this.intro();
    if (!s) {
      return intro + `<p class="waiting">${t('ar.waiting_html', { letters: esc(this.sourceLetters().join('')) })}</p>`;
    }
    const map = this.nodes(i);
    const cur = s.live[0] ?? s.finished[0];
    const path = this.path(map, cur.id);
    const chosen = cur.tokens.at(-1);
    const cands = cur.candidates.slice();
    if (!cands.some((c) => c.token === chosen)) {
      const extra = { token: chosen, text: cur.texts.at(-1), prob: cur.tokenProb };
      if (typeof cur.tokenDrawnProb === 'number') extra.drawnProb = cur.tokenDrawnProb;
      cands.push(extra);
    }
    const pos = cur.tokens.length;
    let html = intro;
    const notes = this.decoderNotes(pos);
    const attn = t(this.model?.arch === 'rnn' ? 'attn.rnn' : 'attn.cross');
    html += `<div class="view"><h3>${esc(t('ar.outputSoFar'))}</h3>${outputStrip(cur.texts, { forced: path.map((n) => n.forced) })}
      ${notes.decoder}</div>`;
    html += `<div class="view"><h3>${esc(t(this.probsKey, { i, pos }))}</h3>
      ${bars(cands, chosen, { clickable: true, laneId: this.id, step: i, leftOut: cur.leftOut })}
      <p class="note">${cur.forced ? `${t('ar.wasForced_html')} ` : ''}${esc(t(this.chosenKey))} ${esc(t('ar.otherBars'))}</p></div>`;
    html += this.viewsHtml('choice', i);   // how the token was chosen (the sampling lane's draw)
    // Row r is the query at position r of the step's pass: the inside computes every row of the path.
    const pick = this.viewLink('inside', i, { stack: 'decoder', sub: 'cross', sel: this.model?.arch === 'rnn' ? '0.0' : this.ui.head, written: true });
    // A model trained on the page reads and writes its task's tokens, not letters and phonemes.
    const own = !!this.model?.trainedOn;
    html += `<div class="view"><h3>${esc(t(own ? 'ar.attnHeadingTokens' : 'ar.attnHeading', { attn }))}</h3>${this.attentionView(path, t(own ? 'ar.attnCaptionTokens' : 'ar.attnCaption', { attn }), pick)}
      ${notes.attention}</div>`;
    return html;
  }
}
