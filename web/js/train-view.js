// The Train mode: a model trained live on the page. Its controls (task, architecture,
// sizes, the trainer's options, the seed) make a configuration the address holds
// (train-config.js), so that a link reproduces the run; the run is a TrainRunPanel
// (train-run.js) with its live views. Where the page has lessons (train-lessons.js:
// LESSONS and measureLesson), each is a button that starts two panels side by side from
// the same seed, with the sentence measured from their records under them.
//
// Loaded by app.js the first time the mode opens: a first visit fetches none of it.
// Leaving the mode pauses a running run (it goes on with Train); a language switch
// redraws from what the panels hold; the page going away (pagehide) ends the trainer
// workers. The lesson shown is the address's lesson=ID, so a reload or a link (the
// guided tour's stops among them) opens it again, its two runs started from the seed.
import { DEFAULT_PRESET, G2P_DATA, PRESETS, TASKS, TRAINING_OPTION_TABLE, decodeConfig, encodeConfig, makeConfig, optionEntry, rangeText, readValue, trainerConfig } from './train-config.js';
import { TrainRunPanel } from './train-run.js';
import { t } from './i18n.js';
import { esc, loadStylesheet } from './views.js';

const $ = (id) => document.getElementById(id);

// Every option's label (the address and the trainer call it by its name, shown beside).
const OPTION_KEYS = {
  minLength: 'train.opt.minLength', maxLength: 'train.opt.maxLength', evalSize: 'train.opt.evalSize', arch: 'train.opt.arch',
  layers: 'train.opt.layers', heads: 'train.opt.heads', dModel: 'train.opt.dModel', dFf: 'train.opt.dFf', norm: 'train.opt.norm',
  pos: 'train.opt.pos', activation: 'train.opt.activation', tieOutput: 'train.opt.tieOutput', scaleEmbedding: 'train.opt.scaleEmbedding',
  attention: 'train.opt.attention', embDim: 'train.opt.embDim', encHidden: 'train.opt.encHidden', decHidden: 'train.opt.decHidden',
  attnDim: 'train.opt.attnDim', copy: 'train.opt.copy', steps: 'train.opt.steps', batchSize: 'train.opt.batchSize',
  learningRate: 'train.opt.learningRate', warmupSteps: 'train.opt.warmupSteps', lrDecay: 'train.opt.lrDecay',
  finalLrRatio: 'train.opt.finalLrRatio', beta1: 'train.opt.beta1', beta2: 'train.opt.beta2', adamEps: 'train.opt.adamEps',
  weightDecay: 'train.opt.weightDecay', clipNorm: 'train.opt.clipNorm', dropout: 'train.opt.dropout',
  attentionDropout: 'train.opt.attentionDropout', labelSmoothing: 'train.opt.labelSmoothing', seed: 'train.opt.seed',
  scheduledSampling: 'train.opt.scheduledSampling', samplingMidpoint: 'train.opt.samplingMidpoint', samplingMin: 'train.opt.samplingMin',
  samplingToken: 'train.opt.samplingToken', guidedAttentionWeight: 'train.opt.guidedAttentionWeight',
  guidedAttentionWidth: 'train.opt.guidedAttentionWidth', guidedAttentionLayer: 'train.opt.guidedAttentionLayer',
  guidedAttentionHead: 'train.opt.guidedAttentionHead', logEvery: 'train.opt.logEvery', evalEvery: 'train.opt.evalEvery',
};
const TASK_KEYS = { reverse: 'train.task.reverse', sort: 'train.task.sort', names: 'train.task.names', g2p: 'train.task.g2p' };
const PRESET_KEYS = { tiny: 'train.preset.tiny', small: 'train.preset.small', medium: 'train.preset.medium' };
// The options of one family only, shown when it is chosen.
const RNN_ONLY = new Set(['attention', 'embDim', 'encHidden', 'decHidden', 'attnDim']);
const TRANSFORMER_ONLY = new Set(['layers', 'heads', 'dModel', 'dFf', 'norm', 'pos', 'activation', 'tieOutput', 'scaleEmbedding',
  'attentionDropout', 'guidedAttentionLayer', 'guidedAttentionHead']);
