// Benchmark words: the CMUdict test split (models/data/cmudict-0.7b.test), the
// first column, each word once, n of them spread evenly over the (alphabetical)
// list so that a run does not see only words in A.
//
//   import { testWords } from './words.mjs';
//   const words = testWords(root, 1000, (w) => w.length <= info.maxPositions);
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function testWords(root, n, fits = () => true) {
  const lines = readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n');
  const words = [...new Set(lines.map((l) => l.split(/\s+/)[0]).filter(Boolean))].filter(fits);
  if (words.length < n) throw new Error(`${n} words asked for: the test split has ${words.length} usable words`);
  return Array.from({ length: n }, (_, i) => words[Math.floor((i * words.length) / n)]);
}
