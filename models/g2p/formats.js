// The phonemes of a text in the symbol sets text-to-speech voices read
// (phonemize(text, { format })): 'arpabet' and 'ipa' are the phonemizer's own
// (index.js, ipa.js); 'misaki' and 'espeak' are written here from ARPAbet and,
// where CMUdict's phones alone do not tell, the word's spelling.
//
//   misaki  The US English symbols Kokoro's voices were trained on (misaki's
//           US_VOCAB): one letter a diphthong (A eɪ, I aɪ, O oʊ, W aʊ, Y ɔɪ), ʤ ʧ,
//           ɜɹ stressed and əɹ unstressed for ER, ᵊ for a schwa that is nearly a
//           syllabic l or n (ˈmɑdᵊl, sˈʌdᵊn), ɾ for a flapped t (ˈwɔɾəɹ), ʔ before a
//           syllabic n (ˈbʌʔn), ᵻ for the unstressed vowel of -ed, -es and -est, the
//           stress mark just before its vowel; unstressed vowels, stress and function
//           words as misaki's lexicon writes them (wordToMisaki says which rules).
//   espeak  The IPA eSpeak NG writes for en-us, which Piper's en_US voices take
//           through their phoneme_id_map: length marks on the long vowels (iː uː
//           ɑː ɔː ɜː), ɚ unstressed ER, aɪ eɪ oʊ aʊ ɔɪ, tʃ dʒ, ɾ, the unstressed
//           vowels eSpeak spells from the letters (ɐ, ᵻ, ɪ), the stress mark just
//           before its vowel.
//
// Each format's every symbol is in INVENTORY[format], punctuation included
// (PUNCTUATION[format]: what a voice reads as a pause or an intonation; any
// other punctuation is left out of the phonemes and listed in `dropped`).
// Function words (FUNCTION_WORDS; functionWord(format, word)) are unstressed, or
// stressed only secondarily, as each voice reads them in a sentence.

