// Where the site serves the tiny G2P data set the Train mode's task g2p trains on
// (relative to the site's root): written by scripts/site/g2p-tiny.mjs at build time, fetched
// by the Train mode (web/js/train-config.js) and named by its lessons (web/js/train-lessons.js).
export const G2P_DATA = 'train/g2p-tiny.tsv';
