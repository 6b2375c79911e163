// The page's Mask-Predict lane decodes, by default, the way g2p-cmlm's numbers in
// models/README.md were measured: the length score weight is chosen on dev words
// for the shipped model and lives in models/train/decoding.json, which models/manifest.json
// carries as g2p-cmlm's `decoding`; web/js/page-options.js repeats it for the page. This test
// keeps the two from drifting apart.
//   node --test tests/browser/defaults.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeLane, moduleOptions } from '../../web/js/lane-types.js';
import { root } from './helpers.mjs';

test('the Mask-Predict lane defaults to the evaluation options of g2p-cmlm', () => {
  const { models } = JSON.parse(readFileSync(join(root, 'models/manifest.json'), 'utf8'));
  const shipped = models.find((m) => m.name === 'g2p-cmlm')?.decoding;
  assert.ok(shipped?.lengthScoreWeight, 'models/manifest.json gives g2p-cmlm a lengthScoreWeight');
  const opts = moduleOptions(makeLane('mp'));
  assert.equal(opts.lengthScoreWeight, shipped.lengthScoreWeight, 'lengthScoreWeight');
  assert.equal(opts.lengthCandidates, 3, 'lengthCandidates (models.train evaluate and the CI checks use 3)');
  assert.equal(opts.iterations, 10, 'iterations (T = 10)');
});
