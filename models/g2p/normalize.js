// Text as a voice reads it aloud: the spans of a text that are not read letter by
// letter as words are (dates, times, phone numbers, money with a scale, units,
// symbols, ranges, fractions, Roman numerals, URLs, e-mail addresses,
// abbreviations), each found by a rule below and read as words; the rest of the
// text is tokenized as before (tokenize.js), and its words then pass through the
// acronym rules (acronyms.js).
//
// readText(text, has) returns tokenize()'s tokens, with the spans as tokens of
// kind 'spoken': { kind: 'spoken', text, start, end, source, words }, where
// `source` names the rule (SOURCES) and `words` are what is said: words the
// lexicon has (or the model reads), a single capital letter for a letter's name
// ('A' is the lexicon's "a."), a compound of tens and units with a hyphen.
//
// Locale: American English. A numeric date is month first (3/4/2025 is March
// fourth) unless its first number cannot be a month (25/12/2025 is the
// twenty-fifth of December); a date with dots (25.12.2025) is day first, as
// where it is written so. Times read as said in the US: 9:30pm "nine thirty
// p m", 09:00 "nine o'clock", 18:00 "eighteen hundred". Phone numbers digit
// by digit, 0 as "oh", a toll-free 800 as "eight hundred".
import { cardinal, decimal, digitByDigit, integer, isYear, ordinal, plural, year } from './numbers.js';
import { readWord, splitWord } from './acronyms.js';
import { tokenize, wordKey } from './tokenize.js';

/** What a 'spoken' token's source may be: the rule that read it. */
export const SOURCES = Object.freeze(['date', 'time', 'phone', 'money', 'unit', 'symbol', 'range', 'fraction', 'roman',
  'url', 'email', 'abbreviation', 'letters', 'compound']);

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_ABBREVIATIONS = { jan: 1, feb: 2, mar: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12 };
const MONTH_NAME = String.raw`(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)`;

/** A month's number from its name or abbreviation (capitalised, as dates write it), or 0. */
function monthOf(name) {
  const key = name.toLowerCase().replace(/\.$/, '');
  return MONTHS.indexOf(key) + 1 || MONTH_ABBREVIATIONS[key] || 0;
}

/** A day of the month (1..31) as said: 'fifth', 'twenty-first'. */
const dayWords = (d) => ordinal(cardinal(String(d)));

/** A year as written: four digits as a year is said, two as a number ('24 → twenty-four, '05 → oh five). */
function yearWords(digits) {
  if (digits.length === 2) return digits[0] === '0' ? ['oh', ...cardinal(digits[1])] : cardinal(digits);
  return isYear(digits) ? year(digits) : cardinal(digits);
}

/** A number as written, with thousands commas and a decimal part: 2.5 → two point five. */
function amountWords(text) {
  const [whole, frac] = text.replace(/,/g, '').split('.');
  return frac === undefined ? integer(whole) : decimal(whole, frac);
}

// ------------------------------------------------------------------ the rules
// Each rule: a global regex over the whole text and a reader of its match that
// returns { words, source } (and may narrow the span with `end`), or null to
// let the text be read otherwise. Rules are tried in this order; a match that
// overlaps one taken before it is dropped.

// A sentence's first word after an abbreviation's dot: its dot then also ends the sentence.
const STARTERS = new Set(('the a an it its he she they we i you this that these those there here his her their our my your '
  + 'but and so then if when while after before in on at for as yes no not yesterday today tomorrow '
  + 'now next last later however also meanwhile please our').split(' '));
/** Whether the text after `end` starts a new sentence: only space before its end, or a capitalised word that begins sentences. */
function sentenceEndsAfter(text, end) {
  const rest = text.slice(end);
  if (/^\s*$/.test(rest)) return true;
  if (/^\s*\n\s*\n/.test(rest)) return true;
  const m = /^\s+([A-Z][a-z]*)\b/.exec(rest);
  return Boolean(m && STARTERS.has(m[1].toLowerCase()));
}

/** A span that ends with a dot at a sentence's end leaves the dot to be read as the sentence's full stop. */
function keepFullStop(text, end) {
  return text[end - 1] === '.' && sentenceEndsAfter(text, end) ? end - 1 : end;
}

