// The guided tour: eighteen stops through the page, in the order of the course notes
// (/work/shared/notes: 000 greedy decoding, beam search, length normalisation, the
// attention scores, then the Transformer's block: positional encoding, queries, keys
// and values, scaled dot product, multi-head attention, residual connections,
// LayerNorm, the FFN; 003 the context-vector bottleneck; 004 the autoregressive and
// the non-autoregressive decoder, teacher forcing and exposure bias, and greedy's A and
// B). Each stop is a state of the page, written as its address (address.js; the
// inside of a step as inside-address.js writes it), the element it talks about, and
// its words (the "guided tour" keys of web/i18n/*.js). The address holds tour=N while
// the tour is open, so a reload or a copied link comes back to the same stop.
//
// The words were picked by decoding the CMUdict test split (models/data/cmudict-0.7b.test,
// 11994 words) with the shipped models through the native CLI, not guessed, and each
// stop's claim holds alike under the shipped 4-bit g2p-transformer and the int8 file it
// was re-stored from (scripts/find-tour-words.mjs lists the candidates):
// - MIRAGE: `--greedy` gives M IH R AA ZH, `--beam 5` the reference M ER AA ZH (already
//   `--beam 2` does). Greedy's mistake is a search error: the reference has the higher
//   log P (forced.js). At its second pass IH narrowly beats ER, and after ER the model is
//   surer of the rest: the notes' A and B, and the teacher-forcing stop's word.
// - IRONICALLY: beam 5 without normalisation picks AY ER N IH K L IY, one phoneme short;
//   with average normalisation the reference AY R AA N IH K L IY wins.
// - DELETE, for the RNNs (unchanged models) and the inside of one pass: greedy takes EH at
//   its second pass in both storages; the inside stops open that pass.
// - HOURGLASS (g2p-cmlm): the one pass writes AW R G G L AE S (7 positions for the
//   reference's 6, G twice), Mask-Predict AW ER G L AE S.
// No stop's text holds a number of its own: each number is a placeholder its `says`
// fills from the lanes' own decodes, scores and insides at run time (a changed model
// changes the numbers, never contradicts them). tests/browser/tour.test.mjs checks the
// filled text against the npm module's numbers for the same word and settings, and
// tests/node/tour-text.test.mjs that no tour string holds a digit of its own.
//
// Then the notes' training chapter (004, "Training tips" to "Guided Attention"), each
// stop a run it starts in the Train mode (view=train, train-view.js), in the order the
// notes take it: cross-entropy against the one-hot answer with the reference fed
// (teacher forcing), exposure bias, scheduled sampling, the copy mechanism, guided
// attention. A model trained in front of the learner has no word picked in advance:
// these stops quote no number of their own. Their text says what to look at; the
// panel's measured line gives the run's numbers once it ends, read from its records
// and probes (the one-run stop) or the lesson's own sentences, which measureLesson
// (train-lessons.js) writes from the two runs and chooses by their numbers. The runs
// are the lessons' presets, short enough to end while the learner reads (the
// cross-entropy stop: the reverse task's default model, 300 steps).
// tests/browser/tour-train.test.mjs holds each measured line to the run's records.
import { decodeState } from './address.js';
import { t } from './i18n.js';
import { fmt, pctDigits } from './format.js';

/**
 * The stops. query: the page's state; targets: what the stop talks about, under
 * #lanes, each small enough that all of them fit between the step bar and the panel
 * together; narrow: the targets where the lanes are tabs (a phone), all in the one
 * lane the tour opens there, when they differ (another lane's, or a smaller part of a
 * view that is taller in one column); title and text: i18n keys; measured: the panel
 * also lists each lane's decoder passes and wall time, as measured (on a phone the
 * lanes' own lines are screens apart).
 * A stop of the Train mode (its query view=train): targets under #trainview; lesson: the
 * lesson it opens (train-lessons.js LESSONS; without one, the query's configuration runs
 * in the mode's own panel); said: which of the lesson's sentences its measured line
 * repeats, or for the one run, a function of the run giving {key, params}.
 */
const MAIN = '.tr-main > .tr-panel';
const RUN = (k) => `.tr-lesson-panels > .tr-panel:nth-child(${k})`;

