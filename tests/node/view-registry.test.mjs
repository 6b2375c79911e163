// The views under the lanes are registered in one place (web/js/lane-views.js) and see
// a lane only through its facade (laneFacade, web/js/view-registry.js): a lane class names no view,
// address.js names no view, and a view's module reads nothing of a lane but the
// facade's members. A view registered here, in Node, rides in the address with its
// codec and no other file changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { laneFacade, registerView, registeredViews, viewById, viewsOf } from '../../web/js/view-registry.js';

import { decodeState, encodeState } from '../../web/js/address.js';
import { LANE_TYPES, PAGE_OPTIONS, makeLane } from '../../web/js/lane-types.js';

const JS = join(dirname(fileURLToPath(import.meta.url)), '../../web/js');
const source = (f) => readFileSync(join(JS, f), 'utf8');
const modules = readdirSync(JS).filter((f) => f.endsWith('.js'));
const importsOf = (text) => [...text.matchAll(/\bimport\s*(?:[^'"]*?\bfrom\s*)?['"]\.\/([^'"]+)['"]/g)].map((m) => m[1]);
// The modules that register a view (their own module, not the registry's or lane-views.js).
const viewModules = modules.filter((f) => f !== 'view-registry.js' && f !== 'lane-views.js' && /\bregisterView\(/.test(source(f)));
// The views lane-views.js registers itself, each with the module that draws it, loaded later: [id, module].
const lazyViews = [...source('lane-views.js').matchAll(/registerView\(\{ id: '([a-z0-9-]+)'.*\bload: \(\) => import\('\.\/([^']+)'\) \}\);$/gm)].map((m) => [m[1], m[2]]);
const dynamicImportsOf = (text) => [...text.matchAll(/\bimport\(\s*['"]\.\/([^'"]+)['"]\s*\)/g)].map((m) => m[1]);

test('the views are registered in lane-views.js, one line each, in the order it lists them', () => {
  const text = source('lane-views.js');
  const listed = importsOf(text).filter((f) => f !== 'view-registry.js');
  assert.deepEqual([...listed].sort(), [...viewModules].sort(), 'every module that registers a view is listed, and only those');
  // Its lines: the imports, then the views it registers with a module to load (each on one line).
  const lines = text.split('\n').filter((l) => /^import '|^registerView\(/.test(l));
  assert.equal(lines.length, listed.length + lazyViews.length, lines.join('\n'));
  assert.deepEqual(dynamicImportsOf(text), lazyViews.map(([, f]) => f), 'each module loaded later is a registered view\'s');
  // Each module registers one view: the order of the lines is the order of the views.
  const ids = [...listed.map((f) => /\bid: '([a-z0-9-]+)'/.exec(source(f))?.[1]), ...lazyViews.map(([id]) => id)];
  assert.deepEqual(registeredViews().map((v) => v.id), ids);
  assert.ok(ids.includes('inside') && ids.includes('forced') && ids.includes('draw'), ids.join(', '));
  // A module loaded later draws its view and registers nothing: its registration is lane-views.js's line.
  for (const [id, f] of lazyViews) {
    assert.doesNotMatch(source(f), /\bregisterView\(/, f);
    assert.match(source(f), /^export default \{ render(, init)? \};$/m, `${f} (${id}) exports its render`);
  }
});

test('a view registered with a module to load draws nothing until it is in, then the module\'s; its lanes are drawn again once', async () => {
  let loads = 0;
  let inits = 0;
  let finish;
  const module = new Promise((r) => { finish = r; });
  const view = registerView({
    id: 'probe-lazy', slot: 'body', lanes: (kind) => kind.ar,
    load: () => { loads++; return module; },
  });
  const v = viewById('probe-lazy');
  const redraws = [];
  const lanes = [0, 1].map((n) => ({ n, redraw() { redraws.push(n); } }));
  assert.equal(v.render(lanes[0], 1), '');
  assert.equal(v.render(lanes[0], 2), '');
  assert.equal(v.render(lanes[1], 1), '');
  assert.equal(loads, 1, 'loaded once for every lane');
  finish({ default: { init: (lane) => { inits++; lane.state = 'set'; }, render: (lane, i) => `<p>${lane.n}:${i}:${lane.state}</p>` } });
  await module;
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(redraws, [0, 1], 'each lane that asked is drawn again, once');
  assert.equal(v.render(lanes[0], 3), '<p>0:3:set</p>');
  assert.equal(v.render(lanes[0], 4), '<p>0:4:set</p>');
  assert.equal(v.render(lanes[1], 5), '<p>1:5:set</p>');
  assert.equal(inits, 2, 'its init once per lane, before its first render');
  assert.equal(view.id, 'probe-lazy');
  // A module that does not load: the lane says so, once drawn again, and asks no more.
  registerView({ id: 'probe-lazy-bad', slot: 'body', lanes: () => true, load: () => { loads++; return Promise.reject(new Error('offline')); } });
  const bad = viewById('probe-lazy-bad');
  const lane = { redraw() { redraws.push('bad'); } };
  assert.equal(bad.render(lane, 1), '');
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(redraws, [0, 1, 'bad']);
  assert.match(bad.render(lane, 1), /class="note view-failed".*offline/);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(redraws, [0, 1, 'bad'], 'no loop of failed loads');
  assert.equal(loads, 2);
});

test('nothing but lane-views.js imports a view\'s module; a lane reaches another view by its id', () => {
  for (const f of modules) {
    if (f === 'lane-views.js') continue;
    const bad = [...importsOf(source(f)), ...dynamicImportsOf(source(f))].filter((m) => viewModules.includes(m) || lazyViews.some(([, l]) => l === m));
    assert.deepEqual(bad, [], `${f} imports a view's module`);
  }
  for (const f of modules.filter((x) => /^lane-|^compare\.js$/.test(x) && x !== 'lane-views.js')) {
    assert.doesNotMatch(source(f), /insideView|selfAttentionView|forcedScores|insidePick/, `${f} draws or links a view by hand`);
  }
});

// A stand-in for a lane with the members the facade reads, each a value the test can see come through.
function standIn() {
  const el = { addEventListener() {}, querySelector: () => 'found', contains: () => true };
  return {
    id: 'lane9', type: 'greedy', kind: LANE_TYPES.greedy, model: { id: 'm' }, word: 'DELETE', decodedOptions: { strategy: 'greedy' },
    snaps: [null, { step: 1 }], lastIndex: 1, el, ui: { secret: true }, addressView: { probe: { n: 4 } },
    slot: { decoder: { info: { arch: 'transformer' }, exclusive: (fn) => fn({ inspect: (w, tk) => ['inspect', w, tk], score: (w, x) => ['score', w, x] }) } },
    ctx: { word: 'DELETE', reference: { prons: ['D IH L IY T'] }, step: 1, viewChanged() { this.changed = true; } },
    sourceLetters: () => ['D', 'E'], insideRequest: (i) => ({ i }), viewFocus: (i) => ({ focus: i }), freeRunning: () => [],
    takeAddressView(id) { const v = this.addressView[id]; delete this.addressView[id]; return v; },
    viewLink: (id) => id, render() {}, renderResult() {},
  };
}

test('a view sees the lane through its facade: the decode, the model, inspect and score, its own state; not the lane', () => {
  const lane = standIn();
  const f = laneFacade(lane, { id: 'probe', slot: 'body' });
  assert.equal(f.word, 'DELETE');
  assert.deepEqual(f.info, { arch: 'transformer' });
  assert.deepEqual(f.reference, { prons: ['D IH L IY T'] });
  assert.deepEqual(f.inspect('DELETE', [3]), ['inspect', 'DELETE', [3]]);
  assert.deepEqual(f.score('DELETE', 'D', {}), ['score', 'DELETE', 'D']);
  assert.deepEqual(f.fromAddress(), { n: 4 });
  assert.equal(f.fromAddress(), undefined, 'taken once');
  f.state = { open: true };
  assert.deepEqual(f.state, { open: true });
  f.changed();
  assert.equal(lane.ctx.changed, true);
  // The page's word moved on: the old word's reference is not the view's.
  lane.ctx.word = 'KNIGHT';
  assert.equal(f.reference, null);
  for (const hidden of ['el', 'ui', 'slot', 'ctx', 'opts', 'snaps', 'addressView', 'setOptions']) assert.ok(!(hidden in f), `the facade hands out ${hidden}`);
  assert.ok(Object.isFrozen(f));
});

test('a view\'s module reads nothing of a lane but the facade\'s members', () => {
  const members = new Set(Object.keys(Object.getOwnPropertyDescriptors(laneFacade(standIn(), { id: 'x', slot: 'body' }))));
  // The view modules and the modules that draw parts of a view from its facade.
  // (what they import, and what they load later with import(), and what those import).
  const own = [...viewModules, ...lazyViews.map(([, f]) => f)];
  const roots = new Set([...own, ...own.flatMap((f) => dynamicImportsOf(source(f)))]);
  const drawing = new Set(roots);
  for (const f of roots) for (const m of importsOf(source(f))) if (/\blane\b/.test(source(m)) && !/^lane|^view-registry/.test(m)) drawing.add(m);
  assert.ok(['inside-body.js', 'inside-output.js', 'self-attention-maps.js', 'draw-view.js'].every((m) => drawing.has(m)), [...drawing].join(', '));
  for (const f of drawing) {
    const used = new Set([...source(f).matchAll(/\blane\.(\w+)/g)].map((m) => m[1]));
    const beyond = [...used].filter((m) => !members.has(m));
    assert.deepEqual(beyond, [], `${f} reads lane.${beyond.join(', lane.')}`);
  }
});

test('registerView refuses what is not a view; no view is named as an option or a lane type\'s own state', () => {
  const base = { id: 'probe-bad', slot: 'body', lanes: () => true, render: () => '' };
  assert.throws(() => registerView({ ...base, id: 'Bad Name' }), /id/);
  assert.throws(() => registerView({ ...base, slot: 'side' }), /slot/);
  assert.throws(() => registerView({ ...base, render: 'x' }), /render/);
  assert.throws(() => registerView({ ...base, codec: { read: () => null, write: String } }), /save/);
  // A view whose module loads later has no render, codec or link of its own (asked for before it is in).
  const { render: _, ...later } = { ...base, load: () => import('../../web/js/draw-view.js') };
  for (const extra of [{ render: () => '' }, { codec: { read: () => null, write: String }, save: () => undefined }, { link: () => null }, { load: 'x' }]) {
    assert.throws(() => registerView({ ...later, ...extra }), /load/);
  }
  assert.throws(() => registerView({ ...registeredViews()[0] }), /twice/);
  const taken = new Set([...Object.keys(PAGE_OPTIONS), ...Object.values(PAGE_OPTIONS).map((o) => o.urlAlias).filter(Boolean), 'm']);
  for (const kind of Object.values(LANE_TYPES)) for (const k of Object.keys(kind.state ?? {})) taken.add(k);
  for (const v of registeredViews()) assert.ok(!taken.has(v.id), `view ${v.id} has an option's or a lane state's name`);
});

test('a view registered with a codec rides in its lanes\' address; address.js names none', () => {
  assert.doesNotMatch(source('address.js'), /'inside'|'draft'|readInside|writeInside/);
  registerView({
    id: 'probe', slot: 'body', lanes: (kind) => kind.ar && !kind.compare, render: () => '',
    codec: { write: (st) => `n${st.n}`, read: (v) => (/^n\d+$/.test(v) ? { n: Number(v.slice(1)) } : null) },
    save: (lane) => lane.state ?? undefined,
  });
  assert.equal(viewById('probe').slot, 'body');
  assert.ok(viewsOf(LANE_TYPES.beam).some((v) => v.id === 'probe'));
  assert.ok(!viewsOf(LANE_TYPES.mp).some((v) => v.id === 'probe'));
  const q = encodeState({ word: 'DELETE', step: 2, lanes: [{ ...makeLane('beam'), view: { probe: { n: 7 } } }, { ...makeLane('mp'), view: { draft: 6 } }] });
  assert.match(q, /lane=beam:probe=n7&lane=mp:draft=6(&|$)/);
  const st = decodeState(q);
  assert.deepEqual(st.notes, []);
  assert.deepEqual(st.lanes.map((l) => l.view), [{ probe: { n: 7 } }, { draft: 6 }]);
  // A value not of its form is left out quietly; on a lane type the view is not for, it is named.
  const bad = decodeState('?w=DELETE&lane=greedy:probe=x&lane=mp:probe=n3');
  assert.deepEqual(bad.lanes.map((l) => l.view ?? null), [null, null]);
  assert.equal(bad.notes.length, 1, bad.notes.join(' | '));
  assert.match(bad.notes[0], /probe/);
});
