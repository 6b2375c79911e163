// A trainer's config as the JS layer checks it, before anything is loaded or sent
// to a worker: the training options by their JS names (the table
// src/train/training_options.json, here training-options-table.js), plus `data`
// (task g2p's rows) and `resume` (a checkpoint's bytes). Names and types are
// checked here; ranges and the rules between options once, in C++ (validate()),
// whose messages come back with the options in their JS spelling.
import { describe, named, usageError } from './errors.js';
import { OPTION_TYPES } from './options.js';
import { TRAINING_OPTION_TABLE } from './training-options-table.js';

const BY_JS = new Map(TRAINING_OPTION_TABLE.map((o) => [o.js, o]));
const NOT_OPTIONS = ['data', 'resume'];
const KNOWN = [...BY_JS.keys(), ...NOT_OPTIONS];

/** Every training option's default for `task` (the table's, and the task's own where it has one). */
export function trainingDefaults(task = 'reverse') {
  if (!BY_JS.get('task').values.includes(task)) throw usageError(`trainingDefaults(task): task must be one of ${BY_JS.get('task').values.join(', ')}; got ${describe(task)}`);
  return Object.fromEntries(TRAINING_OPTION_TABLE.map((o) => [o.js, o.taskDefaults && task in o.taskDefaults ? o.taskDefaults[task] : o.default]));
}

// Task g2p's rows as the text of a train.tsv: a string as it is; an array of lines,
// or of [word, phonemes] pairs (phonemes a string or an array), one row each.
function dataText(data) {
  if (typeof data === 'string') return data;
  if (!Array.isArray(data)) throw usageError(`config.data must be a string (WORD<TAB>PH ON ES lines) or an array of rows; got ${describe(data)}`);
  return data.map((row, i) => {
    if (typeof row === 'string') return row;
    if (Array.isArray(row) && row.length === 2 && typeof row[0] === 'string'
      && (typeof row[1] === 'string' || (Array.isArray(row[1]) && row[1].every((p) => typeof p === 'string')))) {
      return `${row[0]}\t${Array.isArray(row[1]) ? row[1].join(' ') : row[1]}`;
    }
    throw usageError(`config.data[${i}] must be a line ('WORD\\tPH ON ES') or a [word, phonemes] pair; got ${describe(row)}`);
  }).join('\n');
}

function resumeBytes(resume) {
  if (resume instanceof ArrayBuffer) return new Uint8Array(resume);
  if (ArrayBuffer.isView(resume)) return new Uint8Array(resume.buffer, resume.byteOffset, resume.byteLength);
  throw usageError(`config.resume must be a checkpoint's bytes (a Uint8Array or an ArrayBuffer, from trainer.checkpoint()); got ${describe(resume)}`);
}

/**
 * The config checked: {options: the given options keyed by their C++ names, data: the
 * g2p rows' text or null, resume: a checkpoint's bytes or null}. Throws a UsageError for
 * what is no object, an unknown key, a value of the wrong type, data for a task that is
 * generated from the seed, or g2p without data.
 */
export function checkTrainingConfig(config) {
  if (config == null) config = {};
  if (typeof config !== 'object' || Array.isArray(config)) throw usageError(`createTrainer(config): config must be an object; got ${describe(config)}`);
  for (const key of Object.keys(config)) {
    if (!KNOWN.includes(key)) throw usageError(`unknown training option ${named(key)} (known: ${KNOWN.join(', ')})`);
  }
  const options = {};
  for (const o of TRAINING_OPTION_TABLE) {
    const given = config[o.js];
    if (given === undefined) continue;
    const type = OPTION_TYPES[o.type];
    const value = type.check(given, o);
    if (value === undefined) throw usageError(`training option ${o.js} ${type.must(o)}; got ${describe(given)}`);
    options[o.cpp] = value;
  }
  const task = options.task ?? BY_JS.get('task').default;
  let data = null;
  if (config.data !== undefined) {
    if (task !== 'g2p') throw usageError(`task ${task} is generated from the seed; config.data is for task g2p`);
    data = dataText(config.data);
  } else if (task === 'g2p') {
    throw usageError('task g2p trains on rows of spellings and phonemes: give config.data (the training recipe\'s train.tsv as a string, '
      + 'or an array of \'WORD\\tPH ON ES\' lines or [word, phonemes] pairs)');
  }
  const resume = config.resume === undefined ? null : resumeBytes(config.resume);
  return { options, data, resume };
}

// C++ messages name the options as the struct does (d_model); a JS user wrote dModel.
// Longest names first, so that attention_dropout wins over a shorter name inside it.
const JS_NAMES = TRAINING_OPTION_TABLE.filter((o) => o.cpp !== o.js).map((o) => [o.cpp, o.js]).sort(([a], [b]) => b.length - a.length);
const NAME_RE = new RegExp(`\\b(${JS_NAMES.map(([c]) => c).join('|')})\\b`, 'g');
const JS_NAME = new Map(JS_NAMES);

/** A training option's C++ name in its JS spelling (a name the table lacks, as it is). */
export const jsTrainingName = (cpp) => JS_NAME.get(cpp) ?? cpp;

/** A C++ message with the training options named in the JS spelling. */
export function jsTrainingNames(message) {
  return message.replace(NAME_RE, (name) => JS_NAME.get(name));
}
