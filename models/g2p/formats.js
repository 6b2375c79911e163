// The phonemes of a text in the symbol sets text-to-speech voices read
// (phonemize(text, { format })): 'arpabet' and 'ipa' are the phonemizer's own
// (index.js, ipa.js); 'misaki' and 'espeak' are written here from ARPAbet.
//
//   misaki  The US English symbols Kokoro's voices were trained on (misaki's
//           US_VOCAB): one letter a diphthong (A eɪ, I aɪ, O oʊ, W aʊ, Y ɔɪ), ʤ ʧ,
//           ɜɹ stressed and əɹ unstressed for ER, ᵊ for a schwa that is nearly a
//           syllabic l or n (ˈmɑdᵊl, ˈOpᵊn), ɾ for a flapped t (ˈwɔɾəɹ), ʔ before a
//           syllabic n (ˈbʌʔn), ᵻ for the unstressed vowel of -ed and -es after t, d
//           and sibilants, the stress mark just before its vowel.
//   espeak  The IPA eSpeak NG writes for en-us, which Piper's en_US voices take
//           through their phoneme_id_map: length marks on the long vowels (iː uː
//           ɑː ɔː ɜː), ɚ unstressed ER, aɪ eɪ oʊ aʊ ɔɪ, tʃ dʒ, ɾ, the stress mark
//           just before its vowel.
//
// Each format's every symbol is in INVENTORY[format], punctuation included
// (PUNCTUATION[format]: what a voice reads as a pause or an intonation; any
// other punctuation is left out of the phonemes and listed in `dropped`).
// Function words (FUNCTION_WORDS) are unstressed, or stressed only secondarily,
// as voices read them in a sentence.

/** Every symbol a format writes, white space aside. */
export const INVENTORY = Object.freeze({
  misaki: Object.freeze([...'AIOWYbdfhijklmnpstuvwzæðŋɑɔəɛɜɡɪɹɾʃʊʌʒʤʧˈˌθᵊᵻʔ', ...';:,.!?—…"()“”']),
  espeak: Object.freeze([...'abdefhijklmnopstuvwzæðŋɑɔəɚɛɜɡɪɹɾʃʊʌʒθˈˌːᵻ', ...'!\'(),-.:;?']),
});

/** The formats `phonemes` can be written in. */
export const FORMATS = Object.freeze(['arpabet', 'ipa', 'misaki', 'espeak']);

/** Whether a format writes stress (and so wants every word stressed). */
export const STRESSED_FORMATS = Object.freeze(['misaki', 'espeak']);

// Punctuation as each voice reads it: [what it is written as], or '' where the
// format has no such symbol (then it is dropped and reported).
const PUNCT_MISAKI = {
  '.': '.', ',': ',', '!': '!', '?': '?', ';': ';', ':': ':', '…': '…', '...': '…', '—': '—', '–': '—', '--': '—',
  '"': '"', '“': '“', '”': '”', '«': '“', '»': '”', '(': '(', ')': ')', '[': '(', ']': ')',
};
const PUNCT_ESPEAK = {
  '.': '.', ',': ',', '!': '!', '?': '?', ';': ';', ':': ':', '…': '.', '...': '.', '—': ',', '–': ',', '--': ',',
  '(': '(', ')': ')', '[': '(', ']': ')', '-': '-',
};
// The phonemizer's own formats keep punctuation as written, but for symbols that
// are no punctuation a voice reads (& # * @ …: spoken as words, or dropped).
const PUNCT_TEXT = Object.fromEntries([...'.,!?;:…—–-()[]"“”«»‘’\'/'].map((c) => [c, c]));
export const PUNCTUATION = Object.freeze({
  arpabet: Object.freeze(PUNCT_TEXT), ipa: Object.freeze(PUNCT_TEXT), misaki: Object.freeze(PUNCT_MISAKI), espeak: Object.freeze(PUNCT_ESPEAK),
});

/**
 * A punctuation token as the format writes it: '' when the format has no symbol
 * for it. A run of one character (!!!) reads as the character once.
 */
export function punctuationIn(format, text) {
  const table = PUNCTUATION[format];
  if (Object.hasOwn(table, text)) return table[text];
  const one = text[0];
  if (![...text].every((c) => c === one) || !Object.hasOwn(table, one)) return '';
  // The phonemizer's own formats keep a run as written (...), a voice's reads it once.
  return format === 'arpabet' || format === 'ipa' ? text : table[one];
}

