// The compare lane: the page's word decoded by the four RNN
// encoder-decoders, which differ only in their attention score, with their
// attention maps (letters × phonemes) side by side. Each decodes greedily, and
// the maps grow with the page's step like every lane. URL: lane=compare.
import { openIfChanged } from './engine.js';
import { Lane } from './lane.js';
import { errorText } from './error-text.js';
import { SCORES, scoreWeights, scoreWords } from './scores.js';
import { ATTENTION_SCORES, compareModels, moduleOptions } from './lane-types.js';
import { esc, explain, phonemeLine, scrollRegion, verdict } from './views.js';
import { heatmap } from './heatmap.js';
import { strip } from './vector-strip.js';
import { fmt } from './format.js';
import { label } from './phonemes.js';
import { t } from './i18n.js';

export class CompareLane extends Lane {
  constructor(ctx, spec) {
    super(ctx, spec);
    this.panels = ATTENTION_SCORES.map((score) => ({ score, model: null, decoder: null, url: null, info: null, snaps: [null], times: [0], error: null }));
  }

  /** The RNN models compared, in the order of their scores (those this build has). */
  get models() { return compareModels(this.ctx.models).filter(Boolean); }
  get model() { return this.models[0] ?? null; }
  get lastIndex() { return Math.max(0, ...this.panels.map((p) => p.snaps.length - 1)); }

  stopDecoders() {
    for (const p of this.panels) p.decoder?.terminate();
  }

  // ------------------------------------------------------------ decoding
  async decode(word) {
    const gen = this.beginDecode();
    const found = compareModels(this.ctx.models);
    if (!found.some(Boolean)) this.error = t('compare.noModels');
    // The four decode side by side, each in its model's worker.
    await Promise.all(this.panels.map((p, i) => this.decodePanel(p, found[i], word, gen)));
    if (gen !== this.gen) return;
    this.word = word;
    this.done = true;
    this.busy = false;
    this.ctx.decoded(this);
  }

  async decodePanel(p, m, word, gen) {
    let got = { snaps: [null], times: [0] };
    let error = null;
    p.model = m;   // at once: the panels are drawn while they decode
    try {
      if (m) {
        if (await openIfChanged(p, new URL(m.file, document.baseURI).href, this)) {
          if (gen !== this.gen) return;
          p.info = p.decoder.info;
        }
        const problem = this.ctx.checkWord(word, m);
        if (problem) throw new Error(problem);
        got = await this.decodeAll(p.decoder, word, moduleOptions(this, word), gen);
        if (!got) return;
      }
    } catch (e) {
      error = errorText(e);
    }
    if (gen !== this.gen) return;
    p.snaps = got.snaps;
    p.times = got.times;
    p.error = error;
  }

  // ------------------------------------------------------------ drawing
  renderControls() {
    this.renderHead(t(this.kind.titleKey));
    const fixtures = this.models.some((m) => m.fixture);
    this.el.querySelector('.lane-opts').innerHTML = `<p class="note">${t('compare.greedy_html')}${fixtures ? ` ${t('compare.fixtures_html')}` : ''}</p>`;
  }

  renderStats(at) {
    const el = this.el.querySelector('.lane-stats');
    const shown = this.panels.filter((p) => p.model);
    const passes = shown.map((p) => `${esc(scoreWords(p.score).short)} <strong data-k="passes-${p.score}">${p.snaps[Math.min(at, p.snaps.length - 1)]?.step ?? 0}</strong>`).join(t('compare.listSep'));
    const ms = shown.map((p) => p.times.reduce((a, b) => a + b, 0));
    const status = this.error ? t('status.error') : this.busy ? t('status.decoding') : at >= this.lastIndex ? t('status.finished') : t('status.step', { i: Math.min(at, this.lastIndex), n: this.lastIndex });
    el.innerHTML = `<span>${esc(t('stats.passes'))} ${passes || '–'}</span> · <span>${esc(t('stats.wall'))} <strong>${esc(t('stats.ms', { ms: ms.length ? Math.max(...ms).toFixed(1) : '0.0' }))}</strong>${esc(t('compare.slowest'))}</span> · <span class="status">${esc(status)}</span>`;
  }

