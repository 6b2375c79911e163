#!/usr/bin/env node
// Assembles the static page into build/site/ (or the folder given as argv[2]), one job
// per module of scripts/site/:
//
//   page-files.mjs  the page (web/*: index.html, style.css, js/, shared/, i18n/), the npm
//                   module's wasm/src/*.js and wasm/dist/*, the models package's phonemizer
//                   (g2p/*.js beside manifest.js; the text view, not fetched before it opens)
//   models.mjs      models/*.safetensors (or $SEQ2SEQ_WEB_MODELS's; fixtures for a kind
//                   missing) and their entries: the engine's own info() (model-info.mjs)
//                   and what the site adds (id, file, examples, test WERs)
//   here            models.json: those entries, the settings each kind of model is
//                   measured with (models/train/decoding.json), the lane types' defaults, and
//                   the recipe's cap on a word's letters (models/train/data_rules.json)
//   index-html.mjs  index.html with models.json's content, boot.js and style.css inline and
//                   its static words in English
//   dictionary.mjs  dict/*.tsv, dict/index.json (and the longest training word), dict/test.tsv:
//                   reference pronunciations
//   g2p-tiny.mjs    train/g2p-tiny.tsv: the short training-split words the Train mode's
//                   G2P lessons train on, fetched when a lesson needs them
//   weight.mjs      weight.json (what a first visit transfers) and the .gz twins
//
// The page's own lists of modules (index.html's modulepreload links, the decoder
// worker's imports) are in web/ as scripts/gen-module-lists.mjs writes them.
// Runs offline after `npm ci`; needs scripts/build-wasm.sh to have run.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataRules } from './cmudict.mjs';
import { copyPageFiles } from './site/page-files.mjs';
import { siteModels } from './site/models.mjs';
import { writeIndexHtml } from './site/index-html.mjs';
import { writeDictionary } from './site/dictionary.mjs';
import { writeTinyG2p } from './site/g2p-tiny.mjs';
import { writeGzipTwins, writeWeight } from './site/weight.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(root, 'build/site'));
const quiet = process.env.BUILD_WEB_QUIET === '1';
const log = (...a) => { if (!quiet) console.log(...a); };
// How CMUdict becomes the G2P data: the training recipe's rules (models/train/data_rules.json).
const rules = dataRules(root);

try {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  copyPageFiles(root, out);
  const models = await siteModels(root, out, rules, { log });
  // What the page needs before it can start: the models, and the settings each kind of
  // model is measured with, which the lane types of that kind take as their defaults
  // (web/js/lane-types.js useModelDecoding).
  const { why: _why, ...decoding } = JSON.parse(readFileSync(join(root, 'models/train/decoding.json'), 'utf8'));
  // maxLetters: the recipe's cap on a word's letters; the models learned no longer word, and the page takes none.
  const site = { models, decoding, maxLetters: rules.maxLength.letters };
  writeFileSync(join(out, 'models.json'), JSON.stringify(site, null, 1) + '\n');
  writeIndexHtml(root, out, site);
  writeDictionary(root, out, rules, { log });
  writeTinyG2p(root, out, rules, { log });
  const { raw, gzip } = writeWeight(out, models, root);
  writeGzipTwins(out);
  log(`site: ${out}\nfirst visit (page + wasm + default models): ${raw} bytes raw, ${gzip} bytes gzip`);
} catch (e) {
  console.error(`build-web: ${e.message}`);
  process.exit(1);
}
