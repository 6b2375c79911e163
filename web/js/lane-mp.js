// The Mask-Predict lane: T iterations, each re-masking the least sure positions
// and predicting them again; several length candidates, the best draft kept.
import { explain } from './views.js';
import { t } from './i18n.js';
import { NarLane } from './lane-nar.js';

export class MaskPredictLane extends NarLane {
  get title() { return t('lane.mpTitle', { T: this.opts.iterations }); }
  intro() { return explain(t('mp.title'), t('mp.explain_html')); }
  get passesKeys() { return ['stats.passesMp', 'stats.passesMpLengths']; }

  // Length candidates are the predicted length's runners-up: shown only for a predicted length.
  ownControls({ range }, o) {
    const parts = [range('iterations', t('opt.T'), t('opt.THelp'))];
    if (o.narLength === 'predicted') {
      parts.push(range('lengthCandidates', t('opt.lc'), t('opt.lcHelp')));
      if (o.lengthCandidates > 1) parts.push(range('lengthScoreWeight', t('opt.lw'), t('opt.lwHelp')));
    }
    return parts;
  }
}
