// Lane types, their options, and the page state <-> URL.
//
// URL: ?w=PHONEME&t=4&lane=greedy&lane=beam:k=5,norm=gnmt,alpha=0.6,nbest=3&lane=mp:T=10,lc=3
// Only values that differ from the defaults are written. `t` absent = the end
// of the decode (a bare visit, with no word either, starts at step 0).
// Unknown or out-of-range values fall back to defaults; unknown
// lane and option names are left out, and decodeState says which.
//
// Names from the URL are looked up as own keys only (hasOwn): every object
// answers to 'constructor' or 'toString', which are neither lanes nor options.
//
// lang=zh: the page's language (web/js/i18n.js); absent for English.
// tour=N: the guided tour is open at its stop N (web/js/tour.js); absent when closed.
import { LANGS, t } from './i18n.js';
import { PAGE_OPTIONS } from './page-options.js';

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
const MAX_LANES = 12;
const MAX_NOTES = 5;

const isLaneType = (type) => Object.hasOwn(LANE_TYPES, type);

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
  if (key === 'm') return String(value ?? '').replace(/[^\w.-]/g, '');
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

function encodeLane(lane) {
  const d = LANE_TYPES[lane.type].defaults;
  const parts = [];
  for (const [k, v] of Object.entries(lane.opts)) {
    if (v === d[k]) continue;
    parts.push(`${k}=${encodeURIComponent(String(v)).replace(/%20/g, '+')}`);
  }
  return parts.length ? `${lane.type}:${parts.join(',')}` : lane.type;
}

// A name from the URL as a message shows it: quoted, and short.
function quoted(name) {
  const chars = [...name];
  return `“${chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : name}”`;
}

/** One `lane` parameter: {lane} or {lane: null}, and `notes` on the names it left out. */
function decodeLane(s) {
  const i = s.indexOf(':');
  const type = i < 0 ? s : s.slice(0, i);
  if (!isLaneType(type)) {
    return { lane: null, notes: [t('address.notALane', { name: quoted(type), lanes: Object.keys(LANE_TYPES).join(', ') })] };
  }
  const defaults = LANE_TYPES[type].defaults;
  const opts = {};
  const unknown = [];
  if (i >= 0) {
    for (const kv of s.slice(i + 1).split(',')) {
      const j = kv.indexOf('=');
      if (j < 0) continue;
      const k = kv.slice(0, j);
      if (!Object.hasOwn(defaults, k)) { unknown.push(k); continue; }
      let v = kv.slice(j + 1).replace(/\+/g, ' ');
      try { v = decodeURIComponent(v); } catch { /* keep as is */ }
      opts[k] = v;
    }
  }
  const known = Object.keys(defaults);
  const notes = unknown.map((k) => t(known.length ? 'address.notAnOption' : 'address.noOptions', { name: quoted(k), lane: type, options: known.join(', ') }));
  return { lane: makeLane(type, opts), notes };
}

export function encodeState({ word, step, lanes, lang = 'en', tour = null }) {
  const q = new URLSearchParams();
  q.set('w', word);
  if (step != null) q.set('t', String(step));
  for (const l of lanes) q.append('lane', encodeLane(l));
  if (lang !== 'en') q.set('lang', lang);
  if (tour != null) q.set('tour', String(tour));
  return '?' + q.toString().replace(/%3A/gi, ':').replace(/%2C/gi, ',').replace(/%3D/gi, '=');
}

export function decodeState(search) {
  const q = new URLSearchParams(search);
  const word = q.has('w') ? q.get('w') : null;
  const tq = q.get('t');
  const step = tq != null && /^\d+$/.test(tq) ? Number(tq) : null;
  const lang = LANGS.includes(q.get('lang')) ? q.get('lang') : 'en';
  const tour = /^\d+$/.test(q.get('tour') ?? '') ? Number(q.get('tour')) : null;
  const decoded = q.getAll('lane').map(decodeLane);
  const notes = decoded.flatMap((d) => d.notes);
  const lanes = decoded.map((d) => d.lane).filter(Boolean);
  if (lanes.length > MAX_LANES) notes.push(t('address.tooManyLanes', { n: lanes.length, max: MAX_LANES }));
  // A few notes say what went wrong; a hundred would bury the page.
  const shown = notes.length > MAX_NOTES ? [...notes.slice(0, MAX_NOTES - 1), t('address.moreLeftOut', { n: notes.length - MAX_NOTES + 1 })] : notes;
  return { word, step, lanes: q.has('lane') ? lanes.slice(0, MAX_LANES) : null, notes: shown, lang, tour };
}

// Length normalisation, as src/decoding_options.h defines it. |Y| counts END.
export function normalizedScore(logprob, length, norm, alpha) {
  if (norm === 'average') return logprob / Math.max(1, length);
  if (norm === 'gnmt') return logprob / Math.pow((5 + length) / 6, alpha);
  return logprob;
}

/** "log P / |Y| = −2.41 / 3 = −0.80" */
export function scoreFormula(logprob, length, norm, alpha) {
  const f = (x) => fmt(x);
  const s = normalizedScore(logprob, length, norm, alpha);
  if (norm === 'average') return `log P / |Y| = ${f(logprob)} / ${length} = ${f(s)}`;
  if (norm === 'gnmt') {
    const lp = Math.pow((5 + length) / 6, alpha);
    return `log P / ((5+|Y|)/6)^α = ${f(logprob)} / ((5+${length})/6)^${alpha} = ${f(logprob)} / ${lp.toFixed(3)} = ${f(s)}`;
  }
  return `log P = ${f(s)}`;
}

export function fmt(x, digits = 2) {
  return (x < 0 ? '−' : '') + Math.abs(x).toFixed(digits);
}
