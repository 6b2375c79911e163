// seq2seq-wasm-models/g2p on the text a voice reads aloud (the packed package, as
// a user installs it): each normalisation rule (dates, times, phone numbers,
// money, units, symbols, ranges, fractions, Roman numerals, URLs, e-mail
// addresses, abbreviations by what follows them) read as the words expected and
// reported by its token's `source`; text the rules must leave alone (the pronoun
// I, "May I", a name after "Dr"); acronyms spelled or read as words.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FIXTURES, ROOT, installPackage } from './helpers.mjs';
import { buildLexicon, pronunciationsOf, readPackage } from '../../scripts/build-lexicon.mjs';
import { parseReferences } from '../../web/shared/metrics.js';
import { broadString, readingPattern } from '../../bench/g2p-broad.mjs';

const pkg = installPackage();
const g2pUrl = await pkg.resolve('seq2seq-wasm-models/g2p');
const { createPhonemizer } = await import(g2pUrl);
const { SOURCES, romanValue } = await import(new URL('./normalize.js', g2pUrl).href);
const { parseLexicon } = await import(new URL('./lexicon.js', g2pUrl).href);
const { TABLE } = await import(new URL('./homographs.js', g2pUrl).href);
const cmudict = pronunciationsOf((await readPackage()).dictionary);
const noStress = (phones) => phones.map((p) => p.replace(/\d$/, '')).join(' ');
/** A reading's phones: a capital letter is its name (CMUdict's "a."), a word CMUdict's first pronunciation; 's adds /z/. */
const readingPhones = (reading) => reading.split(' ').flatMap((w) => {
  const plural = w.endsWith('\'s');
  const base = plural ? w.slice(0, -2) : w;
  const phones = cmudict.get(/^[A-Z]$/.test(base) ? `${base.toLowerCase()}.` : base)[0].split(' ');
  return plural ? [...phones, 'Z'] : phones;
});

let g2p;
before(async () => { g2p = await createPhonemizer(); });
after(() => g2p.delete());

/** The tokens read by a rule: [text, source, spoken]. */
async function read(text) {
  const r = await g2p.phonemize(text);
  return r.tokens.filter((t) => t.spoken !== undefined).map((t) => [t.text, t.source, t.spoken]);
}
/** Each case: text → [[token text, source, spoken], …] for the tokens a rule read. */
async function expectAll(cases) {
  for (const [text, want] of Object.entries(cases)) assert.deepEqual(await read(text), want, text);
}

describe('dates (American order: month first)', () => {
  test('month names and abbreviations, numeric, ISO, day first where the first number is no month or dots are used', async () => {
    await expectAll({
      'January 5, 2024': [['January 5, 2024', 'date', 'january fifth twenty twenty-four']],
      'on Jan. 5th': [['Jan. 5th', 'date', 'january fifth']],
      'Sept 2024': [['Sept 2024', 'date', 'september twenty twenty-four']],
      'Due Dec. 1.': [['Dec. 1', 'date', 'december first']],
      '5 January 2024': [['5 January 2024', 'date', 'the fifth of january twenty twenty-four']],
      'the 3rd of May': [['3rd of May', 'date', 'third of may']],
      'on 3 May': [['3 May', 'date', 'the third of may']],
      '3/15/2024': [['3/15/2024', 'date', 'march fifteenth twenty twenty-four']],
      '3/4/2025': [['3/4/2025', 'date', 'march fourth twenty twenty-five']],
      '25/12/2024': [['25/12/2024', 'date', 'the twenty-fifth of december twenty twenty-four']],
      '15.03.2024': [['15.03.2024', 'date', 'the fifteenth of march twenty twenty-four']],
      '2024-03-15': [['2024-03-15', 'date', 'march fifteenth twenty twenty-four']],
      'due by 12/25': [['12/25', 'date', 'december twenty-fifth']],
      '1/5/05': [['1/5/05', 'date', 'january fifth oh five']],
    });
  });
  test('not dates: an impossible month or day, a month word that is a verb or a name', async () => {
    await expectAll({
      '2024-13-45': [['2024', 'number', 'twenty twenty-four'], ['13', 'number', 'thirteen'], ['45', 'number', 'forty-five']],
      'You may 5': [['5', 'number', 'five']],
      'Jan said no.': [],
    });
  });
  test('a date\'s words come from the lexicon', async () => {
    const [t] = (await g2p.phonemize('2024-03-15')).tokens;
    const first = (w) => cmudict.get(w)[0].split(' ');
    assert.deepEqual(t.phonemes, ['march', 'fifteenth', 'twenty', 'twenty', 'four'].flatMap(first));
    assert.equal(t.stressed, true);
  });
});

