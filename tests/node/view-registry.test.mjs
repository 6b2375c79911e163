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
// The modules that register a view (their own module, not the registry's).
const viewModules = modules.filter((f) => f !== 'view-registry.js' && /\bregisterView\(/.test(source(f)));

test('the views are registered in lane-views.js, one line each, in the order it lists them', () => {
  const listed = importsOf(source('lane-views.js'));
  assert.deepEqual([...listed].sort(), [...viewModules].sort(), 'every module that registers a view is listed, and only those');
  // Each module registers one view: the order of the lines is the order of the views.
  const ids = listed.map((f) => /\bid: '([a-z0-9-]+)'/.exec(source(f))?.[1]);
  assert.deepEqual(registeredViews().map((v) => v.id), ids);
  assert.ok(ids.includes('inside') && ids.includes('forced'), ids.join(', '));
});

test('nothing but lane-views.js imports a view\'s module; a lane reaches another view by its id', () => {
  for (const f of modules) {
    if (f === 'lane-views.js') continue;
    const bad = importsOf(source(f)).filter((m) => viewModules.includes(m));
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
  const drawing = new Set(viewModules);
  for (const f of viewModules) for (const m of importsOf(source(f))) if (/\blane\b/.test(source(m)) && !/^lane|^view-registry/.test(m)) drawing.add(m);
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
