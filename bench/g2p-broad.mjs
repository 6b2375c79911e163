// IPA brought to one broad transcription, so that systems that write it differently
// (ours, phonemize, eSpeak NG) can be compared: bench/g2p-compare.mjs and
// bench/g2p-paragraphs.mjs.
// Units: diphthongs and affricates are one; marks of stress, length and
// syllabicity are dropped (a syllabic consonant first gets its schwa).
const UNITS = ['aɪ', 'aʊ', 'eɪ', 'oʊ', 'ɔɪ', 'əʊ', 'tʃ', 'dʒ'];
const BROAD = { ʌ: 'ə', ɐ: 'ə', ɝ: 'ɚ', ɜ: 'ɚ', r: 'ɹ', g: 'ɡ', ɫ: 'l', ɒ: 'ɑ', o: 'ɔ', 'əʊ': 'oʊ', ʧ: 'tʃ', ʤ: 'dʒ' };
// What a candidate's unit may stand for besides itself.
export const ALSO = { ɾ: ['t', 'd'], ᵻ: ['ɪ', 'ə'], ʔ: ['t'] };
export function broadIpa(ipa) {
  const s = ipa.normalize('NFD').replace(/([nlm])\u0329/g, 'ə$1').replace(/[ˈˌːˑ.\u0329\u0361\u035C‿\s-]/g, '').replace(/[ɜɝɚ]ɹ/g, 'ɚ');
  const out = [];
  for (let i = 0; i < s.length;) {
    const two = s.slice(i, i + 2);
    if (UNITS.includes(two)) { out.push(BROAD[two] ?? two); i += 2; continue; }
    const one = String.fromCodePoint(s.codePointAt(i));
    out.push(BROAD[one] ?? one);
    i += one.length;
  }
  return out;
}

// ---------------------------------------------------------------- readings as patterns over broad IPA
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A reference unit, and the candidate units that may stand for it (ALSO: a flap for t or d, …).
const unitPattern = (u) => {
  const also = Object.keys(ALSO).filter((k) => ALSO[k].includes(u));
  return also.length ? `(?:${[u, ...also].map(escape).join('|')})` : escape(u);
};

/** Text's IPA as one broad string without spaces or punctuation. */
export const broadString = (ipa) => broadIpa(ipa.replace(/[.,!?;:()"'“”‘’«»–—/&+@%=¥$€£]/g, ' ')).join('');

/**
 * A reading of tests/fixtures/g2p/paragraphs.json ("a | b": either; words; a capital
 * letter its name; /ARPABET/ written out) as a regular expression over broadString().
 * `cmudict`: word → its pronunciations (strings of ARPAbet); `arpabetToIpa`: the package's.
 */
export function readingPattern(reading, cmudict, arpabetToIpa) {
  const ipaPattern = (phones) => broadIpa(arpabetToIpa(phones)).map(unitPattern).join('');
  const wordPatterns = (w) => {
    if (/^\/.*\/$/.test(w)) return [ipaPattern(w.slice(1, -1).split(' '))];
    const prons = cmudict.get(/^[A-Z]$/.test(w) ? `${w.toLowerCase()}.` : w);
    if (!prons) throw new Error(`a reading's word CMUdict lacks: ${w}`);
    return prons.map((p) => ipaPattern(p.split(' ')));
  };
  const alts = reading.split(' | ').map((alt) => alt.match(/\/[^/]+\/|\S+/g)
    .flatMap((w) => (/^\//.test(w) ? [w] : w.split('-')))
    .map((w) => `(?:${wordPatterns(w).join('|')})`).join(''));
  return new RegExp(alts.map((a) => `(?:${a})`).join('|'), 'u');
}
