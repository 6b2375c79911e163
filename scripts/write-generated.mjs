// The command-line face of a script that writes one generated file: write it, or
// with --check only say whether the committed file differs (exit 1 if it does).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `script`: the generator's import.meta.url, named in the messages; `path`: the file; `text`: what it should hold. */
export function writeOrCheck(script, path, text, check = process.argv.includes('--check')) {
  const name = relative(root, path);
  const self = `scripts/${basename(fileURLToPath(script))}`;
  if (!check) {
    writeFileSync(path, text);
    console.log(`${name}: ${text.length} characters written`);
    return;
  }
  let committed = null;
  try { committed = readFileSync(path, 'utf8'); } catch {}
  if (committed !== text) {
    console.error(`${name} differs from what ${self} writes: run node ${self}`);
    process.exit(1);
  }
  console.log(`${name} is up to date`);
}

/**
 * `text` (the file at `path`) with the lines between its BEGIN GENERATED and END GENERATED
 * comment lines replaced by `lines`; `header` follows BEGIN GENERATED in parentheses,
 * `open` and `close` are the comment's ('//', or '<!--' and ' -->').
 */
export function replaceBlock(path, text, lines, { header, open = '//', close = '' }) {
  const begin = `${open} BEGIN GENERATED (${header})${close}\n`;
  const end = `${open} END GENERATED${close}\n`;
  const a = text.indexOf(begin);
  const b = a < 0 ? -1 : text.indexOf(end, a);
  if (b < 0) throw new Error(`${path}: no "${begin.trim()}" ... "${end.trim()}" block`);
  return text.slice(0, a + begin.length) + lines.map((l) => `${l}\n`).join('') + text.slice(b);
}

/** The paths of `files` ([path, text] relative to `base`) whose text on disk differs (or is missing). */
export function staleOf(files, base = root) {
  return files.filter(([p, text]) => {
    try {
      return readFileSync(join(base, p), 'utf8') !== text;
    } catch {
      return true;
    }
  }).map(([p]) => p);
}

/**
 * The command-line face of a script that writes several generated files (`files`:
 * [path, text] relative to the repository): rewrite those that are stale, or with
 * --check only name them (exit 1 if any is). `name`: the script's, in the messages.
 */
export function writeStale(name, files) {
  const stale = staleOf(files);
  const wanted = new Map(files);
  const checkOnly = process.argv.includes('--check');
  for (const p of stale) {
    if (checkOnly) console.error(`${name}: ${p} is stale: run node scripts/${name}.mjs`);
    else {
      writeFileSync(join(root, p), wanted.get(p));
      console.log(`${name}: wrote ${p}`);
    }
  }
  if (checkOnly && stale.length) process.exit(1);
}
