// ARPAbet (CMUdict's 39 phonemes, stress removed) to IPA, General American.
// AH is written ə: with stress removed most AH in CMUdict are the unstressed
// schwa (AH0); stressed AH (AH1) would be ʌ.
export const IPA = {
  AA: 'ɑ', AE: 'æ', AH: 'ə', AO: 'ɔ', AW: 'aʊ', AY: 'aɪ', B: 'b', CH: 'tʃ', D: 'd', DH: 'ð',
  EH: 'ɛ', ER: 'ɝ', EY: 'eɪ', F: 'f', G: 'ɡ', HH: 'h', IH: 'ɪ', IY: 'i', JH: 'dʒ', K: 'k',
  L: 'l', M: 'm', N: 'n', NG: 'ŋ', OW: 'oʊ', OY: 'ɔɪ', P: 'p', R: 'ɹ', S: 's', SH: 'ʃ',
  T: 't', TH: 'θ', UH: 'ʊ', UW: 'u', V: 'v', W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
};

const SPECIAL_LABELS = { '</s>': 'END', '<s>': 'BEGIN', '<mask>': 'MASK', '<pad>': 'PAD', '<unk>': 'UNK' };

// Tokens are looked up as own keys: a vocabulary may hold any string, 'constructor' too.
const isSpecial = (token) => Object.hasOwn(SPECIAL_LABELS, token);
const ipaSymbol = (token) => (Object.hasOwn(IPA, token) ? IPA[token] : '?');

/** A token as a learner should read it: phonemes as they are, specials by name. */
export function label(token) {
  return isSpecial(token) ? SPECIAL_LABELS[token] : token;
}

export function ipaOf(token) {
  return isSpecial(token) ? '' : ipaSymbol(token);
}

/** "F OW N IY M" -> "/foʊnim/" ('' for an empty output). */
export function ipa(text) {
  const toks = (Array.isArray(text) ? text : String(text).split(/\s+/)).filter((t) => t && !isSpecial(t));
  if (!toks.length) return '';
  return '/' + toks.map(ipaSymbol).join('') + '/';
}

// The edit distance is the metrics' (web/shared/metrics.js); views.js takes it from here.
export { editDistance } from '../shared/metrics.js';
