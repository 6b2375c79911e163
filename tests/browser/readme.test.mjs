// The READMEs' browser examples, run as written in Chromium: the scratch
// project where both tarballs are installed (tests/node/helpers.mjs) is served
// by scripts/serve.mjs as "any static server", each `html browser` block is a
// page at its root, and each `js browser` block a module of a page that has
// its README's import map. A bundler's example (`js vite`, `js esbuild`) is
// the main.js of a page in a folder of the project of its own, whose
// node_modules links to the installed packages: built there by Vite, or by
// the commands the example gives (npx esbuild, found in that node_modules),
// then opened. An example passes when what its `// →` comments say shows up
// on the page or its console, with no error, failed request or HTTP error on
// the way. The Node examples run in tests/node/readme.test.mjs.
//   node --test --test-concurrency=1 tests/browser/readme.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { installPackage } from '../node/helpers.mjs';
import { READMES, importMapOf, readmeBlocks } from '../node/readme-blocks.mjs';
import { viteBuild, write } from './bundle.mjs';
import { launch, openPage, root, startServer } from './helpers.mjs';

const pkg = installPackage();
const pages = [];
const unknown = [];
for (const readme of READMES) {
  const blocks = readmeBlocks(readme.path);
  unknown.push(...blocks.filter((b) => !b.kind).map((b) => b.name));
  const importMap = importMapOf(blocks);
  for (const block of blocks) {
    if (block.kind?.run === 'page') {
      const file = `readme-${readme.id}-${block.line}.html`;
      writeFileSync(join(pkg.project, file), block.code);
      pages.push({ block, file });
    } else if (block.kind?.run === 'module') {
      const module = `readme-${readme.id}-${block.line}.mjs`;
      const file = `readme-${readme.id}-${block.line}.html`;
      writeFileSync(join(pkg.project, module), block.code);
      writeFileSync(join(pkg.project, file), `<!doctype html>\n<meta charset="utf-8">\n${importMap ?? ''}\n<script type="module" src="./${module}"></script>\n`);
      pages.push({ block, file, importMap });
    } else if (block.kind?.run === 'vite' || block.kind?.run === 'esbuild') {
      const folder = `readme-${readme.id}-${block.line}`;
      const build = block.kind.run === 'vite' ? viteProject : esbuildProject;
      pages.push({ block, file: `${folder}/${block.kind.run === 'vite' ? 'dist/' : ''}index.html`, build: () => build(join(pkg.project, folder), block) });
    }
  }
}

const PAGE = (src) => `<!doctype html>\n<meta charset="utf-8">\n<script type="module" src="${src}"></script>\n`;

// A folder of the scratch project as a project of its own: the block as its
// main.js, node_modules with the two installed packages (and `extra`: name → path).
function bundlerProject(dir, block, extra = {}) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  for (const name of ['seq2seq-wasm', 'seq2seq-wasm-models']) symlinkSync(join(pkg.project, 'node_modules', name), join(dir, 'node_modules', name));
  for (const [name, target] of Object.entries(extra)) symlinkSync(target, join(dir, 'node_modules', name));
  write(join(dir, 'package.json'), JSON.stringify({ name: 'readme-example', private: true, type: 'module' }));
  write(join(dir, 'main.js'), block.code);
}

async function viteProject(dir, block) {
  bundlerProject(dir, block);
  write(join(dir, 'index.html'), PAGE('./main.js'));
  await viteBuild(dir, join(dir, 'index.html'), join(dir, 'dist'));
}

// esbuild as a devDependency of the example's project, so that `npx esbuild` finds it there.
async function esbuildProject(dir, block) {
  assert.ok(block.commands.length > 0, 'the example says how it is built (// $ ...)');
  bundlerProject(dir, block, { esbuild: join(root, 'node_modules/esbuild'), '.bin/esbuild': '../esbuild/bin/esbuild' });
  write(join(dir, 'index.html'), PAGE('out/main.js'));
  for (const command of block.commands) {
    const r = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true' } });
    assert.equal(r.status, 0, `${command}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  }
}
// scripts/serve.mjs serves the project; the browser asks for a favicon, which a real site would have.
writeFileSync(join(pkg.project, 'index.html'), pages.map((p) => `<a href="${p.file}">${p.block.name}</a>`).join('<br>\n'));
writeFileSync(join(pkg.project, 'favicon.ico'), '');

describe('the READMEs\' browser examples in Chromium', () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer(pkg.project);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('every code block says what it is', () => {
    assert.deepEqual(unknown, [], 'blocks with an info string tests/node/readme-blocks.mjs does not know');
  });

  test('there are a page and a worker example', () => {
    assert.ok(pages.some((p) => p.block.kind.run === 'page'));
    assert.ok(pages.some((p) => p.block.kind.run === 'module' && /createDecoderWorker/.test(p.block.code)));
  });

  test('there are a Vite and an esbuild example', () => {
    for (const run of ['vite', 'esbuild']) assert.ok(pages.some((p) => p.block.kind.run === run), run);
  });

  for (const { block, file, importMap, build } of pages) {
    test(block.name, { timeout: 120000 }, async () => {
      if (block.kind.run === 'module') assert.ok(importMap, 'its README has a page example whose import map the module needs');
      await build?.();
      assert.ok(block.expected.length > 0, 'a browser example says what it shows (// → ...)');
      const { page, errors } = await openPage(browser.context);
      const logged = [];
      page.on('console', (m) => logged.push(m.text()));
      try {
        await page.goto(new URL(file, server.url).href);
        const shown = async () => `${await page.evaluate(() => document.body?.innerText ?? '')}\n${logged.join('\n')}`;
        const deadline = Date.now() + 45000;
        let text = await shown();
        while (!block.expected.every((e) => text.includes(e)) && errors.length === 0 && Date.now() < deadline) {
          await page.waitForTimeout(100);
          text = await shown();
        }
        assert.deepEqual(errors, []);
        for (const e of block.expected) assert.ok(text.includes(e), `shows '${e}'; the page and its console:\n${text}`);
        if (/\bcache: true\b/.test(block.code)) {
          // loadModel's default cache (index.d.ts) now holds the download, under the model's URL.
          const cached = await page.evaluate(async () => (await (await caches.open('seq2seq-wasm-models')).keys()).map((r) => r.url));
          assert.ok(cached.length === 1 && cached[0].endsWith('.safetensors'), `the Cache API holds the model: ${cached}`);
        }
      } finally {
        await page.close();
      }
    });
  }
});
