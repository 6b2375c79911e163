// The training options are stated once, in src/train/training_options.json. This
// test fails when what is written from the table (scripts/gen-training-options.mjs:
// the C++ struct, ranges and per-task defaults, the CLI's usage and flags, the
// option table of docs/training.md, the JS table and TypeScript interface of
// seq2seq-wasm/train) is stale, and when the table breaks its own
// rules (a default outside its range, a task default for no task).
//   node --test tests/node/training-options.test.mjs
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { TRAINING_TABLE_PATH, readTrainingTable, trainingGeneratedFiles, trainingStaleFiles } from '../../scripts/gen-training-options.mjs';
import { ROOT } from './helpers.mjs';

test('the files written from the training table are up to date (else: node scripts/gen-training-options.mjs)', () => {
  assert.deepEqual(trainingStaleFiles(), []);
});

/** A scratch copy of the table and the files written from it; f(scratch) with the table changed by `change`. */
function withChangedTable(change, f) {
  const scratch = mkdtempSync(join(tmpdir(), 'gen-training-options-'));
  try {
    for (const [path] of trainingGeneratedFiles()) cpSync(join(ROOT, path), join(scratch, path), { recursive: true });
    cpSync(join(ROOT, TRAINING_TABLE_PATH), join(scratch, TRAINING_TABLE_PATH));
    const table = readTrainingTable(scratch);
    change(table);
    writeFileSync(join(scratch, TRAINING_TABLE_PATH), JSON.stringify(table));
    return f(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

test('a change to the table makes every file written from it stale', () => {
  withChangedTable(() => {}, (scratch) => assert.deepEqual(trainingStaleFiles(scratch), []));
  const stale = withChangedTable((t) => { t.options.find((o) => o.cpp === 'd_model').default = 32; }, trainingStaleFiles);
  assert.deepEqual(stale, ['src/train/training_options.h', 'src/cli/train_command.cpp', 'docs/training.md', 'wasm/src/training-options-table.js',
    'wasm/src/train.d.ts']);
  const byTask = withChangedTable((t) => { t.options.find((o) => o.cpp === 'heads').taskDefaults = { g2p: 8 }; }, trainingStaleFiles);
  assert.deepEqual(byTask, ['src/train/training_options.h', 'src/train/training_options.cpp', 'src/cli/train_command.cpp', 'docs/training.md',
    'wasm/src/training-options-table.js', 'wasm/src/train.d.ts']);
});

test('the table is refused when a default leaves its range or names no task', () => {
  assert.throws(() => withChangedTable((t) => { t.options.find((o) => o.cpp === 'heads').default = 0; }, trainingGeneratedFiles),
    /heads: the default 0 is not a valid value/);
  assert.throws(() => withChangedTable((t) => { t.options.find((o) => o.cpp === 'steps').taskDefaults = { translate: 5 }; }, trainingGeneratedFiles),
    /steps: taskDefaults names no task translate/);
  assert.throws(() => withChangedTable((t) => { t.options.find((o) => o.cpp === 'steps').taskDefaults = { g2p: 2.5 }; }, trainingGeneratedFiles),
    /steps: the g2p default 2.5 is not a valid value/);
});

test('each option has one name on every face: its CLI flag in the usage, its row in docs/training.md', () => {
  const table = readTrainingTable();
  const files = new Map(trainingGeneratedFiles());
  for (const o of table.options) {
    assert.match(files.get('src/cli/train_command.cpp'), new RegExp(`"  ${o.cli}[ ,]`), o.cpp);
    assert.match(files.get('docs/training.md'), new RegExp(`\\| \`${o.cpp}\` \\(\`${o.cli}`), o.cpp);
    assert.ok(files.get('wasm/src/training-options-table.js').includes(`{ js: '${o.js}', cpp: '${o.cpp}', type: '${o.type}'`), o.cpp);
    assert.match(files.get('wasm/src/train.d.ts'), new RegExp(`^  ${o.js}\\?: `, 'm'), o.cpp);
  }
});

test('a shorthand flag sets numeric options only, and no flag is used twice', () => {
  const shorthand = (t) => t.options.find((o) => o.cpp === 'guided_attention_weight').cliShorthand[0];
  assert.throws(() => withChangedTable((t) => { shorthand(t).sets = ['guided_attention_weight', 'norm']; }, trainingGeneratedFiles),
    /--guided-attention sets norm, which is no numeric option/);
  assert.throws(() => withChangedTable((t) => { shorthand(t).flag = '--steps'; }, trainingGeneratedFiles),
    /the flag --steps is used twice/);
  const files = new Map(trainingGeneratedFiles());
  assert.match(files.get('src/cli/train_command.cpp'), /"  --guided-attention WEIGHT\[,WIDTH\]\\n {32}guided attention's weight, and its width if given \(--guided-attention-weight, then --guided-attention-width\)\\n"/);
});
