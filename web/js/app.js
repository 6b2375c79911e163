// The page: input, lanes, lockstep playback, and the URL that holds it all.
import { longestTraining, lookup } from './dict.js';
import { engineKind, firstResultDrawn } from './engine.js';
import { createLane, laneTypesLoaded, loadLaneTypes } from './lane-registry.js';
import { DEFAULT_LANES, compareModels, makeLane, useModelDecoding } from './lane-types.js';
import { decodeState, encodeState } from './address.js';
import { LANE_KINDS, TRAINED_MODEL, foldCase, pickModel, sourceLetters } from '../shared/lane-models.js';
import { applyStatic, lang, setLang, t } from './i18n.js';
import { SCORES, scoreWords } from './scores.js';
import { esc, phonemeLine } from './views.js';
import { LaneTabs } from './lane-tabs.js';
import { watchScrollBoxes } from './scroll-hint.js';

const $ = (id) => document.getElementById(id);

// The step a first visit (no word, no step in the address) opens at, every lane
// decoded to it without a click. Step 2 of MIRAGE, the first word, is the moment the
// course notes' greedy-versus-beam example (004, Beam Search: A at 0.6 now, B better
// later) stands for: greedy has committed to M IH, the likelier second phoneme, while
// beam search (k = 5) still holds M ER, which wins at the end. At step 0 nothing is decoded yet; at
// the end the answers are in and the choice that decided them is out of sight.
// Step, Back and Reset (to step 0) work from here as from any step.
const FIRST_VISIT_STEP = 2;

