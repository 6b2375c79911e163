// English text into the tokens the phonemizer reads, each with its place in the
// text (UTF-16 offsets start, end):
//   word         letters, with apostrophes inside (it's, colonel's, o'brien); a
//                leading apostrophe only where the lexicon has the word with it
//                ('em, 'cause), else it is a quote; a trailing one after s
//                (students') or where the lexicon has it (goin'). Parts joined by
//                hyphens are one word where the lexicon has the whole (x-ray),
//                else a word each (the hyphens are not tokens). Letters with
//                accents are read without them (café → cafe). Dotted
//                abbreviations the lexicon has are one word (u.s., a.m.). A
//                title or a street word with its dot is read as the word it
//                stands for (TITLES: Dr. → doctor before a name, else drive).
//   number       digits, with thousands commas, a decimal part, a currency sign
//                before ($ £ €), a minus after a space, and a suffix: % (percent),
//                st/nd/rd/th (ordinal), s or 's (a decade: 1990s); `words` holds
//                how it is read (numbers.js)
//   punctuation  one punctuation or symbol character, or a run of the same one (...)
//   unreadable   anything else that is not white space: letters of other
//                alphabets, emoji, other symbols (©), in runs
// Every character of the text is in one token or is white space (or a hyphen
// joining two words or digits), so that nothing is silently lost.
import { CURRENCY_SIGNS, cardinal, decimal, integer, isYear, money, ordinal, plural, year } from './numbers.js';

const APOSTROPHES = '\'’ʼ';
// Abbreviations with a dot, read as one word: [before a capitalised word, elsewhere].
// "Dr. Smith" is a doctor and "Elm Dr." a drive; "St. Louis" a saint, "Main St." a street.
export const TITLES = {
  dr: ['doctor', 'drive'], st: ['saint', 'street'], mr: ['mister', 'mister'], mrs: ['missus', 'missus'],
  prof: ['professor', 'professor'], jr: ['junior', 'junior'], sr: ['senior', 'senior'], vs: ['versus', 'versus'],
  mt: ['mount', 'mount'], ave: ['avenue', 'avenue'],
};
// Letters, with the invisible marks words may hold; not U+02BC, which Unicode
// calls a letter but texts write as an apostrophe (itʼs): it is one of APOSTROPHES.
// A word starts with a letter itself (a mark or an invisible one alone is no word).
const BASE = String.raw`[^\P{L}\u02BC]`;
const LETTER = String.raw`(?:${BASE}|[\p{M}\u00AD\u200C\u200D\u2060])`;
const WORD = new RegExp(String.raw`${BASE}${LETTER}*(?:[${APOSTROPHES}]${LETTER}+)*`, 'uy');
const ABBREVIATION = /(?:\p{L}\.){2,}/uy;
const NUMBER = new RegExp(String.raw`([${CURRENCY_SIGNS}])?(\d{1,3}(?:,\d{3})+(?!\d)|\d+)?(?:\.(\d+))?(%|(?:st|nd|rd|th|s|['’]s)(?![\p{L}\d]))?`, 'uy');
const SPACE = /[\s\p{Cc}\p{Cf}]+/uy;   // invisible format characters (U+200B, U+200E, …) separate like spaces
const PUNCTUATION = new RegExp(`[\\p{P}\\p{Sm}\\p{Sc}\\p{Sk}${APOSTROPHES}]`, 'u');

/**
 * A word as the lexicon and the model read it: lower case, ASCII letters, apostrophes
 * as ' (and the hyphens and dots of a hyphenated word or an abbreviation), or null if
 * it has other letters or none (a mark or an apostrophe alone).
 */