// am/pm after a time: "9:30pm", "9:30 PM", "9 a.m."
const AM_PM = String.raw`(?:\s?(?:([AaPp])\.[Mm]\.|([AaPp])[Mm]\b))`;
const ampmWords = (m1, m2) => ((m1 || m2) ? [(m1 || m2).toUpperCase(), 'M'] : []);

const UNITS = {
  // unit: [singular, plural]; spaced: read after a space too ("5 km"), not only attached ("5km")
  km: ['kilometer', 'kilometers'], cm: ['centimeter', 'centimeters'], mm: ['millimeter', 'millimeters'],
  mi: ['mile', 'miles'], ft: ['foot', 'feet'], yd: ['yard', 'yards'],
  kg: ['kilogram', 'kilograms'], mg: ['milligram', 'milligrams'], g: ['gram', 'grams'], lb: ['pound', 'pounds'], lbs: ['pound', 'pounds'], oz: ['ounce', 'ounces'],
  ml: ['milliliter', 'milliliters'], mL: ['milliliter', 'milliliters'], l: ['liter', 'liters'], L: ['liter', 'liters'], gal: ['gallon', 'gallons'],
  mph: ['mile per hour', 'miles per hour'], 'km/h': ['kilometer per hour', 'kilometers per hour'], kph: ['kilometer per hour', 'kilometers per hour'],
  Hz: ['hertz', 'hertz'], kHz: ['kilohertz', 'kilohertz'], MHz: ['megahertz', 'megahertz'], GHz: ['gigahertz', 'gigahertz'],
  KB: ['kilobyte', 'kilobytes'], kB: ['kilobyte', 'kilobytes'], MB: ['megabyte', 'megabytes'], GB: ['gigabyte', 'gigabytes'], TB: ['terabyte', 'terabytes'],
  Mbps: ['megabit per second', 'megabits per second'], Gbps: ['gigabit per second', 'gigabits per second'],
  kW: ['kilowatt', 'kilowatts'], kWh: ['kilowatt hour', 'kilowatt hours'], W: ['watt', 'watts'], V: ['volt', 'volts'], mAh: ['milliamp hour', 'milliamp hours'],
  ms: ['millisecond', 'milliseconds'], fps: ['frame per second', 'frames per second'], px: ['pixel', 'pixels'],
  min: ['minute', 'minutes'], hrs: ['hour', 'hours'], hr: ['hour', 'hours'], sec: ['second', 'seconds'],
};
// Units whose letters are also a word or a letter of their own ("5 g" could be either): only attached to the number.
const ATTACHED_ONLY = new Set(['g', 'l', 'L', 'W', 'V', 'mi', 'ms', 'min', 'sec', 'ft', 'yd']);
const UNIT_NAMES = Object.keys(UNITS).sort((a, b) => b.length - a.length).map((u) => u.replace('/', '\\/')).join('|');

const CURRENCY = {
  $: ['dollar', 'dollars'], '£': ['pound', 'pounds'], '€': ['euro', 'euros'], '¥': ['yen', 'yen'], '₹': ['rupee', 'rupees'], '¢': ['cent', 'cents'],
};
const SCALE = { k: 'thousand', K: 'thousand', thousand: 'thousand', m: 'million', M: 'million', mn: 'million', mm: 'million', million: 'million',
  b: 'billion', B: 'billion', bn: 'billion', billion: 'billion', t: 'trillion', T: 'trillion', tn: 'trillion', trillion: 'trillion' };

/** An amount of money with a scale: $3bn → three billion dollars, €2.5 billion → two point five billion euros. */
function scaledMoney(sign, amount, scale) {
  return [...amountWords(amount), SCALE[scale], CURRENCY[sign][1]];
}

/** An amount in a currency the number reader lacks (¥, ₹) or written after the number (5 €): five euros, ¥500 → five hundred yen. */
function plainMoney(sign, amount) {
  const words = amountWords(amount);
  const one = /^0*1$/.test(amount);
  return [...words, CURRENCY[sign][one ? 0 : 1]];
}

const FRACTION_CHARS = { '½': [1, 2], '⅓': [1, 3], '⅔': [2, 3], '¼': [1, 4], '¾': [3, 4], '⅕': [1, 5], '⅖': [2, 5], '⅗': [3, 5], '⅘': [4, 5],
  '⅙': [1, 6], '⅚': [5, 6], '⅛': [1, 8], '⅜': [3, 8], '⅝': [5, 8], '⅞': [7, 8], '⅐': [1, 7], '⅑': [1, 9], '⅒': [1, 10] };

