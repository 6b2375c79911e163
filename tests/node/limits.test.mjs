// The engine's limits are stated once, in src/model_limits.h; the npm package's
// JS reads them from wasm/src/limits.js, which scripts/gen-limits.mjs writes from
// the header. This test fails when that file is stale, shows that a change to
// the header reaches it, and holds the package's LIMITS to the header.
//   node --test tests/node/limits.test.mjs
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { HEADER_PATH, OUTPUT_PATH, readLimits, staleFiles } from '../../scripts/gen-limits.mjs';
import { ROOT, installPackage } from './helpers.mjs';

test('wasm/src/limits.js is up to date (else: node scripts/gen-limits.mjs)', () => {
  assert.deepEqual(staleFiles(), []);
});

test('a change to the header makes limits.js stale, and an expression it cannot read is an error', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gen-limits-'));
  try {
    for (const path of [HEADER_PATH, OUTPUT_PATH]) {
      mkdirSync(join(scratch, path, '..'), { recursive: true });
      writeFileSync(join(scratch, path), readFileSync(join(ROOT, path)));
    }
    assert.deepEqual(staleFiles(scratch), []);
    const header = readFileSync(join(scratch, HEADER_PATH), 'utf8');
    writeFileSync(join(scratch, HEADER_PATH), header.replace('kMaxTextBytes = uint64_t{1} << 16;', 'kMaxTextBytes = uint64_t{1} << 17;'));
    assert.deepEqual(staleFiles(scratch), [OUTPUT_PATH]);
    assert.equal(Object.fromEntries(readLimits(scratch).map(([k, v]) => [k, v])).maxTextBytes, 131072);
    writeFileSync(join(scratch, HEADER_PATH), header.replace('kMaxTextBytes = uint64_t{1} << 16;', 'kMaxTextBytes = kMaxPositions * 16;'));
    assert.throws(() => readLimits(scratch), /kMaxTextBytes: cannot read 'kMaxPositions'/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('the package exports the header\'s limits as LIMITS, frozen', async () => {
  const { LIMITS } = await installPackage().importPackage();
  assert.deepEqual({ ...LIMITS }, Object.fromEntries(readLimits().map(([k, v]) => [k, v])));
  assert.equal(LIMITS.maxModelBytes, 2 ** 30);
  assert.equal(LIMITS.maxTextBytes, 2 ** 16);
  assert.ok(Object.isFrozen(LIMITS));
});
