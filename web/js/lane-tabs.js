// On a narrow screen, one lane at a time behind a row of tabs (the ARIA tabs
// pattern: a tab per lane with the lane's title, ← → Home End between them).
//
// Side by side, the lanes fill a wide screen; stacked on a phone they made a column
// some 8,000 px long, each lane screens away from the next. Tabs rather than a
// sideways-swiped strip of lanes: inside a lane the beam tree, the attention maps
// and the wide tables already scroll sideways under a finger, so a swipe there
// would scroll them, not change the lane; a strip is also as tall as its tallest
// lane, leaving the short ones above a blank screen; and a tab names the lane it
// opens, in words a screen reader reads. The step bar moves every lane, hidden or
// not, so a tab opens on the step the others are at.
import { esc } from './views.js';

const NARROW = '(max-width: 720px)';

export class LaneTabs {
  /** app: the page (app.js), whose lanes the tabs follow; list: the element with role="tablist". */
  constructor(app, list) {
    this.app = app;
    this.list = list;
    this.selected = null;   // the lane shown; kept while the lanes step, decode and redraw
    this.query = matchMedia(NARROW);
    this.query.addEventListener('change', () => this.render({ redraw: true }));
    list.addEventListener('click', (e) => {
      const tab = e.target.closest('[role="tab"]');
      if (tab) this.select(this.laneOf(tab));
    });
    list.addEventListener('keydown', (e) => this.onKey(e));
  }

  /** Whether the screen is narrow: the lanes stand in one column (behind tabs where there are several). */
  get narrow() {
    return this.query.matches;
  }

  /** Whether the lanes are shown one at a time: a narrow screen and more than one lane. */
  get on() {
    return this.query.matches && this.app.lanes.length > 1;
  }

  laneOf(tab) {
    return this.app.lanes.find((l) => l.id === tab.getAttribute('aria-controls')) ?? null;
  }

  /**
   * Draws the tabs for the lanes as they are now (added, removed, moved, retitled)
   * and shows the selected lane alone, or every lane on a wide screen. redraw: the
   * lanes that come into view are drawn again, since what they measure (the tree's
   * scroll, the length chart's labels) was measured while they were hidden.
   */
  render({ redraw = false } = {}) {
    const lanes = this.app.lanes;
    if (!lanes.includes(this.selected)) this.selected = lanes[0] ?? null;
    const on = this.on;
    this.list.hidden = !on;
    this.list.innerHTML = on ? lanes.map((l) => {
      const sel = l === this.selected;
      return `<button type="button" role="tab" id="${l.id}-tab" aria-controls="${l.id}" aria-selected="${sel}" tabindex="${sel ? 0 : -1}">${esc(l.title)}</button>`;
    }).join('') : '';
    for (const l of lanes) {
      const hide = on && l !== this.selected;
      const appears = l.el.hidden && !hide;
      if (on) l.el.setAttribute('role', 'tabpanel');
      else l.el.removeAttribute('role');
      l.el.hidden = hide;
      if (appears && redraw) l.render(this.app.t);
    }
  }

  /** Shows `lane` (on a narrow screen; on a wide one every lane is in view). focus: its tab takes the focus. */
  select(lane, { focus = false } = {}) {
    if (!lane) return;
    const changed = lane !== this.selected;
    this.selected = lane;
    this.render({ redraw: changed });
    if (!this.on) return;
    const tab = document.getElementById(`${lane.id}-tab`);
    if (focus) tab?.focus();
    // The tabs stay in view above the lane they opened (below the sticky step bar).
    const bar = document.querySelector('.transport-bar')?.getBoundingClientRect().bottom ?? 0;
    if (changed && this.list.getBoundingClientRect().top < bar) this.list.scrollIntoView({ block: 'start' });
  }

  // The arrows move between the tabs, not through the decode (app.js steps on ← →).
  onKey(e) {
    const lanes = this.app.lanes;
    const i = lanes.indexOf(this.selected);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: lanes.length - 1 }[e.key];
    if (to == null || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    e.stopPropagation();
    this.select(lanes[(to + lanes.length) % lanes.length], { focus: true });
  }
}
