// Batch decoding's argument check and error messages, shared by
// Model.decodeBatch (index.js), the decoder worker (worker-protocol.js) and its
// client (worker-client.js), which checks the list before posting it. No wasm
// is loaded for it.
import { Seq2SeqError, describe, quote, usageError } from './errors.js';
import { LIMITS } from './limits.js';
import { tooLong } from './text.js';

/**
 * Throws a UsageError unless `texts` is an array of strings. `what` names the call.
 * Which text is bad otherwise (empty, too long, of characters the model lacks) is
 * found in order, the first one named: BatchDecoder (index.js) checks each before
 * the engine sees it.
 */
export function checkTexts(texts, what) {
  if (!Array.isArray(texts)) throw usageError(`${what}: texts must be an array of strings; got ${describe(texts)}`);
  for (let i = 0; i < texts.length; i++) {
    // A hole of a sparse array reads as undefined, and is refused as one.
    if (typeof texts[i] !== 'string') throw usageError(`${what}: texts[${i}] must be a string; got ${describe(texts[i])}`);
  }
}

/** The index of the first text longer than LIMITS.maxTextBytes UTF-16 units (text.js), or -1. */
export function firstTooLong(texts) {
  return texts.findIndex((t) => t.length > LIMITS.maxTextBytes);
}

/** The InputError of texts[index], a text too long to be handed to the engine. */
export function tooLongError(texts, index) {
  return textError(tooLong(texts[index].length), texts, index);
}

/**
 * The error `e` about texts[index], its message prefixed with the index and
 * the text (its first 40 characters): `texts[3] "AB1": input: ...`. Same kind.
 */
export function textError(e, texts, index) {
  return new Seq2SeqError(`texts[${index}] ${quote(texts[index])}: ${e.message}`, e.kind ?? 'Error');
}
