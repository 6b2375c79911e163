// The page's lists of modules (index.html's modulepreload links, which scripts/build-web.mjs
// writes into the site, and the decoder worker's imports, committed) are written from the
// import graph by scripts/gen-module-lists.mjs: this fails when the committed one is stale,
// and when the graph misses an import. The scripts take nothing from the page's own modules
// (web/js/); what both need is in web/shared/, which imports nothing else. (That the
// lists are what a first visit loads is checked in Chromium, tests/browser/weight.test.mjs.)
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, moduleGraph, preloadLinks, staleFiles, staticImports } from '../../scripts/gen-module-lists.mjs';

test('decoder-worker.js\'s imports are up to date (else: node scripts/gen-module-lists.mjs)', () => {
  assert.deepEqual(staleFiles(), []);
});

test('static imports are read as the browser reads them; dynamic ones are not a first visit\'s', () => {
  const text = [
    "import { a,\n  b } from './a.js';",
    "import './side.js';",
    "import x from \"../b.js\";",
    "export { c } from './c.js';",
    "export * from './d.js';",
    "  const lazy = () => import('./lazy.js');",
    '// import { e } from \'./comment.js\';',
    "const s = 'import nothing from here';",
  ].join('\n');
  assert.deepEqual(staticImports(text), ['./a.js', './side.js', '../b.js', './c.js', './d.js']);
});

test('the lists follow the imports: a module imported anew is preloaded, its position after what it imports', () => {
  const page = moduleGraph('js/app.js');
  for (const p of ['js/app.js', 'js/lane-views.js', 'js/inside.js', 'i18n/en.js', 'wasm/src/worker-client.js', 'shared/lane-models.js']) assert.ok(page.includes(p), p);
  for (const p of ['js/tour.js', 'js/text-view.js', 'i18n/zh.js', 'js/decoder-worker.js']) assert.ok(!page.includes(p), `${p} is no first visit's`);
  assert.ok(page.indexOf('js/view-registry.js') < page.indexOf('js/inside.js'));
  const worker = moduleGraph('wasm/src/worker.js');
  for (const p of ['wasm/src/limits.js', 'wasm/src/text.js', 'wasm/dist/seq2seq_core.mjs', 'wasm/src/worker.js']) assert.ok(worker.includes(p), p);
  const scratch = mkdtempSync(join(tmpdir(), 'module-lists-'));
  try {
    for (const dir of ['web', 'wasm/src']) cpSync(join(ROOT, dir), join(scratch, dir), { recursive: true });
    assert.deepEqual(staleFiles(scratch), []);
    writeFileSync(join(scratch, 'web/js/extra.js'), 'export const extra = 1;\n');
    writeFileSync(join(scratch, 'web/js/app.js'), `import { extra } from './extra.js';\n${readFileSync(join(scratch, 'web/js/app.js'), 'utf8')}`);
    assert.ok(preloadLinks(scratch).includes('<link rel="modulepreload" href="js/extra.js">'));
    writeFileSync(join(scratch, 'wasm/src/errors-extra.js'), 'export const x = 1;\n');
    writeFileSync(join(scratch, 'wasm/src/worker.js'), `import './errors-extra.js';\n${readFileSync(join(scratch, 'wasm/src/worker.js'), 'utf8')}`);
    assert.deepEqual(staleFiles(scratch), ['web/js/decoder-worker.js']);
    writeFileSync(join(scratch, 'wasm/src/worker.js'), `import './errors.js';\nimport './gone.js';\n`);
    assert.throws(() => staleFiles(scratch), /imports \.\/gone\.js|gone\.js/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('no script imports a page module: what a script shares with the page is in web/shared/, which imports nothing', () => {
  const scripts = readdirSync(join(ROOT, 'scripts'), { recursive: true }).filter((f) => /\.m?js$/.test(f)).map((f) => join('scripts', f));
  for (const f of [...scripts, 'bench/g2p-compare.mjs']) {
    const bad = staticImports(readFileSync(join(ROOT, f), 'utf8')).filter((s) => /web\/js\//.test(s));
    assert.deepEqual(bad, [], `${f} imports the page's own modules`);
  }
  for (const f of readdirSync(join(ROOT, 'web/shared'))) {
    assert.deepEqual(staticImports(readFileSync(join(ROOT, 'web/shared', f), 'utf8')), [], `web/shared/${f} imports nothing`);
  }
});
