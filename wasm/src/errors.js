// The package's error class, in a module of its own so that the worker client
// (which runs on the page's main thread) can throw the same errors without
// loading the Emscripten glue.
import { OPTION_TABLE } from './options-table.js';

export class Seq2SeqError extends Error {
  constructor(message, kind = 'Error') {
    super(message);
    this.name = 'Seq2SeqError';
    // 'ModelError' | 'InputError' | 'UsageError' | 'NetworkError' | 'WasmError' |
    // 'OutOfMemory' | 'Error', 'Cancelled' (a load whose signal aborted; a run, batch or
    // load the worker client cancelled) and 'WorkerError' from the worker client; 'DivergedError'.
    this.kind = kind;
  }
}

/** A mistake in how the package was called: a wrong argument, option name or type. */
export function usageError(message) {
  return new Seq2SeqError(message, 'UsageError');
}

/** A name the caller gave (an option's key) in single quotes, or quote()'s form when long. */
export const named = (s) => (s.length <= QUOTED ? `'${s}'` : quote(s));

const article = (word) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

const QUOTED = 40;   // characters of a string a message quotes

/**
 * A string as a message quotes it: in double quotes, whole when short; a long one
 * cut after 40 characters (code points, so that no pair is split) and its length
 * given: '"xxxx"… (50000000 characters)' (UTF-16 units, as String.length counts).
 * The cost is bounded whatever the string's length: no message copies or scans
 * more of a value than its first 80 units.
 */
export function quote(s) {
  const head = Array.from(s.slice(0, 2 * QUOTED)).slice(0, QUOTED).join('');
  return head.length < s.length ? `${JSON.stringify(head)}… (${s.length} characters)` : JSON.stringify(s);
}

/**
 * A value as a type error names it: 'the string "3"', 'the number 2.5', 'null',
 * 'an array', 'an object', 'a Map', 'a function (onStep)'. The one place such
 * messages describe what was given.
 */
export function describe(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined': return 'undefined';
    case 'string': return `the string ${quote(value)}`;
    case 'number': return `the number ${String(value)}`;
    case 'bigint': return `the bigint ${value}n`;
    case 'boolean': return `the boolean ${value}`;
    case 'symbol': return 'a symbol';
    case 'function': return `a function${typeof value.name === 'string' && value.name ? ` (${value.name.length > QUOTED ? quote(value.name) : value.name})` : ''}`;
    default: {
      if (Array.isArray(value)) return 'an array';
      const proto = Object.getPrototypeOf(value);
      const name = proto === null || proto === Object.prototype ? 'object' : proto.constructor?.name;
      return typeof name === 'string' && name && name.length <= QUOTED ? article(name) : 'an object';
    }
  }
}

// C++ messages name options as the struct does (beam_size); a JS user wrote
// beamSize. Longest names first so that max_length_ratio wins over max_length.
const JS_OPTION_NAMES = OPTION_TABLE.filter((o) => o.cpp !== o.js).map((o) => [o.cpp, o.js])
  .sort(([a], [b]) => b.length - a.length);
const OPTION_NAME_RE = new RegExp(`\\b(${JS_OPTION_NAMES.map(([c]) => c).join('|')})\\b`, 'g');
const JS_NAME = new Map(JS_OPTION_NAMES);

/** A C++ error message with its option names in the JS spelling. */
export function jsOptionNames(message) {
  return message.replace(OPTION_NAME_RE, (name) => JS_NAME.get(name));
}
