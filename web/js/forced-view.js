// The view under a finished lane's result: the output's and the references' forced
// scores with the diagnosis (search, model or length error), and for an
// autoregressive lane teacher forcing beside free running (forced.js draws both).
import { forcedView, forcingView, laneRanking, scoreWithReferences } from './forced.js';
import { registerView } from './view-registry.js';

// Every function below takes `lane`: the view's facade of the lane (view-registry.js laneFacade).

/**
 * Whether the reference can be scored as the result was: every autoregressive
 * model; of the non-autoregressive ones a CMLM, whose forced score is
 * Mask-Predict's first-iteration score (docs/decoding.md).
 */
const scoresReference = (lane) => lane.kind.ar || lane.info?.arch === 'cmlm';

/**
 * The forced scores of `output` and of each reference pronunciation, through the
 * lane's decoder with the options its result was decoded under (so that the
 * normalised scores compare). Asks the worker once per (word, output, references,
 * options), and draws the result again when they are in. Returns the state so far:
 * {done, output, refs, error}.
 */
function scores(lane, prons, output) {
  const { word, options } = lane;
  const key = JSON.stringify([word, output, prons, options]);
  if (lane.state?.key === key) return lane.state;
  const f = { key, done: false, output: null, refs: null, error: null };
  lane.state = f;
  scoreWithReferences((w, text, o) => lane.score(w, text, o), word, output, prons, options)
    .then((got) => Object.assign(f, got), (e) => { f.error = String(e?.message ?? e); })
    .finally(() => { f.done = true; if (lane.state === f) lane.redraw(); });
  return f;
}

/**
 * A non-autoregressive decode's target lengths: those it tried (the last snapshot's),
 * the length head's log-probabilities, and whether they were imposed (a fixed or
 * given length) rather than predicted.
 */
function decodedLengths(lane, s) {
  return { decoded: [...s.lengths], logprobs: s.lengthLogprobs, imposed: (lane.options?.narLength ?? 'predicted') !== 'predicted' };
}

function render(lane, i) {
  const s = lane.snapshot(i);
  const refs = lane.reference;
  if (!refs || !s?.done || !s.results.length || i !== lane.lastIndex || !scoresReference(lane)) return '';
  const f = scores(lane, refs.prons, s.results[0].text);
  const ar = lane.kind.ar;
  const lengths = ar ? null : decodedLengths(lane, s);
  // The diagnosis is relative to the lane's ranking: it names it.
  const rank = laneRanking(lane.options, { cmlm: !ar, imposed: lengths?.imposed });
  return forcedView(f, { cmlm: !ar, lengths, rank })
    + (ar ? forcingView(f, lane.decodedPath(i)) : '');
}

export default registerView({
  id: 'forced',
  slot: 'result',
  lanes: (kind) => !kind.compare,
  render,
});