/** A fraction as said: 1/2 one half, 3/4 three quarters, 5/8 five eighths, 7/100 seven hundredths; past 100ths "N over M". */
function fractionWords(n, d, mixed = null) {
  const num = Number(n);
  const den = Number(d);
  let words;
  if (den === 2) words = mixed !== null && num === 1 ? ['a', 'half'] : [...cardinal(n), num === 1 ? 'half' : 'halves'];
  else if (den === 4) words = mixed !== null && num === 1 ? ['a', 'quarter'] : [...cardinal(n), num === 1 ? 'quarter' : 'quarters'];
  else if (den > 1 && den <= 100) {
    const ord = ordinal(cardinal(d));
    words = mixed !== null && num === 1 ? ['a', ...ord] : [...cardinal(n), ...(num === 1 ? ord : plural(ord))];
  } else words = [...cardinal(n), 'over', ...cardinal(d)];
  return mixed === null ? words : [...cardinal(mixed), 'and', ...words];
}

const ROMAN_VALUES = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
/** A Roman numeral's value, or 0 when it is not one written the standard way (IIII, VX are not). */
export function romanValue(s) {
  if (!/^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$/.test(s) || s === '') return 0;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const v = ROMAN_VALUES[s[i]];
    n += v < (ROMAN_VALUES[s[i + 1]] ?? 0) ? -v : v;
  }
  return n;
}
// Words after which a Roman numeral is a number: Chapter IV, World War II, Part I, Super Bowl LVIII.
const NUMBERED = new Set(('chapter part volume vol book act scene section phase stage episode war article appendix level grade type '
  + 'class category mark mk series season title psalm canto round bowl apollo gemini vatican tier schedule').split(' '));
// Names that monarchs and popes carry, after which even a one-letter numeral is theirs: Henry V, Elizabeth I.
const REGNAL = new Set(('henry elizabeth charles george william edward james richard louis mary peter catherine alexander philip frederick '
  + 'john paul benedict pius leo gregory innocent clement nicholas ferdinand victor wilhelm francis constantine ramesses ivan '
  + 'anne stephen david robert alfonso juan carlos felipe gustav olaf harald christian umberto napoleon').split(' '));

// Abbreviations with a dot: the words they stand for. `title` before a capitalised name, `street` after one
// (or a number), `number` only before a number (No. 5, Fig. 3); others wherever they are.
const ABBREVIATIONS = {
  dr: { title: ['doctor'], street: ['drive'] }, st: { title: ['saint'], street: ['street'] },
  mr: { title: ['mister'] }, mrs: { title: ['missus'] }, ms: { title: ['ms'] }, prof: { title: ['professor'] },
  gen: { title: ['general'] }, col: { title: ['colonel'] }, capt: { title: ['captain'] }, lt: { title: ['lieutenant'] },
  sgt: { title: ['sergeant'] }, rev: { title: ['reverend'] }, gov: { title: ['governor'] }, sen: { title: ['senator'] },
  rep: { title: ['representative'] }, pres: { title: ['president'] }, mt: { title: ['mount'] }, ft: { title: ['fort'] },
  jr: { any: ['junior'] }, sr: { any: ['senior'] }, vs: { any: ['versus'] }, etc: { any: ['et', 'cetera'] },
  ave: { any: ['avenue'] }, blvd: { any: ['boulevard'] }, rd: { any: ['road'] }, ln: { any: ['lane'] }, hwy: { any: ['highway'] },
  inc: { any: ['inc'] }, ltd: { any: ['limited'] }, corp: { any: ['corporation'] }, co: { any: ['company'] }, bros: { any: ['brothers'] },
  dept: { any: ['department'] }, approx: { any: ['approximately'] }, est: { any: ['established'] }, avg: { any: ['average'] },
  no: { number: ['number'] }, nos: { number: ['numbers'] }, fig: { number: ['figure'] }, vol: { number: ['volume'] },
  ch: { number: ['chapter'] }, pp: { number: ['pages'] }, p: { number: ['page'] }, sec: { number: ['section'] },
  feb: { any: ['february'] }, apr: { any: ['april'] }, jun: { any: ['june'] }, jul: { any: ['july'] }, aug: { any: ['august'] },
  sep: { any: ['september'] }, sept: { any: ['september'] }, oct: { any: ['october'] }, nov: { any: ['november'] }, dec: { any: ['december'] },
};
// Dotted abbreviations read as words rather than letters.
const DOTTED = { 'e.g.': ['for', 'example'], 'i.e.': ['that', 'is'], 'a.m.': ['A', 'M'], 'p.m.': ['P', 'M'] };

