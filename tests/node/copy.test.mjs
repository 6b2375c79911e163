// The copy mechanism (pointer-generator) through the installed package (WebAssembly),
// against PyTorch (tests/tools/make_copy_fixtures.py): a word-level copy model reads
// "my name is kuroro", a word in no vocabulary, and copies it; its results, snapshots,
// forced scores and inspect name copied tokens with the source's text, and carry p_gen
// and the copy distribution; the worker transfers them; the CLI prints the same.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FIXTURES, close, installPackage, runCli } from './helpers.mjs';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
const { createDecoderWorker } = await pkg.importPackage('/worker');

const NAME = 'copy_words_post_learned_untied';
const PATH = join(FIXTURES, `${NAME}.safetensors`);
const fx = JSON.parse(readFileSync(join(FIXTURES, `${NAME}.json`), 'utf8'));
const bytes = () => new Uint8Array(readFileSync(PATH));
const model = await loadModel(bytes(), { compute: 'f32' });
after(() => model.delete());
const V = model.info.targetVocab.length;
const GREEDY = { maxLength: fx.greedy.max_length, minLength: fx.greedy.min_length };

test('info: a word-level copy model', () => {
  assert.equal(model.info.copy, true);
  assert.equal(model.info.sourceTokens, 'words');
  assert.deepEqual(model.tokenize('My  name is KURORO'), fx.source_ids[0]);  // an unknown word reads as <unk>
});

test('greedy decodes copy the words no vocabulary holds, as PyTorch does', () => {
  fx.sources.forEach((source, b) => {
    const [r] = model.decode(source, GREEDY);
    assert.deepEqual(r.tokens, fx.greedy.tokens[b].slice(0, -1), source);
    assert.equal(r.text, fx.greedy.texts[b], source);
  });
  assert.ok(fx.greedy.tokens.flat().some((id) => id >= V), 'some output token is a copied one past the vocabulary');
  assert.match(fx.greedy.texts[0], /kuroro/);
});

test('each step carries p_gen, the copy attention and the copy distribution, texts the source\'s', () => {
  const session = model.createSession({ strategy: 'beam', beamSize: 3, ...GREEDY });
  try {
    session.start('my name is kuroro');
    const snaps = [];
    while (!session.done) snaps.push(session.step());
    for (const s of snaps) {
      for (const h of s.live) {
        assert.ok(h.pGen >= 0 && h.pGen <= 1, `pGen ${h.pGen}`);
        assert.ok(h.copyAttention instanceof Float32Array);
        assert.equal(h.copyAttention.length, s.sourceLength);
        assert.ok(close(h.copyAttention.reduce((a, x) => a + x, 0), 1, 1e-5));
        assert.ok(close(h.copyProbs.reduce((a, c) => a + c.prob, 0), 1, 1e-5));
        const kuroro = h.copyProbs.find((c) => c.text === 'kuroro');
        assert.ok(kuroro && kuroro.token >= V, 'kuroro is a copy-only token');
        // A copy-only token's probability is all copying: (1 - p_gen) times its copy probability.
        const cand = h.candidates.find((c) => c.token === kuroro.token);
        if (cand) assert.ok(close(cand.prob, (1 - h.pGen) * kuroro.prob, 1e-5), `${cand.prob} vs ${(1 - h.pGen) * kuroro.prob}`);
      }
    }
    const last = snaps.at(-1);
    assert.ok(last.results.some((r) => r.text.split(' ').includes('kuroro')));
  } finally {
    session.delete();
  }
});

test('the forced score of a target with a copied word matches PyTorch, p_gen per position', () => {
  fx.sources.forEach((source, b) => {
    const f = model.score(source, fx.forced.targets[b]);
    assert.equal(f.text, fx.forced.targets[b]);
    f.tokenLogprobs.forEach((lp, i) => assert.ok(close(lp, fx.forced.token_logprobs[b][i]), `${source} ${i}: ${lp}`));
    f.tokenPGen.forEach((p, i) => assert.ok(close(p, fx.forced.p_gen[b][i]), `${source} p_gen ${i}: ${p}`));
  });
  // A word neither in the target vocabulary nor in the source cannot be a target.
  assert.throws(() => model.score('my name is kuroro', 'hello zed'), (e) => e instanceof Seq2SeqError && e.kind === 'InputError');
});

test('inspect takes a copied word as the output so far and shows the mix', () => {
  const inside = model.inspect('my name is kuroro', 'kuroro hello');
  assert.equal(inside.copy, true);
  assert.deepEqual(inside.targetTexts, ['<s>', 'kuroro', 'hello']);
  assert.deepEqual(inside.copyTexts, ['my', 'name', 'is', 'kuroro']);
  assert.equal(inside.outputVocabSize, V + 3);
  assert.equal(inside.logProbs.length, 3 * (V + 3));
  assert.equal(inside.pGen.length, 3);
});

test('the worker decodes and steps a copy model alike', async () => {
  const worker = createDecoderWorker();
  try {
    const info = await worker.load(PATH, { compute: 'f32' });
    assert.equal(info.copy, true);
    await worker.start(fx.sources[0], GREEDY);
    const s = await worker.step();
    assert.ok(s.live[0].copyAttention instanceof Float32Array);
    assert.ok(s.live[0].pGen >= 0);
    const [r] = await worker.run();
    assert.equal(r.text, fx.greedy.texts[0]);
  } finally {
    await worker.terminate();
  }
});

test('the CLI prints the same copied words and the copy lines of info', () => {
  const out = runCli(['decode', '--model', PATH, '--compute', 'f32', '--max-length', String(GREEDY.maxLength),
    '--min-length', String(GREEDY.minLength), ...fx.sources]);
  assert.deepEqual(out.trim().split('\n').map((l) => l.split('\t')[1]), fx.greedy.texts);
  const info = runCli(['info', PATH]);
  assert.match(info, /source: {10}words/);
  assert.match(info, /copy mechanism: {2}pointer-generator/);
});