/** Every symbol a format writes, white space aside. */
export const INVENTORY = Object.freeze({
  misaki: Object.freeze([...'AIOWYbdfhijklmnpstuvwzæðŋɑɔəɛɜɡɪɹɾʃʊʌʒʤʧˈˌθᵊᵻʔ', ...';:,.!?—…"()“”']),
  espeak: Object.freeze([...'abdefhijklmnopstuvwzæðŋɐɑɔəɚɛɜɡɪɹɾʃʊʌʒθˈˌːᵻ', ...'!,.:;?']),
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
// Piper's voices were trained on what its front end (piper-phonemize) writes, which is
// only . , ; : ? ! of the punctuation its map has: a dash is ;, no space before any;
// brackets, quotes, hyphens and ellipses it leaves out (bench/g2p-piper.mjs).
const PUNCT_ESPEAK = {
  '.': '.', ',': ',', '!': '!', '?': '?', ';': ';', ':': ':', '—': ';', '–': ';', '--': ';', '...': '', '…': '',
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

/**
 * Function words as misaki's lexicon has them in a sentence, where it differs from
 * FUNCTION_WORDS: a few keep a secondary stress (bˌʌt, hˌɪm, dˌWn, mˌAk), more are
 * unstressed (ɡɑt, ðɛɹ, θɹu, ɪts), a few keep their primary (ˈI, dˈu, mˈʌst, əbˈWt:
 * 'primary', read as CMUdict stresses them).
 */
const MISAKI_FUNCTION_WORDS = Object.freeze({
  ...FUNCTION_WORDS,
  ...Object.fromEntries(('but on shall should might them him us our me some down go made make near put though while whilst whose why '
    + 'i\'d i\'ll i\'m i\'ve aren\'t weren\'t who\'d who\'s thy shalt sir').split(' ').map((w) => [w, 'secondary'])),
  // Pronouns with their auxiliaries, and a few common verbs and adverbs, unstressed as the pronouns are.
  ...Object.fromEntries(('\'em get got gone hath doth there there\'s through per hers thee thine ye won\'t it\'s he\'d he\'ll he\'s she\'d she\'ll '
    + 'she\'s we\'d we\'ll we\'re we\'ve you\'d you\'ll you\'re you\'ve they\'d they\'ll they\'re they\'ve').split(' ').map((w) => [w, 'none'])),
  ...Object.fromEntries('i nor do does did may must into onto upon any whom just out about'.split(' ').map((w) => [w, 'primary'])),
});

// Function words misaki's lexicon reads with another vowel than CMUdict's first reading:
// their phones (CMUdict's other reading, or for was the vowel misaki writes, ʌ).
const MISAKI_READINGS = Object.freeze({ and: 'AE1 N D', than: 'DH AH0 N', your: 'Y UH1 R', was: 'W AH1 Z', on: 'AO1 N' });

/** The phones a format reads a function word with where they are not CMUdict's first reading, else undefined. */
export function functionReading(format, key) {
  return format === 'misaki' && key && Object.hasOwn(MISAKI_READINGS, key) ? MISAKI_READINGS[key].split(' ') : undefined;
}

/**
 * How a format reads a function word in a sentence ('none', 'secondary'), or
 * undefined for a word it reads as CMUdict stresses it.
 */
export function functionWord(format, key) {
  const table = format === 'misaki' ? MISAKI_FUNCTION_WORDS : FUNCTION_WORDS;
  const reduce = key && Object.hasOwn(table, key) ? table[key] : undefined;
  return reduce === 'primary' ? undefined : reduce;
}

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
const SIBILANT = new Set(['S', 'Z', 'SH', 'ZH', 'CH', 'JH']);

/** Whether the T at i is flapped: after a vowel or r, before an unstressed vowel (water, city, party). */
function flapped(ps, i) {
  const prev = ps[i - 1];
  return ps[i].base === 'T' && prev !== undefined && (VOWEL.test(prev.base) || prev.base === 'R') && unstressed(ps[i + 1]);
}

// Consonant clusters that begin an English syllable (besides any one consonant but NG):
// where a vowel's following consonants split, the next syllable takes the longest of these.
const ONSETS = new Set([
  ...['P', 'B', 'K', 'G', 'F'].flatMap((c) => [`${c} R`, `${c} L`]), 'T R', 'D R', 'TH R', 'SH R',
  ...['K', 'G', 'T', 'D', 'TH', 'S', 'SH', 'HH'].map((c) => `${c} W`),
  ...['P', 'B', 'K', 'G', 'F', 'V', 'M', 'HH', 'N', 'S', 'T', 'D', 'L', 'Z', 'TH', 'SH', 'CH', 'JH'].map((c) => `${c} Y`),
  ...['P', 'T', 'K', 'M', 'N', 'L', 'F'].map((c) => `S ${c}`),
  'S P R', 'S T R', 'S K R', 'S P L', 'S K W', 'S K Y', 'S P Y',
]);
const isOnset = (cs) => cs.length === 0 || (cs.length === 1 ? cs[0] !== 'NG' : ONSETS.has(cs.join(' ')));

/**
 * The syllable of the vowel at i: the consonants that close it (`coda`; the next
 * syllable takes the longest onset it can) and whether it is the word's last.
 */
function syllable(ps, i) {
  let j = i + 1;
  while (j < ps.length && !isVowel(ps[j])) j++;
  const cluster = ps.slice(i + 1, j).map((p) => p.base);
  if (j === ps.length) return { coda: cluster, last: true };
  let k = 0;
  while (!isOnset(cluster.slice(k))) k++;
  return { coda: cluster.slice(0, k), last: false };
}

// Vowels misaki keeps a secondary stress on after the primary, in a closed syllable, where
// CMUdict marks them unstressed (ˈæmtɹˌæk, bˈɛlɡɹˌAd).
const FULL_AFTER_PRIMARY = new Set(['AA', 'AE', 'AO', 'AW', 'AY', 'EY', 'OY']);

/**
 * Stress as misaki's lexicon writes it, where CMUdict's differs: one primary, the last
 * of CMUdict's (the others secondary: sˌɛlfɡˈʌvəɹnɪŋ); over-, un-, dis- and mis- with a
 * secondary; none on the first syllable right before the primary (ɪntˈɛnd), nor on a
 * word-final open i or O (stˈɛɹiO); a secondary on a full vowel closed by a consonant
 * after the primary (bˈɛlɡɹˌAd). A vowel that loses its stress here keeps its quality
 * (`full`).
 */
function misakiStress(ps, word) {
  // The prefix un- keeps its vowel, with a secondary stress (ˌʌnˈAbᵊl).
  if (word.startsWith('un') && ps[0]?.base === 'AH' && ps[0].stress === '0' && ps[1]?.base === 'N') ps[0] = { ...ps[0], stress: '2' };
  const vowels = ps.map((p, i) => (isVowel(p) ? i : -1)).filter((i) => i >= 0);
  // over- takes a secondary stress, the stem the primary (ˌOvəɹɹˈiʧ), where CMUdict has it the other way round.
  const stem = vowels.find((i) => i > 2 && ps[i].stress === '2');
  if (word.startsWith('over') && ps.slice(0, 3).map((p) => p.base + p.stress).join(' ') === 'OW1 V ER0' && stem !== undefined) {
    ps[0] = { ...ps[0], stress: '2' };
    ps[stem] = { ...ps[stem], stress: '1' };
  }
  // dis-, mis- two syllables or more before the primary take a secondary stress (dˌɪsəbjˈuz).
  if (/^(dis|mis)/.test(word) && ps[1]?.base === 'IH' && ps[1].stress === '0' && ps[2]?.base === 'S' && vowels.length > 2 && ps[vowels[1]].stress !== '1') ps[1] = { ...ps[1], stress: '2' };
  const primaries = vowels.filter((i) => ps[i].stress === '1');
  const main = primaries.at(-1) ?? -1;
  // A first syllable's secondary stress right before the primary goes (ɪnˈɜɹʃə, æltˈunə), but un-'s.
  if (vowels.length > 1 && ps[vowels[0]].stress === '2' && ps[vowels[1]].stress === '1' && ps[vowels[0]].base !== 'AH') ps[vowels[0]] = { ...ps[vowels[0]], stress: '0', full: true };
  for (const i of primaries) if (i !== main) ps[i] = { ...ps[i], stress: '2' };
  for (const i of vowels) {
    const p = ps[i];
    if (p.stress === '2' && i === ps.length - 1 && (p.base === 'IY' || p.base === 'OW')) ps[i] = { ...p, stress: '0' };
    else if (p.stress === '0' && main >= 0 && i > main && syllable(ps, i).coda.length
      && (FULL_AFTER_PRIMARY.has(p.base) || (p.base === 'EH' && syllable(ps, i).coda.length > 1))) ps[i] = { ...p, stress: '2' };
  }
  return ps;
}

// Consonants that keep an unstressed IH ɪ in the word's last syllable (-ing, -ic, -ive, -ish,
// -age, -ix, -ist, -ism), and in a closed syllable inside the word.
const KEEPS_IH_LAST = new Set(['NG', 'K', 'V', 'SH', 'JH', 'G', 'CH', 'P', 'L', 'R']);
const KEEPS_IH_INSIDE = new Set(['NG', 'K', 'SH', 'G']);

/**
 * An unstressed IH, ɪ or ə as misaki writes it: ɪ in a word of one syllable, before
 * ŋ, ʃ and ʤ; in the first syllable ɪ where the syllable is closed (ɪntˈɛnd), ə where
 * it is open (dəstɹˈY); inside the word ə but before the consonants of KEEPS_IH_INSIDE
 * (ˈæktəvli); in the last syllable ɪ before those of KEEPS_IH_LAST, in -ist and -sis
 * (ˈæktɪv, ənˈæləsɪs), ᵻ in -est, ə before others (hˈæbət).
 */
function reducedIH(ps, i, word) {
  const { coda, last } = syllable(ps, i);
  if (ps.filter(isVowel).length === 1) return 'ɪ';
  const next = ps[i + 1]?.base;
  if (coda[0] === 'NG' || next === 'SH' || next === 'JH') return 'ɪ';
  // The prefixes mis- and dis- keep ɪ (mɪskˈæst, dɪsˈɔɹdəɹ), but dis- before st, sp, sk
  // (dəstˈɪŋkt, dəspˈAtʃ), which reads as one syllable's onset.
  // with- keeps ɪ (wɪðˈWt, wɪðˈɪn).
  if (i === 1 && /^with/.test(word)) return 'ɪ';
  if (i === 1 && next === 'S' && (/^mis/.test(word) || (/^dis/.test(word) && !(['T', 'P'].includes(ps[i + 2]?.base)
    || (ps[i + 2]?.base === 'K' && ps[i + 3]?.base !== 'W'))))) return 'ɪ';
  if (last && coda.join(' ') === 'S T' && word.endsWith('est')) return 'ᵻ';
  if (last && coda.join(' ') === 'S' && word.endsWith('sis')) return 'ɪ';
  if (last) return !coda.length || KEEPS_IH_LAST.has(coda[0]) || coda.join(' ') === 'S T' || coda.join(' ') === 'Z M' ? 'ɪ' : 'ə';
  if (!coda.length) return 'ə';
  return !ps.slice(0, i).some(isVowel) || KEEPS_IH_INSIDE.has(coda[0]) ? 'ɪ' : 'ə';
}

// The consonants after which misaki writes the schwa of a last syllable as ᵊ, a near-syllabic
// l or n (lˈɪɾᵊl, sˈʌdᵊn), alone or before d or z; for -nt, -ns after those of
// SYLLABIC_NT_AFTER (ɪndəpˈɛndᵊns). After the others, misaki's lexicon mostly has ə (ˈæspən).
const SYLLABIC_L_AFTER = new Set(['B', 'K', 'T', 'F', 'D', 'G', 'SH', 'S', 'P', 'V', 'Z', 'M', 'CH', 'TH', 'N']);
const SYLLABIC_N_AFTER = new Set(['T', 'S', 'D', 'Z', 'JH']);
const SYLLABIC_NT_AFTER = new Set(['T', 'S', 'D', 'Z', 'V']);

/** Whether the T at i reads as a glottal stop before a syllabic n: after a vowel, in -tten, -tton, -tain at the end (ˈbʌʔn, ˈsɜɹʔn). */
function glottal(ps, i) {
  const rest = ps.slice(i + 1).map((p) => p.base + p.stress).join(' ');
  return ps[i]?.base === 'T' && isVowel(ps[i - 1]) && /^AH0 N( [DZ])?$/.test(rest);
}

/**
 * An unstressed AH (CMUdict's schwa) as misaki writes it: ə mostly; ᵊ for a last
 * syllable's near-syllabic l or n (ˈæpᵊl, ˈmWntᵊn); ɪ in -age, -ist and -ic
 * (ˈpæsɪʤ, ˈɑɹtɪst), ᵻ in -est (ˈhæpiᵻst); nothing after a glottal stop (ˈbʌʔn).
 */
function reducedAH(ps, i, word) {
  const { coda, last } = syllable(ps, i);
  const prev = ps[i - 1]?.base;
  const c = coda.join(' ');
  if (glottal(ps, i - 1)) return '';
  if (!last) {
    const next = ps[i + 1]?.base;
    const after = ps[i + 2];
    // -tle-, -dle- in a compound (ˈætᵊlbɚO); -ling, -ler, -ly after a syllabic l (ˈlɛvᵊlɪŋ,
    // kɹˈɪɾəkᵊli); -tional (ɪkspˈɛʃᵊnəl), whose last syllable then keeps ə.
    if (coda[0] === 'L' && (prev === 'T' || prev === 'D')) return 'ᵊ';
    if (coda[0] === 'N' && ['T', 'S', 'Z', 'D'].includes(prev)) return 'ᵊ';
    if (!coda.length && next === 'L' && ['K', 'B', 'D', 'F', 'S', 'G'].includes(prev) && after?.stress === '0') return 'ᵊ';
    if (!coda.length && next === 'N' && after?.stress === '0' && ['SH', 'ZH', 'JH', 'CH'].includes(prev)) return 'ᵊ';
    return 'ə';
  }
  if (c === 'JH' || c === 'JH D') return 'ɪ';
  if ((c === 'S T' && word.endsWith('ist')) || (c === 'S' && word.endsWith('sis'))) return 'ɪ';
  if (c === 'S T' && word.endsWith('est')) return 'ᵻ';
  if (c === 'K' && /ick?$/.test(word)) return 'ɪ';
  if (/^L( [DZ])?$/.test(c) && SYLLABIC_L_AFTER.has(prev) && !(prev === 'N' && ps[i - 2]?.base === 'AH')) return 'ᵊ';
  if (/^N( [DZ])?$/.test(c) && SYLLABIC_N_AFTER.has(prev)) return 'ᵊ';
  if (/^N [TS]S?$/.test(c) && SYLLABIC_NT_AFTER.has(prev)) return 'ᵊ';
  return 'ə';
}

/**
 * One word in misaki's US symbols. `reduce`: the function word's FUNCTION_WORDS entry,
 * if it is one; `word`: its spelling, which tells suffixes CMUdict writes alike apart
 * (-ist, -est; -ic).
 */
export function wordToMisaki(phones, reduce, word = '') {
  const parsed = parse(phones);
  // -day as misaki's lexicon reads it, with a full vowel (mˈʌndˌA), where CMUdict's first reading reduces it.
  if (word.endsWith('day') && parsed.length > 2 && parsed.at(-2).base === 'D' && parsed.at(-1).base === 'IY' && parsed.at(-1).stress === '0') {
    parsed[parsed.length - 1] = { base: 'EY', stress: '2' };
  }
  const ps = marked(misakiStress(parsed, word), reduce);
  const letters = vowelLetters(word, phones);
  const vowels = ps.map((p, i) => (isVowel(p) ? i : -1)).filter((i) => i >= 0);
  let out = '';
  for (let i = 0; i < ps.length; i++) {
    const { base, stress, mark } = ps[i];
    const prev = ps[i - 1];
    const next = ps[i + 1];
    let s = MISAKI[base];
    const spelt = letters && isVowel(ps[i]) ? letters[vowels.indexOf(i)] : '';
    // CMUdict's AO and AA split by the spelling as misaki's lexicon splits them: an o
    // before k, t, l or n is ɑ (təpˈɑləʤi, bˈɑt); an a before sh, au and ou are ɔ (wˈɔʃ,
    // skwˈɔʃt, kˈɔt, bˈɔt).
    // (A function word's reading is functionReading's: on is ɔn.)
    if (base === 'AO' && spelt === 'o' && ['K', 'T', 'L', 'N'].includes(next?.base) && !reduce) s = 'ɑ';
    else if (base === 'AA' && ((/^u?a$/.test(spelt) && next?.base === 'SH') || spelt === 'au' || spelt === 'ou')) s = 'ɔ';
    // The sh of -ntion, -ntial, -ntious spelled with a t is ʧ (ətˈɛnʧən, kˌɑnfədˈɛnʧᵊl).
    if (base === 'SH' && prev?.base === 'N' && /nti[aeou]/.test(word)) s = 'ʧ';
    // The unstressed vowel of -ed after t or d, and of -es after a sibilant (ˈwɔntᵻd, ˈhɔɹsᵻz).
    const ending = (base === 'AH' || base === 'IH') && stress === '0' && i === ps.length - 2
      && ((next.base === 'D' && (prev?.base === 'T' || prev?.base === 'D')) || (next.base === 'Z' && SIBILANT.has(prev?.base)));
    if (ending) s = 'ᵻ';
    else if (base === 'AH' && stress === '0') s = reducedAH(ps, i, word);
    else if (base === 'IH' && stress === '0' && word.endsWith('ically') && i === ps.length - 4 && /^K L IY0$/.test(ps.slice(i + 1).map((p) => p.base + p.stress).join(' '))) s = 'ə';
    else if (base === 'ER' && stress === '0') s = 'əɹ';
    else if (base === 'IH' && stress === '0' && !ps[i].full) s = reducedIH(ps, i, word);
    else if (base === 'IY' && stress !== '0' && next?.base === 'R') s = 'ɪ';
    // An unstressed u before a schwa glides into it (ˈmjuʧəwəl).
    else if (base === 'UW' && stress === '0' && next?.base === 'AH' && next.stress === '0') s = 'əw';
    // en- unstressed is ɪn (ɪnɡˈAʤ).
    else if (base === 'EH' && stress === '0' && i <= 1 && !ps.slice(0, i).some(isVowel) && syllable(ps, i).coda[0] === 'N') s = 'ɪ';
    else if (base === 'T') {
      if (glottal(ps, i)) s = 'ʔ';
      // Not before a schwa and n, which misaki hears as a t (ɪmpˈɔɹtᵊnt, bˈɑtəni).
      else if (flapped(ps, i) && !(ps[i + 2]?.base === 'N' && ['AH', 'IH'].includes(next.base))) s = 'ɾ';
    }
    // r after I or W closing its syllable is əɹ (fˈIəɹ, ˈWəɹ, ədmˈIəɹɪŋ).
    else if (base === 'R' && (prev?.base === 'AY' || prev?.base === 'AW')
      && (!isVowel(next) || (next.base === 'IH' && ps[i + 2]?.base === 'NG'))) s = 'əɹ';
    // -ically: CMUdict's K L IY0 is misaki's kᵊli (ˌækədˈɛmɪkᵊli).
    if (base === 'K' && i === ps.length - 3 && word.endsWith('ically') && next?.base === 'L') s += 'ᵊ';
    out += mark + s;
  }
  return out;
}

/**
 * Stress as eSpeak NG places it: a secondary stress right next to the primary goes, in the
 * first syllable before it (ɪnfˈɛktɪv) and in the syllable after it (sˈɛtbæk).
 */
function espeakStress(ps) {
  const vowels = ps.map((p, i) => (isVowel(p) ? i : -1)).filter((i) => i >= 0);
  const main = vowels.findLastIndex((i) => ps[i].stress === '1');
  const drop = (k) => {
    const i = vowels[k];
    if (i !== undefined && ps[i].stress === '2') ps[i] = { ...ps[i], stress: '0', full: true };
  };
  if (main === 1) drop(0);
  if (main >= 0) drop(main + 1);
  // One primary, the last of CMUdict's; the others secondary (ˌoʊkˈeɪ).
  for (const i of vowels.slice(0, Math.max(main, 0))) if (ps[i].stress === '1') ps[i] = { ...ps[i], stress: '2' };
  return ps;
}

// Two vowel letters that may be two syllables (ˌvɛɹiˈeɪʃən, ˈmiːdiə).
const HIATUS = /^(ia|io|iu|ie|eo|ea|ua|ue|ui|uo|oa|oe|oi|ai|ei|eu|ii|ao|aa|ee|oo|uu)/;

/**
 * The vowel letters each vowel phone of a word is spelled with, in order (criminal, K R
 * IH1 M AH0 N AH0 L: i, i, a), or null where the runs of vowel letters do not match the
 * vowel phones one to one (a silent e inside the word, -ism's unspelled schwa).
 */
export function vowelLetters(word, phones) {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  const n = phones.filter((p) => VOWEL.test(p)).length;
  // Runs of a e i o u, with y where it is no consonant (not before a vowel, nor first before one).
  let runs = [...w.matchAll(/[aeiou]*y(?![aeiou])[aeiou]*|[aeiou]+/g)]
    .filter((m) => !(m[0] === 'y' && m.index === 0 && /[aeiou]/.test(w[1] ?? '')))
    .map((m) => ({ at: m.index, text: m[0] }));
  // A silent e at the end (-e, -es, -ed, -ely, -eful, -ement, -eness, -eless).
  const last = runs.at(-1);
  if (runs.length === n + 1 && last.text === 'e' && last.at > 0 && /^e(s|d|ly|ful|ment|ness|less)?$/.test(w.slice(last.at))) runs = runs.slice(0, -1);
  while (runs.length < n) {
    const k = runs.findIndex((r) => r.text.length > 1 && HIATUS.test(r.text));
    if (k < 0) break;
    const r = runs[k];
    runs.splice(k, 1, { at: r.at, text: r.text[0] }, { at: r.at + 1, text: r.text.slice(1) });
  }
  return runs.length === n ? runs.map((r) => r.text) : null;
}

/** One word in eSpeak NG's en-us IPA. `word`: its spelling, from which eSpeak reads unstressed vowels (ɐ, ᵻ, ɪ). */
export function wordToEspeak(phones, reduce, word = '') {
  const ps = marked(espeakStress(parse(phones)), reduce);
  const letters = vowelLetters(word, phones);
  const vowels = ps.map((p, i) => (isVowel(p) ? i : -1)).filter((i) => i >= 0);
  let out = '';
  for (let i = 0; i < ps.length; i++) {
    const { base, stress, mark } = ps[i];
    const next = ps[i + 1];
    const v = vowels.indexOf(i);
    const spelt = letters && v >= 0 ? letters[v] : '';
    let s = ESPEAK[base];
    // eSpeak's FORCE vowel oː before r where the spelling marks it: oar, our, oor (bˈoːɹd,
    // kˈoːɹs), o before r and a vowel (stˈoːɹi), or at the word's end (mˈoːɹ); its NORTH
    // vowel ɔː elsewhere (nˈɔːɹθ).
    if (base === 'AO' && next?.base === 'R' && stress !== '0'
      && (['oa', 'ou', 'oo'].includes(spelt) || (spelt === 'o' && (isVowel(ps[i + 2]) || i + 2 === ps.length
        || (i + 3 === ps.length && ps[i + 2].base === 'Z'))))) s = 'oː';
    if (stress === '0' && !ps[i].full) {
      if (base === 'AH') s = 'ə';
      else if (base === 'ER') s = 'ɚ';
      else if (base === 'IY') s = 'i';
      // eSpeak spells the unstressed vowel by its letter: e in the first syllable ᵻ (dᵻlˈɪvɚ),
      // a there ɐ (ɐɡˈɛnst), u there ʌ (ʌnpˈeɪd), i ɪ (tˈɪmɪdli).
      // e in the first syllable is ᵻ after a consonant (dᵻlˈɪvɚ), ɛ at the word's start (ɛmbˈɛlɪʃ);
      // a there ɐ (ɐɡˈɛnst), u there ʌ (ʌnpˈeɪd); i ɪ (tˈɪmɪdli), but ᵻ in an open syllable
      // before an unstressed full vowel (dˈɛnsᵻɾi).
      const after = ps[vowels[v + 1]];
      const prefix = /^(D|R|B|P R) $/.test(ps.slice(0, i).map((p) => `${p.base} `).join(''));   // de-, re-, be-, pre-
      if ((base === 'IH' || base === 'IY' || (base === 'AH' && prefix)) && v === 0 && spelt === 'e' && !isVowel(next) && vowels.length > 1) s = i === 0 ? 'ɛ' : 'ᵻ';
      else if (base === 'AH' && v === 0 && spelt === 'a' && vowels.length > 1) s = 'ɐ';
      else if (base === 'AH' && v === 0 && spelt === 'u' && vowels.length > 1) s = 'ʌ';
      else if ((base === 'AH' || base === 'IH') && spelt === 'i' && v > 0 && after && vowels[v + 1] === i + 2
        && after.stress === '0' && !['AH', 'IH', 'ER'].includes(after.base)) s = 'ᵻ';
      else if (base === 'AH' && spelt === 'i') s = 'ɪ';
      // -ular, -ulum: jʊ (ˈsɛkjʊlɚ).
      else if (base === 'AH' && spelt === 'u' && ps[i - 1]?.base === 'Y') s = 'ʊ';
      // i before a vowel that is stressed or a diphthong: ɪ (ɹˌeɪdɪˈɑːlədʒɪst).
      else if (base === 'IY' && isVowel(next) && (next.stress !== '0' || ['EY', 'OW', 'AY', 'AW', 'OY'].includes(next.base))) s = 'ɪ';
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
    // A t flaps between vowels, but before a schwa and n (mjˈuːtənt).
    if (base === 'T' && flapped(ps, i) && !(ps[i + 2]?.base === 'N' && ['AH', 'IH'].includes(next.base))) s = 'ɾ';
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
