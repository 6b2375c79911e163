// The compare lane: the page's word decoded by the four RNN
// encoder-decoders, which differ only in their attention score, with their
// attention maps (letters × phonemes) side by side. Each decodes greedily, and
// the maps grow with the page's step like every lane. URL: lane=compare.
import { openIfChanged } from './engine.js';
import { Lane, friendlyError } from './lane.js';
import { SCORES, scoreWeights } from './scores.js';
import { ATTENTION_SCORES, compareModels, moduleOptions } from './state.js';
import { esc, explain, heatmap, phonemeLine, verdict } from './views.js';

export class CompareLane extends Lane {
  constructor(app, spec) {
    super(app, spec);
    this.panels = ATTENTION_SCORES.map((score) => ({ score, model: null, decoder: null, url: null, info: null, snaps: [null], times: [0], error: null }));
  }

  /** The RNN models compared, in the order of their scores (those this build has). */
  get models() { return compareModels(this.app.models).filter(Boolean); }
  get model() { return this.models[0] ?? null; }
  get lastIndex() { return Math.max(0, ...this.panels.map((p) => p.snaps.length - 1)); }

  stopDecoders() {
    for (const p of this.panels) p.decoder?.terminate();
  }

  // ------------------------------------------------------------ decoding
  async decode(word) {
    const gen = this.beginDecode();
    const found = compareModels(this.app.models);
    if (!found.some(Boolean)) this.error = 'This build of the page has no RNN models to compare (scripts/build-web.mjs takes them from models/, or the test fixtures).';
    // The four decode side by side, each in its model's worker.
    await Promise.all(this.panels.map((p, i) => this.decodePanel(p, found[i], word, gen)));
    if (gen !== this.gen) return;
    this.word = word;
    this.done = true;
    this.busy = false;
    this.app.laneDecoded(this);
  }

  async decodePanel(p, m, word, gen) {
    let got = { snaps: [null], times: [0] };
    let error = null;
    p.model = m;   // at once: the panels are drawn while they decode
    try {
      if (m) {
        if (await openIfChanged(p, new URL(m.file, document.baseURI).href)) {
          if (gen !== this.gen) return;
          p.info = p.decoder.info;
        }
        const problem = this.app.checkWord(word, m);
        if (problem) throw new Error(problem);
        got = await this.decodeAll(p.decoder, word, moduleOptions(this), gen);
        if (!got) return;
      }
    } catch (e) {
      error = friendlyError(e);
    }
    if (gen !== this.gen) return;
    p.snaps = got.snaps;
    p.times = got.times;
    p.error = error;
  }

  // ------------------------------------------------------------ drawing
  renderControls() {
    this.renderHead(this.kind.title);
    const fixtures = this.models.some((m) => m.fixture);
    this.el.querySelector('.lane-opts').innerHTML = `<p class="note">Each model decodes <strong>greedily</strong> (the most probable
      phoneme at every step), so the differences come from the models, not from the search.${fixtures ? ` <strong>Random weights:</strong>
      these are test fixtures standing in until the trained RNNs are built, so the maps show how each score spreads its attention, not what
      a trained model learns.` : ''}</p>`;
  }

  renderStats(t) {
    const el = this.el.querySelector('.lane-stats');
    const shown = this.panels.filter((p) => p.model);
    const passes = shown.map((p) => `${SCORES[p.score].name.toLowerCase()} <strong data-k="passes-${p.score}">${p.snaps[Math.min(t, p.snaps.length - 1)]?.step ?? 0}</strong>`).join(', ');
    const ms = shown.map((p) => p.times.reduce((a, b) => a + b, 0));
    const status = this.error ? 'error' : this.busy ? 'decoding…' : t >= this.lastIndex ? 'finished' : `step ${Math.min(t, this.lastIndex)} of ${this.lastIndex}`;
    el.innerHTML = `<span>decoder passes: ${passes || '–'}</span> · <span>wall time: <strong>${ms.length ? Math.max(...ms).toFixed(1) : '0.0'} ms</strong> (the slowest)</span> · <span class="status">${esc(status)}</span>`;
  }

