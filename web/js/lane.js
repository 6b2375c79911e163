// What every lane shares: one decoding method on the page's word. It decodes
// every step at once (the snapshots are kept, so Back is instant) and draws the
// step the page is at. One class per type (lane-registry.js maps the address's
// type names to them): GreedyLane, BeamLane and SampleLane on ArLane (lane-ar.js),
// OnePassLane and MaskPredictLane on NarLane (lane-nar.js), CompareLane (four RNNs).
// A lane reaches the page only through its context (ctx: App.makeLaneContext). Under
// its own views it draws the views registered for its type (view-registry.js), each
// through its facade of the lane (view-registry.js laneFacade).
import { openIfChanged } from './engine.js';
import { LANE_TYPES, PAGE_OPTIONS, makeLane, modelMax, moduleOptions, optionFor, settleLaneOptions } from './lane-types.js';
import { ruleMax } from './page-options.js';
import { fmt } from './format.js';
import { esc, phonemeLine, verdict } from './views.js';
import { t } from './i18n.js';
import { logprobLine } from './forced.js';
import { errorText } from './error-text.js';
import { laneFacade, viewById, viewsOf } from './view-registry.js';

let nextId = 1;

export class Lane {
  /** ctx: what the lane may ask of the page (App.laneContext in app.js); spec: {type, opts} of makeLane. */
  constructor(ctx, spec) {
    this.ctx = ctx;
    this.id = `lane${nextId++}`;
    this.type = spec.type;
    this.opts = { ...spec.opts };
    this.snaps = [null];       // snaps[k]: the snapshot after decoder pass k (k >= 1)
    this.times = [0];          // times[k]: wall time of pass k in ms (times[0]: start, incl. the encoder)
    this.done = false;
    this.error = null;
    this.busy = false;
    this.gen = 0;
    this.slot = { decoder: null, url: null };   // the decoder open on this lane's model (openIfChanged)
    this.ui = { head: 'avg', selected: null, draft: null, pruned: 'best' };
    this.addressView = { ...spec.view };   // what the address held open in the views (address.js), taken up as they are drawn
    this.facades = new Map();  // view id -> the view's facade of this lane (facadeOf)
    this.el = document.createElement('section');
    this.el.className = `lane lane-${this.type}`;
    this.el.id = this.id;
    this.el.setAttribute('aria-labelledby', `${this.id}-title`);
    // The stats line right under the title, the options folded below it: the lane's
    // first view (a beam's tree) starts high enough to be on the first screen.
    this.el.innerHTML = `<div class="lane-head"></div><div class="lane-stats" aria-live="off"></div><div class="lane-opts"></div><div class="lane-body"></div><div class="lane-result"></div>`;
    this.el.addEventListener('click', (e) => this.onClick(e));
    this.el.addEventListener('change', (e) => this.onChange(e));
    this.el.addEventListener('input', (e) => this.onInput(e));
  }

  get spec() { return { type: this.type, opts: { ...this.opts }, view: { ...this.viewState(), ...this.registeredViewState() } }; }

  /** What the learner picked in the lane type's own views, for the address (its `state` codecs in lane-types.js). */
  viewState() { return {}; }

  // ------------------------------------------------------------ registered views
  /** The facade `view` (view-registry.js) sees this lane through: made, and the view's init run, once. */
  facadeOf(view) {
    let f = this.facades.get(view.id);
    if (!f) {
      f = laneFacade(this, view);
      this.facades.set(view.id, f);
      view.init?.(f);
    }
    return f;
  }

  /** The markup of the registered views of this lane's type in `slot` ('body', 'result') at step i. */
  viewsHtml(slot, i) {
    return viewsOf(this.kind, slot).map((v) => v.render(this.facadeOf(v), i)).join('');
  }

  /** What the registered views hold open, for the address: {id: state} of those with a codec and something open. */
  registeredViewState() {
    const out = {};
    for (const v of viewsOf(this.kind)) {
      if (!v.codec) continue;
      const st = v.save(this.facadeOf(v));
      if (st !== undefined) out[v.id] = st;
    }
    return out;
  }

  /** What the address held for view `id`, once (the view takes it up when it is first drawn). */
  takeAddressView(id) {
    const v = this.addressView[id];
    delete this.addressView[id];
    return v;
  }

  /** View `id`'s link for a map of this lane at step i (its `link`), or null: a map opens another view without naming its module. */
  viewLink(id, i, spec) {
    const v = viewById(id);
    return v?.link && v.lanes(this.kind) ? v.link(this.facadeOf(v), i, spec) : null;
  }

  /** What the registered views follow at step i (view-registry.js laneFacade's focus): the lane types say. */
  viewFocus() { return null; }

