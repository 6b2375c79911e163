// One lane: one decoding method on the page's word. It decodes every step at
// once (the snapshots are kept, so Back is instant) and draws the step the
// page is at.
import { openDecoder } from './engine.js';
import { ipa, label } from './phonemes.js';
import { LANE_TYPES, cleanOption, fmt, moduleOptions, normalizedScore, scoreFormula } from './state.js';
import { bars, chip, esc, explain, green, headThumbs, heatmap, outputStrip, phonemeLine, verdict } from './views.js';
import { SCORES } from './scores.js';
import { beamTree } from './tree.js';

let nextId = 1;

export class Lane {
  constructor(app, spec) {
    this.app = app;
    this.id = `lane${nextId++}`;
    this.type = spec.type;
    this.opts = { ...spec.opts };
    this.snaps = [null];       // snaps[k]: the snapshot after decoder pass k (k >= 1)
    this.times = [0];          // times[k]: wall time of pass k in ms (times[0]: start, incl. the encoder)
    this.done = false;
    this.error = null;
    this.busy = false;
    this.gen = 0;
    this.decoder = null;
    this.decoderUrl = null;
    this.ui = { head: 'avg', selected: null, draft: null, pruned: 'best' };
    this.el = document.createElement('section');
    this.el.className = `lane lane-${this.type}`;
    this.el.id = this.id;
    this.el.setAttribute('aria-labelledby', `${this.id}-title`);
    this.el.innerHTML = `<div class="lane-head"></div><div class="lane-opts"></div><div class="lane-stats" aria-live="off"></div><div class="lane-body"></div><div class="lane-result"></div>`;
    this.el.addEventListener('click', (e) => this.onClick(e));
    this.el.addEventListener('change', (e) => this.onChange(e));
    this.el.addEventListener('input', (e) => this.onInput(e));
  }

  get spec() { return { type: this.type, opts: { ...this.opts } }; }
  get kind() { return LANE_TYPES[this.type]; }
  get model() { return this.app.modelFor(this); }
  get lastIndex() { return this.snaps.length - 1; }
  index(t) { return Math.min(t, this.lastIndex); }

  destroy() {
    this.gen++; // a decode still under way sees it is stale and stops drawing
    this.stopDecoders();
    this.el.remove();
  }

  /** Ends this lane's worker(s); the compare lane has one per panel. */
  stopDecoders() {
    this.decoder?.terminate();
    this.decoder = null;
  }

  /** Draws this lane's error in place of its body and result; true if there was one. */
  renderError(body, result) {
    if (!this.error) return false;
    body.innerHTML = `<p class="lane-error" role="alert">${esc(this.error)}</p>`;
    result.innerHTML = '';
    return true;
  }

  /** Starts a decode: a new generation (older decodes stop drawing), busy, no error. */
  beginDecode() {
    const gen = ++this.gen;
    this.busy = true;
    this.error = null;
    this.renderStats(this.app.t);
    return gen;
  }

  // ------------------------------------------------------------ decoding
  async decode(word) {
    const gen = this.beginDecode();
    try {
      const m = this.model;
      if (!m) throw new Error(`no ${this.kind.ar ? 'autoregressive' : 'non-autoregressive'} model is available`);
      const url = new URL(m.file, document.baseURI).href;
      if (this.decoderUrl !== url) {
        this.decoder?.terminate();
        this.decoder = null;
        this.decoderUrl = url;
        this.decoder = await openDecoder(url);
        performance.mark(`${this.id}-open`);
        if (gen !== this.gen) return;
        this.info = this.decoder.info;
      }
      const problem = this.app.checkWord(word, m);
      if (problem) throw Object.assign(new Error(problem), { kind: 'InputError' });
      const got = await this.decodeAll(this.decoder, word, moduleOptions(this), gen);
      if (!got) return;
      performance.mark(`${this.id}-done`);
      this.snaps = got.snaps;
      this.times = got.times;
      this.word = word;         // the word these snapshots belong to
      this.done = true;
    } catch (e) {
      if (!this.decoder) this.decoderUrl = null;   // the next decode tries to open it again
      if (gen !== this.gen) return;
      this.snaps = [null];
      this.times = [0];
      this.done = true;
      this.error = friendlyError(e);
    } finally {
      if (gen === this.gen) {
        this.busy = false;
        this.ui.selected = null;
        this.ui.draft = null;
        this.app.laneDecoded(this);
      }
    }
  }

