// Boxes that scroll say so. Phones, macOS and headless browsers draw no scrollbar
// until a box is scrolled, so a table cut at the lane's edge looked whole: a learner
// never saw the column the tour was talking about. Each scroll box of the page gets
// data-cut naming the edges it is cut at (left right top bottom), and style.css fades
// its content out at those edges: the fade sits where more is, and moves as the box
// scrolls. Boxes are found by their class (the page's scroll regions: views.js
// scrollRegion, the heatmaps, the beam tree, the lanes' row, the examples, the tour's
// panel) and measured again after every change of the page, a resize, a scroll of
// the box, a disclosure opened or closed.

const BOXES = '.table-scroll, .hm-wrap, .tree-wrap, .lanes, .examples, .tour';

/** Sets el's data-cut from its scroll position: the edges with more beyond them. */
export function markCut(el) {
  const x = el.scrollLeft, y = el.scrollTop;
  const cut = [
    x > 1 && 'left',
    x + el.clientWidth < el.scrollWidth - 1 && 'right',
    y > 1 && 'top',
    y + el.clientHeight < el.scrollHeight - 1 && 'bottom',
  ].filter(Boolean).join(' ');
  if (cut) { if (el.dataset.cut !== cut) el.dataset.cut = cut; }
  else if (el.dataset.cut != null) delete el.dataset.cut;
}

/** Keeps data-cut up to date on every scroll box under `root` (the page's body). */
export function watchScrollBoxes(root = document.body) {
  let queued = false;
  const all = () => {
    queued = false;
    for (const el of root.querySelectorAll(BOXES)) markCut(el);
  };
  // Once a frame at most: a lane's redraw replaces many boxes in one go.
  const soon = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(all);
  };
  new MutationObserver(soon).observe(root, { childList: true, subtree: true });
  window.addEventListener('resize', soon);
  // Scroll and toggle do not bubble: caught on their way down.
  document.addEventListener('scroll', (e) => { if (e.target instanceof Element && e.target.matches(BOXES)) markCut(e.target); }, { capture: true, passive: true });
  document.addEventListener('toggle', soon, true);
  all();
}