describe('times', () => {
  test('hours and minutes, am and pm, 24-hour', async () => {
    await expectAll({
      'at 09:00': [['09:00', 'time', 'nine o\'clock']],
      'at 9:30pm': [['9:30pm', 'time', 'nine thirty P M']],
      'at 9:05 AM': [['9:05 AM', 'time', 'nine oh five A M']],
      'at 18:00': [['18:00', 'time', 'eighteen hundred']],
      'at 14:45': [['14:45', 'time', 'fourteen forty-five']],
      'at 10am': [['10am', 'time', 'ten A M']],
      'at 7 p.m. tonight': [['7 p.m.', 'time', 'seven P M']],
    });
  });
  test('a time\'s a.m. at a sentence\'s end leaves the full stop', async () => {
    const r = await g2p.phonemize('It opens at 9 a.m. The doors close at 5.');
    assert.deepEqual(r.tokens.slice(3, 5).map((t) => [t.text, t.source]), [['9 a.m', 'time'], ['.', 'punctuation']]);
  });
  test('not times: 25:00, 9:75', async () => {
    assert.ok((await read('25:00 9:75')).every(([, source]) => source === 'number'));
  });
});

describe('phone numbers', () => {
  test('US and international formats, digit by digit, 0 as oh, a toll-free 800', async () => {
    await expectAll({
      '(555) 123-4567': [['(555) 123-4567', 'phone', 'five five five one two three four five six seven']],
      '555-123-4567': [['555-123-4567', 'phone', 'five five five one two three four five six seven']],
      '555.123.4567': [['555.123.4567', 'phone', 'five five five one two three four five six seven']],
      '+1 555 010 4567': [['+1 555 010 4567', 'phone', 'plus one five five five oh one oh four five six seven']],
      '1-800-555-0199': [['1-800-555-0199', 'phone', 'one eight hundred five five five oh one nine nine']],
      '+44 20 7946 0958': [['+44 20 7946 0958', 'phone', 'plus four four two oh seven nine four six oh nine five eight']],
      'call 555-0199': [['555-0199', 'phone', 'five five five oh one nine nine']],
    });
  });
});

describe('money', () => {
  test('with a scale or a suffix, yen, a sign after the amount, cents', async () => {
    await expectAll({
      '€2.5 billion': [['€2.5 billion', 'money', 'two point five billion euros']],
      '£12m': [['£12m', 'money', 'twelve million pounds']],
      '$3bn': [['$3bn', 'money', 'three billion dollars']],
      '$5k': [['$5k', 'money', 'five thousand dollars']],
      '$1.2 trillion': [['$1.2 trillion', 'money', 'one point two trillion dollars']],
      '¥500': [['¥500', 'money', 'five hundred yen']],
      '¥1': [['¥1', 'money', 'one yen']],
      '₹20': [['₹20', 'money', 'twenty rupees']],
      '50¢': [['50¢', 'money', 'fifty cents']],
      '5 €': [['5 €', 'money', 'five euros']],
      '$3.50': [['$3.50', 'number', 'three dollars and fifty cents']],
    });
  });
  test('numbers with a scale and no currency', async () => {
    await expectAll({
      'a 5k bonus': [['5k', 'number', 'five thousand']],
      '3m users': [['3m', 'number', 'three million']],
      'a 7B model': [['7B', 'number', 'seven billion']],
    });
  });
});

