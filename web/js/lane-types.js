// The lane types of the page: what each shows (its options, in order, with their
// defaults), what it passes to the npm module's decode, and the clean-up of an
// option's value. The page's address (address.js) writes and reads lanes by these.
import { PAGE_OPTIONS, settleRules } from './page-options.js';
import { ATTENTION_SCORES, DEFAULT_LANES, LANE_KINDS, cleanModelId, compareModels } from '../shared/lane-models.js';

export { ATTENTION_SCORES, DEFAULT_LANES, PAGE_OPTIONS, compareModels };

// A lane's defaults: the model (m: the first that fits) and the options it shows, in this
// order; `follows`: options whose default is null, a value the lane takes from its word.
const laneDefaults = (keys, follows = {}) => ({ m: '', ...Object.fromEntries(keys.map((k) => [k, Object.hasOwn(follows, k) ? null : PAGE_OPTIONS[k].default])) });

/**
 * The seed a sampling lane draws with until the learner sets one: the word's own (FNV-1a
 * over the word, upper-cased, folded into 1..1000, the seeds "new seed" steps through).
 * One seed for every word would give every word the same uniforms, the same rare draw at
 * the same step; the address still names it (address.js), so a link reproduces the draws.
 */
export function wordSeed(word) {
  let h = 0x811c9dc5;
  for (const c of String(word).trim().toUpperCase()) {
    h ^= c.codePointAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h % 1000) + 1;
}

// How a lane takes an option it `follows` from its word.
const FOLLOWS = { seed: wordSeed };

// Each type: the options it shows (`shows`, page keys, in order; each reaches the
// module as its PAGE_OPTIONS[key].option), the module options it fixes (`fixed`),
// `rules`: module options the page sets from others of the lane's (the engine's own
// rules between options are the table's: settleRules), `decoding`: the
// kind of model whose measured settings (models/train/decoding.json, which the
// page's models.json carries) are its defaults, once useModelDecoding has them, and
// `state`: what its own views hold open, by the name the address writes it under,
// with its codec ({write, read} as a registered view's, view-registry.js).
const given = (o) => (o.narLength === 'given' ? o.narGivenLength : 0);   // a length is passed only when imposed
// An autoregressive lane's bars: the step's eight likeliest next tokens.
const BARS = 8;
// The draft picked in a non-autoregressive lane's tabs, by its length (draft=L).
const DRAFT = { write: (length) => String(length), read: (v) => (/^[1-9]\d{0,2}$/.test(v) ? Number(v) : null) };
// The head an autoregressive lane's cross-attention map shows, counted from 1 as the
// page names it (head=2.3: layer 2, head 3; in the lane "1.2"); the average is no value.
const HEAD = {
  write: (head) => (head === 'avg' ? '' : head.split('.').map((x) => Number(x) + 1).join('.')),
  read: (v) => { const m = /^([1-9]\d?)\.([1-9]\d?)$/.exec(v); return m ? `${m[1] - 1}.${m[2] - 1}` : null; },
};
const TYPES = {
  greedy: {
    // Textbook greedy: the most probable token at every step, stop at the first END.
    titleKey: 'lane.greedy', shows: ['prefix', 'maxLength'],
    fixed: { strategy: 'greedy', topCandidates: BARS },
    state: { head: HEAD },
  },
  beam: {
    titleKey: 'lane.beam', shows: ['beamSize', 'lengthNorm', 'gnmtAlpha', 'nBest', 'prefix', 'maxLength'],
    fixed: { strategy: 'beam', topCandidates: BARS },
    decoding: 'autoregressive',
    state: { head: HEAD },
  },
  sample: {
    titleKey: 'lane.sample', shows: ['temperature', 'topK', 'topP', 'seed', 'prefix', 'maxLength'],
    fixed: { strategy: 'sample', topCandidates: BARS },
    follows: ['seed'],   // the word's own seed (wordSeed) until one is set
    state: { head: HEAD },
  },
  nar: {
    titleKey: 'lane.nar', shows: ['narLength', 'narGivenLength'],
    fixed: { strategy: 'nar', iterations: 1, lengthCandidates: 1 },
    rules: (o) => ({ narGivenLength: given(o) }),
    state: { draft: DRAFT },
  },
  mp: {
    titleKey: 'lane.mp', shows: ['iterations', 'lengthCandidates', 'lengthScoreWeight', 'narLength', 'narGivenLength'],
    fixed: { strategy: 'nar' },
    // Length candidates are the predicted length's runners-up: one length when it is fixed or imposed.
    rules: (o) => ({ narGivenLength: given(o), lengthCandidates: o.narLength === 'predicted' ? o.lengthCandidates : 1 }),
    decoding: 'cmlm',
    state: { draft: DRAFT },
  },
  // The four RNN attention scores side by side (compare.js), each decoding greedily.
  compare: {
    titleKey: 'lane.compare', shows: [],
    fixed: { strategy: 'greedy', topCandidates: 1 },
  },
};

// ar and compare: the type's kind of model (web/shared/lane-models.js, which boot.js reads too).
const followed = (k) => Object.fromEntries((k.follows ?? []).map((key) => [key, FOLLOWS[key]]));
export const LANE_TYPES = Object.fromEntries(Object.entries(TYPES).map(([type, k]) => [type, {
  ...k, ar: LANE_KINDS[type] !== 'nar', ...(LANE_KINDS[type] === 'compare' ? { compare: true } : {}), defaults: laneDefaults(k.shows, followed(k)),
}]));

