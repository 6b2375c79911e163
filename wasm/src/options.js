// Decoding options: the JS mirror of seq2seq::DecodingOptions (src/decoding_options.h).
// Both are written from one table, src/decoding_options.json (here: options-table.js).
// Types and names are checked here, with messages a JS user can act on; ranges
// are checked once, in C++ (validate()), and come back as errors too.
import { describe, named, usageError } from './errors.js';
import { OPTION_TABLE } from './options-table.js';
import { LIMITS } from './limits.js';

// strategy has no default of its own: greedy, or nar for a CMLM.
export const DEFAULT_OPTIONS = Object.freeze(Object.fromEntries(OPTION_TABLE.map((o) => [o.js, o.default])));

const INT32_MAX = 2147483647;

// Per type (the training options' too): the value as the engine takes it, or undefined, and what it must be.
export const OPTION_TYPES = {
  enum: { check: (v, o) => (o.values.includes(v) ? v : undefined), must: (o) => `must be one of ${o.values.join(', ')}` },
  int: { check: (v) => (Number.isInteger(v) && Math.abs(v) <= INT32_MAX ? v : undefined), must: () => 'must be an integer' },
  float: { check: (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined), must: () => 'must be a finite number' },
  uint64: { check: (v) => (Number.isSafeInteger(v) && v >= 0 ? v : undefined), must: () => 'must be a non-negative integer' },
  bool: { check: (v) => (typeof v === 'boolean' ? v : undefined), must: () => 'must be true or false' },
  tokens: {
    check: (v) => (typeof v === 'string' ? v : Array.isArray(v) && v.every((t) => typeof t === 'string') ? v.join(' ') : undefined),
    must: () => 'must be a string or an array of strings',
  },
};

// What was given, where the type alone does not say what is wrong with it: an
// array of tokens by what else it holds, an integer the engine's int cannot hold.
function described(v, option) {
  if (option.type === 'int' && Number.isInteger(v)) return `${describe(v)}, beyond 32 bits`;
  const odd = option.type === 'tokens' && Array.isArray(v) ? v.findIndex((t) => typeof t !== 'string') : -1;
  return odd < 0 ? describe(v) : `an array holding ${describe(v[odd])} at index ${odd}`;
}

const tooLongOption = (option, length) => usageError(`option ${option.js} has ${length} characters; the longest accepted is ${LIMITS.maxTextBytes} bytes (UTF-8)`);

export function normalizeOptions(options, autoregressive) {
  if (options == null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw usageError(`decoding options must be an object; got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    // Own keys only: 'toString' or 'constructor' are no options, though every object has them.
    if (!Object.hasOwn(DEFAULT_OPTIONS, key)) {
      throw usageError(`unknown decoding option ${named(key)} (known: ${Object.keys(DEFAULT_OPTIONS).join(', ')})`);
    }
  }
  const o = { ...DEFAULT_OPTIONS };
  for (const [k, v] of Object.entries(options)) if (v !== undefined) o[k] = v;
  if (o.strategy === undefined) o.strategy = autoregressive ? 'greedy' : 'nar';
  for (const option of OPTION_TABLE) {
    // Tokens too many to join are refused by their lengths alone, before the join copies them.
    const given = o[option.js];
    if (option.type === 'tokens' && Array.isArray(given) && given.every((t) => typeof t === 'string')) {
      const length = given.reduce((n, t) => n + t.length, Math.max(0, given.length - 1));
      if (length > LIMITS.maxTextBytes) throw tooLongOption(option, length);
    }
    const type = OPTION_TYPES[option.type];
    const value = type.check(o[option.js], option);
    if (value === undefined) throw usageError(`option ${option.js} ${type.must(option)}; got ${described(o[option.js], option)}`);
    // A string is refused by its length before it is converted for the engine (text.js).
    if (typeof value === 'string' && value.length > LIMITS.maxTextBytes) throw tooLongOption(option, value.length);
    o[option.js] = value;
  }
  return o;
}
