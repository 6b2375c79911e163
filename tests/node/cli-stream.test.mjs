// The CLI's decode reading stdin decodes the words together (Session::run_batch),
// a list at a time: what a caller sees must not change. A program that writes
// one word and waits gets its phonemes before it writes the next (the list is
// flushed whenever the input pauses), and a long list written at once comes
// back in input order, each line as the word decoded alone prints it, with a
// bad line reported in its place.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ROOT, cliPath, join } from './helpers.mjs';

const MODEL = join(ROOT, 'models/g2p-transformer.safetensors');

test('a word written to a waiting CLI is answered before the next is written', async () => {
  const p = spawn(cliPath(), ['decode', '--model', MODEL]);
  let out = '';
  p.stdout.on('data', (d) => { out += d; });
  const lineCount = () => out.split('\n').length - 1;
  const waitLines = async (n) => {
    const start = Date.now();
    while (lineCount() < n) {
      assert.ok(Date.now() - start < 20000, `no answer to line ${n} after 20 s: ${JSON.stringify(out)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  for (const [i, word] of ['HELLO', 'WORLD', 'PHONEME'].entries()) {
    p.stdin.write(`${word}\n`);
    await waitLines(i + 1);
  }
  p.stdin.end();
  const code = await new Promise((r) => p.on('close', r));
  assert.equal(code, 0);
  assert.deepEqual(out.trim().split('\n').map((l) => l.split('\t').slice(0, 2).join('\t')),
    ['HELLO\tHH EH L OW', 'WORLD\tW ER L D', 'PHONEME\tF OW N IY M']);
});

test('600 test words in one write, a bad one among them: input order, each as decoded alone, the error in its place', () => {
  const words = [...new Set(readFileSync(join(ROOT, 'models/data/cmudict-0.7b.test'), 'utf8').split('\n').map((l) => l.split(' ')[0]).filter(Boolean))]
    .slice(0, 600);
  words.splice(300, 0, 'AB~C');
  for (const strategy of ['greedy', 'beam']) {
    const r = spawnSync(cliPath(), ['decode', '--model', MODEL, '--strategy', strategy], { input: `${words.join('\n')}\n`, encoding: 'utf8' });
    assert.equal(r.status, 1, 'a line failed: exit 1');
    assert.match(r.stderr, /^seq2seq: line 301 'AB~C': input: character '~'/);
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(lines.map((l) => l.split('\t')[0]), words.filter((w) => w !== 'AB~C'));
    // Each word alone (arguments are decoded together too, so one run per word for a few).
    for (const i of [0, 299, 300, 599]) {
      const alone = spawnSync(cliPath(), ['decode', '--model', MODEL, '--strategy', strategy, lines[i].split('\t')[0]], { encoding: 'utf8' });
      assert.equal(alone.stdout.trim(), lines[i], `word ${i + 1}`);
    }
  }
});
