// The beam search tree up to step i, as SVG: one column per output position,
// live hypotheses solid, finished ones boxed, dropped ones faded with the step
// they fell out at and their score.
import { label } from './phonemes.js';
import { fmt, normalizedScore } from './format.js';
import { esc } from './views.js';
import { t } from './i18n.js';

const COL = 66;
const ROW = 22;
const NW = 42;
const NH = 18;

export function beamTree({ snaps, i, map, norm, alpha, pruned, selected }) {
  const ids = [...map.keys()];
  // Which nodes each step's beam still holds: live ones, finished ones, and their ancestors.
  const aliveAt = [];
  for (let k = 1; k <= i; k++) {
    const set = new Set([0]);
    for (const h of [...snaps[k].live, ...snaps[k].finished]) {
      for (let n = map.get(h.id); n && !set.has(n.id); n = map.get(n.parent)) set.add(n.id);
    }
    aliveAt[k] = set;
  }
  const liveNow = new Set(snaps[i].live.map((h) => h.id));
  const nodes = new Map();
  for (const id of ids) {
    const n = map.get(id);
    const node = { ...n, kids: [], depth: n.root ? 0 : n.tokens.length, len: n.root ? 0 : n.tokens.length };
    if (!n.root && !n.finished && !aliveAt[i].has(id)) {
      for (let k = n.step + 1; k <= i; k++) if (!aliveAt[k].has(id)) { node.dropped = k; break; }
    }
    node.status = n.root ? 'root' : n.finished ? 'fin' : liveNow.has(id) ? 'live' : node.dropped ? 'dead' : 'anc';
    nodes.set(id, node);
  }
  if (pruned !== 'none') {
    for (let k = 1; k <= i; k++) {
      const groups = new Map();
      for (const p of snaps[k].pruned) {
        if (!groups.has(p.parent)) groups.set(p.parent, []);
        groups.get(p.parent).push(p);
      }
      let j = 0;
      for (const [parent, list] of groups) {
        const par = nodes.get(parent);
        if (!par) continue;
        list.sort((a, b) => b.logprob - a.logprob);
        const keep = pruned === 'all' ? list : list.slice(0, 1);
        for (const p of keep) {
          const id = `p${k}.${j++}`;
          nodes.set(id, { id, parent, texts: [...par.texts, p.text], logprob: p.logprob, kids: [], depth: par.depth + 1,
            len: par.len + 1, status: 'pruned', dropped: k, extra: list.length - keep.length });
        }
      }
    }
  }
  for (const n of nodes.values()) if (n.id !== 0) nodes.get(n.parent)?.kids.push(n);
  const order = { fin: 0, live: 0, anc: 0, dead: 1, pruned: 2 };
  for (const n of nodes.values()) n.kids.sort((a, b) => (order[a.status] - order[b.status]) || (b.logprob - a.logprob));

  // Leaves get consecutive rows; a parent sits at the middle of its children.
  let row = 0;
  let maxDepth = 0;
  const place = (n) => {
    maxDepth = Math.max(maxDepth, n.depth);
    if (!n.kids.length) { n.y = row++; return; }
    n.kids.forEach(place);
    n.y = n.kids[0].y;   // top-aligned: the surviving path runs along the top
  };
  const root = nodes.get(0);
  place(root);
  // A node's score is its log P (the course notes'); a finished one is ranked by the
  // length-normalised value, shown beside it in brackets. Leaves carry their numbers.
  const rankOf = (n) => (n.root ? 0 : normalizedScore(n.logprob, n.len, norm, alpha));
  const tagOf = (n) => {
    if (n.status === 'fin') return `■ ${fmt(n.logprob)} (${fmt(rankOf(n))})`;
    if (n.status === 'live') return fmt(n.logprob);
    if (n.status === 'dead' || n.status === 'pruned') return `✗${n.dropped} ${fmt(n.logprob)}${n.extra ? ` +${n.extra}` : ''}`;
    return '';
  };
  // Room at the right for the longest tag (10 px monospace: 6.1 px a character).
  const tagChars = Math.max(6, ...[...nodes.values()].filter((n) => !n.kids.length).map((n) => tagOf(n).length));
  const W = 18 + (maxDepth + 1) * COL + Math.ceil(10 + 6.1 * tagChars);
  const H = 8 + Math.max(1, row) * ROW;
  const X = (n) => 14 + n.depth * COL;
  const Y = (n) => 4 + n.y * ROW;
  let edges = '';
  let body = '';
  for (const n of nodes.values()) {
    if (n.id !== 0) {
      const p = nodes.get(n.parent);
      const x1 = X(p) + NW;
      const y1 = Y(p) + NH / 2;
      const x2 = X(n);
      const y2 = Y(n) + NH / 2;
      edges += `<path class="edge ${n.status}" d="M${x1},${y1} C${x1 + 12},${y1} ${x2 - 12},${y2} ${x2},${y2}"/>`;
    }
    const rank = rankOf(n);
    const text = n.root ? 'BEGIN' : label(n.texts.at(-1));
    const tag = tagOf(n);
    const tip = n.root ? t('tree.root')
      : t(n.status === 'fin' ? 'tree.nodeFin' : 'tree.node', { tokens: n.texts.map(label).join(' '), logp: fmt(n.logprob), rank: fmt(rank) })
        + (n.status === 'fin' ? t('tree.fin') : n.status === 'live' ? t('tree.live') : n.dropped ? t('tree.dropped', { k: n.dropped }) : '')
        + (n.extra ? t('tree.extra', { n: n.extra }) : '');
    const sel = n.id === selected ? ' sel' : '';
    const act = typeof n.id === 'number' && !n.root ? ` data-action="select" data-node="${n.id}"` : '';
    body += `<g class="node ${n.status}${sel}"${act} transform="translate(${X(n)},${Y(n)})"><title>${esc(tip)}</title>`
      + `<rect ${n.root ? 'x="-10" width="' + (NW + 10) + '"' : `width="${NW}"`} height="${NH}" rx="${n.status === 'fin' ? 0 : 6}"/>`
      + `<text x="${n.root ? NW / 2 - 5 : NW / 2}" y="${NH / 2 + 4}" class="tok">${esc(text)}</text>`
      + (tag && !n.kids.length ? `<text x="${NW + 4}" y="${NH / 2 + 4}" class="tag">${esc(tag)}</text>` : '')
      + '</g>';
  }
  // The tree can outgrow its box (style.css: max-height): focusable and named, so that keyboard users can scroll it.
  return `<div class="tree-wrap" tabindex="0" role="region" aria-label="${esc(t('tree.aria', { i }))}"><svg class="tree" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(t('tree.aria', { i }))}">${edges}${body}</svg></div>`;
}