describe('units and symbols', () => {
  test('degrees, units after a number (singular for one), symbols said as words', async () => {
    await expectAll({
      '20°C': [['20°C', 'unit', 'twenty degrees celsius']],
      '-5 °F': [['-5 °F', 'unit', 'minus five degrees fahrenheit']],
      'a 90° turn': [['90°', 'unit', 'ninety degrees']],
      '5 km': [['5 km', 'unit', 'five kilometers']],
      '1 km': [['1 km', 'unit', 'one kilometer']],
      '3.5kg': [['3.5kg', 'unit', 'three point five kilograms']],
      '60 mph': [['60 mph', 'unit', 'sixty miles per hour']],
      '16 GB': [['16 GB', 'unit', 'sixteen gigabytes']],
      '250ms': [['250ms', 'unit', 'two hundred fifty milliseconds']],
      'R&D': [['&', 'symbol', 'and']],
      'salt & pepper': [['&', 'symbol', 'and']],
      '2 + 2 = 4': [['2', 'number', 'two'], ['+', 'symbol', 'plus'], ['2', 'number', 'two'], ['=', 'symbol', 'equals'], ['4', 'number', 'four']],
      'C++': [['+', 'symbol', 'plus'], ['+', 'symbol', 'plus']],
      'meet @ noon': [['@', 'symbol', 'at']],
      'up 5 %': [['5', 'number', 'five'], ['%', 'symbol', 'percent']],
      '#1 pick': [['#', 'symbol', 'number'], ['1', 'number', 'one']],
      'a 4 x 4 grid': [['4', 'number', 'four'], [' x', 'symbol', 'by'], ['4', 'number', 'four']],
    });
  });
  test('letters that are no unit after a space: "5 g" stays five and the letter', async () => {
    assert.deepEqual((await read('5g 5 g'))[0], ['5g', 'unit', 'five grams']);
    assert.deepEqual((await g2p.phonemize('5 g')).tokens.map((t) => t.source), ['number', 'lexicon']);
  });
});

describe('ranges and fractions', () => {
  test('a dash between numbers is "to"', async () => {
    await expectAll({
      '50–60': [['50', 'number', 'fifty'], ['–', 'range', 'to'], ['60', 'number', 'sixty']],
      '50-60%': [['50', 'number', 'fifty'], ['-', 'range', 'to'], ['60%', 'number', 'sixty percent']],
      '9am–5pm': [['9am', 'time', 'nine A M'], ['–', 'range', 'to'], ['5pm', 'time', 'five P M']],
      '1990 - 1995': [['1990', 'number', 'nineteen ninety'], [' - ', 'range', 'to'], ['1995', 'number', 'nineteen ninety-five']],
      'COVID-19': [['19', 'number', 'nineteen']],
    });
  });
  test('fractions: characters, slashes, mixed numbers, and the ones said otherwise', async () => {
    await expectAll({
      '½ cup': [['½', 'fraction', 'one half']],
      '2½': [['2½', 'fraction', 'two and a half']],
      '¾': [['¾', 'fraction', 'three quarters']],
      '3/4 mile': [['3/4', 'fraction', 'three quarters']],
      '1/3': [['1/3', 'fraction', 'one third']],
      '5/8': [['5/8', 'fraction', 'five eighths']],
      '1 1/2 cups': [['1 1/2', 'fraction', 'one and a half']],
      '24/7': [['24/7', 'fraction', 'twenty-four seven']],
      '7/250': [['7/250', 'fraction', 'seven over two hundred fifty']],
    });
  });
});

describe('Roman numerals', () => {
  test('after a name (the Nth), after a numbered thing (N); not the pronoun I, not initialisms', async () => {
    await expectAll({
      'Henry VIII': [['VIII', 'roman', 'the eighth']],
      'Elizabeth II': [['II', 'roman', 'the second']],
      'Henry V': [['V', 'roman', 'the fifth']],
      'Louis XIV': [['XIV', 'roman', 'the fourteenth']],
      'Chapter IV': [['IV', 'roman', 'four']],
      'World War I': [['I', 'roman', 'one']],
      'Super Bowl LVIII': [['LVIII', 'roman', 'fifty-eight']],
      'Then I left': [],
      'Malcolm X': [],
      'Washington DC': [['DC', 'letters', 'D C']],
    });
    assert.equal(romanValue('MCMLXXXIV'), 1984);
    assert.equal(romanValue('IIII'), 0);
  });
});

