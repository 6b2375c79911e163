// The views under the lanes, one line each, in the order a lane draws them
// (view-registry.js says what a view is; each module registers itself). Nothing
// else imports a view's module: a lane finds its views in the registry, and a map
// links to another view by its id (tests/node/view-registry.test.mjs holds both).
import './draw-view.js';
import './inside.js';
import './self-attention.js';
import './forced-view.js';
