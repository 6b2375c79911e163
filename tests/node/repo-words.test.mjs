// The repository speaks of the project, not of how its work was scheduled: no
// tracked text file numbers the sittings, stages or tickets it was written in
// ("session", "leg" or "issue" followed by a number, with or without '#' or a
// plural). A reader of a comment, a doc or a model card cannot look such a
// number up anywhere; what it stood for (a commit, a measured file, a date)
// is what belongs there. Every hit is reported as file:line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers.mjs';

// "leg" also catches numbered chains such as a number with a letter after it.
const WORDS = /\b(session|leg|issue)s? ?#?\d+/i;
// Generated, and quoting registry metadata that is not ours to word.
const SKIPPED = new Set(['package-lock.json']);

/** Tracked files, or null outside a git checkout (an unpacked tarball has no history to check). */
function trackedFiles() {
  const r = spawnSync('git', ['-C', ROOT, 'ls-files', '-z'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return r.stdout.split('\0').filter((f) => f && !SKIPPED.has(f));
}

/** The file's text, or null for a binary file (a NUL byte in its first 8000 bytes, git's own test). */
function textOf(file) {
  let bytes;
  try {
    bytes = readFileSync(join(ROOT, file));
  } catch {
    return null;   // tracked but deleted in the work tree: nothing to read
  }
  if (bytes.subarray(0, 8000).includes(0)) return null;
  return bytes.toString('utf8');
}

/** `file:line: text` for every line of `text` the pattern finds. */
export function hits(file, text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    const m = WORDS.exec(line);
    if (m) found.push(`${file}:${i + 1}: ${m[0]} in "${line.trim().slice(0, 120)}"`);
  });
  return found;
}

test('the pattern finds the numbered words and leaves ordinary prose alone', () => {
  // Built at run time so that this file does not match itself.
  const n = (word, rest) => `${word} ${rest}`;
  for (const s of [n('session', '12'), n('Sessions', '11–12'), n('leg', '3b'), n('legs', '2 and 3'), n('issue', '#7'), n('Issue', '#42'), `${'issue'}#5`]) {
    assert.equal(hits('x', `a ${s} b`).length, 1, s);
  }
  for (const s of ['session.step()', 'every session of a round', '500 beam-4 sessions', 'legend 3', 'issued 3 times', 'colleague 2']) {
    assert.deepEqual(hits('x', s), [], s);
  }
});

test('no tracked text file numbers sessions, legs or issues', (t) => {
  const files = trackedFiles();
  if (!files) {
    t.skip('not a git checkout');
    return;
  }
  assert.ok(files.length > 100, `git ls-files listed ${files.length} files`);
  const found = files.flatMap((f) => {
    const text = textOf(f);
    return text === null ? [] : hits(f, text);
  });
  assert.deepEqual(found, [], `${found.length} lines:\n${found.join('\n')}`);
});
