#!/usr/bin/env node
// Writes wasm/src/limits.js from src/model_limits.h: the engine's limits (the
// largest model, the longest text, ...) as the npm package's JS checks them before
// anything reaches the wasm heap (a download stops at the largest model; a text
// too long is refused before it is copied). The header is the one source; each
// `constexpr <type> kName = <value>;` becomes LIMITS.name (kMaxTextBytes:
// maxTextBytes). A value is an integer, or `uint64_t{A} << B` / `A * B`.
//
//   node scripts/gen-limits.mjs           rewrite limits.js if stale
//   node scripts/gen-limits.mjs --check   only say whether it is stale (exit 1)
//
// limits.js is committed (the builds need no Node); tests/node/limits.test.mjs
// fails when it is stale.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleOf, writeStale } from './write-generated.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const HEADER_PATH = 'src/model_limits.h';
export const OUTPUT_PATH = 'wasm/src/limits.js';

// An integer literal, or uint64_t{N}, as a BigInt.
function term(text, where) {
  const m = /^(?:u?int\d*_t\{(\d+)\}|(\d+))$/.exec(text.trim());
  if (!m) throw new Error(`${HEADER_PATH}: ${where}: cannot read '${text.trim()}' (an integer, uint64_t{N}, A << B or A * B)`);
  return BigInt(m[1] ?? m[2]);
}

function value(expr, where) {
  const shift = expr.split('<<');
  if (shift.length === 2) return term(shift[0], where) << term(shift[1], where);
  const product = expr.split('*');
  if (product.length === 2) return term(product[0], where) * term(product[1], where);
  return term(expr, where);
}

/** [[jsName, number, comment], ...] in the header's order. */
export function readLimits(root = ROOT) {
  const text = readFileSync(join(root, HEADER_PATH), 'utf8');
  const out = [];
  for (const m of text.matchAll(/^constexpr\s+\w+\s+k(\w+)\s*=\s*([^;]+);(?:[ \t]*\/\/[ \t]*(.*))?$/gm)) {
    const v = value(m[2], `k${m[1]}`);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${HEADER_PATH}: k${m[1]} = ${v} is beyond a safe JS integer`);
    out.push([m[1][0].toLowerCase() + m[1].slice(1), Number(v), m[3] ?? '']);
  }
  if (!out.length) throw new Error(`${HEADER_PATH}: no constexpr limits found`);
  return out;
}

function limitsFile(limits) {
  return [
    `// The engine's limits, written by scripts/gen-limits.mjs from ${HEADER_PATH} (what each`,
    '// bounds and why is said there): edit the header, then run the script. No wasm is loaded',
    '// for it, so that the worker client and the model downloader check them on the page\'s thread.',
    'export const LIMITS = Object.freeze({',
    ...limits.map(([name, v, comment]) => `  ${name}: ${v},${comment ? `  // ${comment}` : ''}`),
    '});',
    '',
  ].join('\n');
}

/** [[path, text]] of the generated file. */
export function generatedFiles(root = ROOT) {
  return [[OUTPUT_PATH, limitsFile(readLimits(root))]];
}

export function staleFiles(root = ROOT) {
  return staleOf(generatedFiles(root), root);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeStale('gen-limits', generatedFiles());
