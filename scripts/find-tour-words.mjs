#!/usr/bin/env node
// Finds the words the page's first screen and guided tour teach on, by decoding the
// CMUdict test split (models/data/cmudict-0.7b.test) with the native CLI, under every
// model file given (the shipped g2p-transformer and, e.g., the same model in another
// storage), and keeping the words on which every file tells the same story:
//
// - search errors (the first screen; the tour's greedy, beam and teacher-forcing
//   stops): greedy's output is not a reference, beam search (k = 5, average length
//   normalisation: the page's beam lane) finds a reference, and that reference has a
//   higher log P and a higher greedy-lane score than greedy's output under the same
//   model (forced.js's 'search'), with greedy and beam outputs alike in every file.
//   Listed with the pass at which greedy leaves the reference (the notes' A and B: the
//   page's first visit opens at step 2) and the two tokens' probabilities there.
// - length normalisation (the tour's third stop): beam 5 without normalisation picks a
//   wrong, shorter output, with average normalisation the reference.
//
//   node scripts/find-tour-words.mjs [--model FILE]... [--cli PATH] [--top N]
//
// Without --model: models/g2p-transformer.safetensors. E.g. the shipped 4-bit file and
// the int8/19 file it was re-stored from:
//   git show 1940942b:models/g2p-transformer.safetensors > /tmp/int8.safetensors
//   node scripts/find-tour-words.mjs --model models/g2p-transformer.safetensors --model /tmp/int8.safetensors
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const all = (name) => args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]] : []));
const modelFiles = all('model').length ? all('model') : [join(root, 'models/g2p-transformer.safetensors')];
const cli = all('cli')[0] ?? process.env.SEQ2SEQ_CLI ?? join(root, 'build/native/seq2seq');
const top = Number(all('top')[0] ?? 15);

// The test split: WORD  PHONES, a word once per pronunciation.
const refs = new Map();
for (const line of readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n')) {
  const m = line.match(/^(\S+)\s+(.+)$/);
  if (!m) continue;
  if (!refs.has(m[1])) refs.set(m[1], []);
  refs.get(m[1]).push(m[2].trim());
}
const words = [...refs.keys()];

function run(cmd, input) {
  const r = spawnSync(cli, cmd, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cli} ${cmd.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => l.split('\t'));
}
const decode = (model, flags) => new Map(run(['decode', '--model', model, ...flags], words.join('\n') + '\n').map(([w, out]) => [w, out]));
// score: source, target, log P, score, per-token log P (then EOS's).
function score(model, flags, pairs) {
  return run(['score', '--model', model, ...flags], pairs.map(([w, y]) => `${w}\t${y}`).join('\n') + '\n')
    .map(([w, y, lp, s, toks]) => ({ w, y, logprob: Number(lp), score: Number(s), tokens: toks.split(' ').map(Number) }));
}

const GREEDY = ['--greedy'];
const BEAM = ['--beam', '5', '--length-norm', 'average'];
const NONE = ['--beam', '5', '--length-norm', 'none'];

const perModel = modelFiles.map((model) => {
  const greedy = decode(model, GREEDY);
  const beam = decode(model, BEAM);
  const none = decode(model, NONE);
  // Search-error candidates: greedy wrong, beam right.
  const cands = words.filter((w) => !refs.get(w).includes(greedy.get(w)) && refs.get(w).includes(beam.get(w)));
  const pairs = cands.flatMap((w) => [[w, greedy.get(w)], [w, beam.get(w)]]);
  const scored = score(model, GREEDY, pairs);
  const search = new Map();
  for (let i = 0; i < cands.length; i++) {
    const [out, ref] = [scored[2 * i], scored[2 * i + 1]];
    if (!(ref.logprob > out.logprob && ref.score > out.score)) continue;
    const a = out.y.split(' '), b = ref.y.split(' ');
    let k = 0;
    while (a[k] === b[k]) k++;
    search.set(cands[i], { greedy: out.y, beam: ref.y, step: k + 1, pGreedy: Math.exp(out.tokens[k]), pBeam: Math.exp(ref.tokens[k]),
      logpGreedy: out.logprob, logpBeam: ref.logprob });
  }
  const norm = new Map(words.filter((w) => none.get(w) !== beam.get(w) && refs.get(w).includes(beam.get(w)) && !refs.get(w).includes(none.get(w)))
    .map((w) => [w, { none: none.get(w), average: beam.get(w) }]));
  return { model, search, norm };
});

const agree = (key, same) => words.filter((w) => perModel.every((m) => m[key].has(w)) && perModel.every((m) => same(m[key].get(w), perModel[0][key].get(w))));
const searchWords = agree('search', (x, y) => x.greedy === y.greedy && x.beam === y.beam && x.step === y.step);
const normWords = agree('norm', (x, y) => x.none === y.none && x.average === y.average);
const pct = (p) => (100 * p).toFixed(1);

console.log(`models: ${modelFiles.join(', ')}`);
console.log(`search errors (greedy wrong, beam 5 the reference, the reference likelier): ${perModel.map((m) => m.search.size).join(' / ')}; in every file alike: ${searchWords.length}`);
// The first screen opens at step 2: words whose choice falls there first, closest calls first.
const closeness = (w) => Math.max(...perModel.map((m) => m.search.get(w).pGreedy - m.search.get(w).pBeam));
const ranked = searchWords.slice().sort((a, b) => (perModel[0].search.get(a).step === 2 ? 0 : 1) - (perModel[0].search.get(b).step === 2 ? 0 : 1) || closeness(a) - closeness(b));
for (const w of ranked.slice(0, top)) {
  const s = perModel[0].search.get(w);
  console.log(`  ${w}: greedy ${s.greedy}, beam ${s.beam}; they part at pass ${s.step}: ${perModel.map((m) => {
    const x = m.search.get(w);
    return `${pct(x.pGreedy)} % vs ${pct(x.pBeam)} %, log P ${x.logpGreedy.toFixed(3)} vs ${x.logpBeam.toFixed(3)}`;
  }).join(' | ')}`);
}
console.log(`length normalisation (none wrong, average the reference): ${perModel.map((m) => m.norm.size).join(' / ')}; in every file alike: ${normWords.length}`);
for (const w of normWords.slice(0, top)) {
  const n = perModel[0].norm.get(w);
  console.log(`  ${w}: none ${n.none}, average ${n.average}`);
}
