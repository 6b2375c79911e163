// What the page and the package must do in every browser engine, run in Firefox ESR
// (firefox.test.mjs) and WebKitGTK (webkit.test.mjs) through engines.mjs; the other
// browser tests run in Chromium. Driven through in-page scripts, so that one body
// serves both engines, and checked against the npm module's own decode in Node:
//   - README.md's page and worker examples, served from the scratch project where the
//     packed packages are installed: their `// →` outputs show;
//   - the page: one lane of each type (greedy, beam, Mask-Predict, the RNNs' compare
//     lane) decodes a word as the module does;
//   - the tour: every stop of the lanes opens, says its words and outlines its element
//     in view, and its lanes decode as the module does;
//   - a lesson of the Train mode (copy vs no copy on names, the shortest) trains its two
//     runs in the engine's workers, and its sentences are measureLesson's of their records;
//   - the word list: outputs, ✓/✗ and WER over the first test words;
//   - the README's cached load: a second visit at the same address reads the Cache API
//     (not in WebKit under WebDriver, whose test says why).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import en from '../../web/i18n/en.js';
import { decodeState } from '../../web/js/address.js';
import { STOPS, isTrainStop } from '../../web/js/tour.js';
import { measureLesson } from '../../web/js/train-lessons.js';
import { compareModels } from '../../web/shared/lane-models.js';
import { installPackage } from '../node/helpers.mjs';
import { READMES, importMapOf, readmeBlocks } from '../node/readme-blocks.mjs';
import { moduleModel, releaseModels, sameResults } from './expect.mjs';
import { artifact, filledFrom, site, startServer } from './helpers.mjs';
import { makeLane, moduleOptions } from './lanes.mjs';
import { SPLIT, firstWords } from './test-split.mjs';

const siteData = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = siteData.models.find((m) => m.autoregressive);
const NAR = siteData.models.find((m) => !m.autoregressive);
const COMPARE = compareModels(siteData.models).filter(Boolean);
const WORD = AR.examples.filter((w) => NAR.examples.includes(w))[1];

const BLOCKS = readmeBlocks(READMES[0].path);
const IMPORT_MAP = importMapOf(BLOCKS);
const PAGE_BLOCK = BLOCKS.find((b) => b.kind?.run === 'page');
const WORKER_BLOCK = BLOCKS.find((b) => b.kind?.run === 'module' && /createDecoderWorker/.test(b.code));
const CACHE_BLOCK = BLOCKS.find((b) => b.kind?.run === 'module' && /\bcache: true\b/.test(b.code));

// A module example's page records its console and uncaught errors in window.logged:
// classic WebDriver reports neither.
const RECORDER = `<script>
  window.logged = [];
  for (const k of ['log', 'warn', 'error']) {
    const original = console[k];
    console[k] = (...a) => { window.logged.push(\`\${k}: \${a.join(' ')}\`); original.apply(console, a); };
  }
  addEventListener('error', (e) => window.logged.push(\`error: \${e.message}\`));
  addEventListener('unhandledrejection', (e) => window.logged.push(\`error: \${e.reason?.stack ?? e.reason}\`));
</script>`;

/** The page's lanes as decoded: each one's n-best (text, score, log P), shown result, and the compare lane's panels. */
const lanesNow = () => window.seq2seqPage.lanes.map((l) => {
  const results = (s) => s?.results?.map(({ text, score, logprob }) => ({ text, score, logprob })) ?? null;
  return {
    type: l.type,
    error: l.error,
    results: results(l.snaps.at(-1)),
    shown: l.el.querySelector('.result-main')?.dataset.result ?? null,
    panels: l.panels?.map((p) => ({ model: p.model?.id ?? null, error: p.error ?? null, results: results(p.snaps.at(-1)),
      shown: l.el.querySelector(`.score-panel[data-score="${p.score}"] .cmp-out`)?.dataset.result ?? null })) ?? null,
  };
});
const lanesIdle = () => Number(document.body.dataset.ready ?? 0) > 0 && window.seq2seqPage?.lanes.every((l) => !l.busy);

