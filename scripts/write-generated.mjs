// The command-line face of a script that writes one generated file: write it, or
// with --check only say whether the committed file differs (exit 1 if it does).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
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