export const STOPS = [
  { query: '?w=MIRAGE&lane=greedy&lane=beam', targets: ['.lane:nth-child(1) .result-main', '.lane:nth-child(1) .forced'],
    title: 'tour.greedy.title', text: 'tour.greedy.text', says: (c) => searchError(c) },
  // Step 2, the notes' A and B: greedy has just taken IH over ER; beam search holds both.
  // On a phone the beam's tree: greedy's bars are the lane the page opens on.
  { query: '?w=MIRAGE&lane=greedy&lane=beam&t=2', targets: ['.lane:nth-child(1) .bars', '.lane:nth-child(2) .tree-wrap'],
    narrow: ['.lane:nth-child(2) .tree-wrap'], title: 'tour.beam.title', text: 'tour.beam.text', says: (c) => searchError(c) },
  { query: '?w=IRONICALLY&lane=beam:lengthNorm=none&lane=beam', targets: ['.lane:nth-child(1) .result-main', '.lane:nth-child(2) .result-main'],
    narrow: ['.lane:nth-child(1) .result-main'], title: 'tour.norm.title', text: 'tour.norm.text', says: normSays },
  { query: '?w=DELETE&lane=compare&t=2', targets: ['.lane-compare .view:has(table.by-length)'],
    narrow: ['.lane-compare .table-scroll:has(> table.by-length)'], title: 'tour.bottleneck.title', text: 'tour.bottleneck.text', says: bottleneckSays },
  // In one column the four panels are screens long: the first one's raw scores stand for them.
  { query: '?w=DELETE&lane=compare&t=2', targets: ['.lane-compare .score-grid'],
    narrow: ['.lane-compare .score-panel:nth-child(1) .raw-scores'], title: 'tour.scores.title', text: 'tour.scores.text', says: scoresSays },
  // Inside the pass that chose EH at DELETE's step 2 (inside.js): the stops open the block
  // they talk about through the lane's inside= (inside-address.js).
  { query: '?w=DELETE&lane=greedy:inside=enc-embed-L3-h1-q4&t=2', targets: ['.lane .inside [data-stage="embed"]'],
    narrow: ['.lane .inside [data-stage="embed"] .pe-pics'], title: 'tour.pe.title', text: 'tour.pe.text', says: insideSays },
  { query: '?w=DELETE&lane=greedy:inside=dec-cross-L3-h3-q2&t=2', targets: ['.lane .inside [data-stage="scores"]'],
    title: 'tour.qkv.title', text: 'tour.qkv.text', says: insideSays },
  { query: '?w=DELETE&lane=greedy:inside=dec-cross-L3-h3-q2&t=2', targets: ['.lane .inside [data-stage="values"]'],
    narrow: ['.lane .inside [data-stage="values"] .in-terms'], title: 'tour.heads.title', text: 'tour.heads.text', says: insideSays },
  { query: '?w=DELETE&lane=greedy:inside=dec-ffn-L3-h1-q2&t=2', targets: ['.lane .inside [data-stage="norm"]', '.lane .inside [data-stage="ffn"]'],
    narrow: ['.lane .inside [data-stage="norm"]'], title: 'tour.addNorm.title', text: 'tour.addNorm.text', says: insideSays },
  { query: '?w=HOURGLASS&lane=greedy&lane=nar', targets: ['.lane:nth-child(1) .lane-stats', '.lane:nth-child(2) .lane-stats'],
    narrow: ['.lane:nth-child(2) .lane-stats'], title: 'tour.arNar.title', text: 'tour.arNar.text', measured: true, says: arNarSays },
  { query: '?w=HOURGLASS&lane=nar', targets: ['.lane-nar .lenbars', '.lane-nar .table-scroll:has(> .nar-grid)'],
    title: 'tour.repeats.title', text: 'tour.repeats.text', says: narSays },
  { query: '?w=HOURGLASS&lane=nar&lane=mp', targets: ['.lane-mp .draft-tabs', '.lane-mp .view:has(.nar-grid)'],
    title: 'tour.maskPredict.title', text: 'tour.maskPredict.text', says: narSays },
  // Teacher forcing is the reference fed at every position (forced.js forcingView, from
  // model.score); the what-if bars, which force one token by hand, are a tool beside it.
  { query: '?w=MIRAGE&lane=greedy', targets: ['.lane:nth-child(1) .forcing'],
    narrow: ['.lane:nth-child(1) .forcing .table-scroll'], title: 'tour.forcing.title', text: 'tour.forcing.text', says: (c) => searchError(c) },
  // The training chapter. The loss is the mean of the probe's bars over a batch: -log p of
  // each reference token, the cross-entropy against its one-hot vector, the reference fed.
  { query: '?view=train&steps=300&evalEvery=100&evalSize=50', targets: [`${MAIN} .tr-loss-view`, `${MAIN} .tr-probe-view`],
    narrow: [`${MAIN} .tr-probe-view`], title: 'tour.xent.title', text: 'tour.xent.text', said: crossEntropySaid },
  // Run A's first mistakes and what follows them (the gap between the curves is drawn).
  { query: '?view=train&lesson=forcing', lesson: 'forcing', targets: [`${RUN(1)} .tr-acc-view`, `${RUN(2)} .tr-acc-view`],
    narrow: [`${RUN(1)} .tr-acc-view`], title: 'tour.exposure.title', text: 'tour.exposure.text', said: [0] },
  // The gap at the end and the price in steps per second (the Transformer's two passes).
  { query: '?view=train&lesson=scheduledSampling', lesson: 'scheduledSampling', targets: [`${RUN(1)} .tr-acc-view`, `${RUN(2)} .tr-acc-view`],
    narrow: [`${RUN(2)} .tr-acc-view`], title: 'tour.ss.title', text: 'tour.ss.text', said: [0, 1] },
  // Run B's p_gen on the probe, and where its copied probability came from.
  { query: '?view=train&lesson=copy', lesson: 'copy', targets: [`${RUN(2)} .tr-copy-view`, `${RUN(2)} .tr-copied-view`],
    narrow: [`${RUN(2)} .tr-copy-view`], title: 'tour.copy.title', text: 'tour.copy.text', said: [0, 1] },
  { query: '?view=train&lesson=guided', lesson: 'guided', targets: [`${RUN(1)} .tr-attn-view`, `${RUN(2)} .tr-attn-view`],
    narrow: [`${RUN(2)} .tr-attn-view`], title: 'tour.guided.title', text: 'tour.guided.text', said: [0, 1] },
];

