// An autoregressive lane (greedy, beam search, sampling): one token per
// decoder pass, the search tree of hypotheses, what-if forcing of a token.
import { ipa, label } from './phonemes.js';
import { cleanOption, fmt, normalizedScore, scoreFormula } from './state.js';
import { bars, esc, explain, headThumbs, heatmap, outputStrip } from './views.js';
import { SCORES } from './scores.js';
import { beamTree } from './tree.js';
import { Lane } from './lane.js';

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

  get title() {
    return this.type === 'beam' ? `${this.kind.title} (k = ${this.opts.k})` : this.kind.title;
  }

  optionControls({ num, range, select }) {
    const o = this.opts;
    let html = '';
    if (this.type === 'beam') {
      html += range('k', 'Beam size k', 1, 16, 1, 'hypotheses kept at each step');
      html += select('norm', 'Length norm', [['none', 'none: log P'], ['average', 'average: log P / |Y|'], ['gnmt', 'GNMT: log P / ((5+|Y|)/6)^α']]);
      html += range('alpha', 'GNMT α', 0, 2, 0.1, 'only used by GNMT normalisation');
      html += num('nbest', 'n-best', 1, o.k, 1, 'how many finished hypotheses the result lists');
    } else if (this.type === 'sample') {
      html += range('temp', 'Temperature', 0.1, 3, 0.1, 'below 1 sharpens, above 1 flattens the distribution');
      html += num('topk', 'Top-k (0 = off)', 0, 64, 1);
      html += range('topp', 'Top-p', 0.05, 1, 0.05, 'keep the smallest set of tokens whose probability reaches p');
      html += `${num('seed', 'Seed', 0, 2147483647, 1)}<button type="button" data-action="reseed" class="small">new seed</button>`;
    }
    if (o.prefix || o.max) {
      const forced = o.prefix ? o.prefix.split(' ').map(label).join(' ') : '';
      html += `<p class="forced-note">What-if: forced ${forced ? `<strong>${esc(forced)}</strong>` : ''}${o.max ? `${forced ? ' then ' : ''}<strong>END</strong> at token ${o.max}` : ''}. <button type="button" class="small" data-action="unforce">Undo</button></p>`;
    }
    return html;
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
    const score = this.model?.arch === 'rnn' ? SCORES[this.model.attention] : null;
    const which = score ? `${score.name.toLowerCase()} score` : sel === 'avg' ? 'averaged over all layers and heads' : `layer ${Number(sel.split('.')[0]) + 1}, head ${Number(sel.split('.')[1]) + 1}`;
    return heatmap({ rowLabels: pathNodes.map((n) => n.texts.at(-1)), colLabels: this.sourceLetters(), rows, caption: `${caption}, ${which}` })
      + (layers * heads > 1 ? headThumbs({ layers, heads, rows: pathNodes.map((n) => n.attentionHeads), S, selected: sel, laneId: this.id }) : '');
  }

  /** What the AR views say about the decoder and its attention, for a Transformer or an RNN. */
  decoderNotes(pos) {
    const m = this.model;
    if (m?.arch === 'rnn') {
      const sc = SCORES[m.attention];
      return {
        decoder: explain('The recurrent decoder', `<p>This decoder is a GRU: it keeps one state vector <i>s</i> and updates it with every
          phoneme it writes, so all it has written so far is folded into <i>s</i>. It writes one token per step for the same reason as any
          autoregressive decoder: token ${pos + 1} needs token ${pos} first.</p>`, false),
        attention: explain('Attention in an RNN', `<p>At each step the decoder state <i>s</i> is scored against the encoder's state
          <i>h</i><sub><i>j</i></sub> of every letter with the ${sc ? `${esc(sc.name.toLowerCase())} score ${sc.formula}` : 'model\'s score'}; a softmax over the letters
          turns the scores into the weights drawn here, and their weighted sum of the <i>h</i><sub><i>j</i></sub> goes with <i>s</i> into
          the output layer. One attention, no heads. The lane “Four attention scores, side by side” compares the four scores on one word.</p>`, false),
      };
    }
    return {
      decoder: explain('Masked self-attention', `<p>The decoder reads BEGIN plus everything it has written so far. Its self-attention is <em>masked</em>:
      a position may look at earlier positions but never at later ones. That is how it was trained (predict each token from the past alone),
      and it is why it can only write one token per pass: token ${pos + 1} needs token ${pos} first.</p>`, false),
      attention: explain('Cross-attention', `<p>Each row is an output phoneme, each column a letter of the word. The shade shows how much the decoder looked
      at that letter (through cross-attention to the encoder's output) while producing the phoneme. A new row appears at every step.
      In a trained model the bright cells tend to walk along the word, lining letters up with sounds; single heads often specialise
      more sharply than the average. Pick a head below.</p>`, false),
    };
  }

  arView(i) {
    const s = this.snaps[i];
    const intro = this.type === 'sample'
      ? explain('Sampling', `<p>Instead of taking the most probable phoneme, sampling <em>draws</em> the next one at random from the model's distribution.
        Temperature below 1 sharpens the distribution (closer to greedy), above 1 flattens it (more surprises); top-k keeps only the k likeliest
        phonemes and top-p the smallest set whose probabilities add up to p. The same seed gives the same draws, so a link reproduces them.</p>`)
      : explain('Greedy decoding', `<p>The decoder runs once per output phoneme and always keeps the single most probable next token,
        until that token is END. It never goes back: if an early choice was poor, every later step has to live with it. Click another
        bar below to force that token instead and see where the decoder goes from there. (A beam of size 1 is almost the same, but not
        quite: it sets a finished output aside and may keep the runner-up going. Try a beam lane with k = 1.)</p>`);
    if (!s) {
      return intro + `<p class="waiting">Step 0: the encoder has read <strong>${esc(this.sourceLetters().join(''))}</strong>; the decoder holds only BEGIN. Press <kbd>Step</kbd> (or <kbd>→</kbd>) to run the first decoder pass.</p>`;
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
    html += `<div class="view"><h3>Output so far</h3>${outputStrip(cur.texts, { forced: path.map((n) => n.forced) })}
      ${notes.decoder}</div>`;
    html += `<div class="view"><h3>Pass ${i}: probabilities for token ${pos}</h3>
      ${bars(cands, chosen, { clickable: true, laneId: this.id, step: i })}
      <p class="note">${cur.forced ? 'This token was <strong>forced</strong>. ' : ''}${this.type === 'sample' ? 'Highlighted: the token drawn.' : 'Highlighted: the token taken.'} Other bars are buttons: what if the model had said that?</p></div>`;
    html += `<div class="view"><h3>${this.model?.arch === 'rnn' ? 'Attention' : 'Cross-attention'}: letters × phonemes</h3>${this.attentionView(path, `${this.model?.arch === 'rnn' ? 'Attention' : 'Cross-attention'} of each output phoneme over the input letters`)}
      ${notes.attention}</div>`;
    return html;
  }

  beamView(i) {
    const s = this.snaps[i];
    const o = this.opts;
    let html = explain('Beam search', `<p>Beam search keeps the <strong>${o.k}</strong> best partial outputs (hypotheses) instead of one.
      At each step every hypothesis is extended by its likeliest next phonemes and only the ${o.k} best by total log-probability survive.
      The others are dropped: they stay in the tree, faded, with the step at which they fell out and their score. A hypothesis that
      emits END is finished (square box) and set aside. The search stops when no live hypothesis can still beat the finished ones.</p>`);
    if (!s) {
      return html + `<p class="waiting">Step 0: the beam holds only BEGIN. Press <kbd>Step</kbd> to expand it.</p>`;
    }
    const map = this.nodes(i);
    const rank = (h) => normalizedScore(h.logprob, h.tokens.length, o.norm, o.alpha);
    const finished = s.finished.slice().sort((a, b) => rank(b) - rank(a));
    const live = s.live.slice().sort((a, b) => b.logprob - a.logprob);
    let selected = this.ui.selected != null && map.has(this.ui.selected) ? this.ui.selected : (finished[0] ?? live[0])?.id;
    html += `<div class="view"><h3>The beam tree, step ${i}</h3>
      <label class="inline">Dropped candidates: <select data-ui="pruned">
        <option value="none"${this.ui.pruned === 'none' ? ' selected' : ''}>hide</option>
        <option value="best"${this.ui.pruned === 'best' ? ' selected' : ''}>best per hypothesis</option>
        <option value="all"${this.ui.pruned === 'all' ? ' selected' : ''}>all</option></select></label>
      ${beamTree({ snaps: this.snaps, i, map, norm: o.norm, alpha: o.alpha, pruned: this.ui.pruned, selected })}
      <p class="legend"><span class="lg-item"><span class="lg live"></span> live</span> <span class="lg-item"><span class="lg fin"></span> finished (END)</span> <span class="lg-item"><span class="lg dead"></span> dropped: ✗step score (+n more not shown)</span> <span class="lg-item"><span class="lg sel"></span> selected</span> <span class="lg-item">numbers: score</span></p></div>`;
    const row = (h, j, fin) => `<tr class="${h.id === selected ? 'sel' : ''}"><td>${j + 1}</td>
      <td><button type="button" class="linkish" data-action="select" data-node="${h.id}" aria-label="Show attention of hypothesis ${j + 1}">${esc(h.texts.filter((x) => x !== '</s>').map(label).join(' ') || '(empty)')}</button>${fin ? ' <span class="endmark">END</span>' : ''}<br><span class="ipa">${esc(ipa(h.texts))}</span></td>
      <td class="num">${fmt(h.logprob)}</td><td class="num">${h.tokens.length}</td><td class="num"><strong>${fmt(normalizedScore(h.logprob, h.tokens.length, o.norm, o.alpha))}</strong></td></tr>
      <tr class="formula-row${h.id === selected ? ' sel' : ''}"><td></td><td colspan="4" class="formula">score = ${esc(scoreFormula(h.logprob, h.tokens.length, o.norm, o.alpha))}</td></tr>`;
    const head = '<thead><tr><th scope="col">#</th><th scope="col">hypothesis</th><th scope="col">log P</th><th scope="col">|Y|</th><th scope="col">score</th></tr></thead>';
    html += `<div class="view"><h3>Live hypotheses (${live.length})</h3>${live.length ? `<div class="table-scroll"><table class="hyps">${head}<tbody>${live.map((h, j) => row(h, j, false)).join('')}</tbody></table></div>` : '<p class="note">none left</p>'}</div>`;
    const shown = finished.slice(0, 8);
    html += `<div class="view"><h3>Finished, ranked by the length norm</h3>
      <div class="norm-inline" role="group" aria-label="Length normalisation (re-ranks at once)">
      ${['none', 'average', 'gnmt'].map((n) => `<label><input type="radio" name="${this.id}-norm" data-opt="norm" value="${n}"${o.norm === n ? ' checked' : ''}> ${n === 'none' ? 'none' : n === 'average' ? 'average' : 'GNMT'}</label>`).join(' ')}
      <label>α <input type="range" id="${this.id}-alpha2" data-opt="alpha" min="0" max="2" step="0.1" value="${o.alpha}"${o.norm === 'gnmt' ? '' : ' disabled'}><output for="${this.id}-alpha2">${o.alpha}</output></label></div>
      ${shown.length ? `<div class="table-scroll"><table class="hyps">${head}<tbody>${shown.map((h, j) => row(h, j, true)).join('')}</tbody></table></div>` : '<p class="note">none yet</p>'}
      ${finished.length > shown.length ? `<p class="note">and ${finished.length - shown.length} more</p>` : ''}
      ${explain('Length normalisation', `<p>A log-probability is a sum of negative numbers, so every extra phoneme lowers it: plain log P favours
      short outputs. Dividing by the length (<em>average</em>) or by GNMT's ((5+|Y|)/6)<sup>α</sup> removes most of that bias. |Y| counts the END
      token. Changing the control re-ranks the finished hypotheses here at once, from their log P and length; the lane then decodes again,
      because the normalisation also decides when the search may stop.</p>`, false)}</div>`;
    const selNode = map.get(selected);
    if (selNode) {
      const path = this.path(map, selected);
      const attn = this.model?.arch === 'rnn' ? 'Attention' : 'Cross-attention';
      html += `<div class="view"><h3>${attn} of the selected hypothesis</h3>${this.attentionView(path, `${attn} of the selected hypothesis over the input letters`)}
        ${explain(attn, `<p>Rows: the phonemes of the selected hypothesis (click one in the tables or the tree); columns: the letters.
        The shade is how much the decoder attended to each letter while producing each phoneme.</p>`, false)}</div>`;
    }
    return html;
  }
}
