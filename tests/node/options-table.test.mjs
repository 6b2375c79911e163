// The decoding options are stated once, in src/decoding_options.json. This test
// fails when what is written from the table (scripts/gen-options.mjs) is stale,
// and holds to the table what is written by hand: the CLI's flags and usage
// text, the option tables of README.md and docs/decoding.md, and the page's
// defaults and ranges (web/js/page-options.js), which may depart from the engine's only
// where they say so.
//   node --test tests/node/options-table.test.mjs
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { TABLE_PATH, generatedFiles, readTable, staleFiles } from '../../scripts/gen-options.mjs';
import { DEFAULT_OPTIONS, normalizeOptions } from '../../wasm/src/options.js';
import { LANE_TYPES, PAGE_OPTIONS, makeLane, moduleOptions } from '../../web/js/lane-types.js';
import { ROOT } from './helpers.mjs';

const table = readTable();
const byJs = new Map(table.options.map((o) => [o.js, o]));
const isNumeric = (o) => ['int', 'float', 'uint64'].includes(o.type);

test('the files written from the table are up to date (else: node scripts/gen-options.mjs)', () => {
  assert.deepEqual(staleFiles(), []);
});

test('a change to the table makes every file written from it stale', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gen-options-'));
  try {
    for (const [path] of generatedFiles()) cpSync(join(ROOT, path), join(scratch, path), { recursive: true });
    cpSync(join(ROOT, TABLE_PATH), join(scratch, TABLE_PATH));
    assert.deepEqual(staleFiles(scratch), []);
    const changed = readTable(scratch);
    changed.options.find((o) => o.cpp === 'beam_size').default = 6;
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.deepEqual(staleFiles(scratch), ['src/decoding_options.h', 'wasm/src/index.d.ts', 'wasm/src/options-table.js']);
    changed.enums.Strategy.values.push({ js: 'lookahead', cpp: 'Lookahead' });
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.deepEqual(staleFiles(scratch), generatedFiles().map(([p]) => p).filter((p) => p !== 'wasm/bindings.cpp'));
    changed.options.find((o) => o.cpp === 'top_k').max = 0.5;
    changed.options.find((o) => o.cpp === 'top_k').default = 7;
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.throws(() => staleFiles(scratch), /top_k: the default 7 is outside \[0, 0.5\]/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('the JS defaults are the table\'s, and every option the table holds is checked', () => {
  assert.deepEqual(Object.keys(DEFAULT_OPTIONS), table.options.map((o) => o.js));
  for (const o of table.options) assert.equal(DEFAULT_OPTIONS[o.js], o.defaultDoc === undefined ? o.default : undefined, o.js);
  const resolved = normalizeOptions({}, true);
  assert.deepEqual(Object.keys(resolved), table.options.map((o) => o.js));
  assert.equal(resolved.strategy, 'greedy');
  assert.equal(normalizeOptions({}, false).strategy, 'nar');
});

test('every CLI flag of the table is in the usage text, and every flag there is handled', () => {
  const main = readFileSync(join(ROOT, 'src/cli/main.cpp'), 'utf8');
  const usage = main.slice(main.indexOf('const char* kUsage'), main.indexOf('int usage()'));
  // decode and score share their flags: parse_command() reads them.
  const decode = main.slice(main.indexOf('Command parse_command('));
  const flags = (text) => [...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]);
  const tableFlags = table.options.flatMap((o) => [...(o.cli ? [o.cli] : []), ...flags(o.cliNote ?? '')]);
  for (const flag of tableFlags) assert.ok(flags(usage).includes(flag), `${flag} is in the usage text`);
  const handled = new Set([...flags(decode), ...table.options.filter((o) => o.cli).map((o) => o.cli)]);
  for (const flag of flags(usage)) assert.ok(handled.has(flag), `${flag} is handled in parse_command()`);
  for (const o of table.options.filter((x) => x.cli)) {
    assert.ok(!decode.includes(`"${o.cli}"`), `${o.cli} is parsed from the table, not by hand as well`);
  }
});

test('the defaults the usage text gives in brackets are the table\'s', () => {
  const main = readFileSync(join(ROOT, 'src/cli/main.cpp'), 'utf8');
  const byCli = new Map(table.options.filter((o) => o.cli).map((o) => [o.cli, o]));
  let checked = 0;
  // "  --temperature T --top-k K ...   sampling controls [1, 0 (off), 1, 0]": the k-th default is the k-th flag's.
  for (const [, line] of main.matchAll(/^ *"  (--.*)\\n"$/gm)) {
    const flags = line.split(/ {3,}/)[0].match(/--[a-z-]+/g);
    const given = /\[([^\]]*)\]$/.exec(line)?.[1].split(', ');
    if (!given || !flags.every((f) => byCli.has(f))) continue;
    flags.forEach((flag, k) => {
      const shown = given[k] === 'off' ? 0 : Number(/^[\d.]+/.exec(given[k])?.[0]);
      assert.equal(shown, byCli.get(flag).default, `${flag}: [${given.join(', ')}]`);
      checked += 1;
    });
  }
  assert.equal(checked, byCli.size, 'every flag of the table shows its default');
});

test('the option table of docs/decoding.md names every option', () => {
  const doc = readFileSync(join(ROOT, 'docs/decoding.md'), 'utf8');
  const section = doc.slice(doc.indexOf('| option (CLI flag) |'), doc.indexOf('Beam search takes the 2k best'));
  for (const o of table.options) assert.ok(section.includes(`\`${o.cpp}\``), `${o.cpp} is in the table of docs/decoding.md`);
});

test('the defaults the README\'s option table gives are the table\'s', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('| option | default | what |'));
  const rows = section.slice(0, section.indexOf('\n\n')).split('\n').slice(2);
  let checked = 0;
  // "| `beamSize`, `nBest` | 5, 1 | ..." : the k-th default is the k-th option's.
  for (const row of rows) {
    const [names, defaults] = row.split(' | ');
    const options = [...names.matchAll(/`(\w+)`/g)].map((m) => byJs.get(m[1]));
    const given = defaults.split(', ');
    options.forEach((o, k) => {
      const text = given[k].replace(/ \(.*\)$/, '');
      const shown = text === 'none' ? '' : text === 'true' || text === 'false' ? text === 'true' : /^`'(.*)'`$/.exec(text)?.[1] ?? Number(text);
      assert.equal(shown, o.default, `README: ${o.js} ${given[k]}`);
      checked += 1;
    });
  }
  assert.ok(checked >= 15, `${checked} defaults checked`);
});

