// The sampling lane: each token drawn from the (tempered, top-k / top-p cut)
// distribution, reproducibly from its seed: the word's own until one is set.
import { esc, explain } from './views.js';
import { t } from './i18n.js';
import { ArLane } from './lane-ar.js';
import { optionFor } from './lane-types.js';

export class SampleLane extends ArLane {
  intro() { return explain(t('sample.title'), t('sample.explain_html')); }
  get chosenKey() { return 'ar.drawn'; }
  get probsKey() { return 'sample.passProbs'; }

  /** The seed the lane draws with for the word its snapshots are of (or the page's, before any). */
  get seed() { return optionFor(this, 'seed', this.word ?? this.ctx.word); }

  onAction(a, b) {
    if (a === 'reseed') this.ctx.update(this, { seed: (this.seed % 1000) + 1 });
    else super.onAction(a, b);
  }

  ownControls({ num, range }) {
    return [range('temperature', t('opt.temp'), t('opt.tempHelp')),
      num('topK', t('opt.topk')),
      range('topP', t('opt.topp'), t('opt.toppHelp')),
      `${num('seed', t('opt.seed'), t(this.opts.seed === null ? 'opt.seedWordHelp' : 'opt.seedHelp'))}<button type="button" data-action="reseed" class="small">${esc(t('opt.newSeed'))}</button>`];
  }
}
