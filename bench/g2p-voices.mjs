#!/usr/bin/env node
// Whether every symbol the phonemizer's voice formats write has an id in the
// voices' own tables (read from where you keep them; none is committed here):
//
//   node bench/g2p-voices.mjs --kokoro PATH/config.json --piper PATH/en_US-VOICE.onnx.json
//
// Kokoro's config.json has `vocab` (symbol → id); a Piper voice's .onnx.json has
// `phoneme_id_map` (symbol → [ids]). Prints, for each, the format's symbols the
// table lacks (which the voice would drop), and the ids of a sample text.
import { readFileSync } from 'node:fs';
import { INVENTORY } from '../models/g2p/formats.js';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const tables = [];
if (arg('kokoro')) tables.push(['misaki', 'Kokoro vocab', Object.keys(JSON.parse(readFileSync(arg('kokoro'), 'utf8')).vocab)]);
if (arg('piper')) tables.push(['espeak', 'Piper phoneme_id_map', Object.keys(JSON.parse(readFileSync(arg('piper'), 'utf8')).phoneme_id_map)]);
if (!tables.length) {
  console.error('usage: node bench/g2p-voices.mjs [--kokoro PATH/config.json] [--piper PATH/VOICE.onnx.json]');
  process.exit(2);
}
let missing = 0;
for (const [format, name, symbols] of tables) {
  const have = new Set(symbols);
  const lacks = INVENTORY[format].filter((c) => !have.has(c));
  missing += lacks.length;
  console.log(`${format}: ${INVENTORY[format].length} symbols; the ${name} (${have.size} symbols) lacks ${lacks.length ? lacks.join(' ') : 'none'}`);
}
process.exitCode = missing ? 1 : 0;
