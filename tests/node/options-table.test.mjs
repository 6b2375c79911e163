// The decoding options are stated once, in src/decoding_options.json. This test
// fails when what is written from the table (scripts/gen-options.mjs: the C++,
// the bindings, the types, the CLI's usage and flags, the option tables of
// README.md and docs/decoding.md, the page's PAGE_OPTIONS) is stale, and checks
// that the page departs from the engine's defaults and ranges only where the
// table says so, and that old page addresses keep their meaning.
//   node --test tests/node/options-table.test.mjs
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { TABLE_PATH, generatedFiles, readTable, staleFiles } from '../../scripts/gen-options.mjs';
import { DEFAULT_OPTIONS, normalizeOptions } from '../../wasm/src/options.js';
import { LANE_TYPES, LaneSpecError, PAGE_OPTIONS, makeLane, moduleOptions, settleLaneOptions, wordSeed } from '../../web/js/lane-types.js';
import { normalizedScore, ruleMax } from '../../web/js/page-options.js';
import { fmt, scoreFormula } from '../../web/js/format.js';
import { decodeState, encodeState } from '../../web/js/address.js';
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
    assert.deepEqual(staleFiles(scratch), ['src/decoding_options.h', 'wasm/src/index.d.ts', 'wasm/src/options-table.js',
      'src/cli/main.cpp', 'README.md', 'docs/decoding.md', 'web/js/page-options.js']);
    changed.enums.Strategy.values.push({ js: 'lookahead', cpp: 'Lookahead' });
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.deepEqual(staleFiles(scratch), generatedFiles().map(([p]) => p).filter((p) => p !== 'wasm/bindings.cpp'));
    changed.options.find((o) => o.cpp === 'top_k').max = 0.5;
    changed.options.find((o) => o.cpp === 'top_k').default = 7;
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.throws(() => staleFiles(scratch), /top_k: the default 7 is outside \[0, 0.5\]/);
    changed.options.find((o) => o.cpp === 'top_k').max = 100000;
    changed.options.find((o) => o.cpp === 'top_p').page.max = 2;
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.throws(() => staleFiles(scratch), /top_p: page: \[0.05, 2\] is not within the engine's range \(0, 1\]/);
    changed.options.find((o) => o.cpp === 'top_p').page.max = 1;
    const named = JSON.parse(JSON.stringify(changed));
    named.options.find((o) => o.cpp === 'top_k').js = 'topKay';
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(named));
    assert.throws(() => staleFiles(scratch), /top_k: js and cli names are derived from cpp/);
    changed.options.find((o) => o.cpp === 'top_k').page.urlAlias = 'seed';
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.throws(() => staleFiles(scratch), /the URL alias seed is used twice/);
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