  /**
   * Decodes `word` to the end on `decoder` (from openDecoder): every snapshot
   * (snaps[k] after pass k) and the wall time of each pass (times[0]: start,
   * with the encoder). null when a newer decode of this lane (gen) took over.
   */
  async decodeAll(decoder, word, options, gen) {
    const snaps = [null];
    const times = [0];
    await decoder.exclusive(async ({ start, run, cancel }) => {
      if (gen !== this.gen) return;   // superseded while waiting for the worker
      let t0 = performance.now();
      await start(word, options);
      times[0] = performance.now() - t0;
      // One request for the whole decode, not one per step: the worker steps
      // on without waiting for this (possibly busy) thread to ask again. The
      // time of a pass is the time between two snapshots' arrival.
      t0 = performance.now();
      let cancelled = false;
      await run((s) => {
        if (gen !== this.gen) {
          if (!cancelled) cancel().catch(() => {});
          cancelled = true;
          return;
        }
        const t = performance.now();
        times.push(t - t0);
        t0 = t;
        snaps.push(s);
      }).catch((e) => {
        if (!(cancelled && e?.kind === 'Cancelled')) throw e;
      });
    });
    return gen === this.gen ? { snaps, times } : null;
  }

  // ------------------------------------------------------------ events
  onClick(e) {
    const b = e.target.closest('[data-action]');
    if (!b || !this.el.contains(b)) return;
    const a = b.dataset.action;
    if (a === 'remove') this.app.removeLane(this);
    else if (a === 'left') this.app.moveLane(this, -1);
    else if (a === 'right') this.app.moveLane(this, 1);
    else if (a === 'force') this.force(Number(b.dataset.step), b.dataset.token);
    else if (a === 'unforce') this.app.updateLane(this, { prefix: '', max: 0 });
    else if (a === 'head') { this.ui.head = b.dataset.head; this.render(this.app.t); }
    else if (a === 'select') { this.ui.selected = Number(b.dataset.node); this.render(this.app.t); }
    else if (a === 'draft') { this.ui.draft = Number(b.dataset.draft); this.render(this.app.t); }
    else if (a === 'length') this.app.updateLane(this, { len: 'given', L: Number(b.dataset.length) });
    else if (a === 'predicted') this.app.updateLane(this, { len: 'predicted', L: 0 });
    else if (a === 'reseed') this.app.updateLane(this, { seed: (this.opts.seed % 1000) + 1 });
  }

  onChange(e) {
    const el = e.target;
    if (el.dataset.ui === 'pruned') { this.ui.pruned = el.value; this.render(this.app.t); return; }
    const key = el.dataset.opt;
    if (!key) return;
    const value = el.type === 'checkbox' ? el.checked : el.value;
    const patch = { [key]: value };
    if (key === 'len' && value !== 'given') patch.L = 0;
    if (key === 'len' && value === 'given' && !this.opts.L) patch.L = this.currentLength() || 5;
    this.app.updateLane(this, patch);
  }

