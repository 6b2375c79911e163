// The shapes of snapshots, results and forced scores are stated once, in
// src/snapshot_schema.json. This test fails when what is written from the
// schema (scripts/gen-snapshot.mjs) is stale, shows that a change to the schema
// reaches every file written from it, and holds the writers to the visitor:
// neither the Embind values nor the --trace JSON names a field by hand.
//   node --test tests/node/snapshot-schema.test.mjs
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SCHEMA_PATH, camel, generatedFiles, readSchema, staleFiles } from '../../scripts/gen-snapshot.mjs';
import { ROOT } from './helpers.mjs';

const schema = readSchema();

function scratchCopy() {
  const scratch = mkdtempSync(join(tmpdir(), 'gen-snapshot-'));
  for (const [path] of generatedFiles()) cpSync(join(ROOT, path), join(scratch, path), { recursive: true });
  cpSync(join(ROOT, SCHEMA_PATH), join(scratch, SCHEMA_PATH));
  return scratch;
}

test('the files written from the schema are up to date (else: node scripts/gen-snapshot.mjs)', () => {
  assert.deepEqual(staleFiles(), []);
});

test('a change to the schema makes every file written from it stale', () => {
  const scratch = scratchCopy();
  try {
    assert.deepEqual(staleFiles(scratch), []);
    const changed = readSchema(scratch);
    const result = changed.structs.find((s) => s.cpp === 'Result');
    result.fields.push({ cpp: 'extra_count', type: 'int', doc: 'a field for this test' });
    writeFileSync(join(scratch, SCHEMA_PATH), JSON.stringify(changed));
    // An int: the struct, the visitor and the TS interface; no buffer to transfer.
    assert.deepEqual(staleFiles(scratch), ['src/snapshot.h', 'src/snapshot_fields.h', 'wasm/src/index.d.ts']);
    result.fields.at(-1).type = 'float32-array';
    writeFileSync(join(scratch, SCHEMA_PATH), JSON.stringify(changed));
    // A typed array, reached through Snapshot.results: the worker transfers it too.
    assert.deepEqual(staleFiles(scratch), generatedFiles().map(([p]) => p));
    const [, fields] = generatedFiles(scratch).find(([p]) => p === 'src/snapshot_fields.h');
    assert.match(fields, /v\.float32_array\("extraCount", x\.extra_count\);/);
    const [, worker] = generatedFiles(scratch).find(([p]) => p === 'wasm/src/worker-protocol.js');
    assert.match(worker, /function buffersOfResult\(o, add\) \{\n {2}add\(o\.extraCount\);/);
    result.fields.at(-1).type = 'long';
    writeFileSync(join(scratch, SCHEMA_PATH), JSON.stringify(changed));
    assert.throws(() => staleFiles(scratch), /Result\.extra_count: unknown type long/);
    result.fields.at(-1).type = 'int';
    result.fields.at(-1).when = [{ nonEmpty: 'no_such_field' }];
    writeFileSync(join(scratch, SCHEMA_PATH), JSON.stringify(changed));
    assert.throws(() => staleFiles(scratch), /Result\.extra_count: the condition names no field no_such_field/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('every field of the schema is in the visitor and the TS interfaces, under its camelCase name', () => {
  const fields = readFileSync(join(ROOT, 'src/snapshot_fields.h'), 'utf8');
  const dts = readFileSync(join(ROOT, 'wasm/src/index.d.ts'), 'utf8');
  for (const s of schema.structs) {
    const visitor = fields.slice(fields.indexOf(`void visit_fields(const ${s.cpp}& x`), fields.indexOf('\n}\n', fields.indexOf(`void visit_fields(const ${s.cpp}& x`)));
    for (const f of s.fields) {
      assert.ok(visitor.includes(`("${camel(f.cpp)}", `), `${s.cpp}.${f.cpp}: visited as ${camel(f.cpp)}`);
      assert.ok(visitor.includes(`x.${f.cpp});`), `${s.cpp}.${f.cpp}: its C++ member`);
      assert.match(dts, new RegExp(`^ {2}${camel(f.cpp)}\\??: `, 'm'), `${s.cpp}.${f.cpp}: declared in TS`);
    }
  }
});

test('the writers name no field by hand: both go through visit_fields', () => {
  const names = new Set(schema.structs.flatMap((s) => s.fields.flatMap((f) => [f.cpp, camel(f.cpp)])));
  for (const path of ['src/snapshot_json.cpp', 'wasm/bindings.cpp']) {
    const text = readFileSync(join(ROOT, path), 'utf8');
    // bindings.cpp writes the model's info by hand (not a snapshot shape): only its snapshot part counts.
    const snapshotPart = path.endsWith('bindings.cpp') ? text.slice(0, text.indexOf('// BEGIN GENERATED')) : text;
    const named = [...snapshotPart.matchAll(/"(\w+)"/g)].map((m) => m[1]).filter((n) => names.has(n));
    assert.deepEqual(named, [], `${path} names ${named.join(', ')} itself`);
    assert.match(text, /visit_fields\(x, w, context\.\.\.\)/, `${path} writes through visit_fields`);
  }
});
