// The decoding options as the JS layer checks them (wasm/src/options.js), written by
// scripts/gen-options.mjs from src/decoding_options.json: edit the table, then run the script.
// type: enum (one of values), int (32 bits), float (finite), uint64 (a safe integer >= 0),
// bool, tokens (a string, or an array of strings joined with spaces). An option without a
// default takes it from the model. Ranges are not here: validate() in C++ checks them.
export const OPTION_TABLE = Object.freeze([
  Object.freeze({ js: 'strategy', cpp: 'strategy', type: 'enum', values: ['greedy', 'beam', 'sample', 'nar'] }),
  Object.freeze({ js: 'beamSize', cpp: 'beam_size', type: 'int', default: 5 }),
  Object.freeze({ js: 'lengthNorm', cpp: 'length_norm', type: 'enum', values: ['none', 'average', 'gnmt'], default: 'average' }),
  Object.freeze({ js: 'gnmtAlpha', cpp: 'gnmt_alpha', type: 'float', default: 0.6 }),
  Object.freeze({ js: 'maxLength', cpp: 'max_length', type: 'int', default: 256 }),
  Object.freeze({ js: 'maxLengthRatio', cpp: 'max_length_ratio', type: 'float', default: 0 }),
  Object.freeze({ js: 'minLength', cpp: 'min_length', type: 'int', default: 0 }),
  Object.freeze({ js: 'nBest', cpp: 'n_best', type: 'int', default: 1 }),
  Object.freeze({ js: 'prefix', cpp: 'prefix', type: 'tokens', default: '' }),
  Object.freeze({ js: 'temperature', cpp: 'temperature', type: 'float', default: 1 }),
  Object.freeze({ js: 'topK', cpp: 'top_k', type: 'int', default: 0 }),
  Object.freeze({ js: 'topP', cpp: 'top_p', type: 'float', default: 1 }),
  Object.freeze({ js: 'seed', cpp: 'seed', type: 'uint64', default: 0 }),
  Object.freeze({ js: 'narLength', cpp: 'nar_length', type: 'enum', values: ['predicted', 'fixed', 'given'], default: 'predicted' }),
  Object.freeze({ js: 'lengthCandidates', cpp: 'length_candidates', type: 'int', default: 1 }),
  Object.freeze({ js: 'lengthScoreWeight', cpp: 'length_score_weight', type: 'float', default: 0 }),
  Object.freeze({ js: 'narGivenLength', cpp: 'nar_given_length', type: 'int', default: 0 }),
  Object.freeze({ js: 'iterations', cpp: 'iterations', type: 'int', default: 10 }),
  Object.freeze({ js: 'earlyStop', cpp: 'early_stop', type: 'bool', default: true }),
  Object.freeze({ js: 'topCandidates', cpp: 'top_candidates', type: 'int', default: 5 }),
  Object.freeze({ js: 'attention', cpp: 'attention', type: 'bool', default: true }),
]);