/** Whether a stop is one of the Train mode's. */
export const isTrainStop = (s) => decodeState(s.query).mode === 'train';

// The course notes' beam-search example (004, Beam Search): A at 0.6 beats B at 0.4 now,
// but B is followed by 0.9 and 0.9. Quoted from the notes, not from a model.
const NOTES = { a: 0.6, b: 0.4, later: 0.9 };

/** A lane's best result's tokens when its decode is done, else null. */
const resultOf = (lane) => lane?.snaps?.at(-1)?.results?.[0]?.text?.split(' ').filter(Boolean) ?? null;

/** log P(text | word) and its tokens', under the lane's model and the options it decoded with (model.score). */
const scoreOn = (lane, word, text) => lane.slot.decoder.exclusive(({ score }) => score(word, text, lane.decodedOptions));

/** The inside of one decoder pass of the lane's model (model.inspect). */
const inspectOn = (lane, word, tokens) => lane.slot.decoder.exclusive(({ inspect }) => inspect(word, tokens));

const pct = (lp) => pctDigits(Math.exp(lp));

/**
 * The search-error stops' numbers (greedy in the first lane; beam search in the second
 * where there is one, else the reference the forcing table weighs): the pass where the
 * two part, the two tokens and their probabilities there, the least likely later
 * phoneme of each path, and the two paths' probabilities, scored under greedy's model
 * and options.
 */
async function searchError({ app, word }) {
  const [greedy, beam] = app.lanes;
  const out = resultOf(greedy);
  if (!out) return null;
  const scored = [];
  const other = resultOf(beam);
  if (other) scored.push(other.join(' '));
  else scored.push(...(app.reference?.prons ?? []));
  if (!scored.length) return null;
  const outScore = await scoreOn(greedy, word, out.join(' '));
  const refs = await Promise.all(scored.map((y) => scoreOn(greedy, word, y)));
  const ref = refs.reduce((a, b) => (b.logprob > a.logprob ? b : a));
  const refTokens = scored[refs.indexOf(ref)].split(' ');
  let k = 0;
  while (k < out.length && out[k] === refTokens[k]) k++;
  // The least likely phoneme after the parting (EOS aside), on each path.
  const least = (tokens, lps) => {
    let j = k + 1;
    for (let i = k + 1; i < tokens.length; i++) if (lps[i] < lps[j]) j = i;
    return { token: tokens[j], p: pct(lps[j]) };
  };
  const a = least(out, outScore.tokenLogprobs);
  const b = least(refTokens, ref.tokenLogprobs);
  return {
    word, greedy: out.join(' '), beam: refTokens.join(' '), k: beam?.decodedOptions?.beamSize ?? '',
    step: k + 1, a: out[k], b: refTokens[k], pa: pct(outScore.tokenLogprobs[k]), pb: pct(ref.tokenLogprobs[k]),
    prefixB: refTokens.slice(0, k + 1).join(' '), tokA: a.token, minA: a.p, tokB: b.token, minB: b.p,
    pGreedy: fmt(Math.exp(outScore.logprob), 3), pBeam: fmt(Math.exp(ref.logprob), 3),
    notesA: NOTES.a, notesB: NOTES.b, notesLater: NOTES.later,
  };
}