test('the page\'s defaults are the engine\'s but where it says why, and its ranges lie within the engine\'s', () => {
  const choices = [];
  for (const [key, page] of Object.entries(PAGE_OPTIONS)) {
    const o = byJs.get(page.option);
    assert.ok(o, `${key}: ${page.option} is an option of the module`);
    if (page.choice) {
      assert.notEqual(page.default, o.default, `${key}: a page choice differs from the engine's default`);
      choices.push(`${key}=${page.default}`);
    } else if (!('unset' in page && page.default === page.unset)) {
      assert.equal(page.default, o.default, `${key}: the engine's default (${page.option})`);
    }
    if (o.type === 'enum') assert.deepEqual(page.values, table.enums[o.enum].values.map((v) => v.js), `${key}: the engine's values`);
    if (isNumeric(o)) {
      const [lo, hi, kind] = page.range;
      assert.equal(kind, o.type === 'float' ? 'num' : 'int', `${key}: ${o.type}`);
      const settable = lo === page.unset ? lo + 1 : lo;   // the unset value passes nothing to the engine
      assert.ok(o.openMin ? settable > o.min : settable >= o.min, `${key}: ${lo} within ${page.option}'s range`);
      assert.ok(o.max === null || hi <= o.max, `${key}: ${hi} within ${page.option}'s range`);
      assert.ok(page.default === page.unset || (page.default >= settable && page.default <= hi), `${key}: the default in the page's range`);
    }
  }
  // Declared where they are, so that these are all there are.
  assert.deepEqual(choices.sort(), ['lc=3', 'lw=0.03', 'nbest=3', 'seed=1']);
});

test('every lane\'s default options are options the module takes', () => {
  for (const type of Object.keys(LANE_TYPES)) {
    for (const key of Object.keys(LANE_TYPES[type].defaults)) assert.ok(key === 'm' || Object.hasOwn(PAGE_OPTIONS, key), `${type}: ${key}`);
    const options = moduleOptions(makeLane(type));
    const resolved = normalizeOptions(options, LANE_TYPES[type].ar);
    for (const [key, page] of Object.entries(PAGE_OPTIONS)) {
      if (!Object.hasOwn(LANE_TYPES[type].defaults, key) || !Object.hasOwn(options, page.option)) continue;
      assert.equal(resolved[page.option], page.default, `${type}: ${key} reaches the module as ${page.option}`);
    }
  }
});
