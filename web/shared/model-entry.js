// A model as the page lists it: the engine's own info() of its file (ModelInfo,
// wasm/src/index.d.ts) with what the page adds, its id (the address's m=), the file the
// decoder loads (a URL), whether it is a random-weight fixture and the example words it
// reads; then what the site knows of it (test WERs, `training`: how it was trained) or,
// for a model trained on the page, `trainedOn` (its task's options and held-out set).
// One shape for the site's models (scripts/site/models.mjs, read from models.json) and a
// model trained on the page (web/js/trained-model.js). Imports nothing: the scripts read it.

/** The page's entry for a model whose info() is `info`; `extra`'s fields are added as given. */
export function modelEntry(info, { id, file, fixture = false, examples = [], ...extra }) {
  return { ...info, name: info.name || id, id, file, fixture, examples, ...extra };
}
