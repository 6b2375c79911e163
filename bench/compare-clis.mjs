#!/usr/bin/env node
// Two builds of the native CLI against each other, interleaved in one run, on
// the same words and models: is one slower than the other? For example this
// checkout's against a build of an older commit (a scratch git worktree, the same
// cmake flags):
//
//   git worktree add --detach /tmp/old COMMIT
//   cmake -S /tmp/old -B /tmp/old/build/native -DCMAKE_BUILD_TYPE=Release -DSEQ2SEQ_NATIVE_ARCH=ON
//   cmake --build /tmp/old/build/native -j2 --target seq2seq
//   node bench/compare-clis.mjs /tmp/old/build/native/seq2seq build/native/seq2seq \
//       [--words N] [--rounds R] [--callgrind-words M] [--capture-words C] [--case TEXT]
//
// Cases: g2p-transformer greedy and beam 5, g2p-cmlm with its own settings
// (models/manifest.json, `cli`), and greedy stepwise (--trace, a JSON line per
// decoder pass); --case keeps those whose name contains TEXT. Each is the
// whole CLI (start-up, model load, N (1000) words of the CMUdict test split on
// stdin, bench/words.mjs; output to /dev/null).
//
// Wall and CPU time (perf stat's task-clock): R (5) rounds, in each every case
// runs with the first CLI and the second back to back, the order alternating
// by round so that a drift in the machine's load hits both alike; the ratio
// second / first is taken per round and the median printed. Instructions
// (valgrind --tool=callgrind, Ir): once per case and CLI on the first M (50)
// words, and once with no words, whose count (start-up and model load) is
// subtracted to give the decoding's own; an instruction count is the same
// from run to run, so it shows a difference too small for a shared machine's
// clock. Where the counts differ, the functions that differ most
// (callgrind_annotate, function by function, of the runs with the words).
// Before timing, each case's output is compared between the two CLIs.
//
// The price of opting in to --trace-inside (the second CLI's; C (100) words
// whose greedy decode takes at least 3 passes): `--trace --trace-inside 3`
// against `--trace`, interleaved the same way; the difference per word is what
// one inside costs, its JSON included.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { shortName } from './symbols.mjs';
import { testWords } from './words.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    words: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    'callgrind-words': { type: 'string', default: '50' },
    'capture-words': { type: 'string', default: '100' },
    case: { type: 'string', default: '' },
  },
});
if (positionals.length !== 2) {
  console.error('usage: node bench/compare-clis.mjs FIRST_CLI SECOND_CLI [--words N] [--rounds R] [--callgrind-words M] [--capture-words C] [--case TEXT]');
  process.exit(2);
}
const CLIS = positionals.map((p) => resolve(p));
const N = Number(opt.words);
const R = Number(opt.rounds);
const M = Number(opt['callgrind-words']);
const C = Number(opt['capture-words']);

const manifest = JSON.parse(readFileSync(join(ROOT, 'models/manifest.json'), 'utf8'));
const shipped = (name) => manifest.models.find((m) => m.name === name);
const AR = shipped('g2p-transformer');
const CMLM = shipped('g2p-cmlm');
const ALL_CASES = [
  { name: 'transformer greedy', model: AR, flags: ['--greedy'] },
  { name: 'transformer beam 5', model: AR, flags: ['--beam', '5'] },
  { name: `cmlm ${CMLM.cli}`, model: CMLM, flags: CMLM.cli.split(' ') },
  { name: 'transformer greedy --trace', model: AR, flags: ['--greedy', '--trace'] },
];
const CASES = ALL_CASES.filter((c) => c.name.includes(opt.case));
const argsOf = (c) => ['decode', '--model', join(ROOT, 'models', c.model.file), ...c.flags];

const dir = mkdtempSync(join(tmpdir(), 'compare-clis-'));
const words = testWords(ROOT, N);
const wordsFile = join(dir, 'words.txt');
writeFileSync(wordsFile, `${words.join('\n')}\n`);

function run(cmd, args, input, stdout = 'ignore') {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['pipe', stdout, 'pipe'] });
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.error ?? r.stderr}`);
  return r;
}
// One timed run: wall ms around perf stat, CPU ms from its task-clock.
function timed(cli, args, input) {
  const t0 = performance.now();
  const r = run('perf', ['stat', '-x,', '-e', 'task-clock', '--', cli, ...args], input);
  return { wall: performance.now() - t0, cpu: Number(/^([\d.]+),msec,task-clock/m.exec(r.stderr)[1]) };
}
// Instructions of one run, and per function (its short name, bench/symbols.mjs -> Ir;
// the instantiations of one template summed).
function instructions(cli, args, input) {
  const out = join(dir, 'callgrind.out');
  const r = run('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, cli, ...args], input);
  const functions = new Map();
  for (const line of run('callgrind_annotate', ['--threshold=100', out], '', 'pipe').stdout.split('\n')) {
    const m = /^\s*([\d,]+) \([^)]*\)\s+(.*?)(?:\s+\[[^\]]*\])?\s*$/.exec(line);
    if (!m || m[2] === 'PROGRAM TOTALS') continue;
    const name = shortName(m[2].replace(/^[^:]*:(?!:)/, ''));   // no source file
    functions.set(name, (functions.get(name) ?? 0) + Number(m[1].replace(/,/g, '')));
  }
  return { total: Number(/Collected : (\d+)/.exec(r.stderr)[1]), functions };
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const digest = (s) => createHash('sha256').update(s).digest('hex').slice(0, 12);
const commitOf = (cli) => {
  const r = spawnSync('git', ['-C', join(cli, '../../..'), 'log', '-1', '--format=%h %s'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().slice(0, 60) : '?';
};

// Interleaved rounds of two commands: per round each runs once, the order
// alternating; returns their median times and the median per-round ratio b / a.
function interleave([a, b], input) {
  const t = { a: [], b: [], ratio: { cpu: [], wall: [] } };
  for (let round = 0; round < R; round++) {
    const got = {};
    for (const k of round % 2 === 0 ? ['a', 'b'] : ['b', 'a']) got[k] = timed(...(k === 'a' ? a : b), input);
    t.a.push(got.a);
    t.b.push(got.b);
    for (const c of ['cpu', 'wall']) t.ratio[c].push(got.b[c] / got.a[c]);
  }
  const med = (xs, c) => median(xs.map((x) => x[c]));
  return { a: { cpu: med(t.a, 'cpu'), wall: med(t.a, 'wall') }, b: { cpu: med(t.b, 'cpu'), wall: med(t.b, 'wall') }, ratio: { cpu: median(t.ratio.cpu), wall: median(t.ratio.wall) }, rounds: t.ratio };
}

const input = readFileSync(wordsFile, 'utf8');
const flags = new Set((/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '').trim().split(/\s+/));
console.log(`# ${N} words of the CMUdict test split, ${R} interleaved rounds; ${cpus()[0]?.model} x${cpus().length}, avx512f ${flags.has('avx512f') ? 'yes' : 'no'}; load average ${loadavg()[0].toFixed(2)} at start`);
CLIS.forEach((cli, i) => console.log(`${i ? 'second' : 'first'}: ${cli} (${commitOf(cli)})`));

