// A non-autoregressive lane (one pass, or Mask-Predict's iterations): every
// position at once, after a length is chosen; drafts per length candidate.
import { label } from './phonemes.js';
import { fmt } from './state.js';
import { esc, explain, green, heatmap } from './views.js';
import { Lane } from './lane.js';

export class NarLane extends Lane {
  onAction(a, b) {
    if (a === 'draft') { this.ui.draft = Number(b.dataset.draft); this.render(this.app.t); }
    else if (a === 'length') this.app.updateLane(this, { len: 'given', L: Number(b.dataset.length) });
    else if (a === 'predicted') this.app.updateLane(this, { len: 'predicted', L: 0 });
  }

  // A length imposed from the picker starts at the length on screen.
  patchFor(key, value) {
    const patch = { [key]: value };
    if (key === 'len' && value !== 'given') patch.L = 0;
    if (key === 'len' && value === 'given' && !this.opts.L) patch.L = this.currentLength() || 5;
    return patch;
  }

  currentLength() {
    const s = this.snaps[this.index(this.app.t)] ?? this.snaps[this.lastIndex];
    return s && !s.autoregressive && s.drafts[s.bestDraft] ? s.drafts[s.bestDraft].length : 0;
  }

  get title() {
    return this.type === 'mp' ? `${this.kind.title} (T = ${this.opts.T})` : this.kind.title;
  }

  optionControls({ num, range, select }) {
    const o = this.opts;
    let html = '';
    if (this.type === 'mp') {
      html += range('T', 'Iterations T', 1, 20, 1, 'Mask-Predict iterations');
      if (o.len === 'predicted') {
        html += range('lc', 'Length candidates', 1, 8, 1, 'how many of the likeliest lengths are decoded side by side');
        if (o.lc > 1) html += range('lw', 'Length weight w', 0, 1, 0.01, 'a candidate scores avg log P(tokens) + w · log P(length)');
      }
    }
    html += select('len', 'Length', [['predicted', 'predicted by the length head'], ['fixed', 'fixed maximum, cut at END'], ['given', 'given (imposed)']]);
    if (o.len === 'given') html += num('L', 'Imposed length', 1, 256, 1);
    return html;
  }

  view(i) {
    return this.narView(i);
  }

  soFar(s) {
    const dr = s.drafts[s.bestDraft];
    const cut = dr.texts.indexOf('</s>');
    return (cut >= 0 ? dr.texts.slice(0, cut) : dr.texts).join(' ');
  }

