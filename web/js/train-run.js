// One training run on the page: a panel that owns its trainer worker (the npm module's
// train-worker-client.js on the page's trainer-worker.js), the run's records, probes and
// info, its buttons (Train, Pause, Step) and its progress, and draws its views
// (train-charts.js) from a narrow facade of itself. The Train mode shows one; a lesson
// two side by side, started from the same seed.
//
// A run never blocks the page: the trainer works in its worker, and the panel redraws at
// most every REDRAW_MS from what the records brought. Its errors are messages in the
// page's language: a run over the page's memory bound, a run that diverged, anything else
// by its kind (error-text.js).
import { TrainerWorker } from '../wasm/src/train-worker-client.js';
import { accuracyView, copyView, lossView, probeView } from './train-charts.js';
import { PAGE_MEMORY_LIMIT_MB } from './train-config.js';
import { errorText } from './error-text.js';
import { t } from './i18n.js';
import { esc } from './views.js';

const REDRAW_MS = 150;
const STATUS_KEYS = {
  idle: 'train.status.idle', starting: 'train.status.starting', running: 'train.status.running', pausing: 'train.status.pausing',
  paused: 'train.status.paused', done: 'train.status.done', failed: 'train.status.failed',
};
const WORKER_URL = new URL('./trainer-worker.js', import.meta.url);

/** A trainer's error as the page says it. */
export function runErrorText(e) {
  if (e?.option === 'memoryLimitMb') return `${t('train.tooBig', { limit: PAGE_MEMORY_LIMIT_MB })} ${errorText(e)}`;
  if (e?.kind === 'DivergedError') return t('train.diverged', { step: e.step ?? '?' });
  return errorText(e);
}

/** What a view sees of a run: its records (without probes), its latest probe, its info, its trainer config. */
export function runFacade(panel) {
  return {
    get records() { return panel.records; },
    get probe() { return panel.probes.at(-1) ?? null; },
    get info() { return panel.info; },
    get config() { return panel.config; },
  };
}

let panels = 0;

