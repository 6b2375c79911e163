// Word-list mode: the page's lanes (their methods and options) run over a list
// of words, to compare methods on many words rather than one: the first N words
// of the CMUdict test split, a seeded random sample of N of them, pasted words, or the
// held-out examples of a model trained on the page (trained-model.js), its targets the references.
//
// URL: ?…&view=list&n=100&src=test | src=sample&seed=7 | src=paste#words=KNIGHT+QUEUE | src=heldout
// (the lanes' own parameters stay as address.js writes them, and view=list is the
// page's mode, which the app switches (app.js); these are added). Pasted
// words ride in the fragment, which a browser never sends to a server: up to 20,000
// characters of them in the query made addresses that servers refuse (Node's 16 KB
// header limit, ~8 KB on common static hosts). An older address's ?words= is still read.
//
// Each lane decodes the whole list in its model's decoder worker with one
// decodeBatch request (progress and cancel come with it), or, for a list of
// POOL_MIN_WORDS or more, across a pool of workers, one per core (engine.js
// openPool), which gives the same lists sooner. Then, per word:
// decoder passes (each result tells its decode's: Result.steps),
// and for a wrong output, the forced scores of the references against the
// output's (forced.js: search error or model error). The compare lane is left
// out: its four panels are greedy lanes on the RNN models, which can be added
// as such.
import { POOL_MIN_WORDS, openDecoder, openPool } from './engine.js';
import { lookup } from './dict.js';
import { diagnose, scoreWithReferences } from './forced.js';
import { measure, rates, tokens } from '../shared/metrics.js';
import { repeatPositions } from './nar-length.js';
import { moduleOptions } from './lane-types.js';
import { esc, scrollRegion } from './views.js';
import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);

export const SOURCES = ['test', 'sample', 'paste', 'heldout'];
const MAX_N = 2000;
const MAX_PASTE_CHARS = 20000;
// A large seeded random sample by default: the test split's first words are
// alphabetical (A…), too few and too alike to rank the methods.
const DEFAULTS = { n: 1000, src: 'sample', seed: 1, words: '' };