  render(at) {
    this.renderStats(at);
    const body = this.el.querySelector('.lane-body');
    const result = this.el.querySelector('.lane-result');
    if (this.renderError(body, result)) return;
    const keepOpen = [...body.querySelectorAll('details')].map((d) => d.open);
    const refs = this.word === this.ctx.word ? this.ctx.reference : null;   // not while old snapshots are on screen
    body.innerHTML = explain(t('compare.title'), t('compare.explain_html'))
      + `<div class="score-grid">${this.panels.map((p) => this.panelView(p, at, refs)).join('')}</div>`
      + (this.panels.some((p) => p.inside?.data) ? `<p class="note">${esc(t('compare.rawWhy'))}</p>` : '')
      + lengthTable(this.ctx.models)
      + this.viewsHtml('body', this.index(at));
    const ds = body.querySelectorAll('details');
    if (keepOpen.length === ds.length) ds.forEach((d, j) => { d.open = keepOpen[j]; });
    const judged = refs ? this.panels.filter((p) => p.model && !p.error && p.snaps.at(-1)?.done) : [];
    const right = judged.filter((p) => refs.prons.includes(p.snaps.at(-1).results[0]?.text ?? ''));
    result.innerHTML = judged.length && at >= this.lastIndex
      ? `<h3>${esc(t('result.title'))}</h3><p>${esc(t(right.length ? 'compare.matchWhich' : 'compare.match', { n: right.length, of: judged.length, which: right.map((p) => scoreWords(p.score).short).join(t('compare.listSep')) }))}</p>`
      : '';
  }

  /**
   * The step's raw scores e_j before the softmax, and the context a_t after it, from
   * the panel's model (Model.inspect): where the four scores differ before their
   * softmaxes make them look alike. Asked once per (word, step); redraws when in.
   */
  rawScores(p, i, hyp, letters) {
    const key = JSON.stringify([this.word, hyp.tokens, p.model.id]);
    if (p.inside?.key !== key) {
      p.inside = { key, data: null };
      const want = p.inside;
      p.decoder.exclusive(({ inspect }) => inspect(this.word, hyp.tokens.slice(0, -1)))
        .then((d) => { want.data = d; }, () => { want.data = false; })
        .finally(() => { if (p.inside === want && !this.busy) this.render(this.index(this.ctx.step)); });
    }
    const d = p.inside.data;
    if (!d) return d === false ? '' : `<p class="pending" data-loading>${esc(t('inside.pending'))}</p>`;
    const S = d.sourceLength, last = d.target.length - 1;
    const e = Array.from(d.scores.subarray(last * S, (last + 1) * S));
    const lo = Math.min(...e), hi = Math.max(...e);
    // Letter and score in pairs that wrap to the panel's width: a one-row table was cut
    // after four letters in a panel a quarter of the lane wide.
    const pairs = e.map((v, j) => `<div><dt>${esc(letters[j] ?? '')}</dt><dd data-e="${v}">${fmt(v, 2)}</dd></div>`).join('');
    return `<div class="raw-scores"><p class="raw-e-caption">${esc(t('compare.rawCaption', { step: i }))}</p>`
      + `<dl class="raw-e" data-lo="${lo}" data-hi="${hi}">${pairs}</dl>`
      + `<p class="note">${esc(t('compare.rawNote', { lo: fmt(lo, 2), hi: fmt(hi, 2), spread: fmt(hi - lo, 2) }))}</p>`
      + `${strip(d.context.subarray(last * d.encoderWidth, (last + 1) * d.encoderWidth), t('inside.rnnA', { t: last + 1 }))}</div>`;
  }