/** The two normalisations' winners and their lengths. */
async function normSays({ app }) {
  const [none, average] = app.lanes.map(resultOf);
  if (!none || !average) return null;
  return { none: none.join(' '), noneLen: none.length, average: average.join(' '), averageLen: average.length };
}

/** The ends of the RNNs' test WER by word length (models.json, as the lane's table shows it). */
function bottleneckSays({ app }) {
  const rnns = app.models.filter((m) => m.arch === 'rnn' && m.testWerByLength);
  const none = rnns.find((m) => m.attentionScore === 'none');
  const att = rnns.filter((m) => m !== none);
  if (!none || !att.length) return null;
  const last = none.testWerByLength.length - 1;
  const range = (k) => {
    const v = att.map((m) => m.testWerByLength[k].wer);
    return `${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)}`;
  };
  return { short: none.testWerByLength[0].letters, long: none.testWerByLength[last].letters,
    noneShort: none.testWerByLength[0].wer.toFixed(1), attShort: range(0),
    noneLong: none.testWerByLength[last].wer.toFixed(1), attLong: range(last) };
}

/** The spread of each panel's raw scores at the step shown, and how many panels read the word right. */
function scoresSays({ app }) {
  const lane = app.lanes[0];
  const spreads = lane.panels.map((p) => {
    const d = p.inside?.data;
    if (!d) return null;
    const S = d.sourceLength, last = d.target.length - 1;
    const e = Array.from(d.scores.subarray(last * S, (last + 1) * S));
    return fmt(Math.max(...e) - Math.min(...e), 1);
  });
  if (spreads.some((x) => x == null)) return null;
  const outs = lane.panels.map((p) => p.snaps.at(-1)?.results?.[0]?.text ?? '');
  const prons = app.reference?.prons ?? [];
  const wrong = outs.filter((o) => !prons.includes(o));
  return { step: app.t, dot: spreads[0], multiplicative: spreads[1], reducedRank: spreads[2], additive: spreads[3],
    right: outs.length - wrong.length, wrong: wrong.length, wrongOut: [...new Set(wrong)].join(' / ') };
}

/**
 * The inside stops' numbers: the pass the lane's address opens (its step, the tokens
 * before it), read from the model's own inside of that pass: its sizes, the cross-attention
 * of the address's layer and head at its query, every head's peak there, and the
 * feed-forward block's LayerNorm and ReLU at that query.
 */
async function insideSays({ app, word, stop }) {
  const lane = app.lanes[0];
  const spec = decodeState(stop.query).lanes[0].view.inside;
  const snap = lane.snaps?.[app.t];
  const tokens = snap?.live?.[0]?.texts;
  if (!tokens) return null;
  // The inside view's own pieces (loaded with it; the tour's first stops do without).
  const [d, { row, softmax }] = await Promise.all([inspectOn(lane, word, tokens.slice(0, -1)), import('./inside-parts.js')]);
  const L = d.decoder.layers.length;
  const layer = d.decoder.layers[spec.layer >= 0 ? Math.min(spec.layer, L - 1) : L - 1];
  const a = layer.crossAttention.attention;
  const nq = a.queries, nk = a.keys, q = spec.pos, h = spec.head;
  const headRow = (flat, hh) => Array.from(row(flat, hh * nq + q, nk));
  const raw = headRow(a.scores, h);
  const w = headRow(a.weights, h);
  const top2 = w.map((v, j) => j).sort((x, y) => w[y] - w[x]);
  const peak = (hh) => fmt(Math.max(...headRow(a.weights, hh)), 3);
  const f = layer.ffn;
  const W = d.dModel;
  const input = Array.from(row(f.norm.input, q, W));
  const hidden = Array.from(row(f.ffnHidden, q, d.ffnDim));
  return {
    chosen: tokens.at(-1), dModel: W, heads: d.heads, headDim: d.headDim, head: h + 1,
    lo: fmt(Math.min(...raw), 3), hi: fmt(Math.max(...raw), 3), scale: fmt(a.scale, 3),
    k1: word[top2[0]] ?? '', k2: word[top2[1]] ?? '', w1: fmt(w[top2[0]], 3), w2: fmt(w[top2[1]], 3), unscaled1: fmt(softmax(raw)[top2[0]], 3),
    peak1: peak(0), peak2: peak(1), peak4: peak(3),
    mean: fmt(f.norm.mean[q], 3), std: fmt(f.norm.std[q], 3), min: fmt(Math.min(...input), 3), max: fmt(Math.max(...input), 3),
    ffnDim: d.ffnDim, zeros: hidden.filter((v) => v === 0).length,
  };
}

