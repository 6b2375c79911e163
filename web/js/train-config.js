// What the Train mode trains: a task, a size preset and the trainer's options, and
// that configuration in the address, so that a link reproduces the run (the seed is
// one of the options). Everything about an option (its name, type, range, default and
// a task's own default) is the trainer's table (wasm/src/training-options-table.js);
// the page adds only its presets of sizes, a record every LOG_EVERY steps and its
// memory bound. No DOM here: tests/node reads it as the page does.
//
// URL: ?view=train&task=sort&preset=tiny&arch=rnn&attention=dot&learningRate=0.01&seed=7
// Only values that differ from the page's defaults for the task and preset are written.
// A value that is not of its option's type or outside its range is left out, and a note
// says so (as address.js does for the lanes).
import { TRAINING_OPTION_TABLE } from '../wasm/src/training-options-table.js';
import { trainingDefaults } from '../wasm/src/training-config.js';

export { TRAINING_OPTION_TABLE };

// The tasks a learner picks among (the trainer's 'copy' task is the names task's copying
// without the names: the page leaves it to the API).
export const TASKS = ['reverse', 'sort', 'names', 'g2p'];

// The most memory a run on the page may take (the trainer's memoryLimitMb): a phone's tab
// has a few hundred MB, and the page's models and lanes need theirs.
export const PAGE_MEMORY_LIMIT_MB = 256;

// A progress record (a point of the loss curve, a probe) every this many steps.
export const LOG_EVERY = 10;

// Sizes, small to larger: each sets both families' sizes (the Transformer's and the RNN's),
// so that a switch of architecture keeps the size. 'small' is the trainer's own default sizes.
export const PRESETS = {
  tiny: { layers: 1, heads: 2, dModel: 32, dFf: 64, embDim: 16, encHidden: 32, decHidden: 64, attnDim: 32 },
  small: { layers: 2, heads: 4, dModel: 64, dFf: 128, embDim: 32, encHidden: 64, decHidden: 128, attnDim: 64 },
  medium: { layers: 3, heads: 4, dModel: 128, dFf: 256, embDim: 64, encHidden: 128, decHidden: 256, attnDim: 128 },
};
export const DEFAULT_PRESET = 'small';

// Where the tiny G2P task's rows are served (the site's train/ folder).
export { G2P_DATA } from '../shared/train-data.js';

const BY_NAME = new Map(TRAINING_OPTION_TABLE.map((o) => [o.js, o]));
// What the page fixes: the bound above, and the options the address holds apart (task) .
const FIXED = new Set(['memoryLimitMb']);

/** The option `name`'s table row. */
export const optionEntry = (name) => BY_NAME.get(name);

/** Every option's value on the page for `task` and `preset`: the trainer's defaults (the task's own where it has them), the preset's sizes, the page's record interval and memory bound. */
export function pageDefaults(task = 'reverse', preset = DEFAULT_PRESET) {
  return { ...trainingDefaults(task), ...PRESETS[preset], logEvery: LOG_EVERY, memoryLimitMb: PAGE_MEMORY_LIMIT_MB };
}

/** A configuration: {task, preset, options} where options holds what differs from pageDefaults. */
export function makeConfig(task = 'reverse', preset = DEFAULT_PRESET, options = {}) {
  const base = pageDefaults(task, preset);
  const own = {};
  for (const [k, v] of Object.entries(options)) if (BY_NAME.has(k) && !FIXED.has(k) && k !== 'task' && v !== base[k]) own[k] = v;
  return { task, preset, options: own };
}

/** The trainer's config (every option, by its JS name) for a configuration. */
export function trainerConfig(config) {
  return { ...pageDefaults(config.task, config.preset), ...config.options, task: config.task };
}

/** Whether `v` (a value of the option's type) is in the option's range. */
function inRange(o, v) {
  if (o.type === 'enum') return o.values.includes(v);
  if (o.type === 'bool') return typeof v === 'boolean';
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  if ((o.type === 'int' || o.type === 'uint64') && !Number.isInteger(v)) return false;
  if (o.type === 'uint64') return Number.isSafeInteger(v) && v >= 0;
  if (o.openMin ? v <= o.min : v < o.min) return false;
  return o.max == null || v <= o.max;
}

/** A value as the address or a control gives it (a string) read as option `o`'s, or undefined if it is not one. */
export function readValue(o, s) {
  let v;
  if (o.type === 'enum') v = s;
  else if (o.type === 'bool') v = s === 'true' ? true : s === 'false' ? false : undefined;
  else v = /^\s*$/.test(s) ? undefined : Number(s);
  return v !== undefined && inRange(o, v) ? v : undefined;
}

/** The range an option takes, as a message names it: "[1, 40]", "(0, 1]", "one of a, b". */
export function rangeText(o) {
  if (o.type === 'enum') return o.values.join(', ');
  if (o.type === 'bool') return 'true, false';
  return `${o.openMin ? '(' : '['}${o.min}, ${o.max == null ? '2^64 - 1' : o.max}]`;
}

/** The address's part of a configuration (after view=train): '&task=sort&seed=3', or ''. */
export function encodeConfig(config) {
  const q = new URLSearchParams();
  if (config.task !== 'reverse') q.set('task', config.task);
  if (config.preset !== DEFAULT_PRESET) q.set('preset', config.preset);
  for (const o of TRAINING_OPTION_TABLE) if (Object.hasOwn(config.options, o.js)) q.set(o.js, String(config.options[o.js]));
  const s = q.toString();
  return s ? `&${s}` : '';
}

/**
 * The configuration an address holds: {config, bad: [[name, value, range]]} (the values
 * left out). Parameters that are no option (the page's own: w, lane, lang, view) are not
 * the Train mode's and are passed over.
 */
export function decodeConfig(search) {
  const q = new URLSearchParams(search);
  const bad = [];
  const task = q.get('task');
  const preset = q.get('preset');
  if (task != null && !TASKS.includes(task)) bad.push(['task', task, TASKS.join(', ')]);
  if (preset != null && !Object.hasOwn(PRESETS, preset)) bad.push(['preset', preset, Object.keys(PRESETS).join(', ')]);
  const options = {};
  for (const o of TRAINING_OPTION_TABLE) {
    if (o.js === 'task' || FIXED.has(o.js) || !q.has(o.js)) continue;
    const v = readValue(o, q.get(o.js));
    if (v === undefined) bad.push([o.js, q.get(o.js), rangeText(o)]);
    else options[o.js] = v;
  }
  return { config: makeConfig(TASKS.includes(task) ? task : 'reverse', Object.hasOwn(PRESETS, preset) ? preset : DEFAULT_PRESET, options), bad };
}
