// A model trained on the page (Train mode) opened in the lanes: app.openTrainedModel
// loads this module at its first call. The model's file (the trainer's export(), the
// format loadModel() reads) reaches the decoder workers as a blob: URL, which engine.js
// fetches as it fetches a site model's file; its entry is the site's shape
// (web/shared/model-entry.js) around the engine's own info() of those bytes, with the
// id TRAINED_MODEL and its held-out examples (`trainedOn`). It is autoregressive
// (Transformer or RNN): the greedy, beam and sampling lanes decode with it; the one-pass
// and Mask-Predict lanes need a CMLM and the comparison lane sets the site's four RNNs
// side by side, so it is in none of their pickers, and the page says so when it opens.
// The word shown is its first held-out source, whose reference is its held-out target
// (not a CMUdict lookup); the word list scores it on its held-out set (wordlist.js,
// src=heldout). A reload loses it: the address's m=trained then gets a note (app.js).
import { openDecoder } from './engine.js';
import { makeLane } from './lane-types.js';
import { TRAINED_MODEL, foldCase } from '../shared/lane-models.js';
import { modelEntry } from '../shared/model-entry.js';
import { t } from './i18n.js';
import { esc, phonemeLine } from './views.js';

// The lane types that decode with an autoregressive model, in the page's order.
const LANES = ['greedy', 'beam', 'sample'];

/** A usage error of openTrainedModel, with the kind the package's errors have. */
function usage(message) {
  return Object.assign(new Error(`openTrainedModel: ${message}`), { kind: 'UsageError' });
}

/** `details` checked: {options, heldOut} (a TrainerInfo's options; [{source, target}] of strings, at least one). */
function checkDetails(details) {
  if (details === null || typeof details !== 'object') throw usage('details must be { info, heldOut }');
  const { info, heldOut } = details;
  if (info === null || typeof info !== 'object' || info.options === null || typeof info.options !== 'object') {
    throw usage('details.info must be the trainer\'s info (TrainerInfo, with its options)');
  }
  if (!Array.isArray(heldOut) || !heldOut.length) throw usage('details.heldOut must be the trainer\'s held-out examples: a non-empty array of { source, target }');
  const bad = heldOut.findIndex((e) => typeof e?.source !== 'string' || typeof e?.target !== 'string' || !e.source.trim());
  if (bad >= 0) throw usage(`details.heldOut[${bad}] must be { source, target }, two strings (a non-empty source)`);
  return { options: info.options, heldOut };
}

/** The model open now: one at a time, a new one replacing it (its worker and its blob: URL released). */
let current = null;   // {entry, url, keep: the decoder that holds its worker between lanes}

function release(old) {
  if (!old) return;
  old.keep.terminate();
  // Lanes still on it have loaded its bytes already; a word list opens the new one.
  URL.revokeObjectURL(old.url);
}

/**
 * Opens the model of `bytes` (a Uint8Array, the trainer's export()) in `app`'s lanes:
 * greedy, beam and sampling lanes on it, the word its first held-out source, the lanes'
 * mode shown. `details`: {info: TrainerInfo, heldOut: HeldOutExample[]}. Resolves with
 * its entry in app.models; rejects with an Error (kind 'UsageError', or the engine's
 * Seq2SeqError for bytes that are no model file), whose message the page shows too.
 */
export async function openTrained(app, bytes, details) {
  let url = null;
  let keep = null;
  try {
    if (!(bytes instanceof Uint8Array) || !bytes.length) throw usage('bytes must be the trainer\'s export(): a non-empty Uint8Array');
    const { options, heldOut } = checkDetails(details);
    url = URL.createObjectURL(new Blob([bytes]));
    keep = await openDecoder(url);
    const { info } = keep;
    if (!info.autoregressive) throw usage(t('trained.notAutoregressive', { name: info.name }));
    const examples = heldOut.map((e) => ({ source: foldCase(info, e.source.trim()), target: e.target.trim() }));
    const entry = modelEntry(info, {
      id: TRAINED_MODEL,
      file: url,
      examples: [...new Set(examples.map((e) => e.source))],
      trainedOn: { task: options.task, arch: options.arch, options: { ...options }, heldOut: examples },
      // The inside view draws label smoothing's target as for a site model (inside-output.js).
      ...(options.labelSmoothing > 0 ? { training: { labelSmoothing: options.labelSmoothing, get config() { return t('trained.where'); } } } : {}),
    });
    install(app, entry);
    release(current);
    current = { entry, url, keep };
    return entry;
  } catch (e) {
    keep?.terminate();
    if (url) URL.revokeObjectURL(url);
    app.message(t('trained.failed', { error: String(e?.message ?? e) }));
    throw e;
  }
}

/** Puts `entry` in app.models (in place of an older one) and the lanes on it. */
function install(app, entry) {
  const i = app.models.findIndex((m) => m.id === TRAINED_MODEL);
  // Last in the list: the comparison lane's RNNs (compareModels) stay the site's.
  if (i >= 0) app.models.splice(i, 1);
  app.models.push(entry);
  app.trained = helper;
  app.stop();
  for (const l of app.lanes) l.destroy();
  app.lanes = [];
  app.addressNotes = [];
  app.modelNotes = [];
  for (const type of LANES) app.addLane(makeLane(type, { m: TRAINED_MODEL }), { decode: false });
  // Said where the learner looks for the lanes that are gone; in the language of the moment.
  app.modelNotes.push(() => t('trained.opened', { name: entry.name, lanes: LANES.map((type) => t(`lane.${type}`)).join(t('trained.sep')) }));
  app.renderControls();
  app.renderExamples();
  app.relabel();   // the footer's list of models
  app.follow = true;
  app.setWord(entry.trainedOn.heldOut[0].source, { keepStep: true, fromAddress: true });
  if (app.wordlist) {
    app.wordlist.state.src = 'heldout';
    app.wordlist.render();
  }
  if (app.mode !== 'lanes') app.showMode('lanes');
  app.tabs.select(app.lanes[0]);
}

/** The trained model among `models`, or null. */
function trainedIn(models) {
  return models.find((m) => m?.trainedOn) ?? null;
}

/** What the page asks of the trained model (app.trained): references of its held-out words. */
const helper = {
  /** The model open now, or null. */
  get model() { return current?.entry ?? null; },

  /**
   * The reference of `word` for lanes on `models`: {split: 'heldOut', prons: [target]} for
   * one of the trained model's held-out sources, null when every lane is on that model and
   * the word is none of them (CMUdict knows nothing of a reversed string), undefined
   * where CMUdict's reference stands (no lane on it).
   */
  reference(word, models) {
    const m = trainedIn(models);
    if (!m || !word) return undefined;
    const w = foldCase(m, word.trim());
    const prons = [...new Set(m.trainedOn.heldOut.filter((e) => e.source === w).map((e) => e.target))];
    if (prons.length) return { split: 'heldOut', prons };
    return models.every((x) => x === m) ? null : undefined;
  },

  /** The reference line's markup for the trained model's word, or null where app.js draws CMUdict's. */
  referenceHtml(ref, word, models) {
    const m = trainedIn(models);
    if (!m || !word) return null;
    if (ref?.split === 'heldOut') return t('trained.ref_html', { prons: ref.prons.map((p) => `<span class="ref">${phonemeLine(p)}</span>`).join(t('ref.or')) });
    return ref ? null : t('trained.noRef_html', { word: esc(foldCase(m, word.trim())) });
  },
};
