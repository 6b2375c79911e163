// The page's decoder worker: the npm module's worker script (wasm/src/worker.js),
// with every module it needs named here. A worker cannot be given
// modulepreload hints, so without this list it would discover its modules one
// level at a time (worker.js, then worker-protocol.js, then index.js, then
// core.js, then the Emscripten glue): five round trips before the WebAssembly
// is even requested. Listed here, they are all fetched at once.
import '../wasm/dist/seq2seq_core.mjs';
import '../wasm/src/options-table.js';
import '../wasm/src/errors.js';
import '../wasm/src/env.js';
import '../wasm/src/target.js';
import '../wasm/src/batch.js';
import '../wasm/src/model-source.js';
import '../wasm/src/options.js';
import '../wasm/src/core.js';
import '../wasm/src/index.js';
import '../wasm/src/worker-protocol.js';
import '../wasm/src/worker.js';
