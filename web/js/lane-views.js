// The views under the lanes, one line each, in the order they are registered (a lane
// draws a slot's views in that order; view-registry.js says what a view is). A view a
// default lane shows (its shell, at least) is its module, imported here, which
// registers itself; a view no default lane shows is registered here with the module
// that draws it, loaded when a lane that has it is first drawn, so that a first visit
// does not download it (the imports come first: a module's imports run before its body).
// Nothing else imports a view's module: a lane finds its views in the registry, and a
// map links to another view by its id (tests/node/view-registry.test.mjs holds both).
import './inside.js';
import './self-attention.js';
import './forced-view.js';
import { registerView } from './view-registry.js';

registerView({ id: 'draw', slot: 'choice', lanes: (kind) => kind.fixed?.strategy === 'sample', load: () => import('./draw-view.js') });
