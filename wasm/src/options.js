// Decoding options: the JS mirror of seq2seq::DecodingOptions (src/decoding_options.h).
// Types and names are checked here, with messages a JS user can act on; ranges
// are checked once, in C++ (validate()), and come back as errors too.

export const DEFAULT_OPTIONS = Object.freeze({
  strategy: undefined,          // 'greedy' | 'beam' | 'sample' | 'nar'; default: greedy, or nar for a CMLM
  beamSize: 5,
  lengthNorm: 'average',        // 'none' | 'average' | 'gnmt'
  gnmtAlpha: 0.6,
  maxLength: 256,
  maxLengthRatio: 0,
  minLength: 0,
  nBest: 1,
  prefix: '',                   // forced first target tokens: 'HH AH' or ['HH', 'AH']
  temperature: 1,
  topK: 0,
  topP: 1,
  seed: 0,
  narLength: 'predicted',       // 'predicted' | 'fixed' | 'given'
  lengthCandidates: 1,
  lengthScoreWeight: 0,         // rank length candidates by avg log P(tokens) + w * log P(length)
  length: 0,                    // narLength 'given'
  iterations: 10,
  earlyStop: true,
  topCandidates: 5,
  attention: true,
});

const ENUMS = {
  strategy: ['greedy', 'beam', 'sample', 'nar'],
  lengthNorm: ['none', 'average', 'gnmt'],
  narLength: ['predicted', 'fixed', 'given'],
};
const INTS = ['beamSize', 'maxLength', 'minLength', 'nBest', 'topK', 'lengthCandidates', 'length', 'iterations', 'topCandidates'];
const NUMBERS = ['gnmtAlpha', 'maxLengthRatio', 'temperature', 'topP', 'lengthScoreWeight'];
const BOOLS = ['earlyStop', 'attention'];

export function normalizeOptions(options, autoregressive) {
  if (options == null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) throw new TypeError('decoding options must be an object');
  for (const key of Object.keys(options)) {
    // Own keys only: 'toString' or 'constructor' are no options, though every object has them.
    if (!Object.hasOwn(DEFAULT_OPTIONS, key)) {
      throw new TypeError(`unknown decoding option '${key}' (known: ${Object.keys(DEFAULT_OPTIONS).join(', ')})`);
    }
  }
  const o = { ...DEFAULT_OPTIONS };
  for (const [k, v] of Object.entries(options)) if (v !== undefined) o[k] = v;
  if (o.strategy === undefined) o.strategy = autoregressive ? 'greedy' : 'nar';
  for (const [k, allowed] of Object.entries(ENUMS)) {
    if (!allowed.includes(o[k])) throw new TypeError(`option ${k} must be one of ${allowed.join(', ')}; got ${JSON.stringify(o[k])}`);
  }
  for (const k of INTS) {
    if (!Number.isInteger(o[k]) || Math.abs(o[k]) > 2147483647) throw new TypeError(`option ${k} must be an integer; got ${String(o[k])}`);
  }
  for (const k of NUMBERS) {
    if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) throw new TypeError(`option ${k} must be a finite number; got ${String(o[k])}`);
  }
  for (const k of BOOLS) {
    if (typeof o[k] !== 'boolean') throw new TypeError(`option ${k} must be true or false; got ${String(o[k])}`);
  }
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) throw new TypeError(`option seed must be a non-negative integer; got ${String(o.seed)}`);
  if (Array.isArray(o.prefix)) {
    if (!o.prefix.every((t) => typeof t === 'string')) throw new TypeError('option prefix must be a string or an array of strings');
    o.prefix = o.prefix.join(' ');
  } else if (typeof o.prefix !== 'string') {
    throw new TypeError('option prefix must be a string or an array of strings');
  }
  return o;
}