  render(t) {
    this.renderStats(t);
    const body = this.el.querySelector('.lane-body');
    const result = this.el.querySelector('.lane-result');
    if (this.renderError(body, result)) return;
    const keepOpen = [...body.querySelectorAll('details')].map((d) => d.open);
    const refs = this.word === this.app.word ? this.app.reference : null;   // not while old snapshots are on screen
    body.innerHTML = explain('What differs between the four', `<p>The same word goes through four RNN encoder-decoders that are built alike
      (a bidirectional GRU reads the letters, a GRU writes the phonemes) and differ only in the <em>score</em>: how well the decoder's state
      <i>s</i> matches the encoder's state <i>h</i><sub><i>j</i></sub> of letter <i>j</i>. At every step a softmax over the letters turns the
      scores into the attention weights drawn below, one row per phoneme written. The dot product compares the two states as they are;
      multiplicative attention learns a matrix between them; reduced rank learns two thin projections into a small space and compares there;
      additive attention lets a small tanh network judge each pair. Each model was trained on its own, so a difference in the maps is the score
      and its training run together. A sharp map puts nearly all its weight on one letter per phoneme; a blurred one hedges.</p>`)
      + `<div class="score-grid">${this.panels.map((p) => this.panelView(p, t, refs)).join('')}</div>`;
    const ds = body.querySelectorAll('details');
    if (keepOpen.length === ds.length) ds.forEach((d, j) => { d.open = keepOpen[j]; });
    const judged = refs ? this.panels.filter((p) => p.model && !p.error && p.snaps.at(-1)?.done) : [];
    const right = judged.filter((p) => refs.prons.includes(p.snaps.at(-1).results[0]?.text ?? ''));
    result.innerHTML = judged.length && t >= this.lastIndex
      ? `<h3>Result</h3><p>${right.length} of ${judged.length} match the reference${right.length ? `: ${right.map((p) => esc(SCORES[p.score].name.toLowerCase())).join(', ')}` : ''}.</p>`
      : '';
  }

  panelView(p, t, refs) {
    const sc = SCORES[p.score];
    const id = `${this.id}-${p.score}`;
    let html = `<section class="score-panel" aria-labelledby="${id}" data-score="${p.score}">
      <h3 id="${id}">${esc(sc.name)}</h3>
      <p class="formula"><span class="visually-hidden">score: ${esc(sc.spoken)}</span><span aria-hidden="true">score(<i>s</i>, <i>h</i><sub><i>j</i></sub>) = ${sc.formula}</span></p>`;
    if (!p.model) {
      return `${html}<p class="note">No ${esc(sc.name.toLowerCase())} model in this build yet: <code>models/train/train_rnn.py --attention ${esc(p.score)}</code> trains it.</p></section>`;
    }
    const { parts, total } = scoreWeights(p.score, p.info);
    html += `<p class="note weights">${p.info ? (parts.length
      ? `${parts.map(([n, r, c]) => `${esc(n)} ${r}×${c}`).join(', ')}: ${total.toLocaleString('en')} weights of its own`
      : `no weights of its own (here <i>s</i> and <i>h</i> both have ${p.info.decHidden} numbers)`) : ''}</p>`;
    if (p.error) return `${html}<p class="lane-error" role="alert">${esc(p.error)}</p></section>`;
    const i = Math.min(t, p.snaps.length - 1);
    const hyps = p.snaps.slice(1, i + 1).map((s) => s.live[0] ?? s.finished[0]);
    const last = hyps.at(-1);
    const s = p.snaps[i];
    const text = s?.done ? s.results[0]?.text ?? '' : (last?.texts ?? []).filter((x) => x !== '</s>').join(' ');
    html += s?.done
      ? `<p class="cmp-out" data-result="${esc(text)}">${phonemeLine(text)} ${verdict(refs, text)}</p>`
      : `<p class="cmp-out pending">${s ? `so far: ${phonemeLine(text)}` : this.busy ? 'decoding…' : 'step 0: nothing written yet'}</p>`;
    const letters = [...this.app.normalizedWord(p.model, this.word ?? this.app.word)];
    const rows = hyps.map((h) => h.attention ?? new Float32Array(letters.length));
    html += heatmap({ rowLabels: hyps.map((h) => h.texts.at(-1)), colLabels: letters, rows,
      caption: `${sc.name} attention of each output phoneme over the input letters`, highlightLast: !s?.done });
    if (rows.length) {
      const peak = rows.reduce((a, r) => a + Math.max(...r), 0) / rows.length;
      html += `<p class="note">Average peak weight <strong>${peak.toFixed(2)}</strong>: the share of attention each step gives its favourite letter (1: all of it).</p>`;
    }
    html += explain(`The ${sc.name.toLowerCase()} score`, `<p>${sc.text}</p>`, false);
    html += `<p class="note">Model: ${esc(p.model.name)}${p.model.fixture ? ' (random weights)' : ''}</p>`;
    return `${html}</section>`;
  }
}