  // Range sliders: show the number while dragging; length normalisation re-ranks at once.
  onInput(e) {
    const el = e.target;
    const out = el.dataset.opt && this.el.querySelector(`output[for="${el.id}"]`);
    if (out) out.textContent = el.value;
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

  currentLength() {
    const s = this.snaps[this.index(this.app.t)] ?? this.snaps[this.lastIndex];
    return s && !s.autoregressive && s.drafts[s.bestDraft] ? s.drafts[s.bestDraft].length : 0;
  }

  // ------------------------------------------------------------ controls
  /** The title and the move / remove buttons every lane has. */
  renderHead(title) {
    const idx = this.app.lanes.indexOf(this);
    this.el.querySelector('.lane-head').innerHTML = `
      <h2 id="${this.id}-title">${esc(title)}</h2>
      <div class="lane-buttons">
        <button type="button" data-action="left" aria-label="Move this lane left"${idx <= 0 ? ' disabled' : ''}>◀</button>
        <button type="button" data-action="right" aria-label="Move this lane right"${idx >= this.app.lanes.length - 1 ? ' disabled' : ''}>▶</button>
        <button type="button" data-action="remove" aria-label="Remove this lane">✕</button>
      </div>`;
  }

  renderControls() {
    const k = this.kind;
    const o = this.opts;
    const title = this.type === 'beam' ? `${k.title} (k = ${o.k})` : this.type === 'mp' ? `${k.title} (T = ${o.T})` : k.title;
    const models = this.app.models.filter((m) => m.autoregressive === k.ar);
    const cur = this.model;
    this.renderHead(title);
    const f = (id) => `${this.id}-${id}`;
    let html = `<label for="${f('m')}">Model</label><select id="${f('m')}" data-opt="m">${models.map((m) =>
      `<option value="${esc(m.id)}"${cur && m.id === cur.id ? ' selected' : ''}>${esc(m.name)}${m.fixture ? ' (random weights)' : ''}</option>`).join('')}</select>`;
    const num = (key, lab, min, max, step = 1, help = '') => `<label for="${f(key)}"${help ? ` title="${esc(help)}"` : ''}>${lab}</label><input id="${f(key)}" data-opt="${key}" type="number" min="${min}" max="${max}" step="${step}" value="${o[key]}" inputmode="decimal">`;
    const range = (key, lab, min, max, step, help = '') => `<label for="${f(key)}"${help ? ` title="${esc(help)}"` : ''}>${lab}</label><span class="range"><input id="${f(key)}" data-opt="${key}" type="range" min="${min}" max="${max}" step="${step}" value="${o[key]}"><output for="${f(key)}">${o[key]}</output></span>`;
    const select = (key, lab, options) => `<label for="${f(key)}">${lab}</label><select id="${f(key)}" data-opt="${key}">${options.map(([v, t]) => `<option value="${v}"${String(o[key]) === String(v) ? ' selected' : ''}>${t}</option>`).join('')}</select>`;
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
    } else if (this.type === 'nar' || this.type === 'mp') {
      if (this.type === 'mp') {
        html += range('T', 'Iterations T', 1, 20, 1, 'Mask-Predict iterations');
        if (o.len === 'predicted') {
          html += range('lc', 'Length candidates', 1, 8, 1, 'how many of the likeliest lengths are decoded side by side');
          if (o.lc > 1) html += range('lw', 'Length weight w', 0, 1, 0.01, 'a candidate scores avg log P(tokens) + w · log P(length)');
        }
      }
      html += select('len', 'Length', [['predicted', 'predicted by the length head'], ['fixed', 'fixed maximum, cut at END'], ['given', 'given (imposed)']]);
      if (o.len === 'given') html += num('L', 'Imposed length', 1, 256, 1);
    }
    if (k.ar && (o.prefix || o.max)) {
      const forced = o.prefix ? o.prefix.split(' ').map(label).join(' ') : '';
      html += `<p class="forced-note">What-if: forced ${forced ? `<strong>${esc(forced)}</strong>` : ''}${o.max ? `${forced ? ' then ' : ''}<strong>END</strong> at token ${o.max}` : ''}. <button type="button" class="small" data-action="unforce">Undo</button></p>`;
    }
    this.el.querySelector('.lane-opts').innerHTML = `<div class="opt-grid">${html}</div>`;
    if (this.type === 'beam') {
      const a = this.el.querySelector(`#${f('alpha')}`);
      if (a) a.disabled = o.norm !== 'gnmt';
    }
  }

