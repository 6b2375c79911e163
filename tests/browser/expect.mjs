// What the page should show, from the npm module itself (wasm/src/index.js, in
// Node) on the same model files the site serves.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadModel } from '../../wasm/src/index.js';
import { site } from './helpers.mjs';

const loaded = new Map();

/** The module's Model for a models.json entry (loaded once). */
export async function moduleModel(m) {
  if (!loaded.has(m.id)) loaded.set(m.id, loadModel(join(site, m.file)));
  return loaded.get(m.id);
}

export async function releaseModels() {
  for (const p of loaded.values()) (await p).delete();
  loaded.clear();
}

/** The page's n-best equals the module's: texts, scores and log-probabilities. */
export function sameResults(got, want, what) {
  assert.equal(got.length, want.length, `${what}: n-best size`);
  got.forEach((r, i) => {
    assert.equal(r.text, want[i].text, `${what}: result ${i} text`);
    assert.ok(Math.abs(r.score - want[i].score) < 1e-6, `${what}: result ${i} score ${r.score} vs ${want[i].score}`);
    assert.ok(Math.abs(r.logprob - want[i].logprob) < 1e-6, `${what}: result ${i} log P`);
  });
}
