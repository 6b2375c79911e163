// Batch decoding's argument check and error messages, shared by
// Model.decodeBatch (index.js), the decoder worker (worker-protocol.js) and its
// client (worker-client.js), which checks the list before posting it. No wasm
// is loaded for it.
import { Seq2SeqError, describe, usageError } from './errors.js';

// A text in a message: quoted, its first 40 characters only.
const quoted = (s) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** Throws a UsageError unless `texts` is an array of strings; `what` names the call. */
export function checkTexts(texts, what) {
  if (!Array.isArray(texts)) throw usageError(`${what}: texts must be an array of strings; got ${describe(texts)}`);
  for (let i = 0; i < texts.length; i++) {
    // A hole of a sparse array reads as undefined, and is refused as one.
    if (typeof texts[i] !== 'string') throw usageError(`${what}: texts[${i}] must be a string; got ${describe(texts[i])}`);
  }
}

/**
 * The error `e` about texts[index], its message prefixed with the index and
 * the text (its first 40 characters): `texts[3] "AB1": input: ...`. Same kind.
 */
export function textError(e, texts, index) {
  return new Seq2SeqError(`texts[${index}] ${quoted(texts[index])}: ${e.message}`, e.kind ?? 'Error');
}
