// The CMUdict test split as models/train/metrics.py reads it: word → its references
// (stress removed), in the file's order. The word-list tests check the page's ✓/✗
// and WER against it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './helpers.mjs';

export const SPLIT = (() => {
  const refs = new Map();
  for (const line of readFileSync(join(root, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 2) continue;
    const p = parts.slice(1).map((x) => x.replace(/\d/g, '')).join(' ');
    const list = refs.get(parts[0]) ?? [];
    if (!list.includes(p)) list.push(p);
    refs.set(parts[0], list);
  }
  return refs;
})();

/** The split's first n words. */
export const firstWords = (n) => [...SPLIT.keys()].slice(0, n);
