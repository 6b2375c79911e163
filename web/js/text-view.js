// Text view: a sentence to phonemes with the models package's phonemizer
// (g2p/index.js, copied into the site by scripts/build-web.mjs): each word with
// where its phonemes came from (CMUdict, the model, a number read as words); a
// word the model decoded opens in the lanes, to watch how it was decoded.
//
// Loaded by app.js only when the view is opened, and the phonemizer (with its
// CMUdict, ~0.8 MB gzipped) only when a text is first phonemized: a first visit
// fetches neither. The model's words are decoded by the page's own decoder worker
// for g2p-transformer (engine.js), the one its lanes use.
//
// URL: ?…&view=text#text=Hello%2C+world! (the text in the fragment, as pasted words are).
import { openDecoder } from './engine.js';
import { errorText } from './error-text.js';
import { t } from './i18n.js';
import { esc, scrollRegion } from './views.js';

const $ = (id) => document.getElementById(id);
const MAX_CHARS = 2000;
const MODEL_ID = 'g2p-transformer';
// Where a token's phonemes came from, as the page names it.
const SOURCE_KEYS = { lexicon: 'text.srcLexicon', model: 'text.srcModel', number: 'text.srcNumber', punctuation: 'text.srcPunctuation', none: 'text.srcNone' };
export const DEFAULT_TEXT = 'Hello, world! It\'s 2026 and the colonel\'s Kubernetes cluster is down.';

export class TextView {
  constructor(app) {
    this.app = app;
    this.text = (new URLSearchParams(location.hash.replace(/^#/, '')).get('text') ?? DEFAULT_TEXT).slice(0, MAX_CHARS);
    this.result = null;
    this.error = '';
    this.busy = false;
    this.phonemizer = null;
    this.el = document.createElement('section');
    this.el.id = 'textview';
    this.el.className = 'textview';
    this.el.setAttribute('aria-labelledby', 'tv-title');
    this.el.hidden = true;
    $('wordlist').after(this.el);
    this.el.addEventListener('submit', (e) => { e.preventDefault(); this.run(); });
    this.el.addEventListener('input', (e) => {
      if (e.target.id !== 'tv-text') return;
      this.text = e.target.value;
      this.app.saveUrl();
    });
    this.el.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-word]');
      if (b) this.openWord(b.dataset.word);
    });
    this.render();
  }

  /** The view's part of the address: {query, hash} (view=text itself is the page's mode, app.js). */
  address() {
    const text = this.text.trim();
    return { query: '', hash: text ? `#${new URLSearchParams({ text })}` : '' };
  }

  /** Shown or hidden with the view; the first showing phonemizes the text. */
  show(on) {
    this.el.hidden = !on;
    if (on && !this.result && !this.busy && !this.error) this.run();
  }

  /** The phonemizer, made once: CMUdict, and the page's worker for the model. */
  async ready() {
    this.phonemizer ??= (async () => {
      const model = this.app.models.find((m) => m.id === MODEL_ID && !m.fixture);
      if (!model) throw new Error(t('text.noModel', { model: MODEL_ID }));
      const [{ createPhonemizer }, decoder] = await Promise.all([import('../g2p/index.js'), openDecoder(new URL(model.file, document.baseURI).href)]);
      // The worker's decodeBatch, taken in turn with the lanes that share the worker.
      const batch = { info: decoder.info, decodeBatch: (texts, options) => decoder.exclusive((api) => api.decodeBatch(texts, options)) };
      return createPhonemizer({ model: batch });
    })();
    this.phonemizer.catch(() => { this.phonemizer = null; });
    return this.phonemizer;
  }

  async run() {
    const text = this.text;
    this.busy = true;
    this.error = '';
    this.status = t(this.phonemizer ? 'text.working' : 'text.loading');
    this.render();
    try {
      const p = await this.ready();
      this.result = await p.phonemize(text);
    } catch (e) {
      this.result = null;
      this.error = errorText(e);
    }
    this.busy = false;
    this.status = '';
    this.render();
  }