/** What the module decodes for a lane of the page: its n-best, or per compared RNN { model, results }. */
async function expectedLane(spec, word) {
  const lane = makeLane(spec.type, spec.opts);
  if (lane.type === 'compare') {
    return Promise.all(COMPARE.map(async (m) => ({ model: m.id, results: (await moduleModel(m)).decode(word, moduleOptions(lane, word)) })));
  }
  return (await moduleModel(lane.type === 'nar' || lane.type === 'mp' ? NAR : AR)).decode(word, moduleOptions(lane, word));
}

/** The lanes shown equal the module's decode of `word` with the lanes' settings; with `shown`, each shows its best. */
async function assertLanes(got, specs, word, what, { shown = false } = {}) {
  assert.deepEqual(got.map((l) => l.type), specs.map((s) => s.type), `${what}: lanes`);
  for (const [i, spec] of specs.entries()) {
    const lane = got[i];
    const label = `${what}, ${spec.type} lane`;
    assert.equal(lane.error, null, label);
    const want = await expectedLane(spec, word);
    if (spec.type !== 'compare') {
      sameResults(lane.results, want, label);
      if (shown) assert.equal(lane.shown, want[0].text, `${label}: shown`);
      continue;
    }
    assert.deepEqual(lane.panels.map((p) => p.model), want.map((w) => w.model), `${label}: its models`);
    for (const [k, p] of lane.panels.entries()) {
      assert.equal(p.error, null, `${label}, ${p.model}`);
      sameResults(p.results, want[k].results, `${label}, ${p.model}`);
      if (shown) assert.equal(p.shown, want[k].results[0].text, `${label}, ${p.model}: shown`);
    }
  }
}

/**
 * The checks, as one describe for the engine `launch` (engines.mjs) starts. cacheLostOnReload:
 * the engine's Cache API loses a page's entries when that page is loaded again (see the test).
 */
