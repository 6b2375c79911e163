// Numbers as American English reads them, in words (whose pronunciations the
// lexicon gives): cardinals up to 999 trillion, years, ordinals, decimals,
// currency ($, £, €) and percent. Each function returns the words, e.g.
// ['twenty', 'twenty-six'] for the year 2026; a compound of tens and units is one
// word with a hyphen, as it is written.

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven',
  'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion'];
/** The largest whole number read as a number; longer digit strings are read digit by digit. */
export const MAX_CARDINAL = 10n ** 15n - 1n;

/** 0..99 */
function belowHundred(n) {
  if (n < 20) return ONES[n];
  return TENS[Math.floor(n / 10)] + (n % 10 ? `-${ONES[n % 10]}` : '');
}

/** 1..999 as words ('nine hundred ninety-nine': no "and", as American English reads it). */
function belowThousand(n) {
  const words = [];
  if (n >= 100) words.push(ONES[Math.floor(n / 100)], 'hundred');
  if (n % 100) words.push(belowHundred(n % 100));
  return words;
}

/** A whole number (a string of digits) in words: '1234' → one thousand two hundred thirty-four. */
export function cardinal(digits) {
  const value = BigInt(digits);
  if (value > MAX_CARDINAL) return digitByDigit(digits);
  if (value === 0n) return ['zero'];
  const words = [];
  let rest = value;
  const groups = [];
  while (rest > 0n) {
    groups.push(Number(rest % 1000n));
    rest /= 1000n;
  }
  for (let i = groups.length - 1; i >= 0; i--) {
    if (!groups[i]) continue;
    words.push(...belowThousand(groups[i]));
    if (SCALES[i]) words.push(SCALES[i]);
  }
  return words;
}

/** Each digit's name: '007' → zero zero seven. */
export function digitByDigit(digits) {
  return [...digits].map((d) => ONES[Number(d)]);
}

/** A whole number as written: digit by digit when it starts with 0 (but for 0 itself: '007', a code), else its cardinal. */
export function integer(digits) {
  return digits.length > 1 && digits[0] === '0' ? digitByDigit(digits) : cardinal(digits);
}

/**
 * A four-digit year as it is said: 1984 → nineteen eighty-four, 1905 → nineteen
 * oh five, 1900 → nineteen hundred, 2000 → two thousand, 2007 → two thousand
 * seven, 2026 → twenty twenty-six. Only 1100..2099 are read so (isYear).
 */
export function year(digits) {
  const n = Number(digits);
  if (n >= 2000 && n < 2010) return cardinal(digits);
  const hi = Math.floor(n / 100);
  const lo = n % 100;
  if (lo === 0) return [belowHundred(hi), 'hundred'];
  return [belowHundred(hi), ...(lo < 10 ? ['oh', ONES[lo]] : [belowHundred(lo)])];
}

/** Whether a plain four-digit number is read as a year: 1100 to 2099. */
export function isYear(digits) {
  return /^\d{4}$/.test(digits) && Number(digits) >= 1100 && Number(digits) <= 2099;
}

const ORDINAL = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
};

/** A cardinal's words made ordinal: its last word (the units of a compound) becomes first, second, …, twentieth. */
export function ordinal(words) {
  const last = words.at(-1);
  const dash = last.lastIndexOf('-');
  const unit = last.slice(dash + 1);
  const made = ORDINAL[unit] ?? (unit.endsWith('y') ? `${unit.slice(0, -1)}ieth` : `${unit}th`);
  return [...words.slice(0, -1), last.slice(0, dash + 1) + made];
}

/** A cardinal's words made plural, as decades are: 1990s → nineteen nineties, 80s → eighties. */
export function plural(words) {
  const last = words.at(-1);
  return [...words.slice(0, -1), last.endsWith('y') ? `${last.slice(0, -1)}ies` : last.endsWith('x') ? `${last}es` : `${last}s`];
}

/** The digits after a decimal point, one by one: 3.14 → three point one four. */
export function decimal(whole, fraction) {
  return [...(whole === '' ? [] : integer(whole)), 'point', ...digitByDigit(fraction)];
}

const CURRENCIES = {
  $: { one: 'dollar', many: 'dollars', cent: 'cent', cents: 'cents' },
  '£': { one: 'pound', many: 'pounds', cent: 'penny', cents: 'pence' },
  '€': { one: 'euro', many: 'euros', cent: 'cent', cents: 'cents' },
};
export const CURRENCY_SIGNS = Object.keys(CURRENCIES).join('');

/**
 * An amount of money: $5 → five dollars, $1.50 → one dollar and fifty cents,
 * $0.99 → ninety-nine cents, £2.5 → two pounds and fifty pence. A fraction of
 * more than two digits is read as a decimal: $1.005 → one point zero zero five dollars.
 */
export function money(sign, whole, fraction) {
  const c = CURRENCIES[sign];
  const units = (words, n) => [...words, n === 1n ? c.one : c.many];
  if (fraction !== undefined && fraction.length > 2) return [...decimal(whole, fraction), c.many];
  const w = whole === '' ? 0n : BigInt(whole);
  const cents = fraction === undefined ? 0 : Number(fraction.padEnd(2, '0'));
  if (!cents) return units(integer(whole || '0'), w);
  const centWords = [...cardinal(String(cents)), cents === 1 ? c.cent : c.cents];
  return w === 0n ? centWords : [...units(integer(whole), w), 'and', ...centWords];
}
