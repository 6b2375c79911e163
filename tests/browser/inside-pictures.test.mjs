// The pictures of "Inside this step" (web/js/inside-parts.js, inside-output.js),
// each against the npm module at two settings that are not the page's defaults:
// - the causal mask: −∞ in the scores table and dark in the map, opened on a query
//   where something is masked;
// - the positional encoding: a few dimensions drawn as curves over the positions;
// - the output block: the logits and the distribution at a temperature as bars that
//   follow the slider, the distribution the engine's sampling draws from;
// - why the top phoneme stops short of 100 %: label smoothing with the recipe's ε
//   (models/train/configs), for a distilled model and one that is not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { moduleModel, releaseModels } from './expect.mjs';
import { artifact, openPage, root, servedSite, settled, site } from './helpers.mjs';

const { models } = JSON.parse(readFileSync(join(site, 'models.json'), 'utf8'));
const AR = models.find((m) => m.id === 'g2p-transformer');
const RNN = models.find((m) => m.id === 'g2p-rnn-dot');
const served = servedSite({ cleanup: releaseModels });
const num = (s) => Number(String(s).trim().replace('−', '-').replace('%', ''));

/** The tokens the inside of lane 0 reads at its step (BEGIN excluded): the best hypothesis's, before its newest. */
const passTokens = (page) => page.evaluate(() => {
  const l = window.seq2seqPage.lanes[0];
  const s = l.snaps[window.seq2seqPage.t];
  return (s.live[0] ?? s.finished[0]).tokens.slice(0, -1);
});

async function open(page, query, width = 1400) {
  await page.setViewportSize({ width, height: 1000 });
  await page.goto(served.url(query));
  await settled(page);
  await page.waitForSelector('details.inside[open] .arch, details.inside[open] .in-output', { timeout: 20000 });
}

/** The recipe's training step of a model: its label smoothing and, for a student, the weight of distillation. */
function recipe(id) {
  const c = JSON.parse(readFileSync(join(root, 'models/train/configs', `${id}.json`), 'utf8'));
  const run = c.steps.filter((s) => (s.run ?? []).includes('--label-smoothing')).at(-1).run;
  const arg = (k) => (run.includes(k) ? Number(run[run.indexOf(k) + 1]) : null);
  return { eps: arg('--label-smoothing'), kd: run[0] === 'train-student' ? arg('--kd-weight') : null };
}