console.log('\n## Outputs');
for (const c of CASES) {
  const [x, y] = CLIS.map((cli) => digest(run(cli, argsOf(c), input, 'pipe').stdout));
  console.log(`${c.name}: ${x === y ? `identical (sha256 ${x})` : `DIFFER (${x} / ${y})`}`);
}

console.log(`\n## Whole CLI, ${N} words: median of ${R} rounds (ms), second / first per round\n`);
console.log('| case | first CPU | second CPU | CPU ratio | first wall | second wall | wall ratio | CPU ratios per round |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
for (const c of CASES) {
  const r = interleave(CLIS.map((cli) => [cli, argsOf(c)]), input);
  console.log(`| ${c.name} | ${r.a.cpu.toFixed(0)} | ${r.b.cpu.toFixed(0)} | ${r.ratio.cpu.toFixed(3)} | ${r.a.wall.toFixed(0)} | ${r.b.wall.toFixed(0)} | ${r.ratio.wall.toFixed(3)} | ${r.rounds.cpu.map((x) => x.toFixed(3)).join(', ')} |`);
}

if (M > 0) {
  const few = `${words.slice(0, M).join('\n')}\n`;
  console.log(`\n## Instructions (callgrind Ir), ${M} words; decoding = with the words - with none\n`);
  console.log('| case | first, whole | second, whole | ratio | first, decoding | second, decoding | ratio |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const differing = [];
  for (const c of CASES) {
    const [runs, none] = [few, ''].map((stdin) => CLIS.map((cli) => instructions(cli, argsOf(c), stdin)));
    const whole = runs.map((r) => r.total);
    const own = whole.map((w, i) => w - none[i].total);
    const e = (n) => `${(n / 1e6).toFixed(1)} M`;
    console.log(`| ${c.name} | ${e(whole[0])} | ${e(whole[1])} | ${(whole[1] / whole[0]).toFixed(4)} | ${e(own[0])} | ${e(own[1])} | ${(own[1] / own[0]).toFixed(4)} |`);
    const [a, b] = runs.map((r) => r.functions);
    const diff = [...new Set([...a.keys(), ...b.keys()])].map((f) => [f, (b.get(f) ?? 0) - (a.get(f) ?? 0)]).filter(([, d]) => d !== 0);
    diff.sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]));
    differing.push(`${c.name}: ${diff.length ? diff.slice(0, 5).map(([f, d]) => `${f} ${d > 0 ? '+' : ''}${d}`).join('; ') : 'none'}`);
  }
  console.log('\nFunctions whose instructions differ most (second - first, with the words):\n');
  for (const d of differing) console.log(`- ${d}`);
}

if (C > 0) {
  // Words whose greedy decode takes at least 3 passes: 2 output tokens or more, then EOS.
  const greedy = run(CLIS[1], argsOf(ALL_CASES[0]), input, 'pipe').stdout.split('\n').filter(Boolean);
  const long = greedy.map((l) => l.split('\t')).filter(([, out]) => out.split(' ').length >= 2).map(([w]) => w).slice(0, C);
  const trace = argsOf(ALL_CASES[3]);
  const r = interleave([[CLIS[1], trace], [CLIS[1], [...trace, '--trace-inside', '3']]], `${long.join('\n')}\n`);
  const perWord = (k) => (r.b[k] - r.a[k]) / long.length;
  console.log(`\n## Opting in: --trace-inside 3 (second CLI, ${long.length} words, ${R} interleaved rounds)\n`);
  console.log(`--trace: ${r.a.cpu.toFixed(0)} ms CPU (${r.a.wall.toFixed(0)} wall); with --trace-inside 3: ${r.b.cpu.toFixed(0)} ms CPU (${r.b.wall.toFixed(0)} wall); `
    + `one inside costs ${perWord('cpu').toFixed(2)} ms CPU (${perWord('wall').toFixed(2)} wall), its JSON included`);
}
console.log(`\nload average ${loadavg()[0].toFixed(2)} at end`);
rmSync(dir, { recursive: true, force: true });