  /** A registered view's own state on this lane (its facade's), for the tests and the curious. */
  viewStateOf(id) {
    return this.facades.get(id)?.state ?? null;
  }

  get kind() { return LANE_TYPES[this.type]; }
  get model() { return this.ctx.modelFor(this); }
  get lastIndex() { return this.snaps.length - 1; }
  index(at) { return Math.min(at, this.lastIndex); }

  destroy() {
    this.gen++; // a decode still under way sees it is stale and stops drawing
    this.stopDecoders();
    this.el.remove();
  }

  /** Ends this lane's worker(s); the compare lane has one per panel. */
  stopDecoders() {
    this.slot.decoder?.terminate();
    this.slot.decoder = null;
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
    this.renderStats(this.ctx.step);
    return gen;
  }

  // ------------------------------------------------------------ decoding
  async decode(word) {
    const gen = this.beginDecode();
    try {
      const m = this.model;
      if (!m) throw new Error(t(this.kind.ar ? 'lane.noArModel' : 'lane.noNarModel'));
      if (await openIfChanged(this.slot, new URL(m.file, document.baseURI).href, this)) {
        performance.mark(`${this.id}-open`);
        if (gen !== this.gen) return;
      }
      const problem = this.ctx.checkWord(word, m);
      if (problem) throw new Error(problem);   // written in the page's language: shown as it is (error-text.js)
      const options = moduleOptions(this, word);
      const got = await this.decodeAll(this.slot.decoder, word, options, gen);
      if (!got) return;
      performance.mark(`${this.id}-done`);
      this.decodedOptions = options;   // the reference is scored under these (forced.js)
      this.snaps = got.snaps;
      this.times = got.times;
      this.word = word;         // the word these snapshots belong to
      this.done = true;
    } catch (e) {
      if (gen !== this.gen) return;
      this.snaps = [null];
      this.times = [0];
      this.done = true;
      this.error = errorText(e);   // in the page's language (error-text.js)
    } finally {
      if (gen === this.gen) {
        this.busy = false;
        this.ui.selected = null;
        this.ui.draft = null;
        this.ctx.decoded(this);
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
        const now = performance.now();
        times.push(now - t0);
        t0 = now;
        snaps.push(s);
      }).catch((e) => {
        if (!(cancelled && e?.kind === 'Cancelled')) throw e;
      });
    });
    return gen === this.gen ? { snaps, times } : null;
  }

  // ------------------------------------------------------------ events
  // The buttons every lane has here; the rest (data-action) go to onAction.
  onClick(e) {
    const b = e.target.closest('[data-action]');
    if (!b || !this.el.contains(b)) return;
    const a = b.dataset.action;
    if (a === 'remove') this.ctx.remove(this);
    else if (a === 'left') this.ctx.move(this, -1);
    else if (a === 'right') this.ctx.move(this, 1);
    else this.onAction(a, b);
  }

  onAction() {}

  onChange(e) {
    const el = e.target;
    const key = el.dataset.opt;
    if (!key) return;
    const value = el.type === 'checkbox' ? el.checked : el.value;
    this.ctx.update(this, this.patchFor(key, value));
  }

  /** The options a change of control `key` to `value` sets. */
  patchFor(key, value) {
    return { [key]: value };
  }

  // Range sliders: show the number while dragging.
  onInput(e) {
    const el = e.target;
    const out = el.dataset.opt && this.el.querySelector(`output[for="${el.id}"]`);
    if (out) out.textContent = el.value;
  }

  // ------------------------------------------------------------ controls
  /** The title and the move / remove buttons every lane has. */
  renderHead(title) {
    const { index: idx, count } = this.ctx.place(this);
    this.el.querySelector('.lane-head').innerHTML = `
      <h2 id="${this.id}-title">${esc(title)}</h2>
      <div class="lane-buttons">
        <button type="button" class="move" data-action="left" aria-label="${esc(t('lane.moveLeft'))}" title="${esc(t('lane.moveLeft'))}"${idx <= 0 ? ' disabled' : ''}>⇠</button>
        <button type="button" class="move" data-action="right" aria-label="${esc(t('lane.moveRight'))}" title="${esc(t('lane.moveRight'))}"${idx >= count - 1 ? ' disabled' : ''}>⇢</button>
        <button type="button" data-action="remove" aria-label="${esc(t('lane.remove'))}">✕</button>
      </div>`;
  }

  get title() { return t(this.kind.titleKey); }

  /**
   * The model picker and the lane's own options (optionControls), folded behind a
   * "Settings" line that names the model and every option off its default; then
   * the lane's notes (laneNotes), always in view.
   */
  renderControls() {
    const o = this.opts;
    const models = this.ctx.models.filter((m) => m.autoregressive === this.kind.ar);
    const cur = this.model;
    this.renderHead(this.title);
    const f = (id) => `${this.id}-${id}`;
    const html = `<label for="${f('m')}">${esc(t('opt.model'))}</label><select id="${f('m')}" data-opt="m">${models.map((m) =>
      `<option value="${esc(m.id)}"${cur && m.id === cur.id ? ' selected' : ''}>${esc(m.name)}${m.fixture ? esc(t('model.randomSuffix')) : ''}</option>`).join('')}</select>`;
    // Each builder notes its option's label and shown value for the summary line.
    const changed = [];
    const note = (key, lab, text) => { if (o[key] !== this.kind.defaults[key]) changed.push(t('lane.settingsItem', { option: lab, value: text })); };
    // An option that follows the word (null) shows the word's value.
    const value = (key) => optionFor(this, key, this.ctx.word);
    const num = (key, lab, help = '') => { note(key, lab, o[key]); const { min, max, step } = this.uiOf(key); return `<label for="${f(key)}"${help ? ` title="${esc(help)}"` : ''}>${esc(lab)}</label><input id="${f(key)}" data-opt="${key}" type="number" min="${min}" max="${max}" step="${step}" value="${value(key)}" inputmode="decimal">`; };
    const range = (key, lab, help = '') => { note(key, lab, o[key]); const { min, max, step } = this.uiOf(key); return `<label for="${f(key)}"${help ? ` title="${esc(help)}"` : ''}>${esc(lab)}</label><span class="range"><input id="${f(key)}" data-opt="${key}" type="range" min="${min}" max="${max}" step="${step}" value="${o[key]}"><output for="${f(key)}">${o[key]}</output></span>`; };
    const select = (key, lab, options) => { note(key, lab, options.find(([v]) => String(o[key]) === String(v))?.[1] ?? o[key]); return `<label for="${f(key)}">${esc(lab)}</label><select id="${f(key)}" data-opt="${key}">${options.map(([v, text]) => `<option value="${v}"${String(o[key]) === String(v) ? ' selected' : ''}>${esc(text)}</option>`).join('')}</select>`; };
    const controls = this.optionControls({ num, range, select }, o).join('');
    const summary = [cur?.name ?? '–', ...changed].join(t('lane.settingsSep'));
    // A redraw (an option changed) keeps the settings open if the learner opened them.
    const open = this.el.querySelector('.lane-opts > details.lane-settings')?.open ?? false;
    this.el.querySelector('.lane-opts').innerHTML = `<details class="lane-settings"${open ? ' open' : ''}><summary><span class="settings-label">${esc(t('lane.settings'))}</span> <span class="settings-sum">${esc(summary)}</span></summary>
      <div class="opt-grid">${html}${controls}</div></details>${this.laneNotes(o)}`;
    this.afterControls();
  }

  /** Notes on the lane's options that stay in view while the settings are folded (markup), or ''. */
  laneNotes() { return ''; }

  /** Changes the options of `patch` (cleaned as the address's are), the others kept. */
  setOptions(patch) {
    const { opts } = makeLane(this.type, { ...this.opts, ...patch });
    this.settleOptions(opts);
    this.opts = opts;
    this.fitToModel();
  }

  /** A control's {min, max, step}: the page's (PAGE_OPTIONS), its max lowered to what the lane's model takes and the rules between options allow. */
  uiOf(key) {
    const ui = PAGE_OPTIONS[key].ui;
    return { ...ui, max: Math.min(ui.max, modelMax(key, this.model), ruleMax(key, { ...this.opts, strategy: this.kind.fixed.strategy })) };
  }

  /**
   * Lowers the options the lane's model takes less of (modelMax) to its largest, so that
   * the module is never asked for what it refuses; returns a note per option lowered
   * (shown when the address asked for it), each a function that words it in the page's
   * language of the moment.
   */
  fitToModel() {
    const notes = [];
    const model = this.model;
    for (const key of this.kind.shows) {
      const max = modelMax(key, model);
      const value = this.opts[key];
      if (!(value > max)) continue;
      notes.push(() => t('address.beyondModel', { lane: this.title, option: key, value, model: model.name, max }));
      this.opts[key] = max;
    }
    return notes;
  }

  /** Brings options that depend on each other into line, in place (the options table's rules: a beam lists no more than k). */
  settleOptions(o) {
    settleLaneOptions(this.type, o);
  }

  /** The lane's own option controls (markup pieces), from the builders num, range and select. */
  optionControls() { return []; }
  afterControls() {}

  // ------------------------------------------------------------ drawing
  renderStats(tt) {
    const el = this.el.querySelector('.lane-stats');
    const i = this.index(tt);
    const s = this.snaps[i];
    const ms = this.times.slice(0, i + 1).reduce((a, b) => a + b, 0);
    const passes = s ? s.step : 0;
    let status;
    if (this.error) status = t('status.error');
    else if (this.busy) status = t('status.decoding');
    else if (s?.done) status = i < tt ? t('status.finishedAt', { i }) : t('status.finished');
    else if (!s) status = t('status.notStarted');
    else status = t('status.step', { i, n: this.lastIndex });
    // One short line: the decoder passes, the wall time and where the lane stands. The
    // encoder's one pass, the lane type's full name for its passes (passesLabel) and the
    // words "wall time" are in the tooltips and read out to screen readers, not shown:
    // the same in every lane, or long, they made the line wrap twice.
    const what = this.passesLabel(s);
    const title = [`${what} ${passes}`, t('stats.encoder'), t(this.kind.ar ? 'stats.encoderTitle' : 'stats.encoderTitleNar')].join(' · ');
    el.innerHTML = `<span title="${esc(title)}"><span class="visually-hidden">${esc(t('stats.encoder'))}; ${esc(what)} </span><span aria-hidden="true">${esc(t('stats.passesShort'))}</span> <strong data-k="passes">${passes}</strong></span> · <span title="${esc(t('stats.wall'))}"><span class="visually-hidden">${esc(t('stats.wall'))} </span><strong>${esc(t('stats.ms', { ms: ms.toFixed(1) }))}</strong></span> · <span class="status">${esc(status)}</span>`;
  }

  /** The words before the number of decoder passes in the stats line (snapshot s, null before any). */
  passesLabel() { return t('stats.passes'); }

  render(at) {
    this.renderStats(at);
    const body = this.el.querySelector('.lane-body');
    const result = this.el.querySelector('.lane-result');
    if (this.renderError(body, result)) return;
    const i = this.index(at);
    const keepOpen = [...body.querySelectorAll('details')].map((d) => d.open);
    body.innerHTML = this.view(i) + this.viewsHtml('body', i);
    // Keep the learner's open/closed choice of explanations and tables across steps.
    const ds = body.querySelectorAll('details');
    if (keepOpen.length === ds.length) ds.forEach((d, j) => { d.open = keepOpen[j]; });
    result.innerHTML = this.resultView(i);
    this.afterRender(body);
  }

  afterRender() {}

  sourceLetters() {
    return [...this.ctx.normalizedWord(this.model, this.word ?? this.ctx.word)];
  }

  resultView(i) {
    if (this.error) return '';
    const s = this.snaps[i];
    const refs = this.word === this.ctx.word ? this.ctx.reference : null;   // not while old snapshots are on screen
    const judge = (text) => verdict(refs, text);
    if (!s || !s.done) {
      return `<h3>${esc(t('result.title'))}</h3><p class="pending">${s ? `${esc(t('result.soFar'))} ${phonemeLine(this.soFar(s))}` : esc(t('result.notStarted'))}</p>`;
    }
    const rs = s.results;
    if (!rs.length) return `<h3>${esc(t('result.title'))}</h3><p>${esc(t('result.none'))}</p>`;
    let html = `<h3>${esc(t('result.title'))}</h3><p class="result-main" data-result="${esc(rs[0].text)}">${phonemeLine(rs[0].text)} ${judge(rs[0].text)}</p>`;
    html += `<p class="result-prob">${esc(t('result.score', { score: fmt(rs[0].score) }))} · ${logprobLine(rs[0].logprob)}</p>`;
    if (rs.length > 1) {
      html += `<ol class="nbest" aria-label="${esc(t('result.nbest'))}">${rs.map((r) => `<li>${phonemeLine(r.text)} <span class="score">${esc(t('result.score', { score: fmt(r.score) }))} · ${logprobLine(r.logprob)}</span> ${judge(r.text)}</li>`).join('')}</ol>`;
    }
    // A word longer than any the model learned from: its output is a guess, and may stop early.
    const n = this.sourceLetters().length;
    const longest = this.model?.trainedOn ? null : this.ctx.longestTraining;   // CMUdict's: not what a model trained on the page learned from
    if (longest && n > longest) {
      html += `<p class="note beyond-training">${esc(t('result.beyondTraining', { n, model: this.model?.name ?? '', longest, k: rs[0].tokens.length }))}</p>`;
    }
    return html + this.viewsHtml('result', i);
  }

  /** The best output's tokens with the probability each had as decoded (autoregressive lanes: lane-ar.js). */
  freeRunning() { return null; }

  /** Redraws the result alone (the forced scores came in). */
  renderResult() {
    if (this.error || this.busy) return;
    this.el.querySelector('.lane-result').innerHTML = this.resultView(this.index(this.ctx.step));
  }
}

