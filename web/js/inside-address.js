// "Inside this step" as the page's address writes it, inside a lane's parameter
// (address.js): lane=greedy:inside=dec-cross-L3-h2-q4-raw-T1.5. Parts, joined by
// "-": the stack (enc, dec), the block (embed, self, cross, ffn, final, out), then
// optionally L<layer> (absent: the last), h<head>, q<position> (each counted from
// 1), raw (the softmax without scaling), T<temperature> and avg (reached from a map
// of every head's mean). Absent: the view is closed.
// Imports nothing: the address is read in Node too (tests/node).

const STACKS = { enc: 'encoder', dec: 'decoder' };
const SUBS = ['embed', 'self', 'cross', 'ffn', 'final', 'out'];
const TEMP = [0.1, 3];   // the output block's slider (inside-output.js)

/** The inside view's state {stack, sub, layer, head, pos, unscaled, temperature, fromAverage} as the address writes it. */
export function writeInside(st) {
  const parts = [st.stack === 'encoder' ? 'enc' : 'dec', st.sub];
  if (st.layer >= 0) parts.push(`L${st.layer + 1}`);
  parts.push(`h${st.head + 1}`);
  if (st.pos >= 0) parts.push(`q${st.pos + 1}`);
  if (st.unscaled) parts.push('raw');
  if (st.temperature != null) parts.push(`T${st.temperature}`);
  if (st.fromAverage) parts.push('avg');
  return parts.join('-');
}

/**
 * The state an address's `inside` value holds, or null for one that is not of its
 * form. Numbers the model turns out not to have (a fifth layer of a three-layer
 * model) are kept: the view clamps them to the model it draws.
 */
export function readInside(value) {
  const [stack, sub, ...rest] = String(value).split('-');
  if (!Object.hasOwn(STACKS, stack) || !SUBS.includes(sub)) return null;
  const st = { stack: STACKS[stack], sub, layer: -1, head: 0, pos: -1, unscaled: false, temperature: null, fromAverage: false };
  for (const p of rest) {
    const n = /^[Lhq]([1-9]\d{0,2})$/.exec(p);
    if (n) st[{ L: 'layer', h: 'head', q: 'pos' }[p[0]]] = Number(n[1]) - 1;
    else if (p === 'raw') st.unscaled = true;
    else if (p === 'avg') st.fromAverage = true;
    else if (/^T\d+(\.\d+)?$/.test(p)) st.temperature = Math.min(TEMP[1], Math.max(TEMP[0], Math.round(Number(p.slice(1)) * 10) / 10));
    else return null;
  }
  return st;
}
