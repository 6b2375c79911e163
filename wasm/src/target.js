// The target of a forced score (Model.score, Session.score, the worker's score)
// as the engine reads it: its tokens separated by spaces. Checked here, where a
// wrong type can be named; unknown or special tokens are the engine's to refuse.
// No wasm is loaded for it (the worker client checks before posting).
import { Seq2SeqError, describe, usageError } from './errors.js';
import { LIMITS } from './limits.js';
import { tooLong } from './text.js';

/**
 * 'F OW N IY M' as given, or ['F', 'OW', 'N', 'IY', 'M'] joined; a UsageError
 * for anything else, an array element that is not one token included. `what`
 * names the call.
 */
export function targetText(target, what) {
  if (typeof target === 'string') return target;
  if (!Array.isArray(target)) throw usageError(`${what}: target must be a string of space-separated tokens or an array of tokens; got ${describe(target)}`);
  // Too long joined: refused by the lengths alone, before any token is looked at (text.js).
  const length = target.reduce((n, t) => n + (typeof t === 'string' ? t.length : 0), Math.max(0, target.length - 1));
  if (length > LIMITS.maxTextBytes && target.every((t) => typeof t === 'string')) throw tooLong(length, 'the target');
  for (let i = 0; i < target.length; i++) {
    const t = target[i];
    // An element with a space or none at all would be read as some other number of tokens.
    if (typeof t !== 'string' || !/^\S+$/.test(t)) throw usageError(`${what}: target[${i}] must be one token (a non-empty string without spaces); got ${describe(t)}`);
  }
  return target.join(' ');
}

/**
 * What Model.inspect passes on for `tokens`: token ids (an array of integers, as
 * snapshots give them) as they are, token texts (a string, or an array of
 * strings) as one space-separated string. Throws a UsageError for anything else.
 */
export function inspectTokens(tokens, what) {
  if (Array.isArray(tokens) && tokens.every((t) => typeof t === 'number')) {
    for (let i = 0; i < tokens.length; i++) {
      if (!Number.isInteger(tokens[i])) throw usageError(`${what}: tokens[${i}] must be a token id (an integer); got ${describe(tokens[i])}`);
    }
    // More ids than any model has positions: refused before they are copied into the wasm heap.
    if (tokens.length > LIMITS.maxPositions) {
      throw new Seq2SeqError(`input: the decoder input has ${tokens.length} token ids; no model reads more than ${LIMITS.maxPositions} positions`, 'InputError');
    }
    return tokens;
  }
  return targetText(tokens, what);
}
