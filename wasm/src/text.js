// A text as the engine takes it (a source, a target, a list of tokens), checked
// before anything is copied into the wasm heap. No wasm is loaded for it: the
// worker client checks with it before posting, and index.js before each call.
import { Seq2SeqError } from './errors.js';
import { LIMITS } from './limits.js';

function inputError(message) {
  return new Seq2SeqError(`input: ${message}`, 'InputError');
}

/** The InputError of a text `length` UTF-16 units long, over LIMITS.maxTextBytes; `what` names it. */
export function tooLong(length, what = 'the text') {
  return inputError(`${what} has ${length} characters; the longest accepted is ${LIMITS.maxTextBytes} bytes (UTF-8)`);
}

/**
 * Throws unless `text` (a string) can be handed to the engine: an InputError for
 * one longer than LIMITS.maxTextBytes UTF-16 units, whose UTF-8 is longer still
 * (refused here by its length alone, at no cost however long it is: converting
 * it for the engine would take as much wasm memory as it is long), and for a lone
 * UTF-16 surrogate, which the conversion would make some other character for the
 * engine's message to name. A text of at most that many units whose UTF-8 is
 * longer than the limit is the engine's to refuse, with the same words. `what`
 * names the text ('the text', 'the target').
 */
export function checkText(text, what = 'the text') {
  if (text.length > LIMITS.maxTextBytes) throw tooLong(text.length, what);
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text);
  if (lone) {
    throw inputError(`${what} holds a lone UTF-16 surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}) at index ${lone.index}`);
  }
  return text;
}
