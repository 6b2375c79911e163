// Adds a long run's row to docs/reliability.md and rewrites the table of
// cumulative executions per target from all the rows (tests/fuzz/long.sh):
//   node tests/fuzz/record-run.mjs DOC DATE ENGINE BUILD TARGET SECONDS EXECUTIONS COV FT FILES KB FINDINGS
//   node tests/fuzz/record-run.mjs DOC          (the cumulative table only, after a row was added by hand)
// The rows sit between the markers `<!-- runs -->` and `<!-- end runs -->`, the
// cumulative table between `<!-- cumulative -->` and `<!-- end cumulative -->`.
import { readFileSync, writeFileSync } from 'node:fs';

// The goals: the loaders are cheap per execution and see every byte of a file.
const GOALS = { load_bytes: 10e6, load_framed: 10e6, decode: 1e6, score: 1e6, inspect: 1e6 };
const BUILDS = ['asan+ubsan', 'plain'];

const [doc, ...row] = process.argv.slice(2);
let text = readFileSync(doc, 'utf8');

const group = (n) => Math.round(n).toLocaleString('en-US');
const duration = (s) => (s < 60 ? `${s} s` : s < 3600 ? `${Math.round(s / 60)} min` : `${Math.floor(s / 3600)} h ${String(Math.round((s % 3600) / 60)).padStart(2, '0')} min`);

function section(name) {
  const open = `<!-- ${name} -->\n`;
  const close = `<!-- end ${name} -->`;
  const a = text.indexOf(open);
  const b = text.indexOf(close, a);
  if (a < 0 || b < 0) throw new Error(`${doc}: no ${open.trim()} ... ${close}`);
  return { start: a + open.length, end: b, body: text.slice(a + open.length, b) };
}

if (row.length) {
  const [date, engine, build, target, seconds, execs, cov, ft, files, kb, findings] = row;
  const s = Number(seconds);
  const cells = [date, engine, build, `\`fuzz_${target}\``, duration(s), group(Number(execs)), group(Number(execs) / Math.max(s, 1)),
    cov, ft, `${group(Number(files))} files, ${group(Number(kb))} KB`, Number(findings) ? `**${findings}** (in the run's findings/)` : 'none'];
  const runs = section('runs');
  text = text.slice(0, runs.end) + `| ${cells.join(' | ')} |\n` + text.slice(runs.end);
}

// Every row of the runs table, by its header's names.
const lines = section('runs').body.split('\n').filter((l) => l.startsWith('|'));
const split = (l) => l.split('|').slice(1, -1).map((c) => c.trim());
const header = split(lines[0]);
const col = (name) => {
  const i = header.indexOf(name);
  if (i < 0) throw new Error(`${doc}: the runs table has no column '${name}'`);
  return i;
};
const totals = {};
for (const t of Object.keys(GOALS)) totals[t] = { 'asan+ubsan': 0, plain: 0, findings: 0 };
for (const l of lines.slice(2)) {
  const c = split(l);
  const target = c[col('target')].replace(/`|fuzz_/g, '');
  const build = c[col('build')];
  if (!totals[target] || !BUILDS.includes(build)) throw new Error(`${doc}: a row of an unknown target or build: ${l}`);
  totals[target][build] += Number(c[col('executions')].replace(/,/g, ''));
  if (!/^none\b/.test(c[col('findings')])) totals[target].findings += 1;
}
const table = ['| target | asan+ubsan | plain | all | goal | runs with a finding |', '| --- | --- | --- | --- | --- | --- |'];
for (const [t, x] of Object.entries(totals)) {
  const all = x['asan+ubsan'] + x.plain;
  table.push(`| \`fuzz_${t}\` | ${group(x['asan+ubsan'])} | ${group(x.plain)} | ${group(all)} | ${group(GOALS[t])}${all >= GOALS[t] ? ' (reached)' : ''} | ${x.findings} |`);
}
const cum = section('cumulative');
text = text.slice(0, cum.start) + table.join('\n') + '\n' + text.slice(cum.end);
writeFileSync(doc, text);