for (const [word, t, layer, head, q] of [['DELETE', 3, 1, 1, null], ['COLONEL', 5, 3, 2, 2]]) {
  test(`the causal mask, ${word} step ${t}, layer ${layer} head ${head}${q == null ? ', the query it opens on' : `, query ${q}`}: −∞ in the scores, dark in the map`, async () => {
    const { page, errors } = await openPage(served.context);
    await open(page, `?w=${word}&lane=greedy:inside=dec-self-L${layer}-h${head}${q == null ? '' : `-q${q}`}&t=${t}`);
    const model = await moduleModel(AR);
    const d = model.inspect(word, await passTokens(page));
    const a = d.decoder.layers[layer - 1].selfAttention.attention;
    const nq = a.queries, nk = a.keys, h = head - 1;
    const pos = await page.evaluate(() => Number(document.querySelector('details.inside .in-pos [aria-pressed="true"]').dataset.pos));
    if (q == null) {
      assert.ok(pos < nq - 1, `opens on a query before the last (${pos} of ${nq})`);
      assert.ok(Array.from(a.mask.subarray(pos * nk, (pos + 1) * nk)).includes(1), 'where the mask hides something');
    } else assert.equal(pos, q - 1);
    const table = await page.$eval('details.inside table.in-scores', (tb) => Object.fromEntries(['raw', 'scaled', 'mask', 'softmax']
      .map((c) => [c, [...tb.querySelectorAll(`td[data-col="${c}"]`)].map((x) => ({ text: x.textContent, dark: x.classList.contains('sa-masked') }))])));
    const at = (flat, j) => flat[(h * nq + pos) * nk + j];
    for (let j = 0; j < nk; j++) {
      const hidden = a.mask[pos * nk + j] === 1;
      assert.ok(Math.abs(num(table.raw[j].text) - at(a.scores, j)) < 1.5e-3, `q·k ${j}`);
      assert.ok(Math.abs(num(table.scaled[j].text) - at(a.scaled, j)) < 1.5e-3, `scaled ${j}`);
      assert.equal(table.mask[j].text, hidden ? '−∞' : '0', `mask ${j}`);
      assert.equal(table.mask[j].dark, hidden, `the mask cell ${j} is dark where −∞`);
      assert.ok(Math.abs(num(table.softmax[j].text) - at(a.weights, j)) < 1.5e-3, `softmax ${j}`);
      if (hidden) assert.equal(at(a.weights, j), 0, 'a masked key has weight 0');
    }
    // The map: a dark cell where the module's mask is 1, a blue one elsewhere.
    const cells = await page.$$eval('details.inside [data-stage="matrix"] svg.heatmap rect[x][width="27"]', (rs) => rs.map((r) => {
      const [red, g, b] = getComputedStyle(r).fill.match(/\d+/g).map(Number);
      return { masked: r.classList.contains('sa-masked-cell'), light: (0.2126 * red + 0.7152 * g + 0.0722 * b) / 255 };
    }));
    const maskedCount = Array.from(a.mask).filter((v) => v === 1).length;
    assert.equal(cells.length, nq * nk);
    assert.equal(cells.filter((c) => c.masked).length, maskedCount);
    for (const c of cells.filter((x) => x.masked)) assert.ok(c.light < 0.35, `a masked cell is dark (${c.light})`);
    assert.ok(await page.isVisible('details.inside [data-stage="matrix"] .sa-lg-masked'), 'the key names the dark cells');
    await page.locator('details.inside [data-stage="scores"]').screenshot({ path: artifact(`inside-mask-${word}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

for (const [word, t, stack, q] of [['DELETE', 2, 'enc', 4], ['COLONEL', 4, 'dec', 2]]) {
  test(`the positional encoding as curves, ${word} ${stack === 'enc' ? 'encoder' : `decoder at step ${t}`}: each point is the module's`, async () => {
    const { page, errors } = await openPage(served.context);
    await open(page, `?w=${word}&lane=greedy:inside=${stack}-embed-h1-q${q}&t=${t}`);
    const model = await moduleModel(AR);
    const d = model.inspect(word, await passTokens(page));
    const s = stack === 'enc' ? d.encoder : d.decoder;
    const W = d.dModel, n = s.length;
    const dims = [0, 1, W / 32, W / 8, W / 2];
    const curves = await page.$$eval('details.inside svg.pe-curves g[data-dim]', (gs) => gs.map((g) => ({
      dim: Number(g.dataset.dim),
      points: g.querySelector('polyline').getAttribute('points').trim().split(/\s+/).length,
      dots: [...g.querySelectorAll('circle')].map((c) => ({ pos: Number(c.dataset.pos), v: Number(c.dataset.v), cy: Number(c.getAttribute('cy')) })),
    })));
    assert.deepEqual(curves.map((c) => c.dim), dims);
    for (const c of curves) {
      assert.equal(c.points, n, `dim ${c.dim}: a point per position`);
      c.dots.forEach(({ pos, v }) => assert.ok(Math.abs(v - s.positional[pos * W + c.dim]) < 1e-6, `dim ${c.dim} position ${pos}`));
      // Drawn where its value is: higher on the page for a larger value.
      for (const x of c.dots) for (const y of c.dots) if (x.v > y.v + 1e-3) assert.ok(x.cy < y.cy, `dim ${c.dim}: ${x.v} above ${y.v}`);
    }
    // Fast dimensions swing, slow ones hardly move (the sinusoids of falling frequency).
    const swing = (c) => Math.max(...c.dots.map((x) => x.v)) - Math.min(...c.dots.map((x) => x.v));
    if (n > 2) assert.ok(swing(curves[0]) > 0.5 && swing(curves.at(-1)) < 0.1, `${swing(curves[0])} ${swing(curves.at(-1))}`);
    // The table twin: the same numbers, three decimals.
    const twin = await page.$$eval('details.inside table.pe-twin tbody tr', (rs) => rs.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
    assert.equal(twin.length, n);
    twin.forEach((r, p) => r.forEach((x, k) => assert.ok(Math.abs(num(x) - s.positional[p * W + dims[k]]) < 6e-4, `twin ${p} ${dims[k]}`)));
    await page.locator('details.inside [data-stage="embed"] .pe-pics').screenshot({ path: artifact(`inside-pe-${word}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the output block at temperatures 0.5 and 2.3: the logits and the bars are the module\'s, the bars what the engine samples from', async () => {
  const { page, errors } = await openPage(served.context);
  const word = 'DELETE';
  await open(page, `?w=${word}&lane=greedy:inside=dec-out-T0.5&t=1`);
  const model = await moduleModel(AR);
  const d = model.inspect(word, []);
  const V = d.vocabSize;
  const z = Array.from(d.logits.subarray(0, V));
  const vocab = model.info.targetVocab;
  const read = () => page.$$eval('details.inside .in-bars li', (ls) => ls.map((l) => ({
    token: l.dataset.token, z: Number(l.dataset.z), p: Number(l.dataset.p), pt: Number(l.dataset.pt),
    fill: parseFloat(l.querySelector('.ib-fill').style.width), ghost: parseFloat(l.querySelector('.ib-ghost').style.width),
  })));
  const seen = [];
  for (const T of [0.5, 2.3]) {
    if (T !== 0.5) {
      await page.$eval('details.inside input[data-action="in-temp"]', (s, v) => { s.value = String(v); s.dispatchEvent(new Event('input', { bubbles: true })); }, T);
      await page.waitForFunction((v) => document.querySelector('details.inside .in-temp output')?.textContent === v.toFixed(1), T);
    }
    const bars = await read();
    assert.equal(bars.length, 8);
    // The engine's tempered distribution: a sampling session at T with top-k and top-p off, its first step.
    const s = model.createSession({ strategy: 'sample', temperature: T, topK: 0, topP: 1, seed: 5 });
    s.start(word);
    const cands = s.step().live[0].candidates;
    s.delete();
    const m = Math.max(...z);
    const zsum = z.reduce((acc, v) => acc + Math.exp(v - m), 0);
    for (const b of bars) {
      const v = vocab.indexOf(b.token);
      assert.ok(Math.abs(b.z - z[v]) < 1e-6, `${b.token}: logit`);
      assert.ok(Math.abs(b.p - Math.exp(z[v] - m) / zsum) < 1e-5, `${b.token}: the model's probability`);
      const c = cands.find((x) => x.token === v);
      if (c) assert.ok(Math.abs(b.pt - c.drawnProb) < 1e-5, `${b.token} at T = ${T}: ${b.pt} vs the engine's ${c.drawnProb}`);
      assert.ok(Math.abs(b.fill - b.pt * 100) < 0.01 && Math.abs(b.ghost - b.p * 100) < 0.01, `${b.token}: the bars' lengths`);
    }
    assert.ok(bars.filter((b) => cands.some((c) => c.token === vocab.indexOf(b.token))).length >= 5, 'most bars checked against the engine');
    seen.push(bars[0].pt);
    await page.locator('details.inside .in-output').screenshot({ path: artifact(`inside-bars-T${T}.png`) });
  }
  assert.ok(seen[0] > seen[1], `the top bar shrinks as T rises: ${seen}`);
  assert.match(await page.evaluate(() => new URLSearchParams(location.search).getAll('lane')[0]), /^greedy:inside=dec-out-.*T2\.3$/, 'the address keeps the temperature');
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [m, lang] of [[AR, 'en'], [RNN, 'zh']]) {
  test(`${m.id} (${lang}): the top phoneme's cap explained by label smoothing with the recipe's ε`, async () => {
    const { page, errors } = await openPage(served.context);
    const word = 'DELETE', t = 3;
    await open(page, `?w=${word}&lane=greedy:m=${m.id},inside=dec-out&t=${t}${lang === 'en' ? '' : `&lang=${lang}`}`);
    const model = await moduleModel(m);
    const d = model.inspect(word, await passTokens(page));
    const V = d.vocabSize;
    const last = d.target.length - 1;
    const z = Array.from(d.logits.subarray(last * V, (last + 1) * V));
    const mx = Math.max(...z);
    const top = 1 / z.reduce((a, v) => a + Math.exp(v - mx), 0);
    const { eps, kd } = recipe(m.id);
    const target = 1 - eps + eps / V;
    const note = await page.$eval('details.inside .in-cap', (p) => ({ text: p.textContent, ...p.dataset }));
    assert.equal(Number(note.eps), eps);
    assert.ok(Math.abs(Number(note.target) - target) < 1e-9, `${note.target} vs ${target}`);
    assert.ok(Math.abs(Number(note.top) - top) < 1e-5, `${note.top} vs ${top}`);
    for (const s of [`ε = ${eps}`, `V = ${V}`, `${(target * 100).toFixed(1)}%`, `${(top * 100).toFixed(1)}%`, `models/train/configs/${m.id}.json`]) {
      assert.ok(note.text.includes(s), `${s} in: ${note.text}`);
    }
    assert.equal(note.here, top < target ? 'inside.capBelow' : kd ? 'inside.capAboveDistilled' : 'inside.capAbove');
    assert.equal(note.text.includes(`w = ${kd}`), kd != null, 'the distillation weight is named for a distilled model only');
    // The dashed line stands at the target on every bar.
    const lines = await page.$$eval('details.inside .ib-target', (ls) => ls.map((l) => parseFloat(l.style.left)));
    assert.ok(lines.length === 8 && lines.every((x) => Math.abs(x - target * 100) < 0.01), lines.join(' '));
    await page.locator('details.inside .in-output').screenshot({ path: artifact(`inside-cap-${m.id}-${lang}.png`) });
    // The note links to the lesson that trains the same stop in front of the learner, in the learner's language.
    await page.click('details.inside .in-cap-lesson');
    await page.waitForSelector('button[data-lesson="smoothing"][aria-pressed="true"]', { timeout: 30000 });
    const q = new URL(page.url()).searchParams;
    assert.equal(q.get('view'), 'train');
    assert.equal(q.get('lang') ?? 'en', lang);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