/** The autoregressive lane's passes and phonemes. */
function arNarSays({ app }) {
  const out = resultOf(app.lanes[0]);
  const s = app.lanes[0].snaps?.at(-1);
  if (!out || !s) return null;
  return { passes: s.step, phonemes: out.length };
}

/**
 * The one-pass lane's length and output against the reference's length, and Mask-Predict's
 * drafts: the one of the one pass's length, and the best.
 */
function narSays({ app }) {
  const [nar, mp] = app.lanes;
  const s = nar.snaps?.at(-1);
  const out = resultOf(nar);
  const prons = app.reference?.prons ?? [];
  if (!s?.drafts || !out || !prons.length) return null;
  const len = s.drafts[s.bestDraft].length;
  const said = { onePass: out.join(' '), len, refLen: prons[0].split(' ').length };
  const m = mp?.snaps?.at(-1);
  if (mp && m?.drafts) {
    const same = m.drafts.find((x) => x.length === len);
    Object.assign(said, { candidates: m.drafts.length, best: m.drafts[m.bestDraft].length, mp: resultOf(mp)?.join(' ') ?? '',
      sameLen: (same?.texts ?? []).filter((x) => x !== '</s>').join(' ') });
  }
  return said;
}

/**
 * The one-run stop's numbers, from its records and its last probe: the loss at the first
 * record and the last, and the probe's -log p per position (its sum, its largest).
 */