// A character as a message names it: quoted, or by its code point where it would not show.
function shownChar(c) {
  if (c === ' ') return t('word.space');
  if (/[\p{C}\p{Z}]/u.test(c)) return `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `“${c}”`;
}

class App {
  /** models: models.json's; maxLetters: the recipe's cap on a word's letters (models.json). */
  constructor(models, { maxLetters = Infinity } = {}) {
    this.models = models;
    this.maxLetters = maxLetters;
    this.longestTraining = null;   // the longest word the models learned from (dict/index.json), once looked up
    this.lanes = [];
    this.word = '';
    this.t = 0;
    this.mode = 'lanes';       // the page's mode (address.js MODES): the lanes, the word list, the text view, the Train mode
    this.follow = false;       // show the last step: set for an address with a word and no step
    this.playing = null;
    this.reference = null;
    this.addressNotes = [];    // what the address held that the page left out, until the word changes
    this.modelNotes = [];      // what the lanes' models made the page change in the address's options (Lane.fitToModel), as functions of the language
    this.wordGen = 0;
    this.loadStart = performance.now();
    this.firstResultMs = null;
    this.laneContext = this.makeLaneContext();
    this.tabs = new LaneTabs(this, $('lane-tabs'));
  }

  /**
   * All a lane may ask of the page: the models, the word, the step shown and its
   * reference; the word checked and normalised for a model; where the lane stands
   * in the row; and the page told that it decoded, or asked to change, remove or
   * move it, or that what its views show changed.
   */
  makeLaneContext() {
    const app = this;
    return {
      get models() { return app.models; },
      get word() { return app.word; },
      get step() { return app.t; },
      get reference() { return app.reference; },
      get longestTraining() { return app.longestTraining; },
      modelFor: (lane) => app.modelFor(lane),
      checkWord: (word, model) => app.checkWord(word, model),
      normalizedWord: (model, word) => app.normalizedWord(model, word),
      place: (lane) => ({ index: app.lanes.indexOf(lane), count: app.lanes.length }),
      decoded: (lane) => app.laneDecoded(lane),
      update: (lane, patch) => app.updateLane(lane, patch),
      remove: (lane) => app.removeLane(lane),
      move: (lane, dir) => app.moveLane(lane, dir),
      viewChanged: () => app.saveUrl(),   // something the address holds of a lane's views (viewState)
    };
  }

  // ------------------------------------------------------------ models and words
  modelFor(lane) {
    return pickModel(this.models, lane.kind.ar, lane.opts.m);
  }

  normalizedWord(model, word = this.word) {
    const w = word.trim();
    if (!model) return w;
    return foldCase(model, w);
  }

  /** A message for a word this model cannot read, or null. `name`: who is named in it. */
  checkWord(word, model, name = model.name) {
    const w = this.normalizedWord(model, word);
    if (!w) return t('word.empty');
    const letters = sourceLetters(model);
    const alphabet = new Set(letters);
    const bad = [...new Set([...w].filter((c) => !alphabet.has(c)))];
    if (bad.length) {
      const shown = bad.map(shownChar).join(', ');
      // the letters are quoted, so an alphabet ending in "." does not end the sentence twice
      return t(bad.length > 1 ? 'word.notInAlphabetMany' : 'word.notInAlphabetOne', { chars: shown, model: name, letters: letters.map((c) => `“${c}”`).join(' ') });
    }
    // The recipe's cap on a word's letters (models.json maxLetters): the models learned no longer word.
    const limit = Math.min(model.maxPositions ?? Infinity, this.maxLetters ?? Infinity);
    if ([...w].length > limit) return t('word.tooLong', { model: name, n: limit });
    return null;
  }

  /** The models the lanes decode with (a compare lane has several). */
  usedModels() {
    return [...new Set(this.lanes.flatMap((l) => l.models ?? [l.model]).filter(Boolean))];
  }

  /** One message per problem with the word, naming every model it concerns (the four RNNs share an alphabet). */
  wordMessages(word) {
    // Grouped by the message with no name in it: no placeholder a word could hold too.
    const groups = new Map();
    for (const m of this.usedModels()) {
      const p = this.checkWord(word, m, '');
      if (p) groups.set(p, [...(groups.get(p) ?? []), m]);
    }
    return [...groups.values()].map((ms) => this.checkWord(word, ms[0], ms.map((m) => m.name).join(', ')));
  }

  examples() {
    const used = this.usedModels();
    const sets = (used.length ? used : this.models.slice(0, 1)).map((m) => m.examples);
    return sets.reduce((a, b) => a.filter((w) => b.includes(w))).slice(0, 12);
  }

  // ------------------------------------------------------------ state changes
  setWord(word, { keepStep = false, fromAddress = false } = {}) {
    if (!fromAddress) { this.addressNotes = []; this.modelNotes = []; }
    this.word = word.trim();
    $('word').value = this.word;
    // A new word starts at step 0: the learner steps or plays through it, rather than
    // meeting the finished answer first.
    if (!keepStep) { this.follow = false; this.t = 0; }
    this.stop();
    this.showSource();
    this.lookupReference();
    for (const l of this.lanes) l.decode(this.word);
    this.renderControls();   // an option that follows the word (a sampling lane's seed) shows the new word's
    this.renderAll();
    this.saveUrl();
  }

  async lookupReference() {
    const gen = ++this.wordGen;
    this.reference = null;
    $('reference').innerHTML = '';
    let ref = null;
    try {
      // A model trained on the page: its held-out target (undefined: CMUdict's, as for the site's models).
      const own = this.trained?.reference(this.word, this.usedModels());
      ref = !this.word ? null : own !== undefined ? own : await lookup(this.word);
    } catch {
      ref = null;
    }
    // The longest word the models learned from (for a word beyond it, the lanes say so).
    this.longestTraining ??= await longestTraining().catch(() => null);
    if (gen !== this.wordGen) return;
    this.reference = ref;
    this.renderReference();
    for (const l of this.lanes) l.render(this.t);
  }

  renderReference() {
    const ref = this.reference;
    const own = this.trained?.referenceHtml(ref, this.word, this.usedModels());
    if (own != null) { $('reference').innerHTML = own; return; }
    const where = ref ? t({ train: 'ref.train', dev: 'ref.dev', test: 'ref.test' }[ref.split]) : '';
    $('reference').innerHTML = this.word
      ? (ref
        ? t('ref.found_html', { where: esc(where), prons: ref.prons.map((p) => `<span class="ref">${phonemeLine(p)}</span>`).join(t('ref.or')) })
        : t('ref.missing_html', { word: esc(this.word.toUpperCase()) }))
      : '';
  }

  showSource() {
    const m = this.lanes[0]?.model ?? this.models[0];
    // The box shows a word as the lanes' model reads it: CMUdict's models in capitals, a model trained on the page in its own case.
    $('word').classList.toggle('as-typed', m?.sourceCase !== 'upper');
    const letters = [...this.normalizedWord(m)];
    $('source-line').innerHTML = letters.length
      ? `<span class="src-label">${esc(t('source.label'))}</span> ${letters.map((c, i) => `<span class="letter" title="${esc(t('source.letter', { n: i + 1 }))}">${esc(c)}</span>`).join('')}`
      : '';
    const word = this.word ? this.wordMessages(this.word) : [t('word.empty')];
    this.message([...this.addressNotes, ...this.modelNotes.map((f) => f()), ...word].join(' '));
  }

  message(text) {
    const el = $('message');
    el.hidden = !text;
    el.textContent = text || '';
  }

  /** Whether lanes of these types can be added now; loadLaneTypes fetches the modules of those that cannot (lane-registry.js). */
  laneTypesLoaded(types) { return laneTypesLoaded(types); }
  loadLaneTypes(types) { return loadLaneTypes(types); }

  /** Adds a lane of `spec`; what its model made the page change in its options is said with the address's notes. */
  addLane(spec, { decode = true } = {}) {
    const lane = createLane(this.laneContext, spec);
    this.modelNotes.push(...lane.fitToModel());
    this.lanes.push(lane);
    $('lanes').appendChild(lane.el);
    this.renderControls();
    if (decode) {
      lane.decode(this.word);
      this.renderExamples();
      this.saveUrl();
    }
    return lane;
  }

  removeLane(lane) {
    const i = this.lanes.indexOf(lane);
    if (i < 0) return;
    this.lanes.splice(i, 1);
    lane.destroy();
    this.renderControls();
    this.renderTransport();
    this.renderExamples();
    this.saveUrl();
    const next = this.lanes[Math.min(i, this.lanes.length - 1)];
    this.tabs.select(next);   // on a phone, the lane that took its place, whose button gets the focus
    (next?.el.querySelector('[data-action="remove"]') ?? $('add-type')).focus();
  }

  moveLane(lane, dir) {
    const i = this.lanes.indexOf(lane);
    const j = i + dir;
    if (j < 0 || j >= this.lanes.length) return;
    [this.lanes[i], this.lanes[j]] = [this.lanes[j], this.lanes[i]];
    for (const l of this.lanes) $('lanes').appendChild(l.el);
    this.renderControls();
    this.saveUrl();
    lane.el.querySelector(`[data-action="${dir < 0 ? 'left' : 'right'}"]:not([disabled])`)?.focus()
      ?? lane.el.querySelector('[data-action="remove"]').focus();
  }

  updateLane(lane, patch) {
    const focusId = document.activeElement?.id;
    lane.setOptions(patch);
    lane.renderControls();
    this.tabs.render();    // its title (k, T) is its tab's
    lane.render(this.t);   // e.g. a new length norm re-ranks the finished hypotheses at once
    if (focusId) document.getElementById(focusId)?.focus();
    this.showSource();
    this.renderExamples();
    lane.decode(this.word);
    this.saveUrl();
  }

  laneDecoded(lane) {
    if (this.follow) this.t = this.maxT();
    lane.render(this.t);
    // The time to first result (bench/page-load.mjs reads it): a result is on the page.
    if (!document.body.dataset.firstLaneMs && !lane.error) document.body.dataset.firstLaneMs = String(Math.round(performance.now()));
    firstResultDrawn();   // the other lanes' models may download now (engine.js)
    this.renderTransport();
    if (this.lanes.every((l) => !l.busy)) {
      if (!this.follow) {
        const t = Math.min(this.t, this.maxT());
        if (t !== this.t) { this.t = t; this.renderAll(); }
      }
      if (this.firstResultMs == null) {
        this.firstResultMs = performance.now();
        document.body.dataset.allLanesMs = String(Math.round(this.firstResultMs));
      }
      document.body.dataset.ready = String(Number(document.body.dataset.ready ?? 0) + 1);
      this.saveUrl();
    }
  }

  // ------------------------------------------------------------ playback
  maxT() {
    return this.lanes.reduce((m, l) => Math.max(m, l.lastIndex), 0);
  }

  go(t, { follow = false } = {}) {
    const max = this.maxT();
    this.t = Math.max(0, Math.min(max, t));
    this.follow = follow;
    this.renderAll();
    this.saveUrl();
  }

  stepForward() {
    if (this.t >= this.maxT()) { this.stop(); return false; }
    this.go(this.t + 1);
    return true;
  }

  play() {
    if (this.playing) return;
    if (this.t >= this.maxT()) this.go(0);
    const speed = Number($('speed').value) || 1;
    this.playing = setInterval(() => { if (!this.stepForward()) this.stop(); }, 1000 / speed);
    this.renderTransport();
  }

  stop() {
    if (this.playing) clearInterval(this.playing);
    this.playing = null;
    this.renderTransport();
  }

  toggle() { if (this.playing) this.stop(); else this.play(); }

  // ------------------------------------------------------------ drawing
  renderControls() {
    for (const l of this.lanes) l.renderControls();
    $('lanes').dataset.count = String(this.lanes.length);
    if (!this.lanes.length) $('lanes').innerHTML = `<p class="no-lanes">${esc(t('lanes.none'))}</p>`;
    else $('lanes').querySelector('.no-lanes')?.remove();
    this.tabs.render();
    this.renderAddOptions();
  }

  /** A size in bytes as the page writes one (the footer, the lane picker). */
  sizeWords(b) {
    return b < 1e6 ? t('size.kb', { n: Math.max(1, Math.round(b / 1e3)) }) : t('size.mb', { n: (b / 1e6).toFixed(1) });
  }

  /**
   * The lane picker names what a lane type would download: a first visit loads only the
   * default lanes' model, so a lane on another (the CMLM's, the four RNNs) says its size
   * before the learner adds it; its lane shows the model loading once added.
   */
  renderAddOptions() {
    const used = new Set(this.usedModels().map((m) => m.file));
    for (const o of $('add-type').options) {
      const kind = LANE_KINDS[o.value];
      const needs = (kind === 'compare' ? compareModels(this.models) : [pickModel(this.models, kind === 'ar')]).filter(Boolean);
      const bytes = needs.filter((m) => !used.has(m.file)).reduce((a, m) => a + m.fileBytes, 0);
      const name = t(o.dataset.i18n);
      o.textContent = bytes ? t('add.withDownload', { lane: name, size: this.sizeWords(bytes) }) : name;
    }
  }

  /** Brings the lane holding element `el` into view: on a phone, its tab is opened. */
  showLane(el) {
    this.tabs.select(this.lanes.find((l) => l.el === el || l.el.contains(el)));
  }

  renderTransport() {
    const max = this.maxT();
    const busy = this.lanes.some((l) => l.busy);
    $('scrub').max = String(max);
    $('scrub').value = String(this.t);
    $('step-status').textContent = t(busy ? 'transport.statusBusy' : 'transport.status', { t: this.t, max });
    $('back').disabled = this.t <= 0;
    $('reset').disabled = this.t <= 0 && !this.playing;
    $('step').disabled = this.t >= max;
    const play = $('play');
    play.textContent = t(this.playing ? 'transport.pause' : 'transport.play');
    play.setAttribute('aria-pressed', String(!!this.playing));
  }

  renderAll() {
    this.renderTransport();
    for (const l of this.lanes) l.render(this.t);
  }

  renderExamples() {
    const ex = this.examples();
    $('examples').innerHTML = ex.map((w) => `<button type="button" class="example" data-word="${esc(w)}">${esc(w)}</button>`).join(' ');
  }

  /** Keeps jump targets clear of the sticky step bar (style.css: scroll-margin-top). */
  watchBar() {
    const bar = document.querySelector('.transport-bar');
    const set = () => document.documentElement.style.setProperty('--bar-h', `${Math.ceil(bar.getBoundingClientRect().height)}px`);
    new ResizeObserver(set).observe(bar);
    set();
  }

  saveUrl() {
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => {
      const part = this.modeAddress();
      const q = encodeState({ word: this.word, step: this.follow ? null : this.t, lanes: this.lanes.map((l) => l.spec), lang: lang(), tour: this.tour?.stop, mode: this.mode })
        + part.query;
      if (q !== location.search || part.hash !== location.hash) history.replaceState(null, '', q + part.hash);
    }, 60);
  }

  /**
   * Decodes with a model trained in Train mode: `bytes`, its Trainer.export(); `details`,
   * {info: its TrainerInfo, heldOut: its held-out [{source, target}]}. Resolves with its
   * entry once the lanes hold it; rejects (and says why on the page) for bytes that are
   * no autoregressive model. Its module (trained-model.js) loads at the first call.
   */
  async openTrainedModel(bytes, details) {
    const { openTrained } = await import('./trained-model.js');
    return openTrained(this, bytes, details);
  }

  // ------------------------------------------------------------ modes
  /** The mode's own part of the address after view=…: {query, hash} (the text view keeps the address's fragment until it is loaded). */
  modeAddress() {
    if (this.mode === 'list') return this.wordlist?.address() ?? { query: '', hash: '' };
    if (this.mode === 'text') return this.textView?.address() ?? { query: '', hash: location.hash };
    if (this.mode === 'train') return this.trainView?.address() ?? { query: '', hash: '' };
    return { query: '', hash: '' };
  }

  /** Switches the page to `mode` (one word in the lanes, the word list, the text view) and keeps it in the address. */
  async showMode(mode) {
    if (mode === this.mode) return;
    this.mode = mode;
    this.saveUrl();
    await this.applyMode({ focus: true });
    this.saveUrl();   // with the mode's own part, once its module is in
  }

  /**
   * Shows the current mode's part of the page and hides the others'; `focus`: the shown
   * one takes the keyboard, where it has a first control. The word list's and the text
   * view's modules are loaded the first time they are shown: a first visit fetches neither.
   */
  async applyMode({ focus = false } = {}) {
    const mode = this.mode;
    for (const sel of ['.controls', '.transport-bar', '#lanes', '.add-lane']) document.querySelector(sel).hidden = mode !== 'lanes';
    for (const b of document.querySelectorAll('[data-view]')) b.setAttribute('aria-pressed', String(b.dataset.view === mode));
    document.querySelector('.skip').setAttribute('href', { lanes: '#lanes', list: '#wordlist', text: '#textview', train: '#trainview' }[mode]);
    if (mode === 'list' && !this.wordlist) {
      const { WordList } = await import('./wordlist.js');
      if (!this.wordlist) {
        this.wordlist = new WordList(this);
        this.wordlist.init(location.search, location.hash);   // the list the address names, if any
      }
    }
    if (mode === 'text' && !this.textView) {
      const { TextView } = await import('./text-view.js');
      this.textView ??= new TextView(this);
    }
    if (mode === 'train' && !this.trainView) {
      const { TrainView } = await import('./train-view.js');
      this.trainView ??= new TrainView(this);
    }
    this.wordlist?.show(this.mode === 'list', { focus });
    this.textView?.show(this.mode === 'text');
    this.trainView?.show(this.mode === 'train');
  }

  // ------------------------------------------------------------ wiring
  wire() {
    $('word-form').addEventListener('submit', (e) => { e.preventDefault(); this.setWord($('word').value); });
    $('examples').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-word]');
      if (b) this.setWord(b.dataset.word);
    });
    $('reset').addEventListener('click', () => { this.stop(); this.go(0); });
    $('back').addEventListener('click', () => { this.stop(); this.go(this.t - 1); });
    $('step').addEventListener('click', () => { this.stop(); this.go(this.t + 1); });
    $('play').addEventListener('click', () => this.toggle());
    for (const b of document.querySelectorAll('[data-view]')) b.addEventListener('click', () => this.showMode(b.dataset.view));
    $('speed').addEventListener('change', () => { if (this.playing) { this.stop(); this.play(); } });
    // The value first: stop() redraws the bar, which puts the slider back at the current step.
    $('scrub').addEventListener('input', (e) => { const to = Number(e.target.value); this.stop(); this.go(to); });
    $('copy-link').addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(location.href);
        this.flash(t('copy.done'));
      } catch {
        this.flash(t('copy.failed'));
      }
    });
    $('add-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const spec = makeLane($('add-type').value);
      try {
        await loadLaneTypes([spec.type]);   // a non-autoregressive or comparison lane's module, the first time
      } catch (err) {
        this.flash(t('lane.cannotLoad', { error: err.message }));
        return;
      }
      const lane = this.addLane(spec);
      this.tabs.select(lane);
      lane.el.scrollIntoView({ behavior: 'smooth', block: 'nearest', inline: 'nearest' });
    });
    for (const b of document.querySelectorAll('[data-lang]')) b.addEventListener('click', () => this.switchLang(b.dataset.lang));
    document.addEventListener('keydown', (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      // The word-list and text views have no steps: arrows and Space scroll their tables and page there.
      if (this.mode !== 'lanes') return;
      const t = e.target;
      const tag = t?.tagName;
      const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || t?.isContentEditable;
      if (typing) return;
      if (e.key === 'ArrowRight') { e.preventDefault(); this.stop(); this.go(this.t + 1); }
      else if (e.key === 'ArrowLeft') { e.preventDefault(); this.stop(); this.go(this.t - 1); }
      else if (e.key === ' ' && !(tag === 'BUTTON' || tag === 'SUMMARY' || tag === 'A')) { e.preventDefault(); this.toggle(); }
    });
  }

  /** Redraws every word of the page in language `l`, and keeps it in the address. */
  async switchLang(l) {
    if (l === lang()) return;
    await setLang(l);
    this.relabel();
    // Messages already on the page were written in the old language: the address notes
    // are read again, and lanes that failed decode again for their message.
    this.addressNotes = this.addressNotes.length ? decodeState(this.addressSearch).notes : [];
    for (const lane of this.lanes) if (lane.error) lane.decode(this.word);
    this.renderControls();
    this.renderReference();
    this.showSource();
    this.renderAll();
    this.wordlist?.relabel();
    this.textView?.relabel();
    this.trainView?.relabel();
    this.saveUrl();
  }

  /** The static text (index.html), the language buttons and the footer, in the current language. */
  relabel() {
    applyStatic();
    for (const b of document.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === lang()));
    $('foot-engine').innerHTML = t('foot.engine_html', { where: esc(t(engineKind === 'worker' ? 'foot.worker' : 'foot.thread')) });
    $('model-list').innerHTML = this.models.map((m) => t('foot.model_html', {
      name: esc(m.name),
      // An RNN's attention by its score's name; one without says so, in the page's language.
      arch: esc(m.arch) + (!m.attentionScore ? '' : m.attentionScore === 'none' ? esc(t('foot.noAttention'))
        : esc(t('foot.attention', { score: Object.hasOwn(SCORES, m.attentionScore) ? scoreWords(m.attentionScore).short : m.attentionScore }))),
      size: esc(this.sizeWords(m.fileBytes)),
      fixture: m.fixture ? esc(t('foot.fixture')) : '',
    })).join(t('foot.sep'));
    this.tour?.relabel();
  }

  flash(text) {
    const el = $('message');
    el.hidden = false;
    el.textContent = text;
    el.classList.add('info');
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { el.classList.remove('info'); this.showSource(); }, 3000);
  }
}

async function main() {
  performance.mark('app-main');
  // The modules of the lane kinds the address asks for that do not come with the page (a
  // first visit's greedy and beam do), fetched beside the language and the site's data, and
  // before the page shows any lane: the lanes are made all at once.
  const asked = decodeState(location.search);
  const laneTypes = loadLaneTypes(asked.lanes?.map((s) => s.type) ?? DEFAULT_LANES).then(() => null, (e) => e);
  // The language first: every word drawn from here on is in it.
  await setLang(asked.lang);
  applyStatic();
  let models;
  let maxLetters;
  try {
    const data = await siteData();
    models = data.models;
    maxLetters = data.maxLetters;
    if (!models?.length) throw new Error('models.json lists no model');
    useModelDecoding(data.decoding);
    const failed = await laneTypes;
    if (failed) throw failed;
  } catch (e) {
    const el = $('message');
    el.hidden = false;
    el.textContent = t('page.cannotStart', { error: e.message });
    return;
  }
  performance.mark('models-json');
  const app = new App(models, { maxLetters });
  window.seq2seqPage = app;   // for the browser tests and the curious
  app.wire();
  app.watchBar();
  watchScrollBoxes();
  // Read again: the lanes' options take their defaults from the site's data (useModelDecoding), read since.
  const st = decodeState(location.search);
  app.addressSearch = location.search;
  app.relabel();
  app.addressNotes = st.notes;
  const specs = st.lanes ?? DEFAULT_LANES.map((t) => makeLane(t));
  // A model the address names that the page has not (one trained in Train mode is gone
  // after a reload) is said, once, and its lanes take their kind's first model.
  for (const id of new Set(specs.map((s) => s.opts.m).filter((m) => m && !models.some((x) => x.id === m)))) {
    for (const s of specs) if (s.opts.m === id) s.opts.m = '';
    app.modelNotes.push(() => t(id === TRAINED_MODEL ? 'trained.gone' : 'trained.unknownModel', { id }));
  }
  for (const s of specs) app.addLane(s, { decode: false });
  app.renderControls();
  const word = st.word ?? app.examples()[0] ?? '';
  // An address with a step shows that step; one with a word and no step, the end
  // of the decode (links written before steps were kept); a first visit (neither),
  // FIRST_VISIT_STEP, already decoded.
  if (st.step != null) { app.follow = false; app.t = st.step; }
  else if (st.word != null) app.follow = true;
  else { app.follow = false; app.t = FIRST_VISIT_STEP; }
  app.renderExamples();
  app.mode = st.mode;
  await app.applyMode();
  app.setWord(word, { keepStep: true, fromAddress: true });
  // The word-list mode (view=list in the address) runs its list at once, after the lanes' one word.
  if (app.mode === 'list') app.wordlist.start();
  // The tour's module (and its panel) arrive when it is opened, by its button or by an
  // address with tour=N: a first visit does not pay for them.
  const loadTour = (stop) => import('./tour.js').then(({ Tour }) => { app.tour = new Tour(app, stop); });
  if (st.tour != null) await loadTour(st.tour);
  else $('tour-start').addEventListener('click', () => loadTour(null).then(() => app.tour.open(1)), { once: true });
  globalThis.seq2seqBoot?.dispose();   // the lanes have taken boot.js's worker, if it was theirs
}

// The model list: inlined into index.html by scripts/build-web.mjs (no request
// to wait for), else models.json.
async function siteData() {
  const el = document.getElementById('site-data');
  if (el) return JSON.parse(el.textContent);
  const r = await fetch('models.json');
  if (!r.ok) throw new Error(`models.json: HTTP ${r.status}`);
  return r.json();
}

main();
