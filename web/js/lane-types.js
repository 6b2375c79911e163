// The lane types of the page: what each shows (its options, in order, with their
// defaults), what it passes to the npm module's decode, and the clean-up of an
// option's value. The page's address (address.js) writes and reads lanes by these.
import { PAGE_OPTIONS } from './page-options.js';
import { cleanModelId } from './lane-param.js';

export { PAGE_OPTIONS };

// A lane's defaults: the model (m: the first that fits) and the options it shows, in this order.
const laneDefaults = (keys) => ({ m: '', ...Object.fromEntries(keys.map((k) => [k, PAGE_OPTIONS[k].default])) });

// Each type: the options it shows (`shows`, page keys, in order; each reaches the
// module as its PAGE_OPTIONS[key].option), the module options it fixes (`fixed`),
// `rules`: module options that depend on others of the lane's, `decoding`: the
// kind of model whose measured settings (models/train/decoding.json, which the
// page's models.json carries) are its defaults, once useModelDecoding has them, and
// `state`: what its own views hold open, by the name the address writes it under,
// with its codec ({write, read} as a registered view's, view-registry.js).
const given = (o) => (o.narLength === 'given' ? o.narGivenLength : 0);   // a length is passed only when imposed
// The draft picked in a non-autoregressive lane's tabs, by its length (draft=L).
const DRAFT = { write: (length) => String(length), read: (v) => (/^[1-9]\d{0,2}$/.test(v) ? Number(v) : null) };
const TYPES = {
  greedy: {
    // Textbook greedy: the most probable token at every step, stop at the first END.
    titleKey: 'lane.greedy', ar: true, shows: ['prefix', 'maxLength'],
    fixed: { strategy: 'greedy', topCandidates: 8 },
  },
  beam: {
    titleKey: 'lane.beam', ar: true, shows: ['beamSize', 'lengthNorm', 'gnmtAlpha', 'nBest', 'prefix', 'maxLength'],
    fixed: { strategy: 'beam', topCandidates: 8 },
    rules: (o) => ({ nBest: Math.min(o.nBest, o.beamSize) }),   // a beam holds no more than k
    decoding: 'autoregressive',
  },
  sample: {
    titleKey: 'lane.sample', ar: true, shows: ['temperature', 'topK', 'topP', 'seed', 'prefix', 'maxLength'],
    fixed: { strategy: 'sample', topCandidates: 8 },
  },
  nar: {
    titleKey: 'lane.nar', ar: false, shows: ['narLength', 'narGivenLength'],
    fixed: { strategy: 'nar', iterations: 1, lengthCandidates: 1 },
    rules: (o) => ({ narGivenLength: given(o) }),
    state: { draft: DRAFT },
  },
  mp: {
    titleKey: 'lane.mp', ar: false, shows: ['iterations', 'lengthCandidates', 'lengthScoreWeight', 'narLength', 'narGivenLength'],
    fixed: { strategy: 'nar' },
    // Length candidates are the predicted length's runners-up: one length when it is fixed or imposed.
    rules: (o) => ({ narGivenLength: given(o), lengthCandidates: o.narLength === 'predicted' ? o.lengthCandidates : 1 }),
    decoding: 'cmlm',
    state: { draft: DRAFT },
  },
  // The four RNN attention scores side by side (compare.js), each decoding greedily.
  compare: {
    titleKey: 'lane.compare', ar: true, compare: true, shows: [],
    fixed: { strategy: 'greedy', topCandidates: 1 },
  },
};

export const LANE_TYPES = Object.fromEntries(Object.entries(TYPES).map(([type, k]) => [type, { ...k, defaults: laneDefaults(k.shows) }]));

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
    const base = laneDefaults(kind.shows);
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

// The RNN's attention scores, in the order the course notes build them up.
export const ATTENTION_SCORES = ['dot', 'multiplicative', 'reduced_rank', 'additive'];

/** The RNN model of each attention score (the first listed), null where there is none. */
export function compareModels(models) {
  return ATTENTION_SCORES.map((score) => models.find((m) => m.arch === 'rnn' && m.attention === score) ?? null);
}

export const DEFAULT_LANES = ['greedy', 'beam', 'nar', 'mp'];

// An own key: every object answers to 'constructor' or 'toString', which are no lanes.
export const isLaneType = (type) => Object.hasOwn(LANE_TYPES, type);

/** Checks and clamps one option; returns the default when unusable (undefined for a name the lane has no option of). */
export function cleanOption(type, key, value, defaults = LANE_TYPES[type].defaults) {
  if (!Object.hasOwn(defaults, key)) return undefined;
  const d = defaults[key];
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

export function makeLane(type, opts = {}) {
  const t = isLaneType(type) ? type : 'greedy';
  const o = { ...LANE_TYPES[t].defaults };
  for (const [k, v] of Object.entries(opts)) if (Object.hasOwn(o, k)) o[k] = cleanOption(t, k, v);
  return { type: t, opts: o };
}

/** Options for the npm module (wasm/src/options.js): the lane's shown options under their module names, then its type's own. */
export function moduleOptions(lane) {
  if (!isLaneType(lane.type)) throw new Error(`unknown lane type ${lane.type}`);
  const kind = LANE_TYPES[lane.type];
  const out = { strategy: kind.fixed.strategy };
  for (const key of kind.shows) {
    const page = PAGE_OPTIONS[key];
    const v = lane.opts[key];
    if (!('unset' in page && v === page.unset)) out[page.option] = v;   // the unset value leaves the engine's default
  }
  return Object.assign(out, kind.fixed, kind.rules?.(lane.opts));
}

