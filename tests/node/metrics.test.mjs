// web/shared/metrics.js (the page's word list and scripts/make-models-manifest.mjs score
// with it) against models/train/metrics.py (training and evaluation score with it):
// the same WER, PER and per-word edit distances, to the last bit, over the standard
// test split, for a shipped model's own outputs and for outputs made to hit every
// case (right, a second reference, edits of each kind, empty, missing).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { editDistance, measure, parseReferences, rates, score } from '../../web/shared/metrics.js';
import { ROOT, cliPath, join } from './helpers.mjs';

const SPLIT = join(ROOT, 'models/data/cmudict-0.7b.test');
const refs = parseReferences(readFileSync(SPLIT, 'utf8'));
const words = [...refs.keys()];

/** metrics.py over hyps (Map word -> phonemes; a word left out is missing): {wer, per, words: {word: [right, edits, length]}}. */
function python(hyps) {
  const script = `import json, sys
from models.train.metrics import edit_distance, load_references, score
hyps = {w: tuple(p) for w, p in json.load(sys.stdin).items()}
refs = load_references(sys.argv[1])
wer, per = score(hyps, refs)
words = {}
for w, rs in refs.items():
    h = hyps.get(w, ())
    best = min(rs, key=lambda r: (edit_distance(h, r), len(r)))
    words[w] = [h in rs, edit_distance(h, best), len(best)]
print(json.dumps({'wer': wer, 'per': per, 'words': words}))`;
  const out = execFileSync('/usr/bin/python3', ['-c', script, SPLIT], {
    cwd: ROOT, input: JSON.stringify(Object.fromEntries(hyps)), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out);
}

function assertSame(hyps) {
  const py = python(hyps);
  const js = score(hyps, refs);
  assert.equal(js.wer, py.wer, 'WER');
  assert.equal(js.per, py.per, 'PER');
  // The word list measures strings (outputs and references as the page holds them).
  const strings = rates(words.map((w) => measure((hyps.get(w) ?? []).join(' '), refs.get(w).map((r) => r.join(' ')))));
  assert.equal(strings.wer, py.wer, 'WER, measured on strings');
  assert.equal(strings.per, py.per, 'PER, measured on strings');
  assert.equal(strings.scored, words.length);
  for (const w of words) {
    const m = measure(hyps.get(w) ?? [], refs.get(w));
    assert.deepEqual([m.right, m.edits, m.length], py.words[w], w);
  }
  return py;
}

test('edit distance: insertions, deletions, substitutions; arrays and strings alike', () => {
  assert.equal(editDistance([], []), 0);
  assert.equal(editDistance('K AE T', ''), 3);
  assert.equal(editDistance('K AE T', 'K AE T S'), 1);
  assert.equal(editDistance(['K', 'AE', 'T'], ['B', 'AE', 'T']), 1);
  assert.equal(editDistance('K AE T', 'T AE K'), 2);
  assert.equal(editDistance('  K  AE T ', ['K', 'AE', 'T']), 0);
});

test('a word with no reference is not scored', () => {
  assert.equal(measure('K AE T', []), null);
  assert.deepEqual(rates([null, null]), { wer: null, per: null, scored: 0 });
});

test('made-up outputs over the test split: the same numbers as metrics.py', () => {
  const all = [...new Set([...refs.values()].flat().flat())].sort();
  const hyps = new Map();
  words.forEach((w, i) => {
    const rs = refs.get(w);
    const r = rs[0];
    const other = all[(i * 7) % all.length];
    switch (i % 8) {
      case 0: hyps.set(w, r); break;
      case 1: hyps.set(w, rs[rs.length - 1]); break;
      case 2: hyps.set(w, r.map((p, j) => (j === i % r.length ? other : p))); break;
      case 3: hyps.set(w, r.filter((_, j) => j !== i % r.length)); break;
      case 4: hyps.set(w, [...r.slice(0, i % (r.length + 1)), other, ...r.slice(i % (r.length + 1))]); break;
      case 5: hyps.set(w, []); break;
      case 6: break; // missing: counts as empty
      default: hyps.set(w, [...r].reverse());
    }
  });
  const py = assertSame(hyps);
  // Not vacuous: some right, many wrong.
  assert.ok(py.wer > 40 && py.wer < 90, `WER ${py.wer}`);
});

test('a shipped model\'s outputs over the test split: the same numbers as metrics.py', () => {
  const model = join(ROOT, 'models/g2p-rnn-dot.safetensors');
  const r = spawnSync(cliPath(), ['decode', '--model', model, '--compute', 'auto'], {
    input: words.join('\n') + '\n', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024,
  });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const hyps = new Map();
  for (const line of r.stdout.split('\n')) {
    const [word, output] = line.split('\t');
    if (output !== undefined && !hyps.has(word)) hyps.set(word, output.split(' ').filter(Boolean));
  }
  assert.ok(hyps.size > words.length * 0.99, `${hyps.size} outputs`);
  const py = assertSame(hyps);
  assert.ok(py.wer > 20 && py.wer < 60, `WER ${py.wer}`);
});