  /** A model's word, into the lanes: they decode it step by step. */
  openWord(word) {
    this.app.showMode('lanes');
    this.app.setWord(word);
    $('word').focus();
  }

  relabel() {
    this.render();
  }

  render() {
    const focused = document.activeElement?.id;
    this.el.innerHTML = `
      <h2 id="tv-title">${esc(t('text.heading'))}</h2>
      <p class="lede">${esc(t('text.lede'))}</p>
      <form class="wl-form" autocomplete="off">
        <label for="tv-text">${esc(t('text.label'))}</label>
        <textarea id="tv-text" rows="3" maxlength="${MAX_CHARS}" spellcheck="false">${esc(this.text)}</textarea>
        <div class="wl-actions">
          <button type="submit" id="tv-run" class="primary"${this.busy ? ' disabled' : ''}>${esc(t('text.run'))}</button>
          <output id="tv-status" aria-live="polite">${esc(this.status ?? '')}</output>
        </div>
      </form>
      <div id="tv-message" class="message" role="alert"${this.error ? '' : ' hidden'}>${esc(this.error)}</div>
      <div id="tv-results">${this.result ? this.results(this.result) : ''}</div>`;
    if (focused) $(focused)?.focus();
  }

  results(r) {
    const words = r.tokens.filter((tok) => tok.source !== 'punctuation');
    const count = Object.fromEntries(Object.keys(SOURCE_KEYS).map((s) => [s, words.filter((tok) => tok.source === s).length]));
    const rows = words.map((tok) => {
      const word = tok.source === 'model'
        ? `<button type="button" class="wl-open" data-word="${esc(tok.text.toUpperCase())}" title="${esc(t('text.openTitle', { word: tok.text }))}">${esc(tok.text)}</button>`
        : esc(tok.text);
      const phones = tok.phonemes.length ? `<span class="arpa-line">${esc(tok.phonemes.join(' '))}</span>` : '';
      const notes = [
        tok.spoken ? esc(t('text.spoken', { words: tok.spoken })) : '',
        tok.source === 'model' && !tok.stressed ? esc(t('text.noStress')) : '',
        tok.alternatives.length ? esc(t('text.alternatives', { list: tok.alternatives.map((p) => p.join(' ')).join(' · ') })) : '',
        tok.error ? esc(errorText(tok.error)) : '',
      ].filter(Boolean).map((n) => `<span class="muted">${n}</span>`).join('<br>');
      return `<tr><th scope="row">${word}</th><td><span class="tv-src tv-${tok.source}">${esc(t(SOURCE_KEYS[tok.source]))}</span></td>`
        + `<td>${phones}${notes ? `<br>${notes}` : ''}</td><td lang="und-fonipa">${esc(tok.ipa)}</td></tr>`;
    }).join('');
    return `
      <p class="tv-summary">${esc(t('text.summary', { n: words.length, lexicon: count.lexicon, model: count.model, number: count.number }))}</p>
      <dl class="tv-whole">
        <dt>${esc(t('text.ipa'))}</dt><dd lang="und-fonipa">${esc(r.ipa)}</dd>
        <dt>${esc(t('text.arpabet'))}</dt><dd class="arpa-line">${esc(r.arpabet)}</dd>
      </dl>
      ${scrollRegion(`<table class="wl-words tv-words"><caption class="visually-hidden">${esc(t('text.caption'))}</caption>
        <thead><tr><th scope="col">${esc(t('text.colWord'))}</th><th scope="col">${esc(t('text.colSource'))}</th><th scope="col">${esc(t('text.colArpabet'))}</th><th scope="col">${esc(t('text.colIpa'))}</th></tr></thead>
        <tbody>${rows}</tbody></table>`, t('text.caption'))}
      <p class="note">${esc(t('text.legend'))}</p>`;
  }
}
