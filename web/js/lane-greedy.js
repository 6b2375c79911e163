// The greedy lane: the most probable token at every step.
import { explain } from './views.js';
import { t } from './i18n.js';
import { ArLane } from './lane-ar.js';

export class GreedyLane extends ArLane {
  intro() { return explain(t('greedy.title'), t('greedy.explain_html')); }
  get chosenKey() { return 'ar.taken'; }
}
