// The options a lane's address can set: the module option each key stands for
// (wasm/src/options.js), its default and the values the page accepts. Defaults
// are the engine's and ranges lie within the engine's (src/decoding_options.json;
// tests/node/options-table.test.mjs holds the page to both), except where
// `choice` says why the page picks another default; `unset` is the value that
// passes nothing to the module, leaving the engine's default.
export const PAGE_OPTIONS = {
  k: { option: 'beamSize', default: 5, range: [1, 16, 'int'] },
  norm: { option: 'lengthNorm', default: 'average', values: ['none', 'average', 'gnmt'] },
  alpha: { option: 'gnmtAlpha', default: 0.6, range: [0, 10, 'num'] },
  nbest: { option: 'nBest', default: 3, range: [1, 16, 'int'], choice: 'a beam lane lists its three best' },
  prefix: { option: 'prefix', default: '' },
  max: { option: 'maxLength', default: 0, unset: 0, range: [0, 256, 'int'] },
  temp: { option: 'temperature', default: 1, range: [0.05, 10, 'num'] },
  topk: { option: 'topK', default: 0, range: [0, 64, 'int'] },
  topp: { option: 'topP', default: 1, range: [0.01, 1, 'num'] },
  seed: { option: 'seed', default: 1, range: [0, 2 ** 31 - 1, 'int'], choice: 'the first of the seeds "new seed" steps through' },
  T: { option: 'iterations', default: 10, range: [1, 100, 'int'] },
  // 3 and 0.03 are what g2p-cmlm is evaluated with (models/train/engine_cli.py, CMLM_LENGTH_SCORE_WEIGHT).
  lc: { option: 'lengthCandidates', default: 3, range: [1, 16, 'int'], choice: 'the length beam g2p-cmlm is evaluated with' },
  lw: { option: 'lengthScoreWeight', default: 0.03, range: [0, 10, 'num'], choice: 'the length weight g2p-cmlm is evaluated with, chosen on dev words' },
  len: { option: 'narLength', default: 'predicted', values: ['predicted', 'fixed', 'given'] },
  L: { option: 'length', default: 0, range: [0, 256, 'int'] },
};