/**
 * Function words as a voice reads them in a sentence: 'none', unstressed; 'secondary',
 * a secondary stress at most. Articles, pronouns, auxiliaries, prepositions and
 * conjunctions are unstressed; question words, negation and a few adverbs keep a
 * secondary stress.
 */
export const FUNCTION_WORDS = Object.freeze(Object.fromEntries([
  ...'a an the to of and or nor but for from in on at by with as is are was were be been am has have had do does did can could will would shall should may might must that than their them they he him his her she we us our you your me my it its i this these those if into onto upon some any'
    .split(' ').map((w) => [w, 'none']),
  ...'who whom what which when where how not so just up out about'.split(' ').map((w) => [w, 'secondary']),
]));

const VOWEL = /^(AA|AE|AH|AO|AW|AY|EH|ER|EY|IH|IY|OW|OY|UH|UW)([012]?)$/;
const isVowel = (p) => p !== undefined && VOWEL.test(p.base + p.stress);

/** [{base, stress}] of one word's phones; a word without digits (a model without stress) gets them by guessStress. */
function parse(phones) {
  const ps = phones.map((p) => {
    const m = /^([A-Z]+?)([012]?)$/.exec(p);
    return { base: m[1], stress: m[2] };
  });
  const vowels = ps.filter((p) => VOWEL.test(p.base));
  if (vowels.length && vowels.every((p) => p.stress === '')) guessStress(vowels);
  return ps;
}

/**
 * Stress for a word whose phones have none: primary on its first vowel that is not
 * a schwa or r-coloured one (AH, ER: most often unstressed, CMUdict's AH0 and ER0),
 * else on its first vowel; the others unstressed.
 */
function guessStress(vowels) {
  const main = vowels.find((p) => p.base !== 'AH' && p.base !== 'ER') ?? vowels[0];
  for (const v of vowels) v.stress = v === main ? '1' : '0';
}

/**
 * Each phone's stress mark: its digit's, or as a function word reads it ('none':
 * no mark; 'secondary': the primary's lowered to secondary, other secondaries
 * gone). Its vowel stays what the digit says (of is ʌv, not əv).
 */
function marked(ps, reduce) {
  const mark = (d) => (d === '1' ? 'ˈ' : d === '2' ? 'ˌ' : '');
  return ps.map((p) => ({
    ...p,
    mark: !reduce ? mark(p.stress) : reduce === 'secondary' && p.stress === '1' ? 'ˌ' : '',
  }));
}

const MISAKI = {
  AA: 'ɑ', AE: 'æ', AH: 'ʌ', AO: 'ɔ', AW: 'W', AY: 'I', EH: 'ɛ', ER: 'ɜɹ', EY: 'A', IH: 'ɪ', IY: 'i', OW: 'O', OY: 'Y', UH: 'ʊ', UW: 'u',
  B: 'b', CH: 'ʧ', D: 'd', DH: 'ð', F: 'f', G: 'ɡ', HH: 'h', JH: 'ʤ', K: 'k', L: 'l', M: 'm', N: 'n', NG: 'ŋ', P: 'p', R: 'ɹ',
  S: 's', SH: 'ʃ', T: 't', TH: 'θ', V: 'v', W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
};
const ESPEAK = {
  AA: 'ɑː', AE: 'æ', AH: 'ʌ', AO: 'ɔː', AW: 'aʊ', AY: 'aɪ', EH: 'ɛ', ER: 'ɜː', EY: 'eɪ', IH: 'ɪ', IY: 'iː', OW: 'oʊ', OY: 'ɔɪ', UH: 'ʊ', UW: 'uː',
  B: 'b', CH: 'tʃ', D: 'd', DH: 'ð', F: 'f', G: 'ɡ', HH: 'h', JH: 'dʒ', K: 'k', L: 'l', M: 'm', N: 'n', NG: 'ŋ', P: 'p', R: 'ɹ',
  S: 's', SH: 'ʃ', T: 't', TH: 'θ', V: 'v', W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
};

const unstressed = (p) => p !== undefined && VOWEL.test(p.base) && p.stress === '0';
// Consonants before which, and after which, a schwa reads as ᵊ (a near-syllabic l or n).
const SYLLABIC_L_AFTER = new Set(['B', 'K', 'T', 'F', 'D', 'G', 'Z']);
const SYLLABIC_N_AFTER = new Set(['T', 'S', 'D', 'P', 'Z', 'F']);
const SIBILANT = new Set(['S', 'Z', 'SH', 'ZH', 'CH', 'JH']);
// Unstressed IH stays ɪ before these (-ing, -ic, -ish, -ive, -age, -ig); elsewhere it is ə.
const KEEPS_IH = new Set(['NG', 'K', 'SH', 'V', 'JH', 'G']);

