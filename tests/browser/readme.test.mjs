// The READMEs' browser examples, run as written in Chromium: the scratch
// project where both tarballs are installed (tests/node/helpers.mjs) is served
// by scripts/serve.mjs as "any static server", each `html browser` block is a
// page at its root, and each `js browser` block a module of a page that has
// its README's import map. A bundler's example (`js vite`, `js esbuild`,
// `js webpack`, `js parcel`, `js rollup`) is the main.js of a page in a folder
// of the project of its own, whose node_modules links to the installed
// packages: built there by Vite, or by the commands the example gives (its
// `npm install --save-dev` links the bundler from the repository's
// node_modules; the others, npx and all, run as written), then opened. An
// example passes when what its `// →` comments say shows up on the page or
// its console, with no error, failed request or HTTP error on the way. The
// Node examples run in tests/node/readme.test.mjs.
//   node --test --test-concurrency=1 tests/browser/readme.test.mjs
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
    } else if (block.kind?.run === 'vite') {
      const folder = `readme-${readme.id}-${block.line}`;
      pages.push({ block, file: `${folder}/dist/index.html`, build: () => viteProject(join(pkg.project, folder), block) });
    } else if (block.kind?.run === 'build') {
      const folder = `readme-${readme.id}-${block.line}`;
      pages.push({ block, file: `${folder}/${block.kind.page ?? 'index.html'}`, build: () => commandProject(join(pkg.project, folder), block) });
    }
  }
}

const PAGE = (src) => `<!doctype html>\n<meta charset="utf-8">\n<script type="module" src="${src}"></script>\n`;

// A folder of the scratch project as a project of its own: the block as its
// main.js, node_modules with the two installed packages.
function bundlerProject(dir, block) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  for (const name of ['seq2seq-wasm', 'seq2seq-wasm-models']) symlinkSync(join(pkg.project, 'node_modules', name), join(dir, 'node_modules', name));
  write(join(dir, 'package.json'), JSON.stringify({ name: 'readme-example', private: true, type: 'module' }));
  write(join(dir, 'main.js'), block.code);
}

async function viteProject(dir, block) {
  bundlerProject(dir, block);
  write(join(dir, 'index.html'), PAGE('./main.js'));
  await viteBuild(dir, join(dir, 'index.html'), join(dir, 'dist'));
}

const DEV_DEPENDENCIES = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies;

// `npm install --save-dev name` in an example's folder, offline: the package
// linked from the repository's node_modules, at the version its package.json
// pins, with its commands in node_modules/.bin for npx to find.
function devDependency(dir, name) {
  assert.ok(name in DEV_DEPENDENCIES, `${name} is one of the repository's devDependencies`);
  const from = join(root, 'node_modules', name);
  mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
  symlinkSync(from, join(dir, 'node_modules', name));
  const { bin } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  const bins = typeof bin === 'string' ? { [name.split('/').pop()]: bin } : bin ?? {};
  for (const [command, path] of Object.entries(bins)) symlinkSync(join(from, path), join(dir, 'node_modules/.bin', command));
}

// npx, for the packages an example installs: their command from the folder's
// node_modules/.bin, as npx runs it, without starting npm (a second a call).
const NPX = join(pkg.project, '.npx');
mkdirSync(NPX, { recursive: true });
writeFileSync(join(NPX, 'npx'), '#!/bin/sh\ncommand=$1; shift\nexec "./node_modules/.bin/$command" "$@"\n');
chmodSync(join(NPX, 'npx'), 0o755);
// Parcel without worker processes: for a page this small they cost more than they save.
const COMMAND_ENV = { ...process.env, PATH: `${NPX}:${process.env.PATH}`, npm_config_offline: 'true', PARCEL_WORKERS: '0' };

// The example's `// $` commands, in order, in its folder, where a page loads
// its built script (or index.html is the page the bundler builds from).
async function commandProject(dir, block) {
  assert.ok(block.commands.length > 0, 'the example says how it is built (// $ ...)');
  bundlerProject(dir, block);
  write(join(dir, 'index.html'), PAGE(block.kind.script ?? './main.js'));
  for (const command of block.commands) {
    const install = /^npm install --save-dev ([@\w./ -]+)$/.exec(command);
    if (install) {
      for (const name of install[1].trim().split(/\s+/)) devDependency(dir, name);
      continue;
    }
    await new Promise((resolve, reject) => {
      execFile('sh', ['-c', command], { cwd: dir, env: COMMAND_ENV, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`${command}: exit ${error.code}\n${stdout}${stderr}`));
        else resolve();
      });
    });
  }
}
// scripts/serve.mjs serves the project; the browser asks for a favicon, which a real site would have.
writeFileSync(join(pkg.project, 'index.html'), pages.map((p) => `<a href="${p.file}">${p.block.name}</a>`).join('<br>\n'));
writeFileSync(join(pkg.project, 'favicon.ico'), '');

describe('the READMEs\' browser examples in Chromium', () => {
  let server;
  let browser;
  before(async () => {
    // The bundlers' examples build at once, while the others run; each test awaits its own build.
    for (const p of pages.filter((x) => x.build)) {
      p.built = p.build();
      p.built.catch(() => {});   // reported by the example's test
    }
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

  test('there is an example for each bundler', () => {
    for (const info of ['js vite', 'js esbuild', 'js webpack', 'js parcel', 'js rollup']) assert.ok(pages.some((p) => p.block.info === info), info);
  });

  for (const p of pages) {
    const { block, file, importMap } = p;
    test(block.name, { timeout: 120000 }, async () => {
      if (block.kind.run === 'module') assert.ok(importMap, 'its README has a page example whose import map the module needs');
      await p.built;
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