const TLD_LETTERS = new Set(['io', 'ai', 'uk', 'us', 'tv', 'fm', 'eu', 'de', 'fr', 'ca', 'au', 'jp', 'cn', 'in', 'nz', 'ly', 'gg', 'me', 'edu', 'nl', 'es', 'it', 'ch', 'se', 'ru', 'br']);
const TLDS = 'com|org|net|io|ai|dev|app|gov|edu|info|biz|co|uk|us|tv|fm|eu|de|fr|ca|au|jp|cn|in|nz|ly|gg|me|tech|blog|shop|cloud|site|online|xyz|nl|es|it|ch|se|ru|br';
const URL_SYMBOLS = { '.': ['dot'], '/': ['slash'], '-': ['dash'], _: ['underscore'], '?': ['question', 'mark'], '=': ['equals'], '&': ['and'],
  '#': ['hash'], '%': ['percent'], ':': ['colon'], '~': ['tilde'], '+': ['plus'], '@': ['at'] };

/** A piece of a URL or an address between its symbols: letters as words (or spelled), digits as a number or digit by digit. */
function urlPiece(piece, has, tld = false) {
  const words = [];
  for (const part of piece.match(/[A-Za-z]+|\d+/g) ?? []) {
    if (/^\d+$/.test(part)) words.push(...(part.length <= 2 ? integer(part) : digitByDigit(part)));
    else if (tld && TLD_LETTERS.has(part.toLowerCase())) words.push(...part.toUpperCase());
    else words.push(...readWord(part, has, { inUrl: true }).words);
  }
  return words;
}