/** The list's part of the address (its query and fragment): {n, src, seed, words}, out-of-range values clamped. */
export function decodeList(search, hash = '') {
  const q = new URLSearchParams(search);
  const h = new URLSearchParams(hash.replace(/^#/, ''));
  const int = (v, lo, hi, d) => {
    const x = Math.round(Number(v));
    return v != null && v !== '' && Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : d;
  };
  return {
    n: int(q.get('n'), 1, MAX_N, DEFAULTS.n),
    src: SOURCES.includes(q.get('src')) ? q.get('src') : DEFAULTS.src,
    seed: int(q.get('seed'), 0, 2 ** 31 - 1, DEFAULTS.seed),
    words: (h.get('words') ?? q.get('words') ?? '').slice(0, MAX_PASTE_CHARS),
  };
}

/** The list's part of the address: {query, hash}, what the page's query (with view=list) gets appended and the fragment. */
export function encodeList(s) {
  const q = new URLSearchParams();
  if (s.src !== 'paste' && s.src !== 'heldout') q.set('n', String(s.n));
  q.set('src', s.src);
  if (s.src === 'sample') q.set('seed', String(s.seed));
  const words = s.src === 'paste' ? s.words.trim() : '';
  return { query: `&${q}`, hash: words ? `#${new URLSearchParams({ words: words.split(/[\s,;]+/).join(' ') })}` : '' };
}

/** A seeded generator (mulberry32): the same seed draws the same sample in every browser. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** n of the items, drawn without replacement with `seed`, in the list's order. */
export function sample(items, n, seed) {
  const idx = items.map((_, i) => i);
  const rnd = random(seed);
  const k = Math.min(n, idx.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rnd() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx.slice(0, k).sort((a, b) => a - b).map((i) => items[i]);
}

let testSplit = null;
/** The test split's words in order, with their references: [{word, prons}] (dict/test.tsv, from build-web.mjs). */
function testWords() {
  testSplit ??= (async () => {
    const r = await fetch(new URL('../dict/test.tsv', import.meta.url));
    if (!r.ok) throw new Error(t('list.noTestSplit', { status: r.status }));
    return (await r.text()).split('\n').filter(Boolean).map((line) => {
      const [word, prons] = line.split('\t');
      return { word, prons: prons ? prons.split('|') : [] };
    });
  })();
  testSplit.catch(() => { testSplit = null; });
  return testSplit;
}

/** Adjacent repeats in an output: what a non-autoregressive lane marks ↻. */
export function repeats(text) {
  return repeatPositions(tokens(text)).length;
}


class Cancelled extends Error {}

/** The summary table's columns: key, header string, how a row shows and sorts by it. */
const SUMMARY_COLUMNS = [
  { key: 'lane', label: 'list.colStrategy', text: (r) => r.name, sort: (r) => r.order },
  { key: 'wer', label: 'list.colWer', num: (r) => r.wer, digits: 1 },
  { key: 'per', label: 'list.colPer', num: (r) => r.per, digits: 1 },
  { key: 'passes', label: 'list.colPasses', num: (r) => r.passes, digits: 2 },
  { key: 'ms', label: 'list.colMs', num: (r) => r.ms, digits: 2 },
  { key: 'repeats', label: 'list.colRepeats', num: (r) => r.repeats, digits: 0 },
  { key: 'search', label: 'list.colSearch', num: (r) => r.search, digits: 0 },
  { key: 'model', label: 'list.colModel', num: (r) => r.model, digits: 0 },
];

export class WordList {
  constructor(app) {
    this.app = app;
    this.el = $('wordlist');
    this.state = decodeList('');
    this.job = null;        // the run under way: {cancelled, api, pool, done, total}
    this.result = null;     // the last run's: {words, lanes, note}
    this.sort = { summary: null, words: null };   // {key, dir: 'ascending' | 'descending'}
    this.status = '';
    this.messageText = '';
    this.el.addEventListener('click', (e) => this.onClick(e));
    this.el.addEventListener('input', (e) => this.onInput(e));
    this.el.addEventListener('submit', (e) => { e.preventDefault(); this.start(); });
  }

  /** Reads the list's part of the address. */
  init(search, hash) {
    this.state = decodeList(search, hash);
    // Lanes on a model trained on the page: its held-out set, unless the address names another list.
    if (!new URLSearchParams(search).has('src') && this.trainedModel()) this.state.src = 'heldout';
    this.render();
  }

  /** The list's part of the address: {query, hash} (encodeList). */
  address() {
    return encodeList(this.state);
  }

  /** The lanes the list runs: every lane but compare, in the page's order. */
  lanes() {
    return this.app.lanes.filter((l) => l.type !== 'compare');
  }

  /** Shown (the page's mode is the list, app.js) or hidden; shown, it is drawn for the lanes of the moment. */
  show(on, { focus = false } = {}) {
    this.el.hidden = !on;
    if (!on) return;
    this.render();
    if (focus) $('wl-run').focus();
  }

  // ------------------------------------------------------------ the form
  onInput(e) {
    const el = e.target;
    if (el.name === 'wl-src') { this.state.src = el.value; this.renderSourceFields(); }
    else if (el.id === 'wl-n') this.state.n = Number(el.value);
    else if (el.id === 'wl-seed') this.state.seed = Number(el.value);
    else if (el.id === 'wl-words') this.state.words = el.value;
    else return;
    // The address keeps only what it can be read back as.
    const { query, hash } = encodeList(this.state);
    const clean = decodeList(query, hash);
    if (el.id !== 'wl-words') Object.assign(this.state, { n: clean.n, seed: clean.seed });
    this.app.saveUrl();
  }

  onClick(e) {
    const b = e.target.closest('button');
    if (!b || !this.el.contains(b)) return;
    if (b.id === 'wl-cancel') this.cancel();
    else if (b.dataset.sort) this.sortBy(b.dataset.table, b.dataset.sort);
    else if (b.dataset.word) this.openWord(b.dataset.word);
  }

  render() {
    const s = this.state;
    const lanes = this.lanes();
    const names = lanes.map((l) => this.laneName(l));
    const skipped = this.app.lanes.length - lanes.length;
    const src = (value, key) => `<label class="wl-src"><input type="radio" name="wl-src" value="${value}"${s.src === value ? ' checked' : ''}> ${esc(t(key))}</label>`;
    // The held-out set of a model trained on the page, while the lanes hold it (or the address names it).
    const trained = this.trainedModel();
    this.el.innerHTML = `
      <h2 id="wl-title">${esc(t('list.heading'))}</h2>
      <p class="lede">${esc(t('list.lede'))}</p>
      <form id="wl-form" class="wl-form" autocomplete="off" novalidate>
        <fieldset class="wl-sources"><legend>${esc(t('list.source'))}</legend>
          ${src('test', 'list.srcTest')} ${src('sample', 'list.srcSample')} ${src('paste', 'list.srcPaste')}${trained || s.src === 'heldout' ? ` ${src('heldout', 'trained.srcHeldOut')}` : ''}
        </fieldset>
        <div class="wl-fields"></div>
        <p class="wl-lanes">${esc(t('list.strategies'))} <strong>${names.length ? names.map(esc).join(' · ') : esc(t('list.noLanes'))}</strong>
          <button type="button" class="small" data-view-link="lanes">${esc(t('list.editLanes'))}</button></p>
        ${skipped ? `<p class="note">${esc(t('list.compareSkipped'))}</p>` : ''}
        <div class="wl-actions">
          <button type="submit" id="wl-run" class="primary">${esc(t('list.run'))}</button>
          <button type="button" id="wl-cancel" disabled>${esc(t('list.cancel'))}</button>
          <span class="wl-progress"><label for="wl-progress" id="wl-progress-label">${esc(t('list.progress'))}</label>
          <progress id="wl-progress" max="1" value="0"></progress></span>
          <output id="wl-status" for="wl-progress" aria-live="polite"></output>
        </div>
      </form>
      <div id="wl-message" class="message" role="alert" hidden></div>
      <div id="wl-results"></div>`;
    this.el.querySelector('[data-view-link]').addEventListener('click', () => this.app.showMode('lanes'));
    this.renderSourceFields();
    this.renderProgress();
    this.message(this.messageText, this.messageInfo);
    this.renderResults();
  }

  renderSourceFields() {
    const s = this.state;
    const num = (id, key, value, min, max, help) => `<label for="${id}">${esc(t(key))}</label><input id="${id}" type="number" min="${min}" max="${max}" step="1" value="${value}"${help ? ` aria-describedby="${id}-help"` : ''}>${help ? `<span id="${id}-help" class="help">${esc(help)}</span>` : ''}`;
    let html = '';
    if (s.src === 'heldout') {
      const m = this.trainedModel();
      html = `<p class="note wl-heldout">${esc(m ? t('trained.listNote', { name: m.name, n: m.trainedOn.heldOut.length }) : t('trained.noHeldOut'))}</p>`;
    } else if (s.src === 'paste') {
      html = `<label for="wl-words">${esc(t('list.pasteLabel'))}</label><textarea id="wl-words" rows="3" maxlength="${MAX_PASTE_CHARS}" spellcheck="false" aria-describedby="wl-words-help">${esc(s.words)}</textarea><span id="wl-words-help" class="help">${esc(t('list.pasteHelp', { max: MAX_N }))}</span>`;
    } else {
      html = num('wl-n', 'list.n', s.n, 1, MAX_N, t('list.nHelp', { max: MAX_N }));
      if (s.src === 'sample') html += num('wl-seed', 'list.seed', s.seed, 0, 2 ** 31 - 1, t('list.seedHelp'));
    }
    this.el.querySelector('.wl-fields').innerHTML = html;
  }

  /** The model trained on the page that a lane of the list decodes with, or null. */
  trainedModel() {
    return this.lanes().map((l) => l.model).find((m) => m?.trainedOn) ?? null;
  }

  laneName(lane) {
    return t('list.laneName', { title: lane.title, model: lane.model?.name ?? '?' });
  }

  message(text, info = false) {
    this.messageText = text;
    this.messageInfo = info;
    const el = $('wl-message');
    if (!el) return;
    el.hidden = !text;
    el.textContent = text || '';
    el.classList.toggle('info', !!info);
  }

  renderProgress() {
    const j = this.job ?? this.lastJob;
    const p = $('wl-progress');
    if (!p) return;
    p.max = Math.max(1, j?.total ?? 1);
    p.value = j?.done ?? 0;
    $('wl-status').textContent = this.status;
    $('wl-run').disabled = !!this.job;
    $('wl-cancel').disabled = !this.job;
  }

  // ------------------------------------------------------------ the words
  /** The list to run: {words: [{word, prons}], notes}, or throws an Error whose message the page shows. */
  async words(models) {
    const s = this.state;
    let list;
    const notes = [];
    if (s.src === 'heldout') {
      const m = this.trainedModel();
      if (!m) throw new Error(t('trained.noHeldOut'));
      // Every example as the trainer holds it (a source may come twice): its exact match is the trainer's.
      list = m.trainedOn.heldOut.map((e) => ({ word: e.source, prons: [e.target] }));
      const kept = list.filter(({ word }) => models.every((x) => !this.app.checkWord(word, x)));
      if (kept.length < list.length) notes.push(t('list.leftOut', { n: list.length - kept.length }));
      list = kept;
    } else if (s.src === 'paste') {
      const raw = s.words.trim();
      if (!raw) throw new Error(t('list.pasteEmpty'));
      const words = [...new Set(raw.split(/[\s,;]+/).filter(Boolean).map((w) => this.app.normalizedWord(models[0], w)))];
      if (words.length > MAX_N) throw new Error(t('list.pasteTooMany', { n: words.length, max: MAX_N }));
      // Every problem with a pasted word is named, before anything is decoded.
      const problems = [];
      for (const w of words) {
        const p = models.map((m) => this.app.checkWord(w, m)).find(Boolean);
        if (p) problems.push(t('list.badWord', { word: [...w].length > 24 ? `${[...w].slice(0, 24).join('')}…` : w, problem: p }));
      }
      if (problems.length) {
        const shown = problems.slice(0, 3);
        if (problems.length > 3) shown.push(t('list.moreBad', { n: problems.length - 3 }));
        throw new Error(`${t('list.pasteBad')} ${shown.join(' ')}`);
      }
      list = await Promise.all(words.map(async (word) => {
        const ref = await lookup(word).catch(() => null);
        return { word, prons: ref?.prons ?? null };
      }));
    } else {
      const all = await testWords();
      list = s.src === 'sample' ? sample(all, s.n, s.seed) : all.slice(0, s.n);
      // The test split's words are all readable by the shipped models; a model
      // with another alphabet leaves some out, and says how many.
      const kept = list.filter(({ word }) => models.every((m) => !this.app.checkWord(word, m)));
      if (kept.length < list.length) notes.push(t('list.leftOut', { n: list.length - kept.length }));
      list = kept;
    }
    const unref = list.filter((w) => !w.prons?.length).length;
    if (unref) notes.push(t(unref === 1 ? 'list.noRefOne' : 'list.noRefMany', { n: unref }));
    return { words: list, notes };
  }

  // ------------------------------------------------------------ running
  async start() {
    // A run under way ends first (its last words drawn), so that only one writes to the page.
    const old = this.job;
    if (old) {
      await this.cancel();
      await old.finished;
    }
    const lanes = this.lanes();
    this.result = null;
    this.status = '';
    this.message('');
    this.renderResults();
    if (!lanes.length) { this.message(t('list.noLanesMessage')); return; }
    const models = [...new Set(lanes.map((l) => l.model))];
    if (models.some((m) => !m)) { this.message(t('list.noModel')); return; }
    const job = { cancelled: false, api: null, done: 0, total: 1 };
    job.finished = new Promise((resolve) => { job.finish = resolve; });
    this.job = job;
    this.renderProgress();
    let result = null;
    try {
      const { words, notes } = await this.words(models);
      if (job.cancelled) throw new Cancelled();
      if (!words.length) throw new Error(t('list.nothing'));
      const texts = words.map((w) => w.word);
      // Two units per word and lane: its decode, then its passes and error check.
      job.total = 2 * texts.length * lanes.length;
      result = { words, lanes: [], notes };
      for (const [order, lane] of lanes.entries()) {
        result.lanes.push(await this.runLane(job, lane, order, texts, words));
        this.result = { ...result, partial: true };
      }
      this.result = result;
      this.status = t('list.finished', {
        words: t(texts.length === 1 ? 'list.wordsOne' : 'list.wordsMany', { n: texts.length }),
        methods: t(lanes.length === 1 ? 'list.methodsOne' : 'list.methodsMany', { n: lanes.length }),
      });
    } catch (e) {
      this.status = '';
      if (e instanceof Cancelled || e?.kind === 'Cancelled') {
        this.message(t(result?.lanes.length ? 'list.cancelledSome' : 'list.cancelled', { done: job.done, total: job.total }), true);
      } else if (result) {
        this.message(t('list.failed', { error: String(e?.message ?? e) }));
      } else {
        // The list itself is unusable (bad pasted words, no test split): its message as it is.
        this.message(String(e?.message ?? e));
      }
    } finally {
      if (this.job === job) {
        this.job = null;
        this.lastJob = job;
        this.renderProgress();
        this.renderResults();
        document.body.dataset.listRuns = String(Number(document.body.dataset.listRuns ?? 0) + 1);
      }
      job.finish();
    }
  }

  /** One lane over the list: its outputs, measures, passes, time and error kinds. */
  async runLane(job, lane, order, texts, words) {
    const name = this.laneName(lane);
    const model = lane.model;
    // A sampling lane whose seed follows the word draws each word with the word's own seed,
    // as the lane does: a batch under one seed would give every word the same uniforms.
    const follows = Object.values(lane.opts).some((v) => v === null);
    const options = (text) => moduleOptions(lane, text);
    const decoder = await openDecoder(new URL(model.file, document.baseURI).href);
    const base = job.done;
    const step = (what, n) => {
      this.status = t(what, { lane: name, n, total: texts.length });
      this.renderProgress();
    };
    try {
      return await decoder.exclusive(async (api) => {
        job.api = api;
        if (job.cancelled) throw new Cancelled();
        step('list.decoding', 0);
        // Across the cores for a long list (not a lane whose seed follows the word: one word a call).
        const pool = !follows && texts.length >= POOL_MIN_WORDS ? await openPool(new URL(model.file, document.baseURI).href) : null;
        job.pool = pool;
        // How many workers decoded the lane's list (the note under the summary says it; the browser tests read it).
        const workers = pool ? pool.size : 1;
        document.body.dataset.listWorkers = String(workers);
        let lists;
        let t0;
        try {
          if (job.cancelled) throw new Cancelled();
          // A few words first, untimed: a worker's first decodes run while its
          // WebAssembly is still being optimised, which would charge the first lane for it.
          await (pool ?? api).decodeBatch(texts.slice(0, pool ? 5 * (pool.size ?? 1) : 5), options(texts[0]));
          if (job.cancelled) throw new Cancelled();
          t0 = performance.now();
          const onProgress = ({ done }) => { job.done = base + done; step('list.decoding', done); };
          if (follows) {
            lists = [];
            for (const text of texts) {
              if (job.cancelled) throw new Cancelled();
              lists.push((await api.decodeBatch([text], options(text)))[0]);
              onProgress({ done: lists.length });
            }
          } else {
            lists = await (pool ?? api).decodeBatch(texts, options(texts[0]), { onProgress });
          }
        } finally {
          job.pool = null;
          pool?.terminate().catch(() => {});
        }
        const ms = (performance.now() - t0) / texts.length;
        const rows = [];
        for (const [i, [best]] of lists.entries()) {
          if (job.cancelled) throw new Cancelled();
          const output = best?.text ?? '';
          const row = { output, measure: measure(output, words[i].prons), repeats: repeats(output), kind: null };
          // The decode's decoder passes (the step of its last snapshot): greedy and sampling
          // one per token written (END too), beam search one per step for as long as it went
          // on (it may after its best finished), Mask-Predict one per iteration (all lengths at once).
          row.passes = best?.steps ?? 0;
          if (row.measure && !row.measure.right) {
            // As under a lane's result: the output and each reference scored under the lane's options.
            const scored = await scoreWithReferences(api.score, texts[i], output, words[i].prons, options(texts[i]));
            row.kind = diagnose(scored.output, scored.refs);
          }
          rows.push(row);
          job.done = base + texts.length + i + 1;
          step('list.checking', i + 1);
        }
        const { wer, per, scored } = rates(rows.map((r) => r.measure));
        const mean = (f) => rows.reduce((a, r) => a + f(r), 0) / Math.max(1, rows.length);
        return {
          order, name, type: lane.type, rows, wer, per, scored, ms, workers,
          passes: mean((r) => r.passes),
          repeats: rows.reduce((a, r) => a + r.repeats, 0),
          search: rows.filter((r) => r.kind === 'search').length,
          model: rows.filter((r) => r.kind === 'model').length,
        };
      });
    } finally {
      job.api = null;
      decoder.terminate();
    }
  }

  /** Stops the run under way: the worker at its next slice or step, this loop at its next word. */
  async cancel() {
    const job = this.job;
    if (!job) return;
    job.cancelled = true;
    await Promise.all([job.api?.cancel().catch(() => {}), job.pool?.cancel().catch(() => {})]);
  }

  // ------------------------------------------------------------ results
  sortBy(table, key) {
    const cur = this.sort[table];
    this.sort[table] = { key, dir: cur?.key === key && cur.dir === 'ascending' ? 'descending' : 'ascending' };
    this.renderResults();
    this.el.querySelector(`button[data-table="${table}"][data-sort="${key}"]`)?.focus();
  }

  /** A header cell that sorts its table: a button, and aria-sort while it is the order. */
  sortHeader(table, key, label) {
    const s = this.sort[table];
    const on = s?.key === key;
    const arrow = on ? (s.dir === 'ascending' ? '▲' : '▼') : '↕';
    return `<th scope="col"${on ? ` aria-sort="${s.dir}"` : ''}><button type="button" class="wl-sort" data-table="${table}" data-sort="${key}">${esc(label)} <span aria-hidden="true">${arrow}</span></button></th>`;
  }

  sorted(table, rows, value) {
    const s = this.sort[table];
    if (!s) return rows;
    const sign = s.dir === 'ascending' ? 1 : -1;
    const cmp = (a, b) => {
      const x = value(a, s.key);
      const y = value(b, s.key);
      // Missing values (no reference: no WER) go last either way.
      if (x == null || y == null) return (x == null) - (y == null);
      return (typeof x === 'string' ? x.localeCompare(y) : x - y) * sign;
    };
    return [...rows].sort((a, b) => cmp(a, b) || a.index - b.index);
  }

  renderResults() {
    const box = $('wl-results');
    if (!box) return;
    const r = this.result;
    if (!r?.lanes.length) { box.innerHTML = ''; return; }
    const lanes = r.lanes;
    const cols = SUMMARY_COLUMNS;
    const f = (x, digits) => (x == null ? '–' : x.toFixed(digits));
    const rows = this.sorted('summary', lanes.map((l, index) => ({ ...l, index })), (row, key) => {
      const c = cols.find((x) => x.key === key);
      return c.num ? c.num(row) : c.sort(row);
    });
    const summary = `<table class="wl-summary" id="wl-summary"><caption class="visually-hidden">${esc(t('list.summaryCaption', { n: r.words.length }))}</caption>
      <thead><tr>${cols.map((c) => this.sortHeader('summary', c.key, t(c.label))).join('')}</tr></thead>
      <tbody>${rows.map((l) => `<tr data-lane="${esc(l.type)}" data-wer="${l.wer ?? ''}" data-per="${l.per ?? ''}" data-passes="${l.passes}" data-repeats="${l.repeats}" data-search="${l.search}" data-model="${l.model}">`
        + `<th scope="row">${esc(l.name)}</th>${cols.slice(1).map((c) => `<td class="num" data-k="${c.key}">${f(c.num(l), c.digits)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
    const notes = [...r.notes, ...(r.partial ? [t('list.partial')] : [])];
    const wordRows = this.sorted('words', r.words.map((w, index) => ({ ...w, index })), (w, key) => {
      if (key === 'word') return w.word;
      if (key === 'ref') return w.prons?.[0] ?? null;
      const row = lanes[Number(key)].rows[w.index];
      return row.measure ? `${row.measure.right ? 1 : 0} ${row.output}` : null;
    });
    const cell = (lane, i) => {
      const row = lane.rows[i];
      const m = row.measure;
      const mark = !m ? `<span class="muted">${esc(t('list.noRefShort'))}</span>`
        : m.right ? `<span class="right">${esc(t('list.right'))}</span>`
        : `<span class="wrong">${esc(t('list.wrong'))}</span>${row.kind === 'search' || row.kind === 'model'
          ? ` <span class="error-label error-${row.kind}">${esc(t(row.kind === 'search' ? 'forced.searchError' : 'forced.modelError'))}</span>` : ''}`;
      return `<td data-ok="${m ? m.right : ''}" data-kind="${row.kind ?? ''}"><span class="arpa-line">${esc(row.output || t('out.empty'))}</span> ${mark}</td>`;
    };
    const words = `<table class="wl-words" id="wl-words-table"><caption class="visually-hidden">${esc(t('list.wordsCaption'))}</caption>
      <thead><tr>${this.sortHeader('words', 'word', t('list.colWord'))}${this.sortHeader('words', 'ref', t('list.colRef'))}${lanes.map((l, k) => this.sortHeader('words', String(k), l.name)).join('')}</tr></thead>
      <tbody>${wordRows.map((w) => `<tr data-word="${esc(w.word)}"><th scope="row"><button type="button" class="wl-open" data-word="${esc(w.word)}" title="${esc(t('list.openTitle', { word: w.word }))}">${esc(w.word)}</button></th>`
        + `<td>${w.prons?.length ? w.prons.map((p) => `<span class="arpa-line">${esc(p)}</span>`).join(esc(t('ref.or'))) : `<span class="muted">${esc(t('list.noRef'))}</span>`}</td>`
        + `${lanes.map((l) => cell(l, w.index)).join('')}</tr>`).join('')}</tbody></table>`;
    // The captions name the tables for screen readers (and the scrolling regions); the headings, for the eye.
    box.innerHTML = `<h3>${esc(t('list.summaryHeading', { n: r.words.length }))}</h3>
      ${notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}
      ${scrollRegion(summary, t('list.summaryCaption', { n: r.words.length }))}
      ${errorKinds(lanes)}
      <p class="note">${esc(t('list.howMeasured'))}</p>
      <p class="note" id="wl-ms-note">${esc(msNote(lanes))}</p>
      <h3>${esc(t('list.wordsHeading'))}</h3>
      <p class="note">${esc(t('list.openHint'))}</p>
      ${scrollRegion(words, t('list.wordsCaption'))}`;
  }

  /** A word of the table, in the lanes view: decoded there, and in the address. */
  openWord(word) {
    this.app.showMode('lanes');
    this.app.setWord(word);
    $('word').focus();
  }

  relabel() {
    this.render();
  }
}

/** What the milliseconds column measured: one worker per lane, or a pool for the lanes that had one. */
function msNote(lanes) {
  const workers = Math.max(...lanes.map((l) => l.workers));
  return workers > 1 ? t('list.msPool', { min: POOL_MIN_WORDS, workers }) : t('list.msOne', { min: POOL_MIN_WORDS });
}

/** The sentence under the summary: how many wrong words of each lane were search errors, and whose fault most are. */
function errorKinds(lanes) {
  const judged = lanes.filter((l) => l.search + l.model > 0);
  if (!judged.length) return '';
  const search = judged.reduce((a, l) => a + l.search, 0);
  const model = judged.reduce((a, l) => a + l.model, 0);
  const each = judged.map((l) => t('list.errorsOf', { lane: l.name, search: l.search, wrong: l.search + l.model })).join(t('compare.listSep'));
  return `<p class="wl-kinds" data-search="${search}" data-model="${model}">${esc(t(search < model ? 'list.mostlyModel' : 'list.mostlySearch', { each }))}</p>`;
}

