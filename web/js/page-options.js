// The options a lane of the page can set, keyed by the module's option name (which is
// also the key in a lane's address), written by scripts/gen-options.mjs from
// src/decoding_options.json (each option's "page"): edit the table, then run the script.
//   default  the engine's, except where `choice` says why the page picks another
//   values   an enum's values; range: [min, max, 'int'|'num'], what the page accepts
//            (and clamps to), the same as ui, its control's min, max and step; both lie
//            within the engine's range (the script checks)
//   unset    the value that passes nothing to the module, leaving the engine's default
//   alias    the short key older addresses used for it (?lane=beam:k=5)
export const PAGE_OPTIONS = Object.freeze({
  beamSize: Object.freeze({ option: 'beamSize', default: 5, range: [1, 16, 'int'], ui: Object.freeze({ min: 1, max: 16, step: 1 }), alias: 'k' }),
  lengthNorm: Object.freeze({ option: 'lengthNorm', default: 'average', values: ['none', 'average', 'gnmt'], alias: 'norm' }),
  gnmtAlpha: Object.freeze({ option: 'gnmtAlpha', default: 0.6, range: [0, 2, 'num'], ui: Object.freeze({ min: 0, max: 2, step: 0.1 }), alias: 'alpha' }),
  maxLength: Object.freeze({ option: 'maxLength', default: 0, range: [0, 256, 'int'], ui: Object.freeze({ min: 0, max: 256, step: 1 }), unset: 0, alias: 'max' }),
  nBest: Object.freeze({ option: 'nBest', default: 3, range: [1, 16, 'int'], ui: Object.freeze({ min: 1, max: 16, step: 1 }), choice: 'a beam lane lists its three best', alias: 'nbest' }),
  prefix: Object.freeze({ option: 'prefix', default: '' }),
  temperature: Object.freeze({ option: 'temperature', default: 1, range: [0.1, 3, 'num'], ui: Object.freeze({ min: 0.1, max: 3, step: 0.1 }), alias: 'temp' }),
  topK: Object.freeze({ option: 'topK', default: 0, range: [0, 64, 'int'], ui: Object.freeze({ min: 0, max: 64, step: 1 }), alias: 'topk' }),
  topP: Object.freeze({ option: 'topP', default: 1, range: [0.05, 1, 'num'], ui: Object.freeze({ min: 0.05, max: 1, step: 0.05 }), alias: 'topp' }),
  seed: Object.freeze({ option: 'seed', default: 1, range: [0, 2147483647, 'int'], ui: Object.freeze({ min: 0, max: 2147483647, step: 1 }), choice: 'the first of the seeds "new seed" steps through' }),
  narLength: Object.freeze({ option: 'narLength', default: 'predicted', values: ['predicted', 'fixed', 'given'], alias: 'len' }),
  lengthCandidates: Object.freeze({ option: 'lengthCandidates', default: 1, range: [1, 8, 'int'], ui: Object.freeze({ min: 1, max: 8, step: 1 }), alias: 'lc' }),
  lengthScoreWeight: Object.freeze({ option: 'lengthScoreWeight', default: 0, range: [0, 1, 'num'], ui: Object.freeze({ min: 0, max: 1, step: 0.01 }), alias: 'lw' }),
  narGivenLength: Object.freeze({ option: 'narGivenLength', default: 0, range: [0, 256, 'int'], ui: Object.freeze({ min: 0, max: 256, step: 1 }), alias: 'L' }),
  iterations: Object.freeze({ option: 'iterations', default: 10, range: [1, 20, 'int'], ui: Object.freeze({ min: 1, max: 20, step: 1 }), alias: 'T' }),
});

// The rules between options, in their JS names: the engine's validate() refuses options
// that break one (src/decoding_options.cpp check_rules). Each holds `option` when the
// options of `when` have those values: below or atMost another option, equals or atLeast
// a number; `page`: the page brings a lane's options into line with it (settleRules, ruleMax).
export const OPTION_RULES = Object.freeze([
  Object.freeze({ option: 'minLength', below: 'maxLength', when: Object.freeze({}) }),
  Object.freeze({ option: 'nBest', atMost: 'beamSize', when: Object.freeze({ strategy: 'beam' }), page: true }),
  Object.freeze({ option: 'nBest', equals: 1, when: Object.freeze({ strategy: 'greedy' }) }),
  Object.freeze({ option: 'narGivenLength', atLeast: 1, when: Object.freeze({ strategy: 'nar', narLength: 'given' }) }),
]);

const holds = (rule, o) => Object.entries(rule.when).every(([k, v]) => o[k] === v);

/** The largest value options `o` (JS names, strategy among them) leave `key` under the page's rules; Infinity if none bounds it. */
export function ruleMax(key, o) {
  return OPTION_RULES.filter((r) => r.page && r.option === key && holds(r, o) && r.atMost in o).reduce((m, r) => Math.min(m, o[r.atMost]), Infinity);
}

/** Options `o` (JS names, strategy among them) brought into line with the page's rules, in place; returns `o`. */
export function settleRules(o) {
  for (const r of OPTION_RULES) if (r.page && r.option in o && holds(r, o) && r.atMost in o) o[r.option] = Math.min(o[r.option], o[r.atMost]);
  return o;
}

// The length normalisations: the score is log P(Y) / divisor(|Y|, α) (none: log P itself), as
// src/decoding_options.cpp normalized_score computes it; `shown` and `divisorShown` write it for
// a reader ({length}, {alpha}: the numbers). |Y| counts END.
export const LENGTH_NORMS = Object.freeze({
  none: Object.freeze({ shown: 'log P', divisor: null }),
  average: Object.freeze({ shown: 'log P / |Y|', divisor: (length, alpha) => Math.max(length, 1), divisorShown: '{length}' }),
  gnmt: Object.freeze({ shown: 'log P / ((5+|Y|)/6)^α', divisor: (length, alpha) => Math.pow((5.0 + length) / 6.0, alpha), divisorShown: '((5+{length})/6)^{alpha}' }),
});

/** log P(Y) of a hypothesis of |Y| = length normalised as `norm` (a LENGTH_NORMS key) says, with α = alpha. */
export function normalizedScore(logprob, length, norm, alpha) {
  const d = LENGTH_NORMS[norm]?.divisor;
  return d ? logprob / d(length, alpha) : logprob;
}

/** A control's [min, max, step], as range() and num() of web/js/lane.js take them. */
export const uiRange = (key) => [PAGE_OPTIONS[key].ui.min, PAGE_OPTIONS[key].ui.max, PAGE_OPTIONS[key].ui.step];

/** The option an address key names: its name, or the short key older addresses used. */
const ALIASES = new Map(Object.entries(PAGE_OPTIONS).flatMap(([key, p]) => (p.alias ? [[p.alias, key]] : [])));
export const optionKey = (key) => ALIASES.get(key) ?? key;