describe('URLs and e-mail addresses', () => {
  test('read the way a voice reads them: no scheme, symbols by name, letters where a piece is an initialism', async () => {
    await expectAll({
      'https://www.example.com/docs': [['https://www.example.com/docs', 'url', 'W W W dot example dot com slash docs']],
      'Go to example.org.': [['example.org', 'url', 'example dot org']],
      'github.com/nodejs/node': [['github.com/nodejs/node', 'url', 'github dot com slash node J S slash node']],
      'status.aws.io/v2?id=7': [['status.aws.io/v2?id=7', 'url', 'status dot A W S dot I O slash v two question mark I D equals seven']],
      'jane.doe@example.com': [['jane.doe@example.com', 'email', 'jane dot doe at example dot com']],
      'Write to support@my-shop.co.uk.': [['support@my-shop.co.uk', 'email', 'support at my dash shop dot co dot U K']],
      'end.The next': [],
    });
  });
});

describe('abbreviations, by what follows them', () => {
  const said = async (text) => (await g2p.phonemize(text)).tokens.filter((t) => t.source !== 'lexicon' || /\./.test(t.text)).map((t) => [t.text, t.source, t.spoken ?? '']);
  test('street at a sentence\'s end, saint and doctor before a name; the full stop kept', async () => {
    assert.deepEqual(await said('We met on Main St. The shop was shut.'), [['St', 'abbreviation', 'street'], ['.', 'punctuation', ''], ['.', 'punctuation', '']]);
    assert.deepEqual(await said('St. John wrote it.'), [['St.', 'abbreviation', 'saint'], ['.', 'punctuation', '']]);
    assert.deepEqual(await said('Turn onto Elm Dr. Then stop.'), [['Dr', 'abbreviation', 'drive'], ['.', 'punctuation', ''], ['.', 'punctuation', '']]);
    assert.deepEqual(await said('Ask Dr. Smith.'), [['Dr.', 'abbreviation', 'doctor'], ['.', 'punctuation', '']]);
    assert.deepEqual(await said('She lives at 42 Elm Dr. near the park.'), [['42', 'number', 'forty-two'], ['Dr.', 'abbreviation', 'drive'], ['.', 'punctuation', '']]);
    assert.deepEqual(await said('Mr. Li and Mrs. Li'), [['Mr.', 'abbreviation', 'mister'], ['Mrs.', 'abbreviation', 'missus']]);
  });
  test('U.K. at a sentence\'s end keeps its full stop; inside one it does not', async () => {
    assert.deepEqual(await said('She moved to the U.K. It rains.'), [['U.K', 'letters', 'U K'], ['.', 'punctuation', ''], ['.', 'punctuation', '']]);
    assert.deepEqual(await said('The U.S. Army'), [['U.S.', 'letters', 'U S']]);
    assert.deepEqual(await said('Apple Inc. The end'), [['Inc', 'abbreviation', 'inc'], ['.', 'punctuation', '']]);
  });
  test('read only before a number: No. 5, Fig. 3, p. 12; e.g., i.e., etc., vs.', async () => {
    await expectAll({
      'No. 5': [['No.', 'abbreviation', 'number'], ['5', 'number', 'five']],
      'Fig. 3': [['Fig.', 'abbreviation', 'figure'], ['3', 'number', 'three']],
      'Say no. Then go.': [],
      'fruit, e.g. figs, i.e. food, etc. and cats vs. dogs': [['e.g.', 'abbreviation', 'for example'], ['i.e.', 'abbreviation', 'that is'],
        ['etc.', 'abbreviation', 'et cetera'], ['vs.', 'abbreviation', 'versus']],
    });
  });
});

