// The READMEs' examples work as written, from the installed packages: every
// code block of README.md and models/README.md has a known kind
// (tests/node/readme-blocks.mjs); the Node ones run in the scratch project
// where both tarballs are installed and must print what their `// →` comments
// say; the install command runs (offline, the tarballs standing for the
// names); the others are listed here as skipped, with the reason (only the
// repository's commands are). The browser and bundler examples run in
// tests/browser/readme.test.mjs. The READMEs' relative links
// point at files the package carries (npm shows a README without the
// repository), and the models README's table is manifest.json's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MODELS_PACKAGE, installPackage } from './helpers.mjs';
import { KINDS, READMES, readmeBlocks, relativeLinks } from './readme-blocks.mjs';

const pkg = installPackage();

test('every kind of example runs, but the repository\'s commands', () => {
  assert.deepEqual(Object.keys(KINDS).filter((k) => KINDS[k].notRun), ['sh repository']);
});

for (const readme of READMES) {
  const blocks = readmeBlocks(readme.path);
  const packed = readme.models ? pkg.modelFiles : pkg.files;

  describe(readme.name, () => {
    test('every code block says what it is', () => {
      assert.ok(blocks.length > 0);
      const unknown = blocks.filter((b) => !b.kind).map((b) => b.name);
      assert.deepEqual(unknown, [], 'blocks with an info string tests/node/readme-blocks.mjs does not know');
    });

    test('relative links point at files in the package', () => {
      for (const target of relativeLinks(readme.path)) {
        assert.ok(packed.includes(target.split('#')[0]), `${target} is not in the tarball, so the link breaks on npm`);
      }
    });

    if (readme.models) {
      test('the table of models says what manifest.json says', () => {
        const manifest = JSON.parse(readFileSync(join(MODELS_PACKAGE, 'manifest.json'), 'utf8'));
        const rows = readFileSync(readme.path, 'utf8').split('\n').filter((l) => l.startsWith('| `'));
        assert.equal(rows.length, manifest.models.length);
        for (const m of manifest.models) {
          const cells = rows.find((r) => r.startsWith(`| \`${m.file}\``))?.split('|').map((c) => c.trim());
          assert.ok(cells, `a row for ${m.file}`);
          assert.deepEqual(cells.slice(3, 6), [m.bytes.toLocaleString('en-US'), m.testWer.toFixed(2), m.testPer.toFixed(2)], m.file);
        }
      });
    }

    for (const block of blocks) {
      if (block.kind?.notRun) {
        test(block.name, { skip: `not run: ${block.kind.notRun}` }, () => {});
      } else if (block.kind?.run === 'install') {
        test(block.name, () => {
          assert.equal(block.code.trim(), 'npm install seq2seq-wasm seq2seq-wasm-models', 'the command the test stands in for');
          const dir = join(pkg.project, `readme-install-${readme.id}`);
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir);
          writeFileSync(join(dir, 'package.json'), '{"name":"readme-install","private":true,"type":"module"}');
          const r = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', pkg.tarball, pkg.modelsTarball], { cwd: dir, encoding: 'utf8' });
          assert.equal(r.status, 0, r.stderr);
          for (const name of ['seq2seq-wasm', 'seq2seq-wasm-models']) assert.ok(existsSync(join(dir, 'node_modules', name, 'package.json')), name);
        });
      } else if (block.kind?.run === 'node') {
        test(block.name, { timeout: 120000 }, () => {
          assert.ok(block.expected.length > 0, 'a Node example says what it prints (// → ...)');
          const file = join(pkg.project, `readme-${readme.id}-${block.line}.mjs`);
          writeFileSync(file, block.code);
          const r = spawnSync(process.execPath, [file], { cwd: pkg.project, encoding: 'utf8', timeout: 110000 });
          assert.equal(r.status, 0, `exit ${r.status}: ${r.stderr}`);
          assert.equal(r.stderr, '');
          for (const text of block.expected) assert.ok(r.stdout.includes(text), `prints '${text}'; printed:\n${r.stdout}`);
        });
      }
    }
  });
}
