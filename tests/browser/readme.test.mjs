// The READMEs' browser examples, run as written in Chromium: the scratch
// project where both tarballs are installed (tests/node/helpers.mjs) is served
// by scripts/serve.mjs as "any static server", each `html browser` block is a
// page at its root, and each `js browser` block a module of a page that has
// its README's import map. An example passes when what its `// →` comments
// say shows up on the page or its console, with no error, failed request or
// HTTP error on the way. The Node examples run in tests/node/readme.test.mjs.
//   node --test --test-concurrency=1 tests/browser/readme.test.mjs
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { installPackage } from '../node/helpers.mjs';
import { READMES, importMapOf, readmeBlocks } from '../node/readme-blocks.mjs';
import { launch, openPage, startServer } from './helpers.mjs';

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
    }
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

  for (const { block, file, importMap } of pages) {
    test(block.name, { timeout: 60000 }, async () => {
      if (block.kind.run === 'module') assert.ok(importMap, 'its README has a page example whose import map the module needs');
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
      } finally {
        await page.close();
      }
    });
  }
});