describe('acronyms and initialisms', () => {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, 'g2p/acronyms.json'), 'utf8'));
  /** The share of a list read as its fixture says, and the misses. */
  async function score(items) {
    const at = fixture.sentence.indexOf('{}');
    const misses = [];
    for (const [text, reading] of items) {
      const r = await g2p.phonemize(fixture.sentence.replace('{}', text));
      const got = r.tokens.filter((t) => t.start >= at && t.end <= at + text.length).flatMap((t) => t.phonemes);
      if (noStress(got) !== noStress(readingPhones(reading))) misses.push(text);
    }
    return { right: 1 - misses.length / items.length, misses };
  }
  test('the list of tech acronyms: at least 90 % read as written down, and as many of those written afterwards', async () => {
    assert.ok(fixture.items.length >= 50 && fixture.held_out.length >= 50);
    const { right, misses } = await score(fixture.items);
    assert.ok(right >= 0.9, `${(100 * right).toFixed(1)} % right; missed ${misses.join(', ')}`);
    const held = await score(fixture.held_out);
    assert.ok(held.right >= 0.9, `${(100 * held.right).toFixed(1)} % right; missed ${held.misses.join(', ')}`);
  });
  test('capitals in mixed-case text are spelled; the same word in lower case, or in a headline, is a word', async () => {
    const sources = async (text) => (await g2p.phonemize(text)).tokens.map((t) => [t.text, t.source, t.spoken ?? '']);
    assert.deepEqual(await sources('The US and us'), [['The', 'lexicon', ''], ['US', 'letters', 'U S'], ['and', 'lexicon', ''], ['us', 'lexicon', '']]);
    assert.deepEqual(await sources('IT said it'), [['IT', 'letters', 'I T'], ['said', 'lexicon', ''], ['it', 'lexicon', '']]);
    assert.deepEqual(await sources('NASA and the UN'), [['NASA', 'lexicon', ''], ['and', 'lexicon', ''], ['the', 'lexicon', ''], ['UN', 'letters', 'U N']]);
    assert.deepEqual(await sources('I do NOT agree'), [['I', 'lexicon', ''], ['do', 'lexicon', ''], ['NOT', 'lexicon', ''], ['agree', 'lexicon', '']]);
    assert.deepEqual((await sources('US STOCKS FALL'))[0], ['US', 'lexicon', '']);
    const [gpus] = (await g2p.phonemize('GPUs')).tokens;
    assert.deepEqual(gpus.phonemes, [...readingPhones('G P U'), 'Z']);
  });
  test('the test split\'s words without a vowel letter, none of them in the lexicon: at most 15 % wrong (the model alone: over half)', async () => {
    const refs = parseReferences(readFileSync(join(ROOT, 'models/data/cmudict-0.7b.test'), 'utf8'));
    const lexicon = parseLexicon(await buildLexicon({ exclude: new Set([...refs.keys()].map((w) => w.toLowerCase())) }));
    const p = await createPhonemizer({ lexicon });
    try {
      const words = [...refs.keys()].filter((w) => !/[AEIOU]/.test(w));
      assert.ok(words.length >= 30);
      const wrong = [];
      for (const w of words) {
        const got = noStress((await p.phonemize(w.toLowerCase())).tokens.flatMap((t) => t.phonemes));
        if (!refs.get(w).some((ref) => ref.join(' ') === got)) wrong.push(w);
      }
      assert.ok(wrong.length / words.length <= 0.15, `${wrong.length} of ${words.length} wrong: ${wrong.join(', ')}`);
    } finally {
      p.delete();
    }
  });
});

