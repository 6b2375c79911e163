// Batch decoding's argument check and error messages, shared by
// Model.decodeBatch (index.js), the decoder worker (worker-protocol.js) and its
// client (worker-client.js), which checks the list before posting it. No wasm
// is loaded for it.
import { Seq2SeqError, describe, quote, usageError } from './errors.js';
import { LIMITS } from './limits.js';
import { checkText } from './text.js';

/**
 * Throws a UsageError unless `texts` is an array of strings, and the InputError
 * of the first text too long to be handed to the engine (text.js): all of them
 * before any is converted. `what` names the call.
 */
export function checkTexts(texts, what) {
  if (!Array.isArray(texts)) throw usageError(`${what}: texts must be an array of strings; got ${describe(texts)}`);
  for (let i = 0; i < texts.length; i++) {
    // A hole of a sparse array reads as undefined, and is refused as one.
    if (typeof texts[i] !== 'string') throw usageError(`${what}: texts[${i}] must be a string; got ${describe(texts[i])}`);
  }
  const long = texts.findIndex((t) => t.length > LIMITS.maxTextBytes);
  if (long >= 0) {
    try {
      checkText(texts[long]);
    } catch (e) {
      throw textError(e, texts, long);
    }
  }
}

/**
 * The error `e` about texts[index], its message prefixed with the index and
 * the text (its first 40 characters): `texts[3] "AB1": input: ...`. Same kind.
 */
export function textError(e, texts, index) {
  return new Seq2SeqError(`texts[${index}] ${quote(texts[index])}: ${e.message}`, e.kind ?? 'Error');
}
