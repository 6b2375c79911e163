// The one-pass non-autoregressive lane: every position decoded once, in parallel.
import { explain } from './views.js';
import { t } from './i18n.js';
import { NarLane } from './lane-nar.js';
import { lengthNote } from './nar-length.js';

export class OnePassLane extends NarLane {
  intro() { return explain(t('nar.title'), t('nar.explain_html')); }
  get passesKeys() { return ['stats.passesOne', 'stats.passesOneLengths']; }

  // What the draft's length did, against the reference (not while old snapshots are on screen).
  lengthNote(dr) {
    return this.word === this.ctx.word ? lengthNote(dr, this.opts.narLength, this.ctx.reference?.prons) : '';
  }
}
