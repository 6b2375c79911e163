// The site's model entries (scripts/site/models.mjs) are the engine's info() of each file:
// the page folds a word's case by its sourceCase. A module built before a fact the page reads
// was bound (a stale wasm/dist/) must stop the build with a message naming it, rather than
// write a site that refuses every lower-case word as letters outside the alphabet.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { StaleModuleError, checkedInfo, modelInfo } from '../../scripts/site/model-info.mjs';
import { foldCase, sourceLetters } from '../../web/shared/lane-models.js';

const root = resolve(import.meta.dirname, '../..');
const fixture = join(root, 'tests/fixtures/rnn_dot.safetensors');

test('an info() without sourceCase or sourceSpecials stops the build, naming what it lacks and the rebuild', async () => {
  const info = await modelInfo(fixture);
  assert.equal(checkedInfo(info, fixture), info);
  const { sourceCase, ...noCase } = info;
  assert.ok(['none', 'upper', 'lower'].includes(sourceCase));
  assert.throws(() => checkedInfo(noCase, fixture), (e) => e instanceof StaleModuleError
    && e.message.includes(fixture) && /sourceCase \(undefined\)/.test(e.message) && /scripts\/build-wasm\.sh/.test(e.message));
  assert.throws(() => checkedInfo({ ...info, sourceCase: 'title' }, fixture), /sourceCase \("title"\)/);
  const { sourceSpecials, ...noSpecials } = info;
  assert.ok(sourceSpecials);
  assert.throws(() => checkedInfo(noSpecials, fixture), /sourceSpecials/);
});

test('the site\'s entries read a lower-case word as their models do: case folded into the alphabet', async () => {
  const { siteModels } = await import('../../scripts/site/models.mjs');
  const { dataRules } = await import('../../scripts/cmudict.mjs');
  const out = mkdtempSync(join(tmpdir(), 'site-models-'));
  try {
    const models = await siteModels(root, out, dataRules(root), { warn: (m) => assert.fail(m) });
    assert.ok(models.some((m) => m.arch === 'rnn'));
    for (const m of models) {
      assert.ok(m.examples.length, `${m.id}: example words`);
      const alphabet = new Set(sourceLetters(m));
      const word = m.examples[0];
      const typed = word.toLowerCase() === word ? word.toUpperCase() : word.toLowerCase();
      assert.ok([...foldCase(m, typed)].every((c) => alphabet.has(c)), `${m.id}: "${typed}" read as ${foldCase(m, typed)}`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