/** Whether the T at i is flapped: after a vowel or r, before an unstressed vowel (water, city, party). */
function flapped(ps, i) {
  const prev = ps[i - 1];
  return ps[i].base === 'T' && prev !== undefined && (VOWEL.test(prev.base) || prev.base === 'R') && unstressed(ps[i + 1]);
}

/** One word in misaki's US symbols. `reduce`: the function word's FUNCTION_WORDS entry, if it is one. */
export function wordToMisaki(phones, reduce) {
  const ps = marked(parse(phones), reduce);
  let out = '';
  for (let i = 0; i < ps.length; i++) {
    const { base, stress, mark } = ps[i];
    const prev = ps[i - 1];
    const next = ps[i + 1];
    let s = MISAKI[base];
    // The unstressed vowel of -ed after t or d, and of -es after a sibilant (ˈwɔntᵻd, ˈhɔɹsᵻz).
    const ending = (base === 'AH' || base === 'IH') && stress === '0' && i === ps.length - 2
      && ((next.base === 'D' && (prev?.base === 'T' || prev?.base === 'D')) || (next.base === 'Z' && SIBILANT.has(prev?.base)));
    if (ending) s = 'ᵻ';
    else if (base === 'AH' && stress === '0') {
      s = 'ə';
      // t + schwa + n at the word's end after a vowel: a glottal stop and a syllabic n (button).
      if (out.endsWith('ʔ')) s = '';
      else if (next && !isVowel(ps[i + 2]) && prev && ((next.base === 'L' && SYLLABIC_L_AFTER.has(prev.base)) || (next.base === 'N' && SYLLABIC_N_AFTER.has(prev.base)))) s = 'ᵊ';
    } else if (base === 'ER' && stress === '0') s = 'əɹ';
    else if (base === 'IH' && stress === '0') {
      if (next && !KEEPS_IH.has(next.base) && !(next.base === 'S' && i > 1)) s = 'ə';
    } else if (base === 'IY' && stress !== '0' && next?.base === 'R') s = 'ɪ';
    else if (base === 'T') {
      if (prev && VOWEL.test(prev.base) && next?.base === 'AH' && next.stress === '0' && ps[i + 2]?.base === 'N' && i + 3 === ps.length) s = 'ʔ';
      else if (flapped(ps, i)) s = 'ɾ';
    }
    out += mark + s;
  }
  return out;
}

/** One word in eSpeak NG's en-us IPA. */
export function wordToEspeak(phones, reduce) {
  const ps = marked(parse(phones), reduce);
  let out = '';
  for (let i = 0; i < ps.length; i++) {
    const { base, stress, mark } = ps[i];
    const next = ps[i + 1];
    let s = ESPEAK[base];
    if (stress === '0') {
      if (base === 'AH') s = 'ə';
      else if (base === 'ER') s = 'ɚ';
      else if (base === 'IY') s = 'i';
      else if (base === 'UW') s = 'u';
    }
    // Before r: the long vowels shorten to their r-coloured forms (ɪɹ, ʊɹ); aɪ and aʊ take ɚ for the r.
    if (next?.base === 'R') {
      if (base === 'IY' || base === 'IH') s = 'ɪ';
      else if (base === 'UW' || base === 'UH') s = 'ʊ';
      else if (base === 'AY' || base === 'AW') {
        s += 'ɚ';
        i++;
      }
    }
    if (base === 'T' && flapped(ps, i)) s = 'ɾ';
    // The unstressed vowel of -ed after t or d and of -es after a sibilant is ᵻ; an r-coloured
    // vowel before another vowel keeps its r (ɚɹ, ɜːɹ), as eSpeak writes them.
    if ((base === 'AH' || base === 'IH') && stress === '0' && i === ps.length - 2
      && ((next.base === 'D' && (ps[i - 1]?.base === 'T' || ps[i - 1]?.base === 'D')) || (next.base === 'Z' && SIBILANT.has(ps[i - 1]?.base)))) s = 'ᵻ';
    if (base === 'ER' && isVowel(next)) s += 'ɹ';
    out += mark + s;
  }
  return out;
}

/** The writer of one word for each voice format. */
export const WORD_WRITERS = Object.freeze({ misaki: wordToMisaki, espeak: wordToEspeak });