export function crossEntropySaid({ records, probes, config }) {
  const p = probes.at(-1);
  const nll = [...p.tokenNll];
  const worst = nll.indexOf(Math.max(...nll));
  return { key: 'tour.xent.measured', params: {
    steps: config.steps, firstStep: records[0].step, first: fmt(records[0].loss, 3), last: fmt(records.at(-1).loss, 3),
    source: p.source, reference: p.reference, positions: nll.length, sum: fmt(nll.reduce((a, b) => a + b, 0), 3),
    worst: p.targetTokens[worst], worstNll: fmt(nll[worst], 3),
  } };
}

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Tour {
  /**
   * Wires the "Take the tour" button; `stop` (from the address) opens that stop with
   * its whole state (its word, lanes and step), whatever else the address held: a
   * stop's words are true of its own page only.
   */
  constructor(app, stop = null) {
    this.app = app;
    this.stop = null;
    this.gen = 0;
    this.panel = this.build();
    $('tour-start').addEventListener('click', () => this.open(1));
    // Escape only: the arrows and space already step and play the decode (app.js).
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.stop != null && !e.altKey && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        this.close();
      }
    });
    // The lanes redraw their insides at every step and decode, a run's panels at its
    // records: the outline goes back on whatever now stands for the target, and the
    // measured figures follow the step or the run.
    this.observer = new MutationObserver(() => {
      this.mark();
      if (this.panel.dataset.shown) this.measure();
    });
    this.observer.observe($('lanes'), { childList: true, subtree: true });
    this.watching = null;
    // The Train mode's stops name other elements in one column (a phone, a phone turned):
    // the lanes redraw at such a change, a finished run does not.
    this.narrow = this.app.tabs.narrow;
    addEventListener('resize', () => {
      if (this.app.tabs.narrow === this.narrow) return;
      this.narrow = this.app.tabs.narrow;
      if (!this.panel.dataset.shown) return;
      this.mark();
      this.place();
    });
    // The page can scroll its end above the panel (style.css pads the body by --tour-h).
    new ResizeObserver(() => {
      document.documentElement.style.setProperty('--tour-h', `${Math.ceil(this.panel.getBoundingClientRect().height)}px`);
      if (!this.panel.hidden) this.fitMore();
      // A taller panel (More unfolded, a language's longer words) keeps the stop's elements clear of it.
      if (this.panel.dataset.shown) this.place();
    }).observe(this.panel);
    if (stop != null && stop >= 1 && stop <= STOPS.length) {
      this.stop = stop;
      this.loading = this.load(STOPS[stop - 1], stop);
      this.show(stop, { focus: false });
    }
  }

  build() {
    const el = document.createElement('section');
    el.id = 'tour';
    el.className = 'tour';
    el.hidden = true;
    el.setAttribute('role', 'dialog');
    el.setAttribute('aria-modal', 'false');
    el.setAttribute('aria-labelledby', 'tour-title');
    el.setAttribute('aria-describedby', 'tour-text');
    // On a phone the stop's text is folded to its first lines (style.css), so that the
    // panel leaves most of the screen to the lanes; "More" unfolds the rest.
    el.innerHTML = `<button type="button" id="tour-close" class="tour-close">✕</button>
      <div aria-live="polite"><div class="tour-head"><p id="tour-count" class="tour-count"></p><h2 id="tour-title"></h2></div>
      <div id="tour-body" class="tour-body"><p id="tour-text"></p><p id="tour-measured" class="tour-measured" hidden></p></div></div>
      <div class="tour-nav"><button type="button" id="tour-back"></button><button type="button" id="tour-next"></button>
      <button type="button" id="tour-more" class="tour-more" aria-controls="tour-body" aria-expanded="false" hidden></button></div>
      <p id="tour-keys" class="tour-keys"></p>`;
    document.body.appendChild(el);
    el.querySelector('#tour-close').addEventListener('click', () => this.close());
    el.querySelector('#tour-back').addEventListener('click', () => this.open(this.stop - 1));
    el.querySelector('#tour-next').addEventListener('click', () => (this.stop >= STOPS.length ? this.close() : this.open(this.stop + 1)));
    el.querySelector('#tour-more').addEventListener('click', () => this.unfold(!this.unfolded));
    this.unfolded = false;
    return el;
  }

  /** Unfolds (or folds) the stop's text where it is folded; the choice holds from stop to stop. */
  unfold(on) {
    this.unfolded = on;
    this.panel.classList.toggle('unfolded', on);
    this.fitMore();
  }

  /** "More" is offered where the text is cut short, and "Less" once it is unfolded. */
  fitMore() {
    const more = $('tour-more');
    const body = $('tour-body');
    const cut = body.scrollHeight > body.clientHeight + 1;
    more.hidden = !(cut || this.unfolded) || getComputedStyle(body).getPropertyValue('--foldable').trim() !== '1';
    more.textContent = t(this.unfolded ? 'tour.less' : 'tour.more');
    more.setAttribute('aria-expanded', String(this.unfolded));
  }

  /** Puts the page in stop n's state and shows its panel. */
  open(n) {
    if (n < 1 || n > STOPS.length) return;
    this.stop = n;
    this.loading = this.load(STOPS[n - 1], n);
    this.show(n);
  }

  /** A stop's state applied to the page: the lanes' (as main() in app.js starts them from an address), or the Train mode's. */
  async load(stop, n) {
    if (isTrainStop(stop)) return this.loadTrain(stop, n);
    const st = decodeState(stop.query);
    const app = this.app;
    const types = st.lanes.map((s) => s.type);
    if (!app.laneTypesLoaded(types)) {   // a stop's non-autoregressive or comparison lane, its module the first time
      try {
        await app.loadLaneTypes(types);
      } catch (e) {
        app.message(t('lane.cannotLoad', { error: e.message }));
        return;
      }
      if (this.stop !== n) return;   // the learner has gone on meanwhile
    }
    app.showMode('lanes');   // a stop is a moment of the lanes, never the word list
    app.stop();
    const old = app.lanes.splice(0);
    for (const lane of old) lane.el.remove();
    for (const spec of st.lanes) app.addLane(spec, { decode: false });
    app.renderControls();
    app.follow = st.step == null;
    app.t = st.step ?? 0;
    app.renderExamples();
    app.setWord(st.word, { keepStep: true });
    // Only now: the new lanes have taken their models' workers (engine.js), so a model
    // the two stops share keeps its worker, warm, rather than starting a new one.
    for (const lane of old) lane.destroy();
  }

  /** The Train mode with the stop's lesson, or its configuration in the mode's own panel: started, or kept where it is here already. */
  async loadTrain(stop, n) {
    const app = this.app;
    await app.showMode('train');
    await app.trainView.ready;
    if (this.stop !== n) return;   // the learner has gone on meanwhile
    const view = app.trainView;
    if (this.watching !== view.el) {
      this.watching = view.el;
      this.observer.observe(view.el, { childList: true, subtree: true });
    }
    if (stop.lesson) view.openLesson(stop.lesson);
    else view.openRun(stop.query);
  }

  /** The current stop's runs: {panels, lesson} (the lesson's two, or the mode's own one), or null. */
  runs() {
    const s = STOPS[this.stop - 1];
    const view = this.app.trainView;
    if (!s || !isTrainStop(s) || !view) return null;
    if (!s.lesson) return { panels: [view.panel], lesson: null };
    return view.lessonId === s.lesson && view.lessonPanels.length ? { panels: view.lessonPanels, lesson: view.lessons } : null;
  }

  /** Stop n's panel over the page as it is; then, once the lanes have decoded, its element outlined and in view. */
  show(n, { focus = true } = {}) {
    this.stop = n;
    this.panel.hidden = false;
    this.panel.classList.toggle('tour-train', isTrainStop(STOPS[n - 1]));
    delete this.panel.dataset.shown;
    $('tour-measured').hidden = true;
    document.body.classList.add('touring');
    this.relabel();
    if (focus) {
      const next = $('tour-next');
      (document.activeElement?.id === 'tour-back' && n > 1 ? $('tour-back') : next).focus();
    }
    this.app.saveUrl();
    this.reveal(n);
  }

  relabel() {
    if (this.stop == null) return;
    const s = STOPS[this.stop - 1];
    $('tour-count').textContent = t('tour.count', { n: this.stop, of: STOPS.length });
    $('tour-title').textContent = t(s.title);
    // Its numbers once the stop's lanes have given them (says), an ellipsis until then.
    $('tour-text').textContent = t(s.text, this.params?.stop === this.stop ? this.params.said : {}).replace(/\{\w+\}/g, '…');
    $('tour-back').textContent = t('tour.back');
    $('tour-back').disabled = this.stop <= 1;
    $('tour-next').textContent = t(this.stop >= STOPS.length ? 'tour.finish' : 'tour.next');
    $('tour-close').setAttribute('aria-label', t('tour.close'));
    $('tour-close').title = t('tour.close');
    // The arrows and space step the decode in the lanes only.
    $('tour-keys').innerHTML = t(isTrainStop(s) ? 'tour.keysTrain_html' : 'tour.keys_html');
    if (this.panel.dataset.shown) this.measure();
    this.fitMore();
  }

  close() {
    if (this.stop == null) return;
    this.stop = null;
    this.gen++;
    this.panel.hidden = true;
    document.body.classList.remove('touring');
    document.documentElement.style.removeProperty('--tour-room');
    this.mark();
    this.app.saveUrl();
    $('tour-start').focus();
  }

  /** The elements of the current stop on the page now: its narrow ones on a narrow screen. */
  targets() {
    if (this.stop == null) return [];
    const s = STOPS[this.stop - 1];
    const train = isTrainStop(s);
    const root = $(train ? 'trainview' : 'lanes');
    if (!root) return [];
    // The Train mode's panels go to one column where the lanes go to tabs.
    const sels = (this.app.tabs.narrow && s.narrow) || s.targets;
    return sels.map((sel) => root.querySelector(sel)).filter(Boolean);
  }

  /** The lanes' decoder passes and wall time at the step shown, as their stats lines count them (lane.js). */
  measure() {
    const el = $('tour-measured');
    if (isTrainStop(STOPS[this.stop - 1] ?? { query: '' })) {
      el.hidden = false;
      el.textContent = this.trainMeasured();
      return;
    }
    el.hidden = !STOPS[this.stop - 1]?.measured;
    if (el.hidden) return;
    const at = this.app.t;
    el.textContent = t('tour.measured', { lanes: this.app.lanes.map((l) => {
      const i = l.index(at);
      const ms = l.times.slice(0, i + 1).reduce((a, b) => a + b, 0);
      return t('tour.measuredLane', { lane: l.title, passes: l.snaps[i]?.step ?? 0, ms: ms.toFixed(1) });
    }).join(t('tour.measuredSep')) });
  }

  /**
   * What the stop's run measured, once it has ended: the one run's numbers (its `said`), or
   * the lesson's sentences (measureLesson on both runs' records, probes and info); while
   * it runs, how far it is.
   */
  trainMeasured() {
    const s = STOPS[this.stop - 1];
    const runs = this.runs();
    if (!runs) return t('tour.trainStarting');
    const { panels, lesson } = runs;
    if (panels.some((p) => p.status === 'failed')) return t('tour.trainFailed');
    if (!panels.every((p) => p.status === 'done')) {
      const step = Math.min(...panels.map((p) => p.records.at(-1)?.step ?? 0));
      return t('tour.trainRunning', { step, steps: panels[0].info?.steps ?? panels[0].config?.steps ?? '…' });
    }
    if (!lesson) {
      const { key, params } = s.said(panels[0]);
      return t(key, params);
    }
    const [a, b] = panels;
    const m = lesson.measureLesson(s.lesson, { records: a.records, probes: a.probes, info: a.info }, { records: b.records, probes: b.probes, info: b.info });
    return t('tour.trainMeasured', { sentences: s.said.map((i) => m.sentences[i]).filter(Boolean).map((x) => t(x.key, x.params)).join(' ') });
  }

  mark() {
    const want = this.targets();
    for (const el of document.querySelectorAll('.tour-target')) if (!want.includes(el)) el.classList.remove('tour-target');
    for (const el of want) el.classList.add('tour-target');
  }

  // Scrolls once the page has settled (every lane decoded, the reference looked up and
  // scored), so that later growth above the target does not push it away again.
  async reveal(n) {
    const gen = ++this.gen;
    const s = STOPS[n - 1];
    const train = isTrainStop(s);
    await this.loading;
    if (gen !== this.gen) return;
    // A run's views are drawn at its first record: the stop's elements, all of them.
    const settled = train ? () => this.targets().length === ((this.app.tabs.narrow && s.narrow) || s.targets).length
      : () => this.app.lanes.every((l) => !l.busy) && $('reference').innerHTML !== ''
        && !$('lanes').querySelector('[data-loading]') && this.targets().length > 0;
    for (let i = 0; i < 600 && !settled(); i++) {
      await sleep(50);
      if (gen !== this.gen) return;
    }
    if (s.says) {
      let said = null;
      try {
        said = await s.says({ app: this.app, word: this.app.word, stop: s });
      } catch {
        said = null;   // a lane gone meanwhile (the learner moved on): the ellipses stay
      }
      if (gen !== this.gen) return;
      this.params = { stop: n, said: said ?? {} };
      this.relabel();
    }
    if (!train) {
      // On a phone, one lane shows at a time (lane-tabs.js): the one holding the element.
      // Opening its tab draws it anew, so the outline (and its scroll margin) goes on after.
      this.app.showLane(this.targets()[0]);
      // The panel tells what the lanes' open explanations would: folded (one click away),
      // they no longer push the stop's element below the fold on a phone. A lane keeps
      // them folded as it steps (lane.js render()).
      for (const d of $('lanes').querySelectorAll('details.explain[open]')) d.open = false;
    }
    this.mark();
    this.measure();
    this.place();
    this.panel.dataset.shown = String(n);
  }

  /**
   * Scrolls the stop's elements, all of them, into the band between the sticky step
   * bar and the panel: sideways first (a lane of several, a wide view), then the page,
   * their top just below the bar unless they are in the band already. The panel is
   * fixed at the foot of the window; a stop's elements are picked to fit the band
   * (STOPS), so below the bar they are clear of it.
   */
  place() {
    const els = this.targets();
    if (!els.length) return;
    for (const el of els) el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const box = els.map((el) => el.getBoundingClientRect()).reduce((a, r) => ({ top: Math.min(a.top, r.top), bottom: Math.max(a.bottom, r.bottom) }));
    const gap = 8;
    // Where the bar stands once the page has scrolled (sticky: its rect now may be lower,
    // in the flow); the Train mode has none.
    const bar = document.querySelector('.transport-bar');
    // A lesson's run keeps its title in view over its panel (style-train.css): below it.
    const titles = els.map((el) => el.closest('.tr-panel')?.querySelector('.tr-run-title')?.getBoundingClientRect().height ?? 0);
    const top = bar.hidden ? Math.max(0, ...titles) + gap : (parseFloat(getComputedStyle(bar).top) || 0) + bar.getBoundingClientRect().height + gap;
    const bottom = this.panel.getBoundingClientRect().top - gap;
    if (box.top >= top && box.bottom <= bottom) return;
    // The first's top just below the bar. The page's end is padded by the panel's height
    // (style.css), and by as much again as an element near the end needs to rise that far.
    const root = document.documentElement;
    const short = window.scrollY + box.top - top - (root.scrollHeight - window.innerHeight);
    root.style.setProperty('--tour-room', `${Math.max(0, Math.ceil(short) + (parseFloat(root.style.getPropertyValue('--tour-room')) || 0))}px`);
    window.scrollBy({ top: box.top - top, behavior: 'instant' });
  }
}
