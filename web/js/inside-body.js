// What "Inside this step" (inside.js) draws once a lane's inside is open and the model's
// numbers are in: what the pass is, the map of the model's blocks, the position picker,
// and the picked block (inside-parts.js, inside-output.js). Loaded with import() when a
// lane's inside first opens: a first visit does not download it.
import { label } from './phonemes.js';
import { esc } from './views.js';
import { t } from './i18n.js';
import { embedView, normView, sublayerView } from './inside-parts.js';
import { logitsTable, outputView, rnnBody } from './inside-output.js';

export { logitsTable };

// Every function below takes `lane`: the view's facade of the lane (view-registry.js laneFacade).

/** The block picked, held to what this model has (an address may name a fifth layer of three). */
function settle(st, d) {
  if (d.rnn) return;
  if (st.stack !== 'encoder') st.stack = 'decoder';
  const stack = d[st.stack];
  st.layer = st.layer < 0 ? stack.layers.length - 1 : Math.min(st.layer, stack.layers.length - 1);
  st.head = Math.max(0, Math.min(st.head, d.heads - 1));
  const ok = st.sub === 'self' || st.sub === 'ffn' || st.sub === 'embed' || (st.sub === 'cross' && stack.layers[st.layer].hasCross)
    || (st.sub === 'final' && stack.hasFinalNorm) || (st.sub === 'out' && st.stack === 'decoder');
  if (!ok) st.sub = 'self';
}

/** The open inside of `lane` (its facade) once the model's numbers are in (lane.state.data, lane.state.req). */
export function body(lane) {
  const st = lane.state;
  const d = st.data;
  settle(st, d);
  const req = st.req;
  const cmlm = req.kind === 'cmlm';
  // A draft's positions are numbered: MASK, or a phoneme, may stand at several.
  const tokens = d.targetTexts.map((x, p) => (cmlm ? `${p + 1}·${label(x)}` : label(x)));
  const letters = lane.letters();
  const encoder = !d.rnn && st.stack === 'encoder';
  const names = encoder ? letters : tokens;
  const firstPredicted = cmlm ? Math.max(0, Array.from(req.masked).indexOf(1)) : tokens.length - 1;
  // The causal mask hides nothing from the last query (it reads every position before it):
  // the masked self-attention opens one query earlier, where the newest position is hidden.
  const causalSelf = !d.rnn && !cmlm && !encoder && st.sub === 'self' && d.causal;
  const pos = st.pos >= 0 && st.pos < names.length ? st.pos : (encoder ? 0 : causalSelf ? Math.max(0, tokens.length - 2) : firstPredicted);
  st.at = pos;
  let html = `<p class="note">${intro(d, req, lane, tokens)}</p>`;
  if (d.rnn) return html + positionPicker(names, pos, 'decoder') + rnnBody(d, st, lane, letters, pos);
  const stack = d[st.stack];
  html += archStrip(d, st);
  if (cmlm) html += `<p class="note in-length-head">${esc(t('inside.lengthHead'))}</p>`;
  html += positionPicker(names, pos, st.stack);
  if (st.sub === 'embed') html += embedView(d, stack, pos, names);
  else if (st.sub === 'out') html += outputView(d, st, lane, pos);
  else if (st.sub === 'final') html += normView(stack.finalNorm, pos, d.dModel, t('inside.finalNorm'));
  else html += sublayerView(d, stack.layers[st.layer], st, pos, names, letters);
  return html;
}

/** What pass this is: the step's (the token it chose), or the iteration's over its draft. */
function intro(d, req, lane, tokens) {
  const vocab = lane.info?.targetVocab ?? [];
  if (req.kind === 'cmlm') {
    const masks = Array.from(req.masked).filter((m) => m === 1).length;
    return t(req.iteration === 1 ? 'inside.introCmlm1_html' : 'inside.introCmlm_html', { word: esc(req.word), k: req.iteration, prev: req.iteration - 1, L: tokens.length, masks });
  }
  const next = esc(label(vocab[req.next.at(-1)] ?? ''));
  return t(d.rnn ? 'inside.rnnIntro_html' : 'inside.intro_html', { word: esc(req.word), next, pos: tokens.length - 1 });
}

/** The map: the model's blocks from its config, each a button that shows it below. */
function archStrip(d, st) {
  const btn = (stack, layer, sub, text, cls = '') => {
    const on = st.stack === stack && st.sub === sub && (st.layer === layer || sub === 'embed' || sub === 'out' || sub === 'final');
    return `<button type="button" class="arch-block ${cls}${on ? ' on' : ''}" data-action="in-pick" data-stack="${stack}" data-layer="${layer}" data-sub="${sub}" aria-pressed="${on}">${esc(text)}</button>`;
  };
  const norm = d.norm === 'pre' ? t('inside.preLN') : t('inside.postLN');
  const stackRow = (stack, title) => {
    const s = d[stack];
    let out = `<div class="arch-stack"><span class="arch-title">${esc(title)}</span>${btn(stack, 0, 'embed', t('inside.embedBlock', { kind: d.positionalKind === 'sinusoidal' ? t('inside.sinusoidal') : t('inside.learned') }), 'embed')}`;
    s.layers.forEach((b, l) => {
      out += `<span class="arch-layer"><span class="arch-l">${esc(t('inside.layerN', { n: l + 1 }))}</span>`;
      out += btn(stack, l, 'self', stack === 'decoder' && d.causal ? t('inside.maskedSelf') : t('inside.self'));
      if (b.hasCross) out += btn(stack, l, 'cross', t('inside.cross'));
      out += btn(stack, l, 'ffn', t('inside.ffn')) + '</span>';
    });
    if (s.hasFinalNorm) out += btn(stack, 0, 'final', t('inside.finalNorm'));
    if (stack === 'decoder') out += btn(stack, 0, 'out', t('inside.outBlock'), 'out');
    return `${out}</div>`;
  };
  return `<div class="arch" role="group" aria-label="${esc(t('inside.archAria'))}">`
    + `<p class="arch-config">${esc(t('inside.config', { layers: d.encoder.layers.length, dlayers: d.decoder.layers.length, heads: d.heads, d: d.dModel, dh: d.headDim, ff: d.ffnDim, act: d.activation, norm }))}</p>`
    + stackRow('encoder', t('inside.encoder')) + stackRow('decoder', t('inside.decoder')) + '</div>';
}

function positionPicker(names, pos, stack) {
  const b = names.map((n, j) => `<button type="button" class="chip-btn${j === pos ? ' on' : ''}" data-action="in-pos" data-pos="${j}" aria-pressed="${j === pos}">${esc(n)}</button>`).join('');
  return `<p class="in-pos">${esc(t(stack === 'encoder' ? 'inside.posEnc' : 'inside.posDec'))} ${b}</p>`;
}