  // ------------------------------------------------------------ drawing
  renderStats(t) {
    const el = this.el.querySelector('.lane-stats');
    const i = this.index(t);
    const s = this.snaps[i];
    const ms = this.times.slice(0, i + 1).reduce((a, b) => a + b, 0);
    const passes = s ? s.step : 0;
    let status;
    if (this.error) status = 'error';
    else if (this.busy) status = 'decoding…';
    else if (s?.done) status = i < t ? `finished at step ${i}` : 'finished';
    else if (!s) status = 'not started: press Step';
    else status = `step ${i} of ${this.lastIndex}`;
    const what = this.kind.ar ? 'decoder passes' : 'decoder passes (Mask-Predict iterations)';
    el.innerHTML = `<span title="The encoder reads the word once, before the first decoder pass${this.kind.ar ? '' : '; the length head reads its output'}">encoder: 1 pass</span> · <span>${what}: <strong data-k="passes">${passes}</strong></span> · <span>wall time: <strong>${ms.toFixed(1)} ms</strong></span> · <span class="status">${esc(status)}</span>`;
  }

  render(t) {
    this.renderStats(t);
    const body = this.el.querySelector('.lane-body');
    const result = this.el.querySelector('.lane-result');
    if (this.renderError(body, result)) return;
    const i = this.index(t);
    const keepOpen = [...body.querySelectorAll('details')].map((d) => d.open);
    if (this.type === 'beam') body.innerHTML = this.beamView(i);
    else if (this.kind.ar) body.innerHTML = this.arView(i);
    else body.innerHTML = this.narView(i);
    // Keep the learner's open/closed choice of explanations and tables across steps.
    const ds = body.querySelectorAll('details');
    if (keepOpen.length === ds.length) ds.forEach((d, j) => { d.open = keepOpen[j]; });
    result.innerHTML = this.resultView(i);
    const tree = body.querySelector('.tree-wrap');
    if (tree) this.scrollTree(tree);
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

  sourceLetters() {
    return [...this.app.normalizedWord(this.model, this.word ?? this.app.word)];
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

  narView(i) {
    const s = this.snaps[i];
    const o = this.opts;
    const T = this.type === 'mp' ? o.T : 1;
    let html = this.type === 'nar'
      ? explain('Non-autoregressive decoding', `<p>This decoder writes every position <strong>at once</strong>, in a single pass: its self-attention is not masked,
        and no position waits for another. So it must know the output length first. A small classifier on the encoder's output predicts it
        (bars below), or the lane decodes a fixed maximum length and cuts at the first END. Because the length is an input, you can impose
        one: click a bar. The price of parallelism: each position is predicted without knowing what the others chose. When several
        pronunciations are plausible, positions can mix them, and the same phoneme often comes out twice in a row (marked <span class="rep-mark">↻</span>).</p>`)
      : explain('Mask-Predict', `<p>Mask-Predict starts like the one-pass decoder (iteration 1: every position masked, all predicted at once),
        then repeats: at iteration t it masks again the N·(T−t+1)/T tokens it is least sure of (outlined) and predicts them anew, now seeing the
        more confident tokens around them. Shade and number: each token's confidence (its probability). T = 1 is plain one-pass decoding;
        more iterations repair repeats and inconsistencies, at one decoder pass each. With several length candidates every length is
        decoded side by side; each scores its tokens' average log-probability plus w times the log-probability the length head gave
        its length, and the highest score wins. (The decoder was always trained at the true length, so its confidence alone does not
        tell a wrong length from a right one; w = 0 is the original paper's rule.) It stops early when an iteration changes nothing.</p>`);
    if (!s) {
      return html + `<p class="waiting">Step 0: the encoder has read <strong>${esc(this.sourceLetters().join(''))}</strong>. Press <kbd>Step</kbd> for the ${T > 1 ? 'first pass' : 'single pass'}: the length prediction and all positions at once.</p>`;
    }
    // Length distribution.
    const probs = Array.from(s.lengthLogprobs, Math.exp);
    const best = s.drafts[s.bestDraft];
    const ref = this.app.reference?.prons?.[0]?.split(' ').length ?? 0;
    const maxP = Math.max(...probs.slice(1));
    html += `<div class="view"><h3>Length: ${o.len === 'predicted' ? 'predicted' : o.len === 'fixed' ? 'fixed maximum, cut at END' : `imposed (${o.L})`}</h3>
      <div class="lenbars" role="group" aria-label="Predicted length distribution; each bar imposes that length">
      ${probs.map((p, L) => L === 0 ? '' : `<button type="button" class="lenbar${s.lengths.includes(L) ? ' decoded' : ''}${best && best.length === L ? ' best' : ''}${L === ref ? ' ref' : ''}" data-action="length" data-length="${L}" aria-label="length ${L}: ${(p * 100).toFixed(1)}%${s.lengths.includes(L) ? ', decoded' : ''}. Impose this length" title="length ${L}: ${(p * 100).toFixed(1)}%"><span class="lenfill" style="height:${Math.max(2, (p / maxP) * 100).toFixed(1)}%"></span><span class="lenlab">${L % 5 === 0 || s.lengths.includes(L) ? L : ''}</span></button>`).join('')}
      </div>
      <p class="note">Dark: the length${s.lengths.length > 1 ? 's' : ''} decoded (${s.lengths.join(', ')})${ref ? `; dotted: the reference's ${ref} phonemes` : ''}. Click a bar to impose that length.
      ${o.len !== 'predicted' ? '<button type="button" class="small" data-action="predicted">Back to the predicted length</button>' : ''}</p>
      ${explain('Length prediction and multimodality', `<p>The length head turns the averaged encoder output into a distribution over lengths 0…${probs.length - 1}.
      A non-autoregressive model cannot stop when it is done, so this number decides the output's shape. Choosing the length up front also
      makes it controllable, which an autoregressive decoder is not. If the model hesitates between lengths, decoding several (a length beam) helps.</p>`, false)}</div>`;
    // Drafts.
    const d = this.ui.draft != null && this.ui.draft < s.drafts.length ? this.ui.draft : s.bestDraft;
    if (s.drafts.length > 1) {
      html += `<div class="draft-tabs" role="group" aria-label="Length candidates">${s.drafts.map((x, j) =>
        `<button type="button" data-action="draft" data-draft="${j}" aria-pressed="${j === d}" class="${j === d ? 'on' : ''}">length ${x.length}${j === s.bestDraft ? ' ★ best' : ''}<br><small>score ${fmt(x.score)} = ${fmt(x.avgLogprob)} + ${o.lw} × ${fmt(x.lengthLogprob)}</small></button>`).join('')}</div>
        <p class="note">score = avg log P(tokens) + w × log P(length)</p>`;
    }
    let grid = '';
    for (let k = 1; k <= i; k++) {
      const dr = this.snaps[k].drafts[d];
      if (!dr) continue;
      const firstEnd = dr.texts.indexOf('</s>');
      let changed = 0;
      const prev = k > 1 ? this.snaps[k - 1].drafts[d] : null;
      const cells = dr.texts.map((tx, p) => {
        const pr = dr.probs[p];
        const masked = dr.masked[p] === 1;
        const rep = p > 0 && tx === dr.texts[p - 1] && tx !== '</s>' && (firstEnd < 0 || p < firstEnd);
        const cut = firstEnd >= 0 && p > firstEnd;
        if (prev && prev.tokens[p] !== dr.tokens[p]) changed++;
        const cls = ['cell', masked ? 'masked' : 'kept', rep ? 'rep' : '', cut ? 'cut' : '', tx === '</s>' ? 'end' : ''].join(' ');
        const desc = `position ${p + 1}: ${label(tx)}, confidence ${(pr * 100).toFixed(0)}%${masked ? ', re-predicted in this iteration' : ', kept'}${rep ? ', repeats its left neighbour' : ''}${cut ? ', after END (cut)' : ''}`;
        return `<td class="${cls}" style="background:${green(pr)};color:${pr > 0.6 ? '#fff' : '#111'}" title="${esc(desc)}"><span class="visually-hidden">${esc(desc)}</span><span aria-hidden="true"><b>${esc(label(tx))}</b>${rep ? '<i class="rep-mark">↻</i>' : ''}<small>${(pr * 100).toFixed(0)}</small></span></td>`;
      });
      const masked = dr.masked.reduce((a, b) => a + b, 0);
      const stopNote = this.snaps[k].done && !this.snaps[k].changed ? ' · no change: stop' : '';
      grid += `<tr class="${k === i ? 'current' : ''}"><th scope="row">${k}<small>${k === 1 ? 'all masked' : `${masked} re-masked${prev ? ` · ${changed} changed` : ''}`}${stopNote}</small></th>${cells.join('')}</tr>`;
    }
    const dr = this.snaps[i].drafts[d];
    html += `<div class="view"><h3>${T > 1 ? `Iterations 1–${i} of at most ${T}` : 'All positions, one pass'} (length ${dr.length})</h3>
      <div class="table-scroll"><table class="nar-grid"><caption class="visually-hidden">Draft tokens per iteration and position, with confidence</caption>
      <thead><tr><th scope="col">iter.</th>${dr.texts.map((_, p) => `<th scope="col">${p + 1}</th>`).join('')}</tr></thead><tbody>${grid}</tbody></table></div>
      <p class="legend"><span class="lg-item"><span class="lg masked"></span> predicted in this iteration</span> <span class="lg-item"><span class="lg kept"></span> kept from before</span> <span class="lg-item"><span class="rep-mark">↻</span> same as left neighbour</span> <span class="lg-item">number: confidence %</span></p></div>`;
    if (dr.attention) {
      const S = this.sourceLetters().length;
      // At a fixed maximum length most rows are END padding the output is cut at: draw up
      // to the first END and say how many were left out, rather than 40 rows of padding.
      const firstEnd = dr.texts.indexOf('</s>');
      const shown = firstEnd >= 0 && dr.length - firstEnd > 2 ? firstEnd + 1 : dr.length;
      const rowLabels = dr.texts.slice(0, shown);
      const rows = rowLabels.map((_, p) => dr.attention.subarray(p * S, (p + 1) * S));
      html += `<div class="view"><h3>Cross-attention, iteration ${i}</h3>${heatmap({ rowLabels, colLabels: this.sourceLetters(), rows, caption: 'Cross-attention of every position over the input letters, averaged over layers and heads', highlightLast: false })}
      ${shown < dr.length ? `<p class="note">Positions ${shown + 1}–${dr.length} come after the first END and are cut from the output; their rows are not drawn.</p>` : ''}
      ${explain('Cross-attention', `<p>Every position attends to the letters at the same time. Rows: output positions; columns: letters; shade: attention
      averaged over layers and heads. Compare with the autoregressive lane, where rows arrive one by one.</p>`, false)}</div>`;
    }
    return html;
  }

  resultView(i) {
    if (this.error) return '';
    const s = this.snaps[i];
    const refs = this.word === this.app.word ? this.app.reference : null;   // not while old snapshots are on screen
    const judge = (text) => verdict(refs, text);
    if (!s || !s.done) {
      let sofar = '';
      if (s && s.autoregressive) {
        const h = s.live[0] ?? s.finished[0];
        sofar = h ? h.texts.filter((x) => x !== '</s>').join(' ') : '';
      } else if (s) {
        const dr = s.drafts[s.bestDraft];
        const cut = dr.texts.indexOf('</s>');
        sofar = (cut >= 0 ? dr.texts.slice(0, cut) : dr.texts).join(' ');
      }
      return `<h3>Result</h3><p class="pending">${s ? `not finished; so far: ${phonemeLine(sofar)}` : 'not started'}</p>`;
    }
    const rs = s.results;
    if (!rs.length) return '<h3>Result</h3><p>no hypothesis finished</p>';
    let html = `<h3>Result</h3><p class="result-main" data-result="${esc(rs[0].text)}">${phonemeLine(rs[0].text)} ${judge(rs[0].text)}</p>`;
    if (rs.length > 1) {
      html += `<ol class="nbest" aria-label="n-best list">${rs.map((r) => `<li>${phonemeLine(r.text)} <span class="score">score ${fmt(r.score)}</span> ${judge(r.text)}</li>`).join('')}</ol>`;
    }
    return html;
  }
}

export function friendlyError(e) {
  const m = String(e?.message ?? e);
  return m.charAt(0).toUpperCase() + m.slice(1);
}

export { chip };