  narView(i) {
    const s = this.snaps[i];
    const o = this.opts;
    const T = this.type === 'mp' ? o.T : 1;
    let html = this.type === 'nar'
      ? explain('Non-autoregressive decoding', `<p>This decoder writes every position <strong>at once</strong>, in a single pass: its self-attention is not masked,
        and no position waits for another. So it must know the output length first. A small classifier on the encoder's output predicts it
        (bars below), or the lane decodes a fixed maximum length and cuts at the first END. Because the length is an input, you can impose
        one: click a bar. The price of parallelism: each position is predicted without knowing what the others chose. When several
        pronunciations are plausible, positions can mix them, and the same phoneme often comes out twice in a row (marked <span class="rep-mark">↻</span>).</p>`)
      : explain('Mask-Predict', `<p>Mask-Predict starts like the one-pass decoder (iteration 1: every position masked, all predicted at once),
        then repeats: at iteration t it masks again the N·(T−t+1)/T tokens it is least sure of (outlined) and predicts them anew, now seeing the
        more confident tokens around them. Shade and number: each token's confidence (its probability). T = 1 is plain one-pass decoding;
        more iterations repair repeats and inconsistencies, at one decoder pass each. With several length candidates every length is
        decoded side by side; each scores its tokens' average log-probability plus w times the log-probability the length head gave
        its length, and the highest score wins. (The decoder was always trained at the true length, so its confidence alone does not
        tell a wrong length from a right one; w = 0 is the original paper's rule.) It stops early when an iteration changes nothing.</p>`);
    if (!s) {
      return html + `<p class="waiting">Step 0: the encoder has read <strong>${esc(this.sourceLetters().join(''))}</strong>. Press <kbd>Step</kbd> for the ${T > 1 ? 'first pass' : 'single pass'}: the length prediction and all positions at once.</p>`;
    }
    // Length distribution.
    const probs = Array.from(s.lengthLogprobs, Math.exp);
    const best = s.drafts[s.bestDraft];
    const ref = this.app.reference?.prons?.[0]?.split(' ').length ?? 0;
    const maxP = Math.max(...probs.slice(1));
    html += `<div class="view"><h3>Length: ${o.len === 'predicted' ? 'predicted' : o.len === 'fixed' ? 'fixed maximum, cut at END' : `imposed (${o.L})`}</h3>
      <div class="lenbars" role="group" aria-label="Predicted length distribution; each bar imposes that length">
      ${probs.map((p, L) => L === 0 ? '' : `<button type="button" class="lenbar${s.lengths.includes(L) ? ' decoded' : ''}${best && best.length === L ? ' best' : ''}${L === ref ? ' ref' : ''}" data-action="length" data-length="${L}" aria-label="length ${L}: ${(p * 100).toFixed(1)}%${s.lengths.includes(L) ? ', decoded' : ''}. Impose this length" title="length ${L}: ${(p * 100).toFixed(1)}%"><span class="lenfill" style="height:${Math.max(2, (p / maxP) * 100).toFixed(1)}%"></span><span class="lenlab">${L % 5 === 0 || s.lengths.includes(L) ? L : ''}</span></button>`).join('')}
      </div>
      <p class="note">Dark: the length${s.lengths.length > 1 ? 's' : ''} decoded (${s.lengths.join(', ')})${ref ? `; dotted: the reference's ${ref} phonemes` : ''}. Click a bar to impose that length.
      ${o.len !== 'predicted' ? '<button type="button" class="small" data-action="predicted">Back to the predicted length</button>' : ''}</p>
      ${explain('Length prediction and multimodality', `<p>The length head turns the averaged encoder output into a distribution over lengths 0…${probs.length - 1}.
      A non-autoregressive model cannot stop when it is done, so this number decides the output's shape. Choosing the length up front also
      makes it controllable, which an autoregressive decoder is not. If the model hesitates between lengths, decoding several (a length beam) helps.</p>`, false)}</div>`;
    // Drafts.
    const d = this.ui.draft != null && this.ui.draft < s.drafts.length ? this.ui.draft : s.bestDraft;
    if (s.drafts.length > 1) {
      html += `<div class="draft-tabs" role="group" aria-label="Length candidates">${s.drafts.map((x, j) =>
        `<button type="button" data-action="draft" data-draft="${j}" aria-pressed="${j === d}" class="${j === d ? 'on' : ''}">length ${x.length}${j === s.bestDraft ? ' ★ best' : ''}<br><small>score ${fmt(x.score)} = ${fmt(x.avgLogprob)} + ${o.lw} × ${fmt(x.lengthLogprob)}</small></button>`).join('')}</div>
        <p class="note">score = avg log P(tokens) + w × log P(length)</p>`;
    }
    let grid = '';
    for (let k = 1; k <= i; k++) {
      const dr = this.snaps[k].drafts[d];
      if (!dr) continue;
      const firstEnd = dr.texts.indexOf('</s>');
      let changed = 0;
      const prev = k > 1 ? this.snaps[k - 1].drafts[d] : null;
      const cells = dr.texts.map((tx, p) => {
        const pr = dr.probs[p];
        const masked = dr.masked[p] === 1;
        const rep = p > 0 && tx === dr.texts[p - 1] && tx !== '</s>' && (firstEnd < 0 || p < firstEnd);
        const cut = firstEnd >= 0 && p > firstEnd;
        if (prev && prev.tokens[p] !== dr.tokens[p]) changed++;
        const cls = ['cell', masked ? 'masked' : 'kept', rep ? 'rep' : '', cut ? 'cut' : '', tx === '</s>' ? 'end' : ''].join(' ');
        const desc = `position ${p + 1}: ${label(tx)}, confidence ${(pr * 100).toFixed(0)}%${masked ? ', re-predicted in this iteration' : ', kept'}${rep ? ', repeats its left neighbour' : ''}${cut ? ', after END (cut)' : ''}`;
        return `<td class="${cls}" style="background:${green(pr)};color:${pr > 0.6 ? '#fff' : '#111'}" title="${esc(desc)}"><span class="visually-hidden">${esc(desc)}</span><span aria-hidden="true"><b>${esc(label(tx))}</b>${rep ? '<i class="rep-mark">↻</i>' : ''}<small>${(pr * 100).toFixed(0)}</small></span></td>`;
      });
      const masked = dr.masked.reduce((a, b) => a + b, 0);
      const stopNote = this.snaps[k].done && !this.snaps[k].changed ? ' · no change: stop' : '';
      grid += `<tr class="${k === i ? 'current' : ''}"><th scope="row">${k}<small>${k === 1 ? 'all masked' : `${masked} re-masked${prev ? ` · ${changed} changed` : ''}`}${stopNote}</small></th>${cells.join('')}</tr>`;
    }
    const dr = this.snaps[i].drafts[d];
    html += `<div class="view"><h3>${T > 1 ? `Iterations 1–${i} of at most ${T}` : 'All positions, one pass'} (length ${dr.length})</h3>
      <div class="table-scroll"><table class="nar-grid"><caption class="visually-hidden">Draft tokens per iteration and position, with confidence</caption>
      <thead><tr><th scope="col">iter.</th>${dr.texts.map((_, p) => `<th scope="col">${p + 1}</th>`).join('')}</tr></thead><tbody>${grid}</tbody></table></div>
      <p class="legend"><span class="lg-item"><span class="lg masked"></span> predicted in this iteration</span> <span class="lg-item"><span class="lg kept"></span> kept from before</span> <span class="lg-item"><span class="rep-mark">↻</span> same as left neighbour</span> <span class="lg-item">number: confidence %</span></p></div>`;
    if (dr.attention) {
      const S = this.sourceLetters().length;
      // At a fixed maximum length most rows are END padding the output is cut at: draw up
      // to the first END and say how many were left out, rather than 40 rows of padding.
      const firstEnd = dr.texts.indexOf('</s>');
      const shown = firstEnd >= 0 && dr.length - firstEnd > 2 ? firstEnd + 1 : dr.length;
      const rowLabels = dr.texts.slice(0, shown);
      const rows = rowLabels.map((_, p) => dr.attention.subarray(p * S, (p + 1) * S));
      html += `<div class="view"><h3>Cross-attention, iteration ${i}</h3>${heatmap({ rowLabels, colLabels: this.sourceLetters(), rows, caption: 'Cross-attention of every position over the input letters, averaged over layers and heads', highlightLast: false })}
      ${shown < dr.length ? `<p class="note">Positions ${shown + 1}–${dr.length} come after the first END and are cut from the output; their rows are not drawn.</p>` : ''}
      ${explain('Cross-attention', `<p>Every position attends to the letters at the same time. Rows: output positions; columns: letters; shade: attention
      averaged over layers and heads. Compare with the autoregressive lane, where rows arrive one by one.</p>`, false)}</div>`;
    }
    return html;
  }
}
