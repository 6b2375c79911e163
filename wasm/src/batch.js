// Batch decoding's argument check and error messages, shared by
// Model.decodeBatch (index.js), the decoder worker (worker-protocol.js) and its
// client (worker-client.js), which checks the list before posting it. No wasm
// is loaded for it.
import { Seq2SeqError } from './errors.js';

// A string in a message: quoted, its first 40 characters only.
const quoted = (s) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

// What was given instead of an array of strings, for the message.
function received(value) {
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${quoted(value)}`;
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : `an object (${value.constructor?.name ?? 'no class'})`;
  return `the ${typeof value} ${String(value)}`;
}

/** Throws a UsageError unless `texts` is an array of strings; `what` names the call. */
export function checkTexts(texts, what) {
  if (!Array.isArray(texts)) throw new Seq2SeqError(`${what}: texts must be an array of strings; got ${received(texts)}`, 'UsageError');
  for (let i = 0; i < texts.length; i++) {
    // A hole of a sparse array reads as undefined, and is refused as one.
    if (typeof texts[i] !== 'string') throw new Seq2SeqError(`${what}: texts[${i}] must be a string; got ${received(texts[i])}`, 'UsageError');
  }
}

/**
 * The error `e` about texts[index], its message prefixed with the index and
 * the text (its first 40 characters): `texts[3] "AB1": input: ...`. Same kind.
 */
export function textError(e, texts, index) {
  return new Seq2SeqError(`texts[${index}] ${quoted(texts[index])}: ${e.message}`, e.kind ?? 'Error');
}
