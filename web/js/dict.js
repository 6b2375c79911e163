// Reference pronunciations from CMUdict 0.7b (stress removed), built into
// dict/XX.tsv by scripts/build-web.mjs: one shard per first two letters,
// lines "WORD<TAB>split<TAB>PRON|PRON", split t(est) / d(ev) / (t)r(ain).
const shards = new Map();

function shardOf(word) {
  return word.slice(0, 2).replace(/[^A-Z0-9]/g, '_');
}

async function shard(key) {
  if (!shards.has(key)) {
    const p = fetch(new URL(`../dict/${key}.tsv`, import.meta.url)).then(async (r) => {
      if (r.status === 404) return new Map();
      if (!r.ok) throw new Error(`dictionary shard ${key}: HTTP ${r.status}`);
      const m = new Map();
      for (const line of (await r.text()).split('\n')) {
        const [w, s, p] = line.split('\t');
        if (w) m.set(w, { split: s === 't' ? 'test' : s === 'd' ? 'dev' : 'train', prons: p.split('|') });
      }
      return m;
    });
    p.catch(() => shards.delete(key));
    shards.set(key, p);
  }
  return shards.get(key);
}

/** {split: 'train'|'dev'|'test', prons: ['F OW N IY M']} or null when the word is not in CMUdict. */
export async function lookup(word) {
  const w = String(word).trim().toUpperCase();
  if (!w) return null;
  const m = await shard(shardOf(w));
  return m.get(w) ?? null;
}

