// The lane types of the page: what each shows (its options, in order, with their
// defaults), what it passes to the npm module's decode, and the clean-up of an
// option's value. The page's address (address.js) writes and reads lanes by these.
import { PAGE_OPTIONS } from './page-options.js';
import { cleanModelId } from './lane-param.js';

export { PAGE_OPTIONS };

// A lane's defaults: the model (m: the first that fits) and the options it shows, in this order.
const laneDefaults = (...keys) => ({ m: '', ...Object.fromEntries(keys.map((k) => [k, PAGE_OPTIONS[k].default])) });

export const LANE_TYPES = {
  greedy: {
    titleKey: 'lane.greedy', ar: true,
    defaults: laneDefaults('prefix', 'max'),
  },
  beam: {
    titleKey: 'lane.beam', ar: true,
    defaults: laneDefaults('k', 'norm', 'alpha', 'nbest', 'prefix', 'max'),
  },
  sample: {
    titleKey: 'lane.sample', ar: true,
    defaults: laneDefaults('temp', 'topk', 'topp', 'seed', 'prefix', 'max'),
  },
  nar: {
    titleKey: 'lane.nar', ar: false,
    defaults: laneDefaults('len', 'L'),
  },
  mp: {
    titleKey: 'lane.mp', ar: false,
    defaults: laneDefaults('T', 'lc', 'lw', 'len', 'L'),
  },
  // The four RNN attention scores side by side (compare.js), each decoding greedily.
  compare: {
    titleKey: 'lane.compare', ar: true, compare: true,
    defaults: {},
  },
};

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
export function cleanOption(type, key, value) {
  const defaults = LANE_TYPES[type].defaults;
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

export function makeLane(type, opts = {}) {
  const t = isLaneType(type) ? type : 'greedy';
  const o = { ...LANE_TYPES[t].defaults };
  for (const [k, v] of Object.entries(opts)) if (Object.hasOwn(o, k)) o[k] = cleanOption(t, k, v);
  return { type: t, opts: o };
}

/** Options for the npm module (wasm/src/options.js). */
export function moduleOptions(lane) {
  const o = lane.opts;
  switch (lane.type) {
    case 'greedy':
      // Textbook greedy: the most probable token at every step, stop at the first END.
      return { strategy: 'greedy', prefix: o.prefix, ...(o.max ? { maxLength: o.max } : {}), topCandidates: 8 };
    case 'beam':
      return { strategy: 'beam', beamSize: o.k, lengthNorm: o.norm, gnmtAlpha: o.alpha, nBest: Math.min(o.nbest, o.k),
        prefix: o.prefix, ...(o.max ? { maxLength: o.max } : {}), topCandidates: 8 };
    case 'sample':
      return { strategy: 'sample', temperature: o.temp, topK: o.topk, topP: o.topp, seed: o.seed, prefix: o.prefix,
        ...(o.max ? { maxLength: o.max } : {}), topCandidates: 8 };
    case 'nar':
      return { strategy: 'nar', iterations: 1, narLength: o.len, length: o.len === 'given' ? o.L : 0, lengthCandidates: 1 };
    case 'mp':
      return { strategy: 'nar', iterations: o.T, narLength: o.len, length: o.len === 'given' ? o.L : 0,
        lengthCandidates: o.len === 'predicted' ? o.lc : 1, lengthScoreWeight: o.lw };
    case 'compare':
      return { strategy: 'greedy', topCandidates: 1 };
    default:
      throw new Error(`unknown lane type ${lane.type}`);
  }
}

