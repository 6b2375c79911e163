// What the site weighs, and how it is served: weight.json, the bytes a first visit
// transfers (everything but the dictionary shards, one of which is fetched per word,
// the models no default lane uses, the text view's phonemizer, fetched when that view is
// opened, and the modules a first visit does not load: of the scripts, those the page
// and its decoder worker import statically (scripts/gen-module-lists.mjs), and the
// worker's script, and the stylesheet of what views draw once opened, loaded with it; the
// Train mode's trainer module, stylesheet and data), raw and gzipped; and the precompressed twins (file.gz) that
// scripts/serve.mjs sends to browsers that accept gzip: no compression work while a page loads.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { moduleGraph } from '../gen-module-lists.mjs';
import { DEFAULT_LANES, LANE_KINDS } from '../../web/shared/lane-models.js';

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Writes `out`/weight.json; `models`: the site's, of which the default lanes (DEFAULT_LANES) open the first of each kind they need. Returns {raw, gzip}. */
export function writeWeight(out, models, root) {
  const kinds = new Set(DEFAULT_LANES.map((type) => LANE_KINDS[type]));
  const defaults = new Set([kinds.has('ar') && models.find((m) => m.autoregressive)?.file,
    kinds.has('nar') && models.find((m) => !m.autoregressive && m.arch !== 'rnn')?.file].filter(Boolean));
  const modules = new Set([...moduleGraph('js/app.js', root), ...moduleGraph('wasm/src/worker.js', root), 'js/decoder-worker.js']);
  let raw = 0;
  let gzip = 0;
  for (const f of walk(out)) {
    const rel = f.slice(out.length + 1);
    if (rel.startsWith('dict/') || rel.endsWith('.gz')) continue;
    if (rel.startsWith('g2p/') || (/\.m?js$/.test(rel) && !modules.has(rel)) || rel === 'style-open.css') continue;
    // The Train mode's: the trainer's module, its stylesheet and its data, fetched when the mode opens.
    if (rel.startsWith('wasm/dist/seq2seq_train.') || rel === 'style-train.css' || rel.startsWith('train/')) continue;
    if (rel.startsWith('models/') && !defaults.has(rel)) continue;
    const b = readFileSync(f);
    raw += b.length;
    gzip += gzipSync(b, { level: 6 }).length;
  }
  writeFileSync(join(out, 'weight.json'), JSON.stringify({ raw, gzip }) + '\n');
  return { raw, gzip };
}

const COMPRESS = /\.(html|js|mjs|css|json|tsv|svg|wasm|safetensors)$/;

/** Writes file.gz beside each file of `out` worth compressing. */
export function writeGzipTwins(out) {
  for (const f of walk(out)) {
    if (!COMPRESS.test(f)) continue;
    const b = readFileSync(f);
    if (b.length < 1024) continue;
    const z = gzipSync(b, { level: 9 });
    if (z.length < b.length * 0.95) writeFileSync(`${f}.gz`, z);
  }
}
