// The page's lanes decode, by default, the way the shipped models' numbers in
// models/README.md were measured: models/train/decoding.json states the settings
// per kind of model; models/manifest.json carries them as each model's `decoding`
// and the page's models.json as `decoding` per kind (scripts/build-web.mjs), which
// the beam and Mask-Predict lanes take as their defaults (lane-types.js
// useModelDecoding). This test holds the three together, and the page to them.
//   node --test tests/browser/defaults.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LANE_TYPES, makeLane, moduleOptions, useModelDecoding } from '../../web/js/lane-types.js';
import { openPage, root, servedSite, site, waitReady } from './helpers.mjs';

const manifest = JSON.parse(readFileSync(join(root, 'models/manifest.json'), 'utf8'));
const siteData = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const shipped = (name) => manifest.models.find((m) => m.name === name)?.decoding;

test('the page carries the decoding each shipped model was measured with', () => {
  assert.deepEqual(siteData.decoding.cmlm, shipped('g2p-cmlm'));
  assert.deepEqual(siteData.decoding.autoregressive, shipped('g2p-transformer'));
  assert.ok(shipped('g2p-cmlm').lengthScoreWeight > 0, 'g2p-cmlm is measured with a length score weight');
});

test('the beam and Mask-Predict lanes default to those settings, and other lanes keep their own', () => {
  const greedyBefore = { ...LANE_TYPES.greedy.defaults };
  const set = useModelDecoding(siteData.decoding);
  assert.deepEqual(Object.keys(set).sort(), ['beam', 'mp']);
  const mp = moduleOptions(makeLane('mp'));
  for (const [key, value] of Object.entries(shipped('g2p-cmlm'))) assert.equal(mp[key], value, `mask-predict ${key}`);
  const beam = moduleOptions(makeLane('beam'));
  for (const [key, value] of Object.entries(shipped('g2p-transformer'))) assert.equal(beam[key], value, `beam ${key}`);
  assert.deepEqual(LANE_TYPES.greedy.defaults, greedyBefore);
});

test('a measured setting a lane cannot take is an error, not a clamped default', () => {
  assert.throws(() => useModelDecoding({ cmlm: { strategy: 'nar', lengthCandidates: 99 } }), /lengthCandidates = 99 is outside/);
  useModelDecoding(siteData.decoding);
});

const served = servedSite();

test('the page as opened decodes its Mask-Predict lane with g2p-cmlm\'s settings', async () => {
  const { page, errors } = await openPage(served.context, served.url('/?w=PHONEME&lane=mp'));
  await waitReady(page);
  const opts = await page.evaluate(() => window.seq2seqPage.lanes[0].opts);
  for (const key of ['iterations', 'lengthCandidates', 'lengthScoreWeight']) assert.equal(opts[key], shipped('g2p-cmlm')[key], key);
  // The address leaves out what equals a default: the measured settings are the defaults.
  assert.match(await page.evaluate(() => location.search), /lane=mp(&|$)/);
  assert.deepEqual(errors, []);
  await page.close();
});