describe('homographs from context', () => {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, 'g2p/homographs.json'), 'utf8'));
  /** Right readings per word and in all, and the misses. */
  async function score(sentences) {
    const byWord = {};
    const misses = [];
    for (const [sentence, word, reading] of sentences) {
      const t = (await g2p.phonemize(sentence)).tokens.find((x) => x.text.toLowerCase() === word);
      const ok = fixture.readings[word][reading].includes(t.phonemes.join(' '));
      byWord[word] ??= { right: 0, of: 0 };
      byWord[word].of++;
      if (ok) byWord[word].right++;
      else misses.push(`${word} (${reading}): ${sentence} [${t.homograph?.why}]`);
    }
    return { right: 1 - misses.length / sentences.length, byWord, misses };
  }
  test('the test set: at least 100 sentences, 25 heteronyms, and 85 % read right; as many of the sentences written afterwards', async () => {
    assert.ok(fixture.sentences.length >= 100);
    assert.ok(new Set(fixture.sentences.map((s) => s[1])).size >= 25);
    for (const sentences of [fixture.sentences, fixture.held_out]) {
      const { right, byWord, misses } = await score(sentences);
      assert.ok(right >= 0.85, `${(100 * right).toFixed(1)} % right; missed:\n${misses.join('\n')}`);
      // No word is right only by its default: every heteronym with two or more sentences gets one reading right in each of them at least once.
      assert.ok(Object.values(byWord).every((w) => w.right > 0), JSON.stringify(byWord));
    }
  });
  test('each reading of the table is one of CMUdict\'s pronunciations of its word', () => {
    for (const [word, entry] of Object.entries(TABLE)) {
      for (const phones of Object.values(entry.readings)) assert.ok(cmudict.get(word).includes(phones), `${word}: ${phones}`);
    }
  });
  test('the token says which reading was chosen and why; the others stay as alternatives', async () => {
    const r = await g2p.phonemize('She read it yesterday. I will read it again.');
    const [past, present] = r.tokens.filter((t) => t.text === 'read');
    const prons = cmudict.get('read').map((p) => p.split(' '));
    assert.deepEqual(past.phonemes, ['R', 'EH1', 'D']);
    assert.deepEqual(past.homograph, { reading: 'past', why: 'after "she": the present would be "reads"' });
    assert.deepEqual(present.phonemes, ['R', 'IY1', 'D']);
    assert.equal(present.homograph.reading, 'present');
    assert.match(present.homograph.why, /after "will"/);
    for (const t of [past, present]) assert.deepEqual([t.phonemes, ...t.alternatives].map((p) => p.join(' ')).sort(), prons.map((p) => p.join(' ')).sort());
    assert.equal(r.tokens.find((t) => t.text === 'She').homograph, undefined, 'a word with one pronunciation has no choice to report');
  });
});

test('realistic paragraphs: no item read wrong but those the comparison recorded (docs/g2p-comparison.md)', async () => {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, 'g2p/paragraphs.json'), 'utf8'));
  const { arpabetToIpa } = await import(g2pUrl);
  const wrong = [];
  for (const { text, items } of fixture.paragraphs) {
    const ipa = broadString((await g2p.phonemize(text)).ipa);
    for (const [category, span, reading] of items) if (!readingPattern(reading, cmudict, arpabetToIpa).test(ipa)) wrong.push(`${category}: ${span}`);
  }
  assert.ok(fixture.paragraphs.length >= 15);
  assert.deepEqual(wrong.filter((w) => !fixture.wrong.ours.includes(w)), [], 'items read wrong that the comparison read right');
  // The target: fewer errors than eSpeak NG in every category but brands.
  const categories = new Set(fixture.paragraphs.flatMap((p) => p.items.map((i) => i[0])));
  for (const c of categories) {
    if (c === 'brands') continue;
    const n = (list) => list.filter((w) => w.startsWith(`${c}: `)).length;
    assert.ok(n(wrong) < n(fixture.wrong.espeak) || n(fixture.wrong.espeak) === 0 && n(wrong) === 0, `${c}: ours ${n(wrong)}, eSpeak ${n(fixture.wrong.espeak)}`);
  }
});

test('every source a spoken token may have is declared', async () => {
  const text = 'January 5, 9:30pm, 555-123-4567, $3bn, 5 km, &, 50–60, ½, Henry VIII, example.com, a@b.com, etc., GPU, OpenAI';
  const seen = new Set((await g2p.phonemize(text)).tokens.filter((t) => t.spoken !== undefined && t.source !== 'number').map((t) => t.source));
  assert.deepEqual([...seen].sort(), [...SOURCES].sort());
});
