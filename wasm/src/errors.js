// The package's error class, in a module of its own so that the worker client
// (which runs on the page's main thread) can throw the same errors without
// loading the Emscripten glue.

export class Seq2SeqError extends Error {
  constructor(message, kind = 'Error') {
    super(message);
    this.name = 'Seq2SeqError';
    // 'ModelError' | 'InputError' | 'UsageError' | 'OutOfMemory' | 'Error',
    // and 'Cancelled' / 'WorkerError' from the worker client.
    this.kind = kind;
  }
}

// C++ messages name options as the struct does (beam_size); a JS user wrote
// beamSize. Longest names first so that max_length_ratio wins over max_length.
const JS_OPTION_NAMES = [
  ['length_score_weight', 'lengthScoreWeight'],
  ['nar_given_length', 'length'],
  ['max_length_ratio', 'maxLengthRatio'],
  ['length_candidates', 'lengthCandidates'],
  ['top_candidates', 'topCandidates'],
  ['max_length', 'maxLength'],
  ['min_length', 'minLength'],
  ['nar_length', 'narLength'],
  ['gnmt_alpha', 'gnmtAlpha'],
  ['early_stop', 'earlyStop'],
  ['beam_size', 'beamSize'],
  ['n_best', 'nBest'],
  ['top_k', 'topK'],
  ['top_p', 'topP'],
];
const OPTION_NAME_RE = new RegExp(`\\b(${JS_OPTION_NAMES.map(([c]) => c).join('|')})\\b`, 'g');
const JS_NAME = new Map(JS_OPTION_NAMES);

/** A C++ error message with its option names in the JS spelling. */
export function jsOptionNames(message) {
  return message.replace(OPTION_NAME_RE, (name) => JS_NAME.get(name));
}
