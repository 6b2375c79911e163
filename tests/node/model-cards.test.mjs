// The model cards (models/README.md, the npm README of seq2seq-wasm-models) say
// what models/manifest.json says: one YAML metadata block per shipped model, in
// Hugging Face's card shape, whose file, sha256 and test-split WER/PER are the
// manifest's (a stressed model's also with stress removed, the metrics with
// `args: stress: removed`); each model's training config names the same file and sha256; the
// cards and the training log stay within their size limits and name no work
// session, leg or issue by number. (python3 -m models.train verify measures the
// files themselves against both.)
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { MODELS_PACKAGE, ROOT } from './helpers.mjs';

const README = join(MODELS_PACKAGE, 'README.md');
const TRAINING_LOG = join(ROOT, 'docs/training-log.md');
const CARDS_LIMIT = 12 * 1024;
const LOG_LIMIT = 10 * 1024;

// A YAML subset: block mappings and sequences, plain, quoted and numeric scalars.
// Anything else (flow collections, anchors, tabs, multi-line strings) is refused,
// so a card this parser accepts means what it seems to.
export function parseYaml(text) {
  const lines = text.split('\n').map((raw, n) => ({ raw, n: n + 1 }))
    .filter(({ raw }) => raw.trim() !== '' && !raw.trim().startsWith('#'));
  for (const { raw, n } of lines) if (/\t/.test(raw)) throw new Error(`line ${n}: a tab`);
  const indentOf = (l) => l.raw.length - l.raw.trimStart().length;
  const scalar = (s, n) => {
    if (/^".*"$/.test(s) || /^'.*'$/.test(s)) return s.slice(1, -1);
    if (/^[[{&*!|>]/.test(s)) throw new Error(`line ${n}: unsupported YAML '${s}'`);
    if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
    if (s === 'true' || s === 'false') return s === 'true';
    if (s === 'null' || s === '~') return null;
    return s;
  };
  let i = 0;
  function block(indent) {
    const first = lines[i];
    return first.raw.trimStart().startsWith('- ') ? sequence(indent) : mapping(indent);
  }
  function sequence(indent) {
    const out = [];
    while (i < lines.length && indentOf(lines[i]) === indent && lines[i].raw.trimStart().startsWith('- ')) {
      const { raw, n } = lines[i];
      const rest = raw.slice(indent + 2);
      if (/^[^\s"'][^:]*:(\s|$)/.test(rest)) {
        lines[i] = { raw: ' '.repeat(indent + 2) + rest, n };  // "- key: v": a mapping starting on this line
        out.push(mapping(indent + 2));
      } else {
        out.push(scalar(rest.trim(), n));
        i++;
      }
    }
    return out;
  }
  function mapping(indent) {
    const out = {};
    while (i < lines.length && indentOf(lines[i]) === indent && !lines[i].raw.trimStart().startsWith('- ')) {
      const { raw, n } = lines[i];
      const m = /^([^\s:][^:]*):(?:\s+(.*))?$/.exec(raw.slice(indent));
      if (!m) throw new Error(`line ${n}: not 'key: value': ${raw}`);
      const key = m[1];
      if (key in out) throw new Error(`line ${n}: '${key}' twice`);
      i++;
      if (m[2] !== undefined && m[2].trim() !== '') {
        out[key] = scalar(m[2].trim(), n);
      } else {
        const next = lines[i];
        const nested = next && (indentOf(next) > indent || (indentOf(next) === indent && next.raw.trimStart().startsWith('- ')));
        if (!nested) throw new Error(`line ${n}: '${key}' has no value`);
        out[key] = block(indentOf(next));
      }
    }
    return out;
  }
  const value = block(0);
  if (i !== lines.length) throw new Error(`line ${lines[i].n}: unexpected indentation`);
  return value;
}

const readme = readFileSync(README, 'utf8');
const manifest = JSON.parse(readFileSync(join(MODELS_PACKAGE, 'manifest.json'), 'utf8'));
const cards = [...readme.matchAll(/^```yaml model-card\n([\s\S]*?)^```/gm)].map((m) => parseYaml(m[1]));
const packageLicense = JSON.parse(readFileSync(join(MODELS_PACKAGE, 'package.json'), 'utf8')).license;

test('the YAML subset parser reads what it should and refuses what it does not know', () => {
  assert.deepEqual(parseYaml('a: 1\nb:\n- x\n- k: "0123"\n  j: 2.5\nc:\n  d: true\n'),
    { a: 1, b: ['x', { k: '0123', j: 2.5 }], c: { d: true } });
  assert.throws(() => parseYaml('a: {b: 1}\n'), /unsupported/);
  assert.throws(() => parseYaml('a: 1\na: 2\n'), /twice/);
});

describe('model cards', () => {
  test('one card per shipped model, in manifest order', () => {
    assert.deepEqual(cards.map((c) => c['model-index']?.[0]?.name), manifest.models.map((m) => m.name));
  });

  for (const m of manifest.models) {
    test(`${m.name}: the card's metadata is manifest.json's`, () => {
      const card = cards.find((c) => c['model-index']?.[0]?.name === m.name);
      assert.ok(card, `a card for ${m.name}`);
      assert.equal(card.license, packageLicense.toLowerCase(), 'licence: the package\'s');
      assert.ok(card.datasets.includes('cmudict'));
      assert.equal(card.file, m.file);
      if ('sha256' in card) assert.equal(card.sha256, m.sha256);
      const [result, ...more] = card['model-index'][0].results;
      assert.equal(more.length, 0, 'one result: the test split');
      assert.equal(result.dataset.split, 'test');
      const metric = Object.fromEntries(result.metrics.map((x) => [x.type + (x.args?.stress === 'removed' ? 'StressRemoved' : ''), x.value]));
      assert.deepEqual(metric, {
        wer: m.testWer,
        per: m.testPer,
        ...(m.stress ? { werStressRemoved: m.testWerStressRemoved, perStressRemoved: m.testPerStressRemoved } : {}),
      });
    });

    test(`${m.name}: its training config names the same file and sha256`, () => {
      const config = JSON.parse(readFileSync(join(MODELS_PACKAGE, 'train/configs', `${m.name}.json`), 'utf8'));
      assert.equal(config.file, `models/${m.file}`);
      assert.equal(config.sha256, m.sha256);
      const ship = config.steps.at(-1);
      assert.ok(ship.copy.some(([, to]) => to === `models/${m.file}`), 'the last step ships the file');
    });
  }

  test('the eight cards take at most 12 KB, the training log at most 10 KB', () => {
    const section = /^## Model cards\n[\s\S]*?(?=^## )/m.exec(readme)?.[0];
    assert.ok(section, 'a "## Model cards" section followed by another section');
    assert.ok(Buffer.byteLength(section) <= CARDS_LIMIT, `cards: ${Buffer.byteLength(section)} bytes`);
    assert.ok(statSync(TRAINING_LOG).size <= LOG_LIMIT, `training log: ${statSync(TRAINING_LOG).size} bytes`);
  });

  test('models/ and the training log name no session, leg or issue by number', () => {
    const files = [TRAINING_LOG];
    const walk = (dir) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (name === 'work' || name === 'node_modules' || name === '__pycache__') continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(md|json|py|sh|txt)$/.test(name)) files.push(path);
      }
    };
    walk(MODELS_PACKAGE);
    const hits = files.flatMap((f) => readFileSync(f, 'utf8').split('\n')
      .map((line, n) => (/\b(session|leg|issue)s? ?#?[0-9]+/i.test(line) ? `${relative(ROOT, f)}:${n + 1}: ${line.trim().slice(0, 80)}` : null))
      .filter(Boolean));
    assert.deepEqual(hits, []);
  });
});