// What a learner sets first (the rest behind "all options"); the task's string lengths where it generates them.
const MAIN = ['attention', 'steps', 'batchSize', 'learningRate', 'labelSmoothing', 'scheduledSampling', 'guidedAttentionWeight', 'copy', 'dropout', 'seed'];
const GENERATED_ONLY = new Set(['minLength', 'maxLength']);
const OWN_CONTROLS = new Set(['arch', 'task', 'memoryLimitMb']);

export class TrainView {
  constructor(app) {
    this.app = app;
    const { config, bad } = decodeConfig(location.search);
    this.config = config;
    this.notes = bad.map(([name, value, range]) => t('train.badValue', { name, value, range }));
    this.invalid = new Map();   // option -> what the control holds that is no value of it
    this.lessons = null;
    this.lessonPanels = [];
    this.lessonId = null;
    this.wantLesson = new URLSearchParams(location.search).get('lesson');   // started once the lessons' module is in
    this.g2pRows = null;
    this.el = document.createElement('section');
    this.el.id = 'trainview';
    this.el.className = 'trainview';
    this.el.setAttribute('aria-labelledby', 'tr-title');
    this.el.hidden = true;
    ($('textview') ?? $('wordlist')).after(this.el);
    this.panel = this.mainPanel();
    this.el.addEventListener('change', (e) => this.changed(e.target));
    this.el.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-lesson]');
      if (b) this.startLesson(b.dataset.lesson);
    });
    // A page going away (closed, navigated from, put in the back/forward cache) takes no
    // trainer with it: a worker left running would go on using a core.
    addEventListener('pagehide', () => { for (const p of [this.panel, ...this.lessonPanels]) p.end(); });
    this.ready = Promise.all([loadStylesheet('style-open.css'), loadStylesheet('style-train.css'), this.loadLessons()]).catch(() => {});
    this.render();
  }

  /** The mode's own run: the configuration the controls show. */
  mainPanel() {
    return new TrainRunPanel({ config: () => this.runConfig(trainerConfig(this.config)), app: this.app });
  }

  // The lessons, where the page has them (a module of the lessons' own); the address's lesson, if any, starts.
  async loadLessons() {
    try {
      const m = await import('./train-lessons.js');
      this.lessons = m;
    } catch {
      this.lessons = null;
    }
    this.renderLessons();
    const id = this.wantLesson;
    this.wantLesson = null;
    if (id == null || !this.lessons) return;
    if (Object.hasOwn(this.lessons.LESSONS, id)) this.openLesson(id);
    else {
      this.notes.push(t('train.badValue', { name: 'lesson', value: id, range: Object.keys(this.lessons.LESSONS).join(', ') }));
      this.render();
    }
  }

  /** A trainer config as it is sent: g2p's rows fetched (once) when that task is chosen. */
  async runConfig(cfg) {
    if (cfg.task !== 'g2p' || cfg.data !== undefined) return cfg;
    if (!this.g2pRows) {
      const r = await fetch(G2P_DATA).catch(() => null);
      if (!r?.ok) throw Object.assign(new Error(t('train.noG2pData', { file: G2P_DATA })), { key: 'train.noG2pData', params: { file: G2P_DATA } });
      this.g2pRows = await r.text();
    }
    return { ...cfg, data: this.g2pRows };
  }

  /** The mode's part of the address: {query, hash}. */
  address() {
    return { query: encodeConfig(this.config) + (this.lessonId ? `&lesson=${encodeURIComponent(this.lessonId)}` : ''), hash: '' };
  }

  /**
   * Opens a lesson as a link or the guided tour names it: its runs as they are if that
   * lesson is already here (going, paused or done), else started anew.
   */
  openLesson(id) {
    if (this.lessonId === id && this.lessonPanels.length && this.lessonPanels.every((p) => p.status !== 'failed')) {
      for (const p of this.lessonPanels) if (p.status === 'paused' || p.status === 'idle') p.train();
      return;
    }
    this.startLesson(id);
  }

  /**
   * Opens the configuration an address names (train-config.js) in the mode's own panel,
   * without a lesson, and trains it: a run of that configuration already here (going,
   * paused or done) is kept, another is replaced by a new one.
   */
  openRun(search) {
    const { config } = decodeConfig(search);
    this.closeLesson();
    if (encodeConfig(config) !== encodeConfig(this.config) || this.panel.status === 'failed') {
      this.config = config;
      this.panel.destroy();
      this.panel = this.mainPanel();
      this.render();
    }
    this.app.saveUrl();
    if (this.panel.status !== 'done') this.panel.train();
  }

  closeLesson() {
    if (!this.lessonId) return;
    for (const p of this.lessonPanels) p.destroy();
    this.lessonPanels = [];
    this.lessonId = null;
    this.el.querySelector('.tr-lesson-panels')?.replaceChildren();
    this.renderLessons();
  }

  /** Shown or hidden with the mode; hidden, a running run pauses (Train goes on with it). */
  show(on) {
    this.el.hidden = !on;
    if (!on) for (const p of [this.panel, ...this.lessonPanels]) p.pause();
  }

  relabel() {
    this.render();
    for (const p of [this.panel, ...this.lessonPanels]) {
      if (p.label) p.label = t(p.labelKey);
      p.el.setAttribute('aria-label', p.label || t('train.runAria'));
      p.render();
    }
    this.renderLessons();
  }

  // ------------------------------------------------------------ controls
  control(name) {
    const o = optionEntry(name);
    const full = trainerConfig(this.config);
    const id = `tr-opt-${name}`;
    const label = `<label for="${id}">${esc(t(OPTION_KEYS[name]))} <code>${esc(name)}</code></label>`;
    const changed = Object.hasOwn(this.config.options, name) ? ' data-changed="true"' : '';
    if (o.type === 'bool') {
      return `<div class="tr-field tr-check"${changed}><input type="checkbox" id="${id}" data-option="${name}"${full[name] ? ' checked' : ''}>${label}</div>`;
    }
    if (o.type === 'enum') {
      return `<div class="tr-field"${changed}>${label}<select id="${id}" data-option="${name}">${o.values.map((v) => `<option${v === full[name] ? ' selected' : ''}>${esc(v)}</option>`).join('')}</select></div>`;
    }
    const bad = this.invalid.get(name);
    const value = bad ?? String(full[name]);
    const hint = bad != null ? `<span class="tr-invalid" id="${id}-err">${esc(t('train.outOfRange', { range: rangeText(o) }))}</span>` : '';
    return `<div class="tr-field"${changed}>${label}<input id="${id}" data-option="${name}" inputmode="decimal" value="${esc(value)}"`
      + ` title="${esc(rangeText(o))}"${bad != null ? ` aria-invalid="true" aria-describedby="${id}-err"` : ''}>${hint}</div>`;
  }

  shownOptions() {
    const full = trainerConfig(this.config);
    return TRAINING_OPTION_TABLE.map((o) => o.js).filter((n) => !OWN_CONTROLS.has(n)
      && !(full.arch === 'rnn' ? TRANSFORMER_ONLY : RNN_ONLY).has(n) && !(this.config.task === 'g2p' && GENERATED_ONLY.has(n)));
  }

  render() {
    const c = this.config;
    const full = trainerConfig(c);
    const shown = this.shownOptions();
    const main = MAIN.filter((n) => shown.includes(n));
    const rest = shown.filter((n) => !main.includes(n));
    const select = (id, key, values, current, label) => `<div class="tr-field"><label for="${id}">${esc(t(key))}</label><select id="${id}">`
      + values.map((v) => `<option value="${v}"${v === current ? ' selected' : ''}>${esc(label(v))}</option>`).join('') + '</select></div>';
    const focus = document.activeElement && this.el.contains(document.activeElement) ? document.activeElement.id : null;
    const allOpen = this.el.querySelector('.tr-all')?.open ? ' open' : '';
    this.el.innerHTML = `<h2 id="tr-title">${esc(t('train.title'))}</h2><p class="tr-intro">${esc(t('train.intro'))}</p>`
      + '<div class="tr-lessons"></div>'
      + '<form class="tr-form" novalidate><div class="tr-fields">'
      + select('tr-task', 'train.taskLabel', TASKS, c.task, (v) => t(TASK_KEYS[v]))
      + select('tr-arch', 'train.archLabel', optionEntry('arch').values, full.arch, (v) => t(v === 'rnn' ? 'train.archRnn' : 'train.archTransformer'))
      + select('tr-preset', 'train.presetLabel', Object.keys(PRESETS), c.preset, (v) => t(PRESET_KEYS[v]))
      + main.map((n) => this.control(n)).join('') + '</div>'
      + `<details class="tr-all"${allOpen}><summary>${esc(t('train.allOptions', { n: rest.length }))}</summary><div class="tr-fields">${rest.map((n) => this.control(n)).join('')}</div></details>`
      + `<p class="tr-bound">${esc(t('train.bound', { mb: full.memoryLimitMb }))}</p></form>`
      + `<p class="tr-notes" role="status">${esc(this.notes.join(' '))}</p>`
      + '<div class="tr-panels tr-main"></div><div class="tr-panels tr-lesson-panels"></div>';
    this.el.querySelector('.tr-main').append(this.panel.el);
    this.el.querySelector('.tr-lesson-panels').append(...this.lessonPanels.map((p) => p.el));
    this.renderLessons();
    if (focus) document.getElementById(focus)?.focus();
  }

  changed(el) {
    const c = this.config;
    let { task, preset } = c;
    const options = { ...c.options };
    if (el.id === 'tr-task') task = el.value;
    else if (el.id === 'tr-preset') preset = el.value;
    else if (el.id === 'tr-arch') options.arch = el.value;
    else if (el.dataset.option) {
      const name = el.dataset.option;
      const o = optionEntry(name);
      const v = o.type === 'bool' ? el.checked : readValue(o, el.value.trim());
      if (v === undefined) {
        this.invalid.set(name, el.value);
        this.render();
        return;
      }
      this.invalid.delete(name);
      options[name] = v;
    } else return;
    // A task's own defaults apply to the new task: only what the learner set is kept.
    this.config = makeConfig(task, preset, options);
    this.notes = [];
    this.render();
    this.app.saveUrl();
  }

  // ------------------------------------------------------------ lessons
  renderLessons() {
    const slot = this.el.querySelector('.tr-lessons');
    if (!slot) return;
    const lessons = this.lessons?.LESSONS;
    if (!lessons || !Object.keys(lessons).length) { slot.innerHTML = ''; return; }
    const buttons = Object.entries(lessons).map(([id, l]) => `<button type="button" data-lesson="${esc(id)}" aria-pressed="${id === this.lessonId}">${esc(t(l.titleKey ?? l.title ?? id))}</button>`).join('');
    slot.innerHTML = `<h3>${esc(t('train.lessonsTitle'))}</h3><div class="tr-lesson-buttons">${buttons}</div>`
      + (this.lessonId ? `<div class="tr-sentences" aria-live="polite">${this.lessonSentencesHtml()}</div>` : '');
  }

  /** Everything the lesson measured in its two runs, a sentence each (the first its main one). */
  lessonSentences() {
    const [a, b] = this.lessonPanels;
    if (!a || !b || !a.records.length || !b.records.length) return [t('train.lessonWaiting')];
    try {
      const m = this.lessons.measureLesson(this.lessonId, a.records, b.records, a.probes, b.probes, a.info, b.info);
      return (m?.sentences ?? []).map((s) => t(s.key, s.params));
    } catch (e) {
      return [String(e.message ?? e)];
    }
  }

  lessonSentencesHtml() {
    return this.lessonSentences().map((s) => `<p class="tr-sentence">${esc(s)}</p>`).join('');
  }

  /** Starts a lesson's two runs side by side (one seed, one data). */
  startLesson(id) {
    const lesson = this.lessons?.LESSONS?.[id];
    if (!lesson) return;
    for (const p of this.lessonPanels) p.destroy();
    this.lessonId = id;
    this.lessonPanels = lesson.runs.map((run) => {
      const { label, labelKey, ...cfg } = run;
      const key = labelKey ?? label;
      const p = new TrainRunPanel({ config: () => this.runConfig(cfg), label: key ? t(key) : '', app: this.app, onEnd: () => this.renderLessons() });
      p.labelKey = key;
      const render = p.render.bind(p);
      // The sentence is measured again as the records come.
      p.render = () => { render(); this.renderLessonSentence(); };
      return p;
    });
    this.el.querySelector('.tr-lesson-panels').replaceChildren(...this.lessonPanels.map((p) => p.el));
    this.renderLessons();
    this.app.saveUrl();
    for (const p of this.lessonPanels) p.train();
  }

  renderLessonSentence() {
    const el = this.el.querySelector('.tr-sentences');
    if (el) el.innerHTML = this.lessonSentencesHtml();
  }
}
