// The page's state <-> its address (the URL's query).
//
// URL: ?w=PHONEME&t=4&lane=greedy&lane=beam:beamSize=5,lengthNorm=gnmt,gnmtAlpha=0.6&lane=mp:iterations=10
// An option is keyed by its name in the npm module; the short keys older addresses
// used (k=5,norm=gnmt) are still read (page-options.js's optionKey).
// Only values that differ from the defaults are written, and a sampling lane's seed,
// which follows the word unless set (lane-types.js wordSeed). `t` absent = the end
// of the decode (a bare visit, with no word either, opens at FIRST_VISIT_STEP, app.js).
// Unknown or out-of-range values fall back to defaults; unknown
// lane and option names are left out, and decodeState says which.
//
// Names from the URL are looked up as own keys only (hasOwn): every object
// answers to 'constructor' or 'toString', which are neither lanes nor options.
//
// What the learner opened in a lane's views rides in its parameter after its options,
// under names no option has: each registered view's (view-registry.js) under its id
// with its codec (inside=...: "Inside this step", inside-address.js), then the lane
// type's own (LANE_TYPES[type].state: a non-autoregressive lane's draft=L, the length
// candidate picked in its tabs). No view is named here.
//
// view=list | view=text | view=train: the page's mode (app.js): the word list (wordlist.js),
// the text view (text-view.js) or the Train mode (train-view.js, its configuration as
// train-config.js writes it), each with its own part of the address after it; absent
// for the lanes.
// lang=zh: the page's language (web/js/i18n.js); absent for English.
// tour=N: the guided tour is open at its stop N (web/js/tour.js); absent when closed.
import { LANGS, t } from './i18n.js';
import { LANE_TYPES, isLaneType, makeLane, optionFor } from './lane-types.js';
import { splitLaneParam } from '../shared/lane-models.js';
import { optionKey } from './page-options.js';
import { viewsOf } from './view-registry.js';
import './lane-views.js';   // the views register themselves: their codecs are the address's

// The page's modes: the lanes (one word), the word list, the text view, training a model.
export const MODES = ['lanes', 'list', 'text', 'train'];
const MAX_LANES = 12;
const MAX_NOTES = 5;

/** What a lane of `type` may hold open, as [name, codec]: its registered views' (in their order), then its type's own. */
function stateCodecs(type) {
  const kind = LANE_TYPES[type];
  return [...viewsOf(kind).filter((v) => v.codec).map((v) => [v.id, v.codec]), ...Object.entries(kind.state ?? {})];
}

function encodeLane(lane, word) {
  const d = LANE_TYPES[lane.type].defaults;
  const parts = [];
  for (const [k, v] of Object.entries(lane.opts)) {
    // An option that follows the word (a sampling lane's seed) is written as the word's
    // value: a link reproduces the draws even where another version of the page would
    // derive another; decodeState reads the word's own value back as following it.
    const value = v === null ? optionFor(lane, k, word) : v;
    if (v === d[k] && v !== null) continue;
    parts.push(`${k}=${encodeURIComponent(String(value)).replace(/%20/g, '+')}`);
  }
  const view = lane.view ?? {};
  for (const [name, codec] of stateCodecs(lane.type)) {
    const value = view[name] == null ? '' : codec.write(view[name]);
    if (value) parts.push(`${name}=${encodeURIComponent(value)}`);
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
  const { type, pairs } = splitLaneParam(s);
  if (!isLaneType(type)) {
    return { lane: null, notes: [t('address.notALane', { name: quoted(type), lanes: Object.keys(LANE_TYPES).join(', ') })] };
  }
  const defaults = LANE_TYPES[type].defaults;
  const codecs = new Map(stateCodecs(type));
  const opts = {};
  const view = {};
  const unknown = [];
  for (const [name, v] of pairs) {
    const k = optionKey(name);
    if (Object.hasOwn(defaults, k)) opts[k] = v;
    else if (codecs.has(name)) {
      const st = codecs.get(name).read(v);   // a value not of the view's form is left out quietly
      if (st != null) view[name] = st;
    } else unknown.push(name);
  }
  const known = Object.keys(defaults);
  const notes = unknown.map((k) => t(known.length ? 'address.notAnOption' : 'address.noOptions', { name: quoted(k), lane: type, options: known.join(', ') }));
  // A lane with nothing open in its views is its type and options alone, as makeLane makes it.
  return { lane: Object.keys(view).length ? { ...makeLane(type, opts), view } : makeLane(type, opts), notes };
}

export function encodeState({ word, step, lanes, lang = 'en', tour = null, mode = 'lanes' }) {
  const q = new URLSearchParams();
  q.set('w', word);
  if (step != null) q.set('t', String(step));
  for (const l of lanes) q.append('lane', encodeLane(l, word));
  if (lang !== 'en') q.set('lang', lang);
  if (tour != null) q.set('tour', String(tour));
  if (mode !== 'lanes') q.set('view', mode);
  return '?' + q.toString().replace(/%3A/gi, ':').replace(/%2C/gi, ',').replace(/%3D/gi, '=');
}

export function decodeState(search) {
  const q = new URLSearchParams(search);
  const word = q.has('w') ? q.get('w') : null;
  const tq = q.get('t');
  const step = tq != null && /^\d+$/.test(tq) ? Number(tq) : null;
  const lang = LANGS.includes(q.get('lang')) ? q.get('lang') : 'en';
  const tour = /^\d+$/.test(q.get('tour') ?? '') ? Number(q.get('tour')) : null;
  const mode = MODES.includes(q.get('view')) ? q.get('view') : 'lanes';
  const decoded = q.getAll('lane').map(decodeLane);
  // A value equal to what the word gives an option that follows it is that option following the word.
  for (const { lane } of decoded) {
    if (!lane || word == null) continue;
    for (const [k, v] of Object.entries(LANE_TYPES[lane.type].defaults)) if (v === null && lane.opts[k] === optionFor({ ...lane, opts: { [k]: null } }, k, word)) lane.opts[k] = null;
  }
  const notes = decoded.flatMap((d) => d.notes);
  const lanes = decoded.map((d) => d.lane).filter(Boolean);
  if (lanes.length > MAX_LANES) notes.push(t('address.tooManyLanes', { n: lanes.length, max: MAX_LANES }));
  // A few notes say what went wrong; a hundred would bury the page.
  const shown = notes.length > MAX_NOTES ? [...notes.slice(0, MAX_NOTES - 1), t('address.moreLeftOut', { n: notes.length - MAX_NOTES + 1 })] : notes;
  return { word, step, lanes: q.has('lane') ? lanes.slice(0, MAX_LANES) : null, notes: shown, lang, tour, mode };
}
