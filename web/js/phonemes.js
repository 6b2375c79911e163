// ARPAbet (CMUdict's 39 phonemes, stress removed) to IPA, General American, as the
// models package's phonemizer reads a phone without its stress digit (models/g2p/ipa.js,
// whose table the text view shows; tests/browser/text-view.test.mjs holds the two
// together): the commoner, unstressed vowel. AH is ə (AH0 is 89 % of CMUdict's AH;
// stressed AH1 would be ʌ), ER is ɚ (ER0 is 82 % of its ER; stressed ER1 would be ɝ).
export const IPA = {
  AA: 'ɑ', AE: 'æ', AH: 'ə', AO: 'ɔ', AW: 'aʊ', AY: 'aɪ', B: 'b', CH: 'tʃ', D: 'd', DH: 'ð',
  EH: 'ɛ', ER: 'ɚ', EY: 'eɪ', F: 'f', G: 'ɡ', HH: 'h', IH: 'ɪ', IY: 'i', JH: 'dʒ', K: 'k',
  L: 'l', M: 'm', N: 'n', NG: 'ŋ', OW: 'oʊ', OY: 'ɔɪ', P: 'p', R: 'ɹ', S: 's', SH: 'ʃ',
  T: 't', TH: 'θ', UH: 'ʊ', UW: 'u', V: 'v', W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
};

const SPECIAL_LABELS = { '</s>': 'END', '<s>': 'BEGIN', '<mask>': 'MASK', '<pad>': 'PAD', '<unk>': 'UNK' };

// Tokens are looked up as own keys: a vocabulary may hold any string, 'constructor' too.
const isSpecial = (token) => Object.hasOwn(SPECIAL_LABELS, token);
const ipaSymbol = (token) => (Object.hasOwn(IPA, token) ? IPA[token] : '');

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
  // A model trained on another task (reverse, sort) writes no phonemes: no IPA at all.
  if (!toks.length || !toks.every((t) => Object.hasOwn(IPA, t))) return '';
  return '/' + toks.map(ipaSymbol).join('') + '/';
}

// The edit distance is the metrics' (web/shared/metrics.js); views.js takes it from here.
export { editDistance } from '../shared/metrics.js';
