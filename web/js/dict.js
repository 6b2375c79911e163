// Reference pronunciations from CMUdict 0.7b (stress removed), built into
// dict/*.tsv by scripts/build-web.mjs: one shard per first two letters (or three,
// web/shared/dict-shards.js), lines "WORD<TAB>split<TAB>PRON|PRON", split t(est) /
// d(ev) / (t)r(ain). dict/index.json lists the shards there are: a word whose shard
// is not listed ("3D", "'TIS", "QX…") is not in CMUdict, and no request is made for it.
import { shardName } from '../shared/dict-shards.js';

const shards = new Map();
let index = null;

/** A fetch of a file under dict/, once; forgotten if it fails, so that a later lookup tries again. */
function cached(get, forget) {
  const p = get();
  p.catch(forget);
  return p;
}

function readIndex() {
  index ??= cached(async () => {
    const r = await fetch(new URL('../dict/index.json', import.meta.url));
    if (!r.ok) throw new Error(`dictionary index: HTTP ${r.status}`);
    const got = await r.json();
    return { shards: new Set(got.shards), split: got.split ?? {}, longestTraining: got.longestTraining ?? null };
  }, () => { index = null; });
  return index;
}

/** The letters of the longest word the models learned from (CMUdict's training split), or null where the build had no CMUdict. */
export async function longestTraining() {
  return (await readIndex()).longestTraining;
}

function shard(key) {
  if (!shards.has(key)) {
    shards.set(key, cached(async () => {
      const r = await fetch(new URL(`../dict/${key}.tsv`, import.meta.url));
      if (!r.ok) throw new Error(`dictionary shard ${key}: HTTP ${r.status}`);
      const m = new Map();
      for (const line of (await r.text()).split('\n')) {
        const [w, s, p] = line.split('\t');
        if (w) m.set(w, { split: s === 't' ? 'test' : s === 'd' ? 'dev' : 'train', prons: p.split('|') });
      }
      return m;
    }, () => shards.delete(key)));
  }
  return shards.get(key);
}

/** {split: 'train'|'dev'|'test', prons: ['F OW N IY M']} or null when the word is not in CMUdict. */
export async function lookup(word) {
  const w = String(word).trim().toUpperCase();
  if (!w) return null;
  const name = shardName(w, await readIndex());
  if (name === null) return null;
  return (await shard(name)).get(w) ?? null;
}
