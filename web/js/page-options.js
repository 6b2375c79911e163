// The options a lane's address can set: the module option each key stands for
// (wasm/src/options.js), its default and the values the page accepts. Defaults
// are the engine's and ranges lie within the engine's (src/decoding_options.json;
// tests/node/options-table.test.mjs holds the page to both), except where
// `choice` says why the page picks another default; `unset` is the value that
// passes nothing to the module, leaving the engine's default. `ui`: the slider's or
// number box's min, max and step, which may be narrower than the range (a 0-2 slider
// for a GNMT α the address may set up to 10).
export const PAGE_OPTIONS = {
  k: { option: 'beamSize', default: 5, range: [1, 16, 'int'], ui: { min: 1, max: 16, step: 1 } },
  norm: { option: 'lengthNorm', default: 'average', values: ['none', 'average', 'gnmt'] },
  alpha: { option: 'gnmtAlpha', default: 0.6, range: [0, 10, 'num'], ui: { min: 0, max: 2, step: 0.1 } },
  nbest: { option: 'nBest', default: 3, range: [1, 16, 'int'], choice: 'a beam lane lists its three best', ui: { min: 1, max: 16, step: 1 } },
  prefix: { option: 'prefix', default: '' },
  max: { option: 'maxLength', default: 0, unset: 0, range: [0, 256, 'int'] },
  temp: { option: 'temperature', default: 1, range: [0.05, 10, 'num'], ui: { min: 0.1, max: 3, step: 0.1 } },
  topk: { option: 'topK', default: 0, range: [0, 64, 'int'], ui: { min: 0, max: 64, step: 1 } },
  topp: { option: 'topP', default: 1, range: [0.01, 1, 'num'], ui: { min: 0.05, max: 1, step: 0.05 } },
  seed: { option: 'seed', default: 1, range: [0, 2 ** 31 - 1, 'int'], choice: 'the first of the seeds "new seed" steps through', ui: { min: 0, max: 2 ** 31 - 1, step: 1 } },
  T: { option: 'iterations', default: 10, range: [1, 100, 'int'], ui: { min: 1, max: 20, step: 1 } },
  // 3 and 0.03 are what g2p-cmlm is evaluated with (models/train/engine_cli.py, CMLM_LENGTH_SCORE_WEIGHT).
  lc: { option: 'lengthCandidates', default: 3, range: [1, 16, 'int'], choice: 'the length beam g2p-cmlm is evaluated with', ui: { min: 1, max: 8, step: 1 } },
  lw: { option: 'lengthScoreWeight', default: 0.03, range: [0, 10, 'num'], choice: 'the length weight g2p-cmlm is evaluated with, chosen on dev words', ui: { min: 0, max: 1, step: 0.01 } },
  len: { option: 'narLength', default: 'predicted', values: ['predicted', 'fixed', 'given'] },
  L: { option: 'length', default: 0, range: [0, 256, 'int'], ui: { min: 1, max: 256, step: 1 } },
};