/** An address's host or path as a voice reads it: symbols by name, pieces between them as words. */
function urlWords(s, has, { host = false } = {}) {
  const words = [];
  const parts = s.split(/([./\-_?=&#%:~+@])/);
  const lastLabel = host ? parts.length - 1 : -1;
  parts.forEach((p, i) => {
    if (p === '') return;
    if (Object.hasOwn(URL_SYMBOLS, p)) words.push(...URL_SYMBOLS[p]);
    else words.push(...urlPiece(p, has, i === lastLabel));
  });
  return words;
}

const RULES = [
  // ---- e-mail addresses: jane.doe@example.com → jane dot doe at example dot com
  {
    source: 'email',
    re: /(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])/g,
    read: (m, { has }) => {
      const [local, domain] = m[0].split('@');
      return { words: [...urlWords(local, has), 'at', ...urlWords(domain, has, { host: true })] };
    },
  },
  // ---- URLs: the scheme is not read; www as letters; symbols by name
  {
    source: 'url',
    re: new RegExp(String.raw`(?<![\w@.-])(?:https?:\/\/)?(?:www\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:${TLDS})(?![\w-])(?::\d+)?(?:\/[^\s]*)?`, 'gi'),
    read: (m, { has }) => {
      let url = m[0];
      // Punctuation after a URL belongs to the sentence.
      let end = m.index + url.length;
      while (/[.,;:!?)'"\]]$/.test(url) && !(url.endsWith(')') && url.includes('('))) {
        url = url.slice(0, -1);
        end--;
      }
      // Only a scheme, www or a path tells a URL from words with a dot between them ("end.The").
      if (!/^(https?:\/\/|www\.)/i.test(url) && !/^[a-z0-9.-]+(\/|$)/.test(url)) return null;
      const bare = url.replace(/^https?:\/\//i, '');
      const slash = bare.indexOf('/');
      const host = slash < 0 ? bare : bare.slice(0, slash);
      let path = slash < 0 ? '' : bare.slice(slash);
      if (path.endsWith('/')) path = path.slice(0, -1);   // a trailing slash is not read
      const words = [];
      const h = host.replace(/^www\./i, () => { words.push('W', 'W', 'W', 'dot'); return ''; });
      words.push(...urlWords(h, has, { host: true }), ...urlWords(path, has));
      return { words, end };
    },
  },
  // ---- phone numbers: (555) 123-4567, 555-123-4567, +1 555 123 4567, +44 20 7946 0958, 1-800-555-0199, 555-0199
  {
    source: 'phone',
    re: /(?<![\w+\-/.(])(?:(?:\+|\b|(?=\())(?:1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}|\+\d{1,3}(?:[\s.-]\(?\d{1,4}\)?){2,5}|\d{3}-\d{4})(?![\w\-/]|\.\d)/g,
    read: (m) => {
      const words = [];
      const groups = m[0].match(/\+|\d+/g);
      groups.forEach((g, i) => {
        if (g === '+') words.push('plus');
        else if (/^8(00|88|77|66|55|44|33)$/.test(g) && i > 0 && groups[i - 1] === '1') words.push(...(g === '800' ? ['eight', 'hundred'] : digitByDigit(g)));
        else words.push(...[...g].map((d) => (d === '0' ? 'oh' : digitByDigit(d)[0])));
      });
      return { words };
    },
  },
  // ---- ISO dates: 2024-03-15 → March fifteenth, twenty twenty-four
  {
    source: 'date',
    re: /(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-])/g,
    read: (m) => {
      const [mo, d] = [Number(m[2]), Number(m[3])];
      if (mo < 1 || mo > 12 || d < 1 || d > 31) return null;
      return { words: [MONTHS[mo - 1], ...dayWords(d), ...yearWords(m[1])] };
    },
  },
  // ---- numeric dates: 3/15/2024 (US: month first), 25/12/2024 (day first: 25 is no month), 15.03.2024 (dots: day first)
  {
    source: 'date',
    re: /(?<![\w/.-])(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})(?![\w/-]|\.\d)/g,
    read: (m) => {
      let [a, b] = [Number(m[1]), Number(m[3])];
      const dayFirst = m[2] === '.' || a > 12;
      if (dayFirst) [a, b] = [b, a];
      if (a < 1 || a > 12 || b < 1 || b > 31) return null;
      return { words: dayFirst ? ['the', ...dayWords(b), 'of', MONTHS[a - 1], ...yearWords(m[4])] : [MONTHS[a - 1], ...dayWords(b), ...yearWords(m[4])] };
    },
  },
  // ---- day and month: 5 January 2024, the 3rd of May
  {
    source: 'date',
    re: new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(${MONTH_NAME})\b\.?(?:,?\s+(\d{4})(?!\d))?`, 'g'),
    read: (m, { text }) => {
      const d = Number(m[1]);
      if (d < 1 || d > 31) return null;
      const the = /\bthe\s+$/i.test(text.slice(0, m.index)) ? [] : ['the'];
      return { words: [...the, ...dayWords(d), 'of', MONTHS[monthOf(m[2]) - 1], ...(m[3] ? yearWords(m[3]) : [])], end: keepFullStop(text, m.index + m[0].length) };
    },
  },
  // ---- month and day: January 5, 2024; Jan. 5th; Sept 2024; on 12/25 (a month/day after on, by, until, …)
  {
    source: 'date',
    re: new RegExp(String.raw`\b(${MONTH_NAME})(\.?)\s+(?:(\d{1,2})(?:st|nd|rd|th)?(?![\d:])(?:,?\s+(\d{4})(?!\d))?|(\d{4})(?!\d))`, 'g'),
    read: (m, { text }) => {
      const mo = monthOf(m[1]);
      const day = m[3] ? Number(m[3]) : 0;
      if (m[3] && (day < 1 || day > 31)) return null;
      // "May 5" and "March 3" are dates; a month's full name before a bare number that is no day is left alone.
      const words = [MONTHS[mo - 1], ...(day ? dayWords(day) : []), ...(m[4] || m[5] ? yearWords(m[4] || m[5]) : [])];
      return { words, end: keepFullStop(text, m.index + m[0].length) };
    },
  },
  {
    source: 'date',
    re: /(?<=\b(?:on|by|until|till|from|since|before|after|through)\s)(\d{1,2})\/(\d{1,2})(?![\w/]|\.\d)/gi,
    read: (m) => {
      const [mo, d] = [Number(m[1]), Number(m[2])];
      if (mo < 1 || mo > 12 || d < 1 || d > 31) return null;
      return { words: [MONTHS[mo - 1], ...dayWords(d)] };
    },
  },
  // ---- times: 9:30pm, 09:00, 18:45, 9 a.m., 10am
  {
    source: 'time',
    re: new RegExp(String.raw`(?<![\w:.])(\d{1,2}):(\d{2})(?::(\d{2}))?${AM_PM}?(?![\w:]|\.\d)`, 'g'),
    read: (m, { text }) => {
      const [h, min] = [Number(m[1]), Number(m[2])];
      const ampm = ampmWords(m[4], m[5]);
      if (h > 24 || min > 59 || (ampm.length && (h > 12 || h === 0))) return null;
      const words = [...cardinal(String(h))];
      if (min === 0) {
        if (!ampm.length) words.push(...(h > 12 || m[1].length === 2 && h >= 13 ? ['hundred'] : ['o\'clock']));
      } else words.push(...(min < 10 ? ['oh', ...cardinal(String(min))] : cardinal(String(min))));
      if (m[3] !== undefined) words.push('and', ...cardinal(String(Number(m[3]))), Number(m[3]) === 1 ? 'second' : 'seconds');
      return { words: [...words, ...ampm], end: keepFullStop(text, m.index + m[0].length) };
    },
  },
  {
    source: 'time',
    re: new RegExp(String.raw`(?<![\w:.$£€])(\d{1,2})${AM_PM}(?![\w])`, 'g'),
    read: (m, { text }) => {
      const h = Number(m[1]);
      if (h < 1 || h > 12) return null;
      return { words: [...cardinal(String(h)), ...ampmWords(m[2], m[3])], end: keepFullStop(text, m.index + m[0].length) };
    },
  },
  // ---- money with a scale: $3bn, £12m, €2.5 billion, $5k, $1.2 trillion
  {
    source: 'money',
    re: /([$£€¥₹])\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s?(thousand|million|billion|trillion|bn|mn|mm|tn|[kKmMbBtT])(?![\w])/g,
    read: (m) => ({ words: scaledMoney(m[1], m[2] + (m[3] ? `.${m[3]}` : ''), m[4]) }),
  },
  // ---- money the number reader lacks: ¥500, ₹20, 50¢, 5 € (sign after the amount)
  {
    source: 'money',
    re: /(?:([¥₹])\s?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)|(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:[.,]\d{1,2})?)\s?([€£$¢¥]))(?![\w])/g,
    read: (m) => {
      if (m[1]) return { words: plainMoney(m[1], m[2]) };
      const amount = m[3].replace(/,(\d{1,2})$/, '.$1');
      if (m[4] === '¢') return { words: plainMoney('¢', amount) };
      const [whole, cents] = amount.split('.');
      const c = CURRENCY[m[4]];
      const words = [...integer(whole.replace(/,/g, '')), Number(whole.replace(/,/g, '')) === 1 ? c[0] : c[1]];
      if (cents && Number(cents)) words.push('and', ...cardinal(String(Number(cents.padEnd(2, '0')))), m[4] === '£' ? 'pence' : 'cents');
      return { words };
    },
  },
  // ---- a number with a scale, no currency: 5k → five thousand, 3m users → three million users, 7B → seven billion
  {
    source: 'number',
    re: /(?<![\w.$£€¥₹])(\d+(?:\.\d+)?)(k|bn|B|m(?=\s+[a-z]+s\b))(?![\w])/g,
    read: (m) => ({ words: [...amountWords(m[1]), SCALE[m[2]]] }),
  },
  // ---- degrees: 20°C, 68 °F, -5°C, 90°
  {
    source: 'unit',
    re: /(?<![\w.])([-−]?)(\d+(?:\.\d+)?)\s?°(?:\s?([CF])(?![\w]))?/g,
    read: (m) => ({
      words: [...(m[1] ? ['minus'] : []), ...amountWords(m[2]), m[2] === '1' ? 'degree' : 'degrees', ...(m[3] ? [m[3] === 'C' ? 'celsius' : 'fahrenheit'] : [])],
    }),
  },
  // ---- units after a number: 5 km, 3.5kg, 100 mph, 16 GB, 60fps
  {
    source: 'unit',
    re: new RegExp(String.raw`(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?)(${UNIT_NAMES})(?![\w/])`, 'g'),
    read: (m) => {
      if (m[3] && ATTACHED_ONLY.has(m[4])) return null;
      const [one, many] = UNITS[m[4]];
      const amount = m[1] + (m[2] ?? '');
      return { words: [...amountWords(amount), ...(amount === '1' ? one : many).split(' ')] };
    },
  },
  // ---- fractions: ½, 2½, 3/4, 1 1/2; 24/7 and 50/50 as they are said
  {
    source: 'fraction',
    re: /(?<![\w/.])(?:(\d+)\s?)?([½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞⅐⅑⅒])|(?<![\w/.])(?:(\d+)\s)?(\d{1,3})\/(\d{1,3})(?![\w/]|\.\d)/g,
    read: (m) => {
      if (m[2]) {
        const [n, d] = FRACTION_CHARS[m[2]];
        return { words: fractionWords(String(n), String(d), m[1] ?? null) };
      }
      if (m[4] === '24' && m[5] === '7' && !m[3]) return { words: ['twenty-four', 'seven'] };
      if (m[4] === m[5] && !m[3] && m[4] === '50') return { words: ['fifty', 'fifty'] };
      if (Number(m[5]) === 0) return null;
      return { words: fractionWords(m[4], m[5], m[3] ?? null) };
    },
  },
  // ---- ranges: the dash between two numbers is "to": 50–60, 9am–5pm, 1990-1995, pages 10-20, a 3-2 win
  {
    source: 'range',
    re: /(?<=\d(?:%|[ap]\.?m\.?|s)?)\s?[–—-]\s?(?=[$£€¥]?\d)/gi,
    read: (m, { text }) => {
      // A date written with dashes (12-25-2024) or a code (A-123-45) is no range.
      const before = text.slice(0, m.index);
      if (/\d+-\d+$/.test(before) || /[A-Za-z]-?\d+$/.test(before) && /[A-Za-z]\d*$/.test(before.replace(/\d+$/, ''))) return null;
      if (/^[–—-]\s?\d+-\d/.test(text.slice(m.index).trimStart())) return null;
      return { words: ['to'] };
    },
  },
  // ---- Roman numerals after a name or a numbered thing: Henry VIII, Elizabeth II, Chapter IV, World War I
  {
    source: 'roman',
    re: /(?<=\b([A-Za-z]+)\.?\s)([IVXLCDM]+)\b(?!['’]|\.\w)/g,
    read: (m) => {
      const value = romanValue(m[2]);
      if (!value) return null;
      const prev = m[1].toLowerCase();
      if (NUMBERED.has(prev) && /^[A-Z]/.test(m[1])) return { words: cardinal(String(value)) };
      if (NUMBERED.has(prev) && m[2].length > 1) return { words: cardinal(String(value)) };
      // After a name: a monarch's or a pope's numeral ("the eighth"); a single letter only after a regnal name.
      if (!/^[A-Z][a-z]/.test(m[1])) return null;
      if (REGNAL.has(prev) || (/^[IVX]{2,}$/.test(m[2]))) return { words: ['the', ...ordinal(cardinal(String(value)))] };
      return null;
    },
  },
  // ---- dotted initialisms: U.S., U.K., Ph.D., e.g., i.e., a.m.; the last dot also ends a sentence when one ends there
  {
    source: 'abbreviation',
    re: /(?<![\w.])(?:[A-Za-z]\.){2,}(?![\w])/g,
    read: (m, { text }) => {
      const key = m[0].toLowerCase();
      const words = DOTTED[key] ?? m[0].replace(/\./g, '').toUpperCase().split('');
      return { words, source: DOTTED[key] ? 'abbreviation' : 'letters', end: keepFullStop(text, m.index + m[0].length) };
    },
  },
  // ---- abbreviations with a dot, read by what is around them
  {
    source: 'abbreviation',
    re: /(?<![\w.'’])([A-Za-z]+)\.(?![\w.])/g,
    read: (m, { text }) => {
      const key = m[1].toLowerCase();
      if (!Object.hasOwn(ABBREVIATIONS, key)) return null;
      const a = ABBREVIATIONS[key];
      const end = m.index + m[0].length;
      const after = text.slice(end);
      const nextWord = /^\s+([A-Za-z][\w'’]*)/.exec(after)?.[1] ?? '';
      const capitalisedNext = /^[A-Z]/.test(nextWord);
      if (a.number) return /^\s*\d/.test(after) ? { words: a.number } : null;
      if (a.any) return { words: a.any, end: keepFullStop(text, end) };
      // A street word after a name or a number (Main St., 42 Elm Dr.), unless a name follows that it is the title of.
      const before = text.slice(0, m.index);
      const prevWord = /([A-Za-z0-9][\w'’]*)\s+$/.exec(before)?.[1] ?? '';
      const sentenceFirst = /(^|[.!?]\s+)[A-Za-z0-9][\w'’]*\s+$/.test(before);
      const afterName = /^\d/.test(prevWord) || (/^[A-Z]/.test(prevWord) && !sentenceFirst);
      const ends = sentenceEndsAfter(text, end);
      // The street's dot also ends the sentence when a sentence starts after it ("Main St. The …").
      if (a.street && (afterName || !capitalisedNext || ends)) return { words: a.street, end: ends ? end - 1 : end };
      // A title alone (Mr., Prof.) is the title whatever follows; saint and doctor need the name after them.
      return capitalisedNext || !a.street ? { words: a.title } : null;
    },
  },
  // ---- symbols said as words: & + @ = % # × ~ ± °
  {
    source: 'symbol',
    re: /(?<=\d\s?)\s?[×x](?=\s?\d)|[&+@=#×~±]|(?<!\d)%/g,
    read: (m, { text }) => {
      const c = m[0].trim();
      const next = text[m.index + m[0].length] ?? '';
      const prev = text[m.index - 1] ?? '';
      if (c === 'x' || c === '×') return { words: ['by'] };
      if (c === '#') return /\d/.test(next) ? { words: ['number'] } : /[A-Za-z]/.test(next) ? { words: ['hashtag'] } : null;
      if (c === '~') return /\d/.test(next) ? { words: ['about'] } : null;
      if (c === '@' && !/[\w\s]/.test(next)) return null;
      if (c === '+' && /\d/.test(next) && !/[\w)]/.test(prev)) return { words: ['plus'] };
      return { words: { '&': ['and'], '+': ['plus'], '@': ['at'], '=': ['equals'], '%': ['percent'], '±': ['plus', 'or', 'minus'] }[c] };
    },
  },
];

/** The spans of `text` the rules read, in order, none overlapping another. */
export function findSpans(text, has = () => false) {
  const taken = [];
  const free = (s, e) => taken.every((t) => e <= t.start || s >= t.end);
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (const m of text.matchAll(rule.re)) {
      if (m[0] === '' || !free(m.index, m.index + m[0].length)) continue;
      const r = rule.read(m, { text, has });
      if (!r) continue;
      const start = r.start ?? m.index;
      const end = r.end ?? m.index + m[0].length;
      if (end <= start || !free(start, end)) continue;
      taken.push({ start, end, source: r.source ?? rule.source, words: r.words });
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}

/** Whether the text is written in capitals throughout (a headline): then capitals say nothing of acronyms. */
const allCaps = (text) => /\p{Lu}/u.test(text) && !/\p{Ll}/u.test(text);

/**
 * The tokens of `text` as tokenize() makes them, with the spans the rules read
 * (and the words the acronym rules spell or split) as 'spoken' tokens.
 * `has(key)` says whether the lexicon has a word.
 */
export function readText(text, has = () => false) {
  const tokens = [];
  const caps = allCaps(text);
  const gap = (from, to) => {
    if (from >= to) return;
    for (const t of tokenize(text.slice(from, to), has)) {
      const shifted = { ...t, start: t.start + from, end: t.end + from };
      if (t.kind === 'word') {
        const r = readWord(t.text, has, { headline: caps });
        if (r.source) {
          tokens.push({ kind: 'spoken', text: shifted.text, start: shifted.start, end: shifted.end, source: r.source, words: r.words });
          continue;
        }
      }
      tokens.push(shifted);
    }
  };
  let at = 0;
  for (const s of findSpans(text, has)) {
    gap(at, s.start);
    tokens.push({ kind: 'spoken', text: text.slice(s.start, s.end), start: s.start, end: s.end, source: s.source, words: s.words });
    at = s.end;
  }
  gap(at, text.length);
  return tokens;
}

export { splitWord, wordKey };