test('the page\'s defaults are the engine\'s but where it says why, and its ranges lie within the engine\'s', () => {
  const choices = [];
  for (const [key, page] of Object.entries(PAGE_OPTIONS)) {
    const o = byJs.get(page.option);
    assert.ok(o, `${key}: ${page.option} is an option of the module`);
    assert.equal(key, page.option, 'keyed by the module\'s option name');
    if (page.range) assert.deepEqual(page.range.slice(0, 2), [page.ui.min, page.ui.max], `${key}: the control's range is what the page accepts`);
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
  assert.deepEqual(choices.sort(), ['nBest=3', 'seed=1']);   // the CMLM's length beam comes from its measured decoding (defaults.test.mjs)
});

test('every lane\'s default options are options the module takes', () => {
  for (const type of Object.keys(LANE_TYPES)) {
    for (const key of Object.keys(LANE_TYPES[type].defaults)) assert.ok(key === 'm' || Object.hasOwn(PAGE_OPTIONS, key), `${type}: ${key}`);
    const options = moduleOptions(makeLane(type), 'DELETE');
    const resolved = normalizeOptions(options, LANE_TYPES[type].ar);
    for (const [key, page] of Object.entries(PAGE_OPTIONS)) {
      if (!Object.hasOwn(LANE_TYPES[type].defaults, key) || !Object.hasOwn(options, page.option)) continue;
      // An option that follows the word (null: a sampling lane's seed) reaches it as the word's.
      const want = LANE_TYPES[type].defaults[key] === null ? wordSeed('DELETE') : page.default;
      assert.equal(resolved[page.option], want, `${type}: ${key} reaches the module as ${page.option}`);
    }
  }
});

test('names are the C++ name, mechanically: camelCase in JS and the page\'s address, --kebab-case on the CLI', () => {
  for (const o of table.options) {
    assert.equal(o.js, o.cpp.replace(/_(.)/g, (_, c) => c.toUpperCase()), o.cpp);
    assert.equal(o.cli, `--${o.cpp.replaceAll('_', '-')}`, o.cpp);
  }
  assert.equal(byJs.get('narGivenLength').cpp, 'nar_given_length');
  assert.ok(!byJs.has('length'));
});

test('old page addresses with short option keys keep their meaning; new ones use the module\'s names', () => {
  const old = decodeState('?w=AB&lane=beam:k=7,norm=gnmt,alpha=1.5,nbest=2&lane=mp:T=4,lc=2,lw=0.5,len=given,L=6&lane=sample:temp=0.5,topk=3,topp=0.5,seed=9,max=4');
  assert.deepEqual(old.notes, []);
  const [beam, mp, sample] = old.lanes;
  assert.deepEqual(moduleOptions(beam), { ...moduleOptions(makeLane('beam', { beamSize: 7, lengthNorm: 'gnmt', gnmtAlpha: 1.5, nBest: 2 })) });
  assert.equal(moduleOptions(beam).beamSize, 7);
  assert.equal(moduleOptions(beam).gnmtAlpha, 1.5);
  assert.deepEqual([mp.opts.iterations, mp.opts.lengthCandidates, mp.opts.lengthScoreWeight, mp.opts.narLength, mp.opts.narGivenLength], [4, 2, 0.5, 'given', 6]);
  assert.equal(moduleOptions(mp).narGivenLength, 6);
  assert.deepEqual([sample.opts.temperature, sample.opts.topK, sample.opts.topP, sample.opts.seed, sample.opts.maxLength], [0.5, 3, 0.5, 9, 4]);
  const url = encodeState({ word: 'AB', step: null, lanes: old.lanes });
  assert.match(url, /lane=beam:beamSize=7,lengthNorm=gnmt,gnmtAlpha=1.5,nBest=2/);
  assert.deepEqual(decodeState(url).lanes, old.lanes);
  // Out of the page's range: clamped to the control's, not the engine's.
  assert.equal(decodeState('?lane=beam:gnmtAlpha=9').lanes[0].opts.gnmtAlpha, PAGE_OPTIONS.gnmtAlpha.ui.max);
});

test('a lane is made of its type\'s options only: an unknown type or option is refused with a typed error, as the module refuses one', () => {
  // "max" is an old address's short key for maxLength (read by the address, which names what it
  // leaves out), not an option: a lane asked for it directly must not decode as if unasked.
  for (const [type, opts] of [['greedy', { max: 3 }], ['beam', { beamSize: 4, bogus: 1 }], ['nar', { prefix: 'D' }], ['compare', { beamSize: 2 }]]) {
    assert.throws(() => makeLane(type, opts), (e) => e instanceof LaneSpecError && e.kind === 'UsageError' && /has no option/.test(e.message), `${type} ${JSON.stringify(opts)}`);
  }
  for (const type of ['lookahead', 'constructor', '']) assert.throws(() => makeLane(type), (e) => e.kind === 'UsageError' && /unknown lane type/.test(e.message), type);
  assert.equal(makeLane('greedy', { maxLength: 3 }).opts.maxLength, 3);
  assert.equal(makeLane('beam', { beamSize: 99 }).opts.beamSize, PAGE_OPTIONS.beamSize.ui.max, 'a known option is still clamped to the page\'s range');
});

test('the rules between options and the length normalisations are the table\'s: a change there makes the engine\'s and the page\'s stale', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gen-options-'));
  try {
    for (const [path] of generatedFiles()) cpSync(join(ROOT, path), join(scratch, path), { recursive: true });
    cpSync(join(ROOT, TABLE_PATH), join(scratch, TABLE_PATH));
    const changed = readTable(scratch);
    changed.rules.find((r) => r.atMost === 'beam_size').atMost = 'top_candidates';
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(changed));
    assert.deepEqual(staleFiles(scratch), ['src/decoding_options.cpp', 'web/js/page-options.js']);
    cpSync(join(ROOT, TABLE_PATH), join(scratch, TABLE_PATH));
    const norm = readTable(scratch);
    norm.enums.LengthNorm.values.find((v) => v.js === 'gnmt').divisor = 'pow((6.0 + length) / 7.0, alpha)';
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(norm));
    assert.ok(['src/decoding_options.cpp', 'web/js/page-options.js'].every((f) => staleFiles(scratch).includes(f)), staleFiles(scratch).join(', '));
    // A rule or a divisor the generator cannot write the same in C++ and JS is refused.
    norm.enums.LengthNorm.values.find((v) => v.js === 'gnmt').divisor = 'exp(length)';
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(norm));
    assert.throws(() => staleFiles(scratch), /divisor uses numbers/);
    const bad = readTable(ROOT);
    bad.rules[0].atMost = 'beam_size';
    writeFileSync(join(scratch, TABLE_PATH), JSON.stringify(bad));
    assert.throws(() => staleFiles(scratch), /one of below, atMost/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  // Neither face writes the formulas or the rules by hand.
  const read = (p) => readFileSync(join(ROOT, p), 'utf8');
  assert.doesNotMatch(read('web/js/format.js'), /Math\.pow|\(5 \+/);
  assert.doesNotMatch(read('web/js/lane-types.js') + read('web/js/lane-beam.js'), /Math\.min\(o\.nBest/);
  const handWritten = read('src/decoding_options.cpp').replace(/BEGIN GENERATED[\s\S]*END GENERATED/, '');
  assert.doesNotMatch(handWritten, /n_best|std::pow/);
});

test('the page brings a lane\'s options into line with the table\'s rules: a beam lists no more than k, its control says so', () => {
  assert.equal(moduleOptions(makeLane('beam', { beamSize: 2, nBest: 5 })).nBest, 2);
  assert.equal(moduleOptions(makeLane('beam', { beamSize: 6, nBest: 5 })).nBest, 5);
  assert.equal(ruleMax('nBest', { strategy: 'beam', beamSize: 4 }), 4);
  assert.equal(ruleMax('nBest', { strategy: 'sample', beamSize: 4 }), Infinity, 'a rule holds only under its strategy');
  assert.deepEqual(settleLaneOptions('beam', { beamSize: 3, nBest: 9 }), { beamSize: 3, nBest: 3 });
  // The one-pass lane's single iteration and the bars' candidates are stated once.
  assert.equal(moduleOptions(makeLane('nar')).iterations, 1);
  assert.deepEqual(['greedy', 'beam', 'sample'].map((type) => moduleOptions(makeLane(type), 'DELETE').topCandidates), [8, 8, 8]);
  // The page's score is the table's formula, written out with its numbers.
  assert.equal(normalizedScore(-2.4, 3, 'average', 0), -2.4 / 3);
  assert.ok(Math.abs(normalizedScore(-2.4, 3, 'gnmt', 0.6) - -2.4 / ((5 + 3) / 6) ** 0.6) < 1e-12);
  assert.equal(scoreFormula(-2.4, 3, 'average', 0.6), 'log P / |Y| = −2.40 / 3 = −0.80');
  assert.equal(scoreFormula(-2.4, 3, 'gnmt', 0.6), `log P / ((5+|Y|)/6)^0.6 = −2.40 / ((5+3)/6)^0.6 = −2.40 / ${(((5 + 3) / 6) ** 0.6).toFixed(3)} = ${fmt(-2.4 / ((5 + 3) / 6) ** 0.6)}`);
  assert.equal(scoreFormula(-2.4, 3, 'none', 0.6), 'log P = −2.40');
});

test('the names options had before they were derived are refused, not ignored', () => {
  for (const old of ['length', 'length_norm', 'beam']) {
    assert.throws(() => normalizeOptions({ [old]: 5 }, true), new RegExp(`^Seq2SeqError: unknown decoding option '${old}'|unknown decoding option '${old}'`));
  }
  assert.equal(normalizeOptions({ narLength: 'given', narGivenLength: 5 }, false).narGivenLength, 5);
});