  panelView(p, at, refs) {
    const sc = SCORES[p.score];
    const words = scoreWords(p.score);
    const id = `${this.id}-${p.score}`;
    let html = `<section class="score-panel" aria-labelledby="${id}" data-score="${p.score}">
      <h3 id="${id}">${esc(words.name)}</h3>
      <p class="formula"><span class="visually-hidden">${esc(t('compare.spoken', { spoken: words.spoken }))}</span><span aria-hidden="true">${esc(t('compare.scoreLhs'))}(<i>s</i>, <i>h</i><sub><i>j</i></sub>) = ${sc.formula}</span></p>`;
    if (!p.model) {
      return `${html}<p class="note">${t('compare.noModel_html', { score: esc(words.short), arg: esc(p.score) })}</p></section>`;
    }
    const { parts, total } = scoreWeights(p.score, p.info);
    html += `<p class="note weights">${p.info ? (parts.length
      ? t('compare.weights_html', { parts: parts.map(([n, r, c]) => `${esc(n)} ${r}×${c}`).join(t('compare.listSep')), total: total.toLocaleString('en') })
      : t('compare.noWeights_html', { n: p.info.decHidden })) : ''}</p>`;
    if (p.error) return `${html}<p class="lane-error" role="alert">${esc(p.error)}</p></section>`;
    const i = Math.min(at, p.snaps.length - 1);
    const hyps = p.snaps.slice(1, i + 1).map((s) => s.live[0] ?? s.finished[0]);
    const last = hyps.at(-1);
    const s = p.snaps[i];
    const text = s?.done ? s.results[0]?.text ?? '' : (last?.texts ?? []).filter((x) => x !== '</s>').join(' ');
    html += s?.done
      ? `<p class="cmp-out" data-result="${esc(text)}">${phonemeLine(text)} ${verdict(refs, text)}</p>`
      : `<p class="cmp-out pending">${s ? `${esc(t('compare.soFar'))} ${phonemeLine(text)}` : esc(t(this.busy ? 'status.decoding' : 'compare.step0'))}</p>`;
    const letters = [...this.ctx.normalizedWord(p.model, this.word ?? this.ctx.word)];
    const rows = hyps.map((h) => h.attention ?? new Float32Array(letters.length));
    html += heatmap({ matrix: rows, rowLabels: hyps.map((h) => label(h.texts.at(-1))), colLabels: letters,
      caption: t('compare.caption', { score: words.name }), highlightRow: s?.done ? -1 : rows.length - 1, empty: t('heatmap.empty') });
    if (rows.length) {
      const peak = rows.reduce((a, r) => a + Math.max(...r), 0) / rows.length;
      html += `<p class="note">${t('compare.peak_html', { peak: peak.toFixed(2) })}</p>`;
    }
    if (last) html += this.rawScores(p, i, last, letters);
    html += explain(t('compare.scoreTitle', { score: words.short }), `<p>${words.text}</p>`, false);
    html += `<p class="note">${esc(t('compare.model', { name: p.model.name }))}${p.model.fixture ? esc(t('model.randomSuffix')) : ''}</p>`;
    return `${html}</section>`;
  }
}

/**
 * The RNNs' test WER by word length (models.json, from models/manifest.json), the
 * attention-free one among them: one fixed context vector falls behind as words grow.
 */
function lengthTable(models) {
  const rnns = models.filter((m) => m.arch === 'rnn' && m.testWerByLength);
  if (!rnns.length) return '';
  const buckets = rnns[0].testWerByLength;
  const name = (m) => (m.attentionScore === 'none' ? t('compare.noAttention') : scoreWords(m.attentionScore).short);
  // "letters" and "words" said once, over the buckets: repeated in every column they made
  // the table too wide for a phone, and the 12+ column the tour cites fell out of view.
  const head = buckets.map((b) => `<th scope="col">${esc(b.letters)}<br><span class="muted">${b.words}</span></th>`).join('');
  const rows = rnns.map((m) => `<tr data-model="${esc(m.id)}"${m.attentionScore === 'none' ? ' class="bottleneck"' : ''}><th scope="row">${esc(name(m))}</th>`
    + `${m.testWerByLength.map((b) => `<td class="num">${b.wer.toFixed(1)}</td>`).join('')}<td class="num"><strong>${m.testWer.toFixed(1)}</strong></td></tr>`).join('');
  return `<div class="view"><h3>${esc(t('compare.byLengthTitle'))}</h3>`
    + scrollRegion(`<table class="by-length"><caption>${esc(t('compare.byLengthCaption'))}</caption><thead><tr><th scope="col" rowspan="2">${esc(t('compare.colModel'))}</th><th scope="colgroup" colspan="${buckets.length}">${esc(t('compare.lettersHead'))}</th><th scope="col" rowspan="2">${esc(t('compare.all'))}</th></tr><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`)
    + `<p class="note by-length-note">${esc(t(rnns.some((m) => m.attentionScore === 'none') ? 'compare.bottleneck' : 'compare.byLengthNote'))}</p></div>`;
}

