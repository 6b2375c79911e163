// ARPAbet (CMUdict's 39 phonemes, vowels with stress digits 0, 1, 2) to IPA, for
// General American as CMUdict transcribes it. The one table of the package.
//
// Vowels whose IPA depends on stress: AH is /ʌ/ stressed (AH1, AH2) and /ə/
// unstressed (AH0); ER is /ɝ/ stressed and /ɚ/ unstressed. A vowel without a
// digit (a model that writes no stress) is read as CMUdict's commoner one: AH as
// /ə/ (AH0 is 89 % of CMUdict's AH), ER as /ɚ/ (ER0 is 82 % of its ER).
//
// Stress marks: ˈ (primary, 1) and ˌ (secondary, 2) stand at the start of the
// stressed syllable, as dictionaries write them: before the consonants in front
// of the vowel that can begin an English syllable (the longest run of them that
// is one of ONSETS, "maximal onset"), e.g. K AH0 N S T R AH1 K T → kənˈstɹʌkt.
import { Seq2SeqError } from 'seq2seq-wasm';

export const ARPABET_IPA = Object.freeze({
  AA: 'ɑ', AE: 'æ', AH: 'ʌ', AH0: 'ə', AO: 'ɔ', AW: 'aʊ', AY: 'aɪ', EH: 'ɛ', ER: 'ɝ', ER0: 'ɚ',
  EY: 'eɪ', IH: 'ɪ', IY: 'i', OW: 'oʊ', OY: 'ɔɪ', UH: 'ʊ', UW: 'u',
  B: 'b', CH: 'tʃ', D: 'd', DH: 'ð', F: 'f', G: 'ɡ', HH: 'h', JH: 'dʒ', K: 'k', L: 'l', M: 'm',
  N: 'n', NG: 'ŋ', P: 'p', R: 'ɹ', S: 's', SH: 'ʃ', T: 't', TH: 'θ', V: 'v', W: 'w', Y: 'j',
  Z: 'z', ZH: 'ʒ',
});

// What a vowel without a stress digit is read as (see above).
const NO_STRESS = { AH: 'AH0', ER: 'ER0' };

// The consonant clusters an English syllable may begin with (and every single
// consonant but NG), for placing stress marks.
const ONSETS = new Set([
  'P R', 'P L', 'P Y', 'B R', 'B L', 'B Y', 'T R', 'T W', 'D R', 'D W', 'K R', 'K L', 'K W', 'K Y',
  'G R', 'G L', 'G W', 'G Y', 'F R', 'F L', 'F Y', 'V Y', 'TH R', 'TH W', 'SH R', 'HH Y', 'M Y',
  'S P', 'S T', 'S K', 'S M', 'S N', 'S L', 'S W', 'S F',
  'S P R', 'S P L', 'S P Y', 'S T R', 'S K R', 'S K L', 'S K W', 'S K Y',
]);

const VOWEL = /^(AA|AE|AH|AO|AW|AY|EH|ER|EY|IH|IY|OW|OY|UH|UW)([012]?)$/;

const isOnset = (phones) => (phones.length === 1 ? phones[0] !== 'NG' : ONSETS.has(phones.join(' ')));

/** A phone's IPA, stress left out; undefined for a symbol that is no ARPAbet phone. */
export function phoneIpa(phone) {
  const m = VOWEL.exec(phone);
  // Own keys only: "toString" and "constructor" are no phones.
  if (!m) return Object.hasOwn(ARPABET_IPA, phone) ? ARPABET_IPA[phone] : undefined;
  const [, vowel, digit] = m;
  if (digit === '0') return ARPABET_IPA[`${vowel}0`] ?? ARPABET_IPA[vowel];
  if (digit === '') return ARPABET_IPA[NO_STRESS[vowel] ?? vowel];
  return ARPABET_IPA[vowel];
}

/** Whether a symbol is an ARPAbet phone: one of CMUdict's 39, a vowel with or without a stress digit. */
export const isPhone = (phone) => typeof phone === 'string' && phoneIpa(phone) !== undefined;

/**
 * One word's phones (ARPAbet, with or without stress digits) in IPA, with stress
 * marks where the phones have digits 1 and 2. Throws a Seq2SeqError ('UsageError')
 * for a symbol that is no ARPAbet phone.
 */
export function arpabetToIpa(phones) {
  if (!Array.isArray(phones)) throw new Seq2SeqError(`arpabetToIpa: phones must be an array of ARPAbet phones, not ${typeof phones}`, 'UsageError');
  const out = phones.map((p) => {
    const ipa = isPhone(p) ? phoneIpa(p) : undefined;
    if (ipa === undefined) throw new Seq2SeqError(`arpabetToIpa: ${JSON.stringify(String(p))} is no ARPAbet phone (CMUdict's 39, vowels with stress 0, 1 or 2 or none)`, 'UsageError');
    return ipa;
  });
  const marks = new Map();   // position → mark
  let lastVowel = -1;
  phones.forEach((p, i) => {
    const m = VOWEL.exec(p);
    if (!m) return;
    if (m[2] === '1' || m[2] === '2') {
      // The onset: the longest legal run of the consonants since the last vowel.
      let start = i;
      while (start - 1 > lastVowel && isOnset(phones.slice(start - 1, i))) start--;
      marks.set(start, m[2] === '1' ? 'ˈ' : 'ˌ');
    }
    lastVowel = i;
  });
  return out.map((ipa, i) => (marks.get(i) ?? '') + ipa).join('');
}

/** Phones without their stress digits. */
export function stripStress(phones) {
  return phones.map((p) => p.replace(/[012]$/, ''));
}