export function wordKey(text) {
  const key = text.normalize('NFD').replace(/[\p{M}\u00AD\u200C\u200D\u2060]/gu, '').replace(/[’ʼ]/g, '\'').toLowerCase();
  return /^[a-z'.-]+$/.test(key) && /[a-z]/.test(key) ? key : null;
}

function numberWords(cur, whole, frac, suffix, minus) {
  const digits = whole?.replace(/,/g, '');
  let words;
  if (cur) words = money(cur, digits ?? '', frac);
  else if (frac !== undefined) words = decimal(digits ?? '', frac);
  else if (suffix && /^(st|nd|rd|th)$/.test(suffix)) words = ordinal(integer(digits));
  else if (isYear(whole)) words = year(digits);
  else words = integer(digits);
  if (suffix === '%') words = [...words, 'percent'];
  else if (suffix && /s$/.test(suffix)) words = plural(words);
  return minus ? ['minus', ...words] : words;
}

/**
 * The tokens of `text`: [{ kind: 'word' | 'number' | 'punctuation' | 'unreadable',
 * text, start, end, key? (a word's), words? (a number's) }]. `has(key)` says
 * whether the lexicon has a word (wordKey form).
 */
export function tokenize(text, has = () => false) {
  const tokens = [];
  let i = 0;
  const at = (re) => {
    re.lastIndex = i;
    return re.exec(text);
  };
  const push = (kind, start, end, extra = {}) => tokens.push({ kind, text: text.slice(start, end), start, end, ...extra });
  while (i < text.length) {
    const c = text[i];
    let m;
    if ((m = at(SPACE))) {
      i += m[0].length;
      continue;
    }
    // A hyphen between two words or digits joins them: neither a token nor a minus.
    if (c === '-' && /[\p{L}\p{M}\d]/u.test(text[i - 1] ?? '') && /[\p{L}\p{M}\d]/u.test(text[i + 1] ?? '')) {
      i++;
      continue;
    }
    const minus = c === '-' && /\d/.test(text[i + 1] ?? '') && !/[\p{L}\p{M}\d]/u.test(text[i - 1] ?? '');
    if (minus || /[\d.$£€]/.test(c)) {
      const from = minus ? i + 1 : i;
      const save = i;
      i = from;
      m = at(NUMBER);
      i = save;
      if (m && (m[2] !== undefined || m[3] !== undefined)) {
        const suffix = m[4]?.replace('’', '\'');
        push('number', i, from + m[0].length, { words: numberWords(m[1], m[2], m[3], suffix, minus) });
        i = from + m[0].length;
        continue;
      }
    }
    // (wordKey is null for letters the lexicon cannot spell: no word, whatever has() says.)
    if ((m = at(ABBREVIATION)) && wordKey(m[0]) && has(wordKey(m[0]))) {
      push('word', i, i + m[0].length, { key: wordKey(m[0]) });
      i += m[0].length;
      continue;
    }
    // A leading apostrophe belongs to a word the lexicon has with it ('em); else it is a quote.
    if (APOSTROPHES.includes(c)) {
      i++;
      const w = at(WORD);
      i--;
      const key = w && wordKey(c + w[0]);
      if (key && has(key)) {
        push('word', i, i + 1 + w[0].length, { key });
        i += 1 + w[0].length;
        continue;
      }
    }
    if ((m = at(WORD))) {
      const start = i;
      const title = text[i + m[0].length] === '.' && Object.hasOwn(TITLES, m[0].toLowerCase()) ? TITLES[m[0].toLowerCase()] : null;
      if (title) {
        const end = i + m[0].length + 1;
        const next = /^\s+(\p{L})/u.exec(text.slice(end, end + 8));
        push('word', start, end, { key: title[next && next[1] !== next[1].toLowerCase() ? 0 : 1] });
        i = end;
        continue;
      }
      const parts = [[i, i + m[0].length]];
      i += m[0].length;
      // Parts joined by hyphens: one word if the lexicon has the whole.
      for (;;) {
        if (text[i] !== '-') break;
        const save = i;
        i++;
        const next = at(WORD);
        if (!next) { i = save; break; }
        parts.push([i, i + next[0].length]);
        i += next[0].length;
      }
      const wholeKey = parts.length > 1 ? wordKey(text.slice(start, i)) : null;
      const list = wholeKey && has(wholeKey) ? [[start, i]] : parts;
      // A trailing apostrophe: the plural's possessive (students'), or a word the lexicon has with it (goin').
      const last = list.at(-1);
      // (i < text.length: ''.includes('') would take a word at the text's end one past it.)
      if (i < text.length && APOSTROPHES.includes(text[i]) && !/[\p{L}\p{M}]/u.test(text[i + 1] ?? '')) {
        const key = wordKey(text.slice(last[0], i + 1));
        if (key && (key.endsWith('s\'') || has(key))) {
          last[1] = ++i;
        }
      }
      for (const [s, e] of list) {
        const key = wordKey(text.slice(s, e));
        if (key) push('word', s, e, { key });
        else push('unreadable', s, e);
      }
      continue;
    }
    if (PUNCTUATION.test(c)) {
      let end = i + 1;
      while (text[end] === c) end++;
      push('punctuation', i, end);
      i = end;
      continue;
    }
    // Anything else, up to the next space or character of another kind.
    const start = i;
    i += text.codePointAt(i) > 0xffff ? 2 : 1;
    while (i < text.length && !at(SPACE) && !at(WORD) && !PUNCTUATION.test(text[i]) && !/\d/.test(text[i])) {
      i += text.codePointAt(i) > 0xffff ? 2 : 1;
    }
    const prev = tokens.at(-1);
    if (prev?.kind === 'unreadable' && prev.end === start) {
      prev.end = i;
      prev.text = text.slice(prev.start, i);
    } else push('unreadable', start, i);
  }
  return tokens;
}