/**
 * Makes the settings the shipped models are measured with (`decoding`: per kind, as
 * models/train/decoding.json states them) the defaults of the lane types that decode
 * that kind, for the options they show: a Mask-Predict lane then decodes as g2p-cmlm's
 * numbers were measured. The page calls it once, before it reads its address (whose
 * lanes leave out what equals a default). Returns the options it set, per type.
 */
export function useModelDecoding(decoding) {
  const set = {};
  for (const [type, kind] of Object.entries(LANE_TYPES)) {
    const measured = kind.decoding && decoding?.[kind.decoding];
    if (!measured) continue;
    const base = laneDefaults(kind.shows, followed(kind));
    for (const [key, value] of Object.entries(measured)) {
      if (!Object.hasOwn(base, key) || key === 'm') continue;
      // A measured setting the lane cannot take as it is would make its numbers another decode's.
      if (cleanOption(type, key, value, base) !== value) throw new Error(`${kind.decoding} decoding: ${key} = ${value} is outside what a ${type} lane takes`);
      base[key] = value;
      (set[type] ??= {})[key] = value;
    }
    kind.defaults = base;
  }
  return set;
}


// An own key: every object answers to 'constructor' or 'toString', which are no lanes.
export const isLaneType = (type) => Object.hasOwn(LANE_TYPES, type);

/** Checks and clamps one option; returns the default when unusable (undefined for a name the lane has no option of). */
export function cleanOption(type, key, value, defaults = LANE_TYPES[type].defaults) {
  if (!Object.hasOwn(defaults, key)) return undefined;
  const d = defaults[key];
  // An option that follows the word: null (or empty) keeps following it.
  if (d === null && (value === null || value === '')) return null;
  const { values, range } = Object.hasOwn(PAGE_OPTIONS, key) ? PAGE_OPTIONS[key] : {};
  if (values) return values.includes(value) ? value : d;
  if (range) {
    const [lo, hi, kind] = range;
    let v = Number(value);
    if (!Number.isFinite(v)) return d;
    if (kind === 'int') v = Math.round(v);
    return Math.min(hi, Math.max(lo, v));
  }
  if (key === 'prefix') return String(value ?? '').trim().replace(/\s+/g, ' ').toUpperCase().replace(/<\/S>/g, '</s>');
  if (key === 'm') return cleanModelId(value);
  return d;
}

/**
 * The largest value of an option `model` takes, where the model narrows the page's own
 * range (PAGE_OPTIONS): an imposed length (the length head's range, beyond which the
 * module refuses it) and a max length (the decoder's positions; the module would cut it
 * unsaid). Infinity where the model does not narrow it.
 */
export function modelMax(key, model) {
  if (!model) return Infinity;
  if (key === 'narGivenLength' && !model.autoregressive) return model.maxTargetLength ?? Infinity;
  if (key === 'maxLength') return (model.autoregressive ? model.maxPositions : model.maxTargetLength) ?? Infinity;
  return Infinity;
}

/**
 * What the page asked of a lane type that it has not: an unknown type, or an option
 * the type does not show. `kind` 'UsageError', as the module's Seq2SeqError for an
 * unknown decoding option: a call with a misspelt key fails where it is made rather
 * than decoding as if it had not been made.
 */
export class LaneSpecError extends Error {
  constructor(message) {
    super(message);
    this.name = 'LaneSpecError';
    this.kind = 'UsageError';
  }
}

/**
 * A lane's spec {type, opts}: its type's defaults, with `opts` cleaned as the address's
 * are (clamped to the page's ranges). Throws LaneSpecError for an unknown type or an
 * option the type does not show (the address leaves such names out, and says so, before).
 */
export function makeLane(type, opts = {}) {
  if (!isLaneType(type)) throw new LaneSpecError(`unknown lane type ${JSON.stringify(String(type))} (known: ${Object.keys(LANE_TYPES).join(', ')})`);
  const o = { ...LANE_TYPES[type].defaults };
  for (const [k, v] of Object.entries(opts)) {
    if (!Object.hasOwn(o, k)) throw new LaneSpecError(`a ${type} lane has no option ${JSON.stringify(k)} (its options: ${Object.keys(o).join(', ')})`);
    o[k] = cleanOption(type, k, v);
  }
  return { type, opts: o };
}

/** The value option `key` of a lane has for `word`: its own, or, where it follows the word (null), the word's. */
export function optionFor(lane, key, word) {
  const v = lane.opts[key];
  if (v !== null) return v;
  if (typeof word !== 'string') throw new Error(`the ${lane.type} lane's ${key} follows the word: name the word`);
  return FOLLOWS[key](word);
}

/**
 * Options for the npm module (wasm/src/options.js) decoding `word`: the lane's shown
 * options under their module names (an option that follows the word, the word's), then
 * its type's own.
 */
export function moduleOptions(lane, word) {
  if (!isLaneType(lane.type)) throw new Error(`unknown lane type ${lane.type}`);
  const kind = LANE_TYPES[lane.type];
  const out = { strategy: kind.fixed.strategy };
  for (const key of kind.shows) {
    const page = PAGE_OPTIONS[key];
    const v = optionFor(lane, key, word);
    if (!('unset' in page && v === page.unset)) out[page.option] = v;   // the unset value leaves the engine's default
  }
  return settleRules(Object.assign(out, kind.fixed, kind.rules?.(lane.opts)));
}

/** A lane's options (page keys) brought into line with the rules between options (settleRules) under its type's strategy, in place. */
export function settleLaneOptions(type, opts) {
  const settled = settleRules({ ...opts, strategy: LANE_TYPES[type].fixed.strategy });
  for (const k of Object.keys(opts)) opts[k] = settled[k];
  return opts;
}