export function engineChecks(title, launch, { cacheLostOnReload = false } = {}) {
  let engine;
  let siteServer;
  let projectServer;
  let pkg;
  const siteUrl = (q) => new URL(q, siteServer.url).href;
  const projectUrl = (file) => new URL(file, projectServer.url).href;
  const noErrors = () => assert.deepEqual(engine.errors() ?? [], [], `${engine.name} reported errors`);
  const shot = (name) => engine.screenshot(artifact(`engine-${engine.name.toLowerCase()}-${name}.png`));

  /** The README example's page in the scratch project (a module example: with the README's import map). */
  function examplePage(block) {
    const file = `engine-${launch.name}-readme-${block.line}.html`;
    if (block.kind.run === 'page') {
      writeFileSync(join(pkg.project, file), block.code);
    } else {
      const module = `engine-${launch.name}-readme-${block.line}.mjs`;
      writeFileSync(join(pkg.project, module), block.code);
      writeFileSync(join(pkg.project, file), `<!doctype html>\n<meta charset="utf-8">\n${RECORDER}\n${IMPORT_MAP}\n<script type="module" src="./${module}"></script>\n`);
    }
    return projectUrl(file);
  }

  /** Opens the example and waits for its `// →` outputs (or an error); returns what the page and its console showed. */
  async function runExample(url, block) {
    await engine.open(url);
    const text = await engine.waitFor((expected) => {
      const all = `${document.body?.innerText ?? ''}\n${(window.logged ?? []).join('\n')}`;
      return expected.every((e) => all.includes(e)) || (window.logged ?? []).some((l) => l.startsWith('error:')) ? all : null;
    }, block.expected, `${block.name}'s output`, 60000);
    for (const e of block.expected) assert.ok(text.includes(e), `${block.name} shows '${e}'; the page and its console:\n${text}`);
    assert.deepEqual(text.split('\n').filter((l) => /^(error|warn):/.test(l)), [], `${block.name}: console errors`);
    noErrors();
    return text;
  }

  describe(`${title}: the README's examples, the page, the tour and the word list`, { timeout: 300000 }, () => {
    let launching;
    before(async () => {
      launching = launch();
      launching.catch(() => {});   // awaited below, where a failure to start is reported
      siteServer = await startServer();
      // Synchronous (it hashes both packages' files): the browser starts meanwhile.
      pkg = installPackage();
      // scripts/serve.mjs wants an index.html; the README tests write their own.
      writeFileSync(join(pkg.project, 'index.html'), '', { flag: 'a' });
      writeFileSync(join(pkg.project, 'favicon.ico'), '', { flag: 'a' });
      projectServer = await startServer(pkg.project);
      engine = await launching;
      console.log(`${engine.name} ${engine.version}`);
    });
    after(async () => {
      await (await launching?.catch(() => null))?.close();
      await siteServer?.stop();
      await projectServer?.stop();
      await releaseModels();
    });

    test('README.md\'s page example shows its output', async () => {
      await runExample(examplePage(PAGE_BLOCK), PAGE_BLOCK);
    });

    test('README.md\'s worker example logs its output', async () => {
      await runExample(examplePage(WORKER_BLOCK), WORKER_BLOCK);
    });

    test(`the page: greedy, beam, Mask-Predict and the RNNs' compare lane decode ${WORD} as the npm module does`, async () => {
      const specs = ['greedy', 'beam', 'mp', 'compare'].map((type) => ({ type, opts: {} }));
      await engine.open(siteUrl(`?w=${WORD}&${specs.map((s) => `lane=${s.type}`).join('&')}`));
      await engine.waitFor(lanesIdle, null, 'the lanes\' decode');
      // A link with a word and no step opens at the end, where every lane shows its best.
      await assertLanes(await engine.evaluate(lanesNow), specs, WORD, 'the page', { shown: true });
      await shot('lanes');
      noErrors();
    });

    test('the tour: every stop by Next, its words and outlined element in view, its lanes as the npm module decodes them', async () => {
      await engine.open(siteUrl('/'));
      await engine.waitFor(lanesIdle, null, 'the first screen');
      await engine.evaluate(() => document.getElementById('tour-start').click());
      for (const [i, stop] of STOPS.entries()) {
        const n = i + 1;
        if (isTrainStop(stop)) break;   // the training stops: a lesson below
        if (n > 1) await engine.evaluate(() => document.getElementById('tour-next').click());
        await engine.waitFor((k) => document.getElementById('tour')?.dataset.shown === String(k)
          && new URLSearchParams(location.search).get('tour') === String(k), n, `stop ${n}`);
        const shown = await engine.evaluate(() => {
          const target = window.seq2seqPage.tour.targets()[0];
          const r = target?.getBoundingClientRect();
          const bar = document.querySelector('.transport-bar').getBoundingClientRect();
          return { title: document.getElementById('tour-title').textContent, text: document.getElementById('tour-text').textContent,
            outline: target ? getComputedStyle(target).outlineStyle : null, top: r?.top, height: r?.height, barBottom: bar.bottom, inner: innerHeight };
        });
        assert.equal(shown.title, en[stop.title], `stop ${n}: title`);
        assert.ok(filledFrom(en[stop.text], shown.text), `stop ${n}: its text, its numbers filled in: ${shown.text}`);
        assert.equal(shown.outline, 'solid', `stop ${n}: its element is outlined`);
        assert.ok(shown.height > 0 && shown.top >= shown.barBottom - 1 && shown.top < shown.inner,
          `stop ${n}: its element starts in view below the step bar (${JSON.stringify(shown)})`);
        const state = decodeState(stop.query);
        await assertLanes(await engine.evaluate(lanesNow), state.lanes, state.word, `stop ${n}`);
        if (n === 2 || n === 7 || n === 11) await shot(`tour-${n}`);
      }
      await engine.evaluate(() => document.getElementById('tour-close').click());
      await engine.waitFor(() => document.getElementById('tour').hidden, null, 'the tour to close');
      noErrors();
    });

    test('a lesson of the Train mode: copy vs no copy on names, both runs in trainer workers, its sentences measured from their records', async () => {
      await engine.open(siteUrl('?view=train&lesson=copy'));
      await engine.waitFor(() => {
        const v = window.seq2seqPage?.trainView;
        return v?.lessonId === 'copy' && v.lessonPanels.length === 2 && v.lessonPanels.every((p) => p.status === 'done' || p.status === 'failed');
      }, null, 'the lesson\'s two runs', 120000);
      const got = await engine.evaluate(() => {
        const v = window.seq2seqPage.trainView;
        const plain = (p) => ({ status: p.status, records: p.records, info: { targetVocabSize: p.info.targetVocabSize },
          probes: p.probes.map((x) => ({ source: x.source, targetTokens: x.targetTokens, copyGate: x.copyGate ? [...x.copyGate] : undefined })) });
        return { runs: v.lessonPanels.map(plain), sentence: document.querySelector('.tr-sentence')?.textContent ?? null };
      });
      assert.deepEqual(got.runs.map((r) => r.status), ['done', 'done']);
      const m = measureLesson('copy', got.runs[0], got.runs[1]);
      const fill = (s) => en[s.key].replace(/\{(\w+)\}/g, (x, k) => String(s.params[k]));
      assert.equal(got.sentence, fill(m.sentence), 'the page says the lesson\'s sentence of these records');
      // The runs learned here as in Chromium: the copy model writes the held-out names, the other cannot.
      assert.ok(m.exactB >= 90 && m.exactA <= 10, `copy ${m.exactB} %, no copy ${m.exactA} %`);
      await shot('lesson-copy');
      noErrors();
    });

    test('the word list: greedy and one-pass NAR over the first test words, outputs, ✓/✗ and WER as the npm module gives them', async () => {
      const N = 12;
      await engine.open(siteUrl(`?view=list&n=${N}&src=test&lane=greedy&lane=nar`));
      await engine.waitFor(() => Number(document.body.dataset.listRuns ?? 0) >= 1, null, 'the list run', 120000);
      const page = await engine.evaluate(() => ({
        summary: [...document.querySelectorAll('#wl-summary tbody tr')].map((r) => ({ lane: r.dataset.lane, wer: Number(r.dataset.wer) })),
        words: [...document.querySelectorAll('#wl-words-table tbody tr')].map((r) => ({
          word: r.dataset.word,
          cells: [...r.querySelectorAll('td[data-ok]')].map((c) => ({ output: c.querySelector('.arpa-line').textContent, ok: c.dataset.ok })),
        })),
      }));
      const words = firstWords(N);
      assert.deepEqual(page.words.map((r) => r.word), words);
      assert.deepEqual(page.summary.map((r) => r.lane), ['greedy', 'nar']);
      for (const [k, { lane }] of page.summary.entries()) {
        const model = await moduleModel(lane === 'nar' ? NAR : AR);
        const outputs = model.decodeBatch(words, moduleOptions(makeLane(lane))).map((l) => l[0].text);
        const right = words.map((w, i) => SPLIT.get(w).includes(outputs[i]));
        assert.deepEqual(page.words.map((r) => r.cells[k].output), outputs, `${lane}: outputs`);
        assert.deepEqual(page.words.map((r) => r.cells[k].ok), right.map(String), `${lane}: ✓/✗`);
        const wer = (100 * right.filter((r) => !r).length) / N;
        assert.ok(Math.abs(page.summary[k].wer - wer) < 1e-9, `${lane}: WER ${page.summary[k].wer} vs ${wer}`);
      }
      await shot('wordlist');
      noErrors();
    });

    test('README.md\'s cached load: the model in the Cache API, read from there at the second visit', async () => {
      // The first visit of this page in the engine's fresh profile: it downloads.
      const url = examplePage(CACHE_BLOCK);
      const visit = async () => {
        await runExample(url, CACHE_BLOCK);
        return engine.evaluate(async () => ({
          downloaded: performance.getEntriesByType('resource').some((r) => r.name.endsWith('.safetensors')),
          held: (await (await caches.open('seq2seq-wasm-models')).keys()).map((r) => r.url),
          named: await caches.has('seq2seq-wasm-models'),
        }));
      };
      const first = await visit();
      assert.equal(first.downloaded, true, 'the first visit downloads the model');
      assert.ok(first.held.length === 1 && first.held[0].endsWith('.safetensors'), `the Cache API holds the model: ${first.held}`);
      const again = await visit();
      if (!cacheLostOnReload) {
        assert.equal(again.downloaded, false, 'the second visit reads the Cache API');
        return;
      }
      // WebKit: WebDriver's session is ephemeral, whose Cache API lives in memory, and the network process closes a
      // cache no page holds any more, dropping its entries (the name stays). Loading the same address again ends the
      // page that held it (a reload is not kept in the back/forward cache), so the second visit downloads again.
      // Going to another address first keeps the old page, and the cache, alive: a new address hits.
      assert.equal(again.downloaded, true, 'WebKit: the entry is gone at the second visit of the same address');
      assert.equal(again.named, true, 'WebKit: the cache\'s name outlives its entries');
    });
  });
}