export class TrainRunPanel {
  /**
   * config(): the trainer config (every option by its JS name, and g2p's data) a new run
   * takes, asked when one starts; label: a heading (a lesson's run) or ''; app: the page
   * (its openTrainedModel, where the page has one).
   */
  constructor({ config, label = '', app = null, onEnd = null }) {
    this.configOf = config;
    this.label = label;
    this.app = app;
    this.onEnd = onEnd;
    this.id = `tr-run-${++panels}`;
    this.worker = null;
    this.ended = 0;   // how many times end() took the worker: a train() begun before it does not report its Cancelled
    this.reset();
    this.el = document.createElement('section');
    this.el.className = 'tr-panel';
    this.el.id = this.id;
    this.el.setAttribute('aria-label', label || t('train.runAria'));
    this.el.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-action]');
      if (!b || b.disabled) return;
      ({ train: () => this.train(), pause: () => this.pause(), step: () => this.step(), decode: () => this.decodeWith() })[b.dataset.action]?.();
    });
    this.render();
  }

  reset() {
    this.config = null;
    this.info = null;
    this.records = [];
    this.probes = [];
    this.failure = null;   // what ended the run (or a failed export), said in the page's language when drawn
    this.status = 'idle';   // idle | starting | running | pausing | paused | done | failed
    this.elapsedMs = 0;
    this.since = null;
  }

  get facade() { return runFacade(this); }

  /** The run as it stands: created (its trainer made in the worker) and not finished. */
  get live() { return this.info != null && !this.info.done && this.status !== 'failed'; }

  #setStatus(s) {
    this.status = s;
    this.render();
  }

  #fail(e) {
    this.#stopClock();
    this.failure = e;
    this.#setStatus('failed');
    this.onEnd?.(this);
  }

  #startClock() { this.since = performance.now(); }
  #stopClock() {
    if (this.since != null) this.elapsedMs += performance.now() - this.since;
    this.since = null;
  }

  /** Makes a new run of config() in the worker (a worker of its own, started once). */
  async #create() {
    this.worker ??= new TrainerWorker({ workerUrl: WORKER_URL });
    this.reset();
    this.#setStatus('starting');
    const config = await this.configOf();
    this.config = config;
    this.info = await this.worker.create(config);
    this.render();
  }

  #take(record) {
    const { probe, ...rest } = record;
    this.records.push(rest);
    if (probe) this.probes.push(probe);
    if (record.steps) this.info = { ...this.info, step: record.step, done: record.step >= record.steps };
    this.#scheduleRender();
  }

  #scheduleRender() {
    if (this.renderTimer) return;
    this.renderTimer = setTimeout(() => { this.renderTimer = null; this.render(); }, REDRAW_MS);
  }

  /** Trains to the end: a new run unless a paused one goes on (with the config it started with). */
  async train() {
    if (this.status === 'running' || this.status === 'starting' || this.status === 'pausing') return;
    const ended = this.ended;
    try {
      if (!this.live || this.status === 'idle') await this.#create();
      this.#startClock();
      this.#setStatus('running');
      const end = await this.worker.train({ onProgress: (r) => this.#take(r), probe: true });
      this.#stopClock();
      this.#setStatus(end.status === 'done' ? 'done' : 'paused');
      this.onEnd?.(this);
    } catch (e) {
      if (ended === this.ended) this.#fail(e);
    }
  }

  /** Ends a running train at its next record (the run stays, to go on or step). */
  async pause() {
    if (this.status !== 'running') return;
    this.#setStatus('pausing');
    await this.worker.pause().catch(() => {});
  }

  /** One record's steps (logEvery) and a probe: a new run first if there is none. */
  async step() {
    if (!['idle', 'paused', 'done', 'failed'].includes(this.status)) return;
    const ended = this.ended;
    try {
      if (!this.live) await this.#create();
      this.#setStatus('running');
      this.#startClock();
      const r = await this.worker.step(this.config.logEvery, { probe: true });
      this.#stopClock();
      this.#take(r);
      this.#setStatus(this.info.done ? 'done' : 'paused');
      this.onEnd?.(this);
    } catch (e) {
      if (ended === this.ended) this.#fail(e);
    }
  }

  /** The model as it stands, opened in the lanes (the page's openTrainedModel). */
  async decodeWith() {
    try {
      // The held-out examples give the lanes' word and reference and the word list's set.
      const [bytes, heldOut] = await Promise.all([this.worker.export(), this.worker.heldOut()]);
      await this.app.openTrainedModel(bytes, { info: this.info, heldOut });
    } catch (e) {
      this.failure = e;
      this.render();
    }
  }

  /**
   * Ends the worker (the page is going away): its run cannot go on, so the panel keeps
   * what the run recorded and Train starts a new one.
   */
  end() {
    if (!this.worker) return;
    this.ended++;
    this.#stopClock();
    this.worker.terminate().catch(() => {});
    this.worker = null;
    if (this.info) this.info = { ...this.info, done: true };
    if (this.status !== 'done' && this.status !== 'failed') this.#setStatus('idle');
  }

  /** Stops the worker; the panel is done with. */
  destroy() {
    clearTimeout(this.renderTimer);
    this.worker?.terminate().catch(() => {});
    this.worker = null;
    this.el.remove();
  }

  elapsedSeconds() {
    return (this.elapsedMs + (this.since != null ? performance.now() - this.since : 0)) / 1000;
  }

  progressText() {
    const last = this.records.at(-1);
    const steps = this.info?.steps ?? this.config?.steps ?? 0;
    return t('train.progress', {
      step: last?.step ?? 0, steps, seconds: this.elapsedSeconds().toFixed(1),
      rate: last ? Math.round(last.stepsPerSecond) : 0,
    });
  }

  render() {
    clearTimeout(this.renderTimer);
    this.renderTimer = null;
    const s = this.status;
    const busy = s === 'running' || s === 'starting' || s === 'pausing';
    const button = (action, key, disabled) => `<button type="button" data-action="${action}"${disabled ? ' disabled' : ''}>${esc(t(key))}</button>`;
    const canDecode = typeof this.app?.openTrainedModel === 'function' && this.info && this.records.length && !busy && s !== 'failed';
    const run = this.facade;
    const params = this.info ? t('train.size', { params: this.info.parameters.toLocaleString('en-US'), mb: (this.info.memoryBytes / 2 ** 20).toFixed(1) }) : '';
    // The views are drawn anew, but a table twin the learner opened stays open.
    const open = [...this.el.querySelectorAll('details[open]')].map((d) => d.dataset.key);
    this.el.innerHTML = (this.label ? `<h3 class="tr-run-title">${esc(this.label)}</h3>` : '')
      + `<div class="tr-buttons">${button('train', this.status === 'paused' && this.live ? 'train.resume' : 'train.train', busy)}`
      + `${button('pause', 'train.pause', s !== 'running')}${button('step', 'train.step', busy)}`
      + (canDecode ? button('decode', 'train.decode', false) : '') + '</div>'
      + `<p class="tr-status"><span role="status" data-status="${s}">${esc(t(STATUS_KEYS[s]))}</span> <span class="tr-progress">${esc(this.progressText())}</span>`
      + (params ? ` <span class="tr-size">${esc(params)}</span>` : '') + '</p>'
      + (this.failure ? `<p class="tr-error" role="alert">${esc(runErrorText(this.failure))}</p>` : '')
      + (this.records.length ? `<div class="tr-views">${lossView(run)}${accuracyView(run)}${probeView(run)}${copyView(run)}</div>` : '');
    this.el.querySelectorAll('details').forEach((d, i) => { d.dataset.key = String(i); if (open.includes(String(i))) d.open = true; });
  }
}
