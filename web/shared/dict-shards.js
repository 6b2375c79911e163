// Which file of the page's dictionary (dict/*.tsv) holds a word. Written by
// scripts/site/dictionary.mjs, read by the page (web/js/dict.js) and the browser
// tests, so that the three agree on one rule.
//
// A shard holds the words of one first-two-letter key ("DE"). A key whose words
// would make a shard of more than SPLIT_BYTES is split once more by the third
// letter ("DEL": DELETE, DELL, ...), its two-letter words (if any) staying in the
// two-letter shard: the first screen's word then costs a small shard, not a
// tenth of the letter D. dict/index.json lists the two-letter shards (`shards`)
// and, per split key, the third letters its shards have (`split`: {"DE": "ABCF..."}),
// not each of their names: the index is read on a first visit.

export const SPLIT_BYTES = 8192;

const safe = (s) => s.replace(/[^A-Z0-9]/g, '_');

/** The two-letter key of an upper-case word. */
export const shardKey = (word) => safe(word.slice(0, 2));

/** The key a word's shard has once its two-letter key is split: that key and its third letter. */
export const splitShardKey = (word) => shardKey(word) + safe(word.slice(2, 3));

/**
 * The name (dict/NAME.tsv) of the shard that holds an upper-case word, given the
 * index ({ shards: Set or array of two-letter names, split: { key: letters } }), or null
 * when no shard can hold it: the word is not in the dictionary.
 */
export function shardName(word, index) {
  if (!word) return null;
  const key = shardKey(word);
  const letters = index.split?.[key];
  if (letters !== undefined && word.length >= 3) {
    const name = splitShardKey(word);
    return letters.includes(name.slice(key.length)) ? name : null;
  }
  const has = index.shards.has ? index.shards.has(key) : index.shards.includes(key);
  return has ? key : null;
}

/** Every shard's name that the index states: the two-letter ones and those of the split keys. */
export function shardNames(index) {
  const split = Object.entries(index.split ?? {}).flatMap(([key, letters]) => [...letters].map((c) => key + c));
  return [...index.shards, ...split];
}
