// The phonemizer's output formats for voices (phonemize(text, { format })):
// misaki's US symbols (Kokoro) and eSpeak NG's en-us IPA (Piper). Every symbol
// each writes is in its inventory, over every ARPAbet phone and stress, every
// pair of them, every CMUdict pronunciation and a long text; the conventions
// each voice was trained on; function words as a sentence reads them; the
// stressed model for a voice format; the user's own words over everything;
// punctuation that is no voice's symbol dropped and reported. The README's two
// recipes (Kokoro's tokenizer, a Piper voice's phoneme ids) run here.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MODELS_PACKAGE, installPackage } from './helpers.mjs';
import { pronunciationsOf, readPackage } from '../../scripts/build-lexicon.mjs';
import { readmeBlocks } from './readme-blocks.mjs';

const pkg = installPackage();
const { loadModel, Seq2SeqError } = await pkg.importPackage();
const { createPhonemizer, INVENTORY, FORMATS, MODEL_NAMES } = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
const { wordToMisaki, wordToEspeak, vowelLetters, functionWord, PUNCTUATION, FUNCTION_WORDS } = await import(join(pkg.modelsDir, 'g2p/formats.js'));
const manifest = (await import(await pkg.resolve('seq2seq-wasm-models'))).default;
const cmudict = pronunciationsOf((await readPackage()).dictionary);
const cmu = (word) => cmudict.get(word).map((p) => p.split(' '));

// misaki's US_VOCAB, as its source writes it (misaki/en.py), and the punctuation Kokoro's vocabulary has.
const US_VOCAB = 'AIOWYbdfhijklmnpstuvwzæðŋɑɔəɛɜɡɪɹɾʃʊʌʒʤʧˈˌθᵊᵻʔ';
const VOWELS = ['AA', 'AE', 'AH', 'AO', 'AW', 'AY', 'EH', 'ER', 'EY', 'IH', 'IY', 'OW', 'OY', 'UH', 'UW'];
const CONSONANTS = ['B', 'CH', 'D', 'DH', 'F', 'G', 'HH', 'JH', 'K', 'L', 'M', 'N', 'NG', 'P', 'R', 'S', 'SH', 'T', 'TH', 'V', 'W', 'Y', 'Z', 'ZH'];
const PHONES = [...CONSONANTS, ...VOWELS.flatMap((v) => [v, `${v}0`, `${v}1`, `${v}2`])];
const WRITERS = { misaki: wordToMisaki, espeak: wordToEspeak };
const outside = (format, s) => [...new Set([...s].filter((c) => c !== ' ' && !INVENTORY[format].includes(c)))];

let g2p;
let plain;
after(() => { g2p?.delete(); plain?.delete(); });
before(async () => {
  g2p = await createPhonemizer({ format: 'misaki' });
  plain = await createPhonemizer();
});

describe('inventories', () => {
  test('misaki\'s is its US_VOCAB and Kokoro\'s punctuation; eSpeak\'s every symbol a single code point', () => {
    assert.deepEqual(INVENTORY.misaki.filter((c) => /[^;:,.!?—…"()“”]/.test(c)).sort(), [...US_VOCAB].sort());
    assert.equal([...US_VOCAB].length, 46, 'misaki\'s US_VOCAB holds 46 symbols');
    for (const f of ['misaki', 'espeak']) for (const c of INVENTORY[f]) assert.equal([...c].length, 1, `${f} ${c}`);
    assert.deepEqual(FORMATS, ['arpabet', 'ipa', 'misaki', 'espeak']);
  });

  test('every phone with every stress, alone, as a function word and in every pair: inside the inventory', () => {
    for (const [format, write] of Object.entries(WRITERS)) {
      for (const reduce of [undefined, 'none', 'secondary']) {
        for (const a of PHONES) {
          assert.deepEqual(outside(format, write([a], reduce)), [], `${format} ${a}`);
          for (const b of PHONES) assert.deepEqual(outside(format, write([a, b], reduce)), [], `${format} ${a} ${b} ${reduce}`);
        }
      }
      // The contexts the rules look at: t between vowels, schwa before l and n, -ed, -es.
      for (const v of PHONES.filter((p) => /\d$/.test(p))) {
        for (const w of [['T', v], [v, 'T', 'AH0', 'N'], ['B', 'AH0', 'L'], [v, 'T', 'IH0', 'D'], ['S', 'IH0', 'Z'], ['AY1', 'R'], [v, 'R', 'T', v]]) {
          assert.deepEqual(outside(format, write(w)), [], `${format} ${w.join(' ')}`);
        }
      }
    }
  });

  test('every CMUdict pronunciation, and a long text of every kind of token: inside the inventory', async () => {
    for (const [format, write] of Object.entries(WRITERS)) {
      const written = new Map();   // each symbol written → a pronunciation that wrote it
      // With each word's spelling, which the rules for suffixes and unstressed vowels read.
      for (const [word, prons] of cmudict) for (const p of prons) for (const c of write(p.split(' '), undefined, word)) if (!written.has(c)) written.set(c, p);
      assert.deepEqual([...written].filter(([c]) => !INVENTORY[format].includes(c)), [], format);
    }
    const symbols = '. , ! ? ; : … ... — – -- - ( ) [ ] { } " “ ” « » ‘ ’ \' / \\ & + @ # % * = < > ~ ^ | _ ` $ £ € ¥ © ° ¿ ¡';
    const text = `${symbols} Hello, world! It's 2026 and the colonel's Kubernetes cluster is down. Dr. O'Brien paid $3.50 for 2 lattes on May 21st; `
      + 'that\'s 15% more than in 1999. Don\'t read the README: it\'ll only confuse Ms. Nguyen\'s students. 日本語 😀 zorblax-quux WebAssembly.';
    for (const format of FORMATS) {
      const r = await g2p.phonemize(text, { format });
      assert.equal(r.format, format);
      if (format === 'misaki' || format === 'espeak') assert.deepEqual(outside(format, r.phonemes), [], format);
      // No symbol of the text that is no punctuation the format keeps: each is dropped, and reported.
      for (const s of ['&', '+', '@', '#', '*', '=', '<', '>', '~', '^', '|', '©', '°', '¿', '¡', '`']) {
        assert.ok(!r.phonemes.includes(s), `${format}: ${s} leaked`);
        // Spoken (a token with phonemes holds it), or left out and reported (dropped, or a token's error).
        const at = text.indexOf(` ${s} `) + 1;
        const holder = r.tokens.find((t) => t.start <= at && at < t.end);
        const reported = r.dropped.some((d) => d.start === at && d.text === s) || holder?.error || holder?.phonemes.length > 0;
        assert.ok(reported, `${format}: ${s} spoken, or dropped and reported`);
      }
    }
  });
});

describe('misaki: the conventions Kokoro was trained on', () => {
  const word = (w, reduce) => wordToMisaki(cmu(w)[0], reduce);
  test('diphthongs one letter, ʤ ʧ, ɜɹ and əɹ, ᵊ, a flapped t, ʔ before syllabic n, ᵻ, the stress mark before its vowel', () => {
    const cases = {
      hello: 'həlˈO', world: 'wˈɜɹld', my: 'mˈI', day: 'dˈA', now: 'nˈW', boy: 'bˈY', judge: 'ʤˈʌʤ', church: 'ʧˈɜɹʧ', butter: 'bˈʌɾəɹ',
      water: 'wˈɔɾəɹ', city: 'sˈɪɾi', party: 'pˈɑɹɾi', model: 'mˈɑdᵊl', sudden: 'sˈʌdᵊn', button: 'bˈʌʔn', wanted: 'wˈɔntᵻd', horses: 'hˈɔɹsᵻz',
      attack: 'ətˈæk', twenty: 'twˈɛnti', singing: 'sˈɪŋɪŋ',
    };
    for (const [w, want] of Object.entries(cases)) assert.equal(word(w), want, w);
  });

  test('where misaki\'s lexicon writes a word otherwise than CMUdict\'s phones read plainly: its conventions', () => {
    // Each word as misaki's US lexicon has it (bench/g2p-misaki.mjs measures the rest).
    const cases = {
      // An unstressed IH: ɪ in a closed syllable, ə in an open one, ə before most consonants in -ive-ly.
      intend: 'ɪntˈɛnd', engage: 'ɪnɡˈAʤ', actively: 'ˈæktəvli',
      // Suffixes CMUdict writes alike, told apart by their spelling: -sis, -ist, -est, -ically.
      analysis: 'ənˈæləsɪs', artist: 'ˈɑɹɾɪst', happiest: 'hˈæpiᵻst', chemically: 'kˈɛməkᵊli', fanatical: 'fənˈæɾəkᵊl',
      // ᵊ after most consonants in a last syllable; no flap before a schwa and n.
      apple: 'ˈæpᵊl', camel: 'kˈæmᵊl', important: 'ɪmpˈɔɹtᵊnt', botany: 'bˈɑtəni',
      // u glides into a schwa; I and W before r take əɹ.
      mutual: 'mjˈuʧəwəl', inspire: 'ɪnspˈIəɹ',
      // One primary stress, the last; over-'s and un-'s secondary; none right before the primary in the first syllable.
      overheard: 'ˌOvəɹhˈɜɹd', unhappy: 'ˌʌnhˈæpi', impossible: 'ɪmpˈɑsəbᵊl',
      // CMUdict's AO and AA as the spelling splits them: o before k, t, l, n ɑ; a before sh ɔ; o before ng ɔ.
      bot: 'bˈɑt', topology: 'təpˈɑləʤi', wash: 'wˈɔʃ', squashed: 'skwˈɔʃt', long: 'lˈɔŋ',
      // The sh of -ntion, -ntial spelled with t is ʧ.
      attention: 'ətˈɛnʧən', potential: 'pətˈɛnʧᵊl', mansion: 'mˈænʃən',
      // dis- keeps ɪ but before st, sp, sk.
      disorder: 'dɪsˈɔɹdəɹ', dislike: 'dɪslˈIk', distinct: 'dəstˈɪŋkt',
      // au and ou spelling CMUdict's AA are ɔ; -day has a full vowel; with- keeps ɪ.
      caught: 'kˈɔt', bought: 'bˈɔt', monday: 'mˈʌndˌA', within: 'wɪðˈɪn',
    };
    for (const [w, want] of Object.entries(cases)) assert.equal(wordToMisaki(cmu(w)[0], undefined, w), want, w);
    // Without its spelling a word is written by its phones alone.
    assert.equal(wordToMisaki(cmu('analysis')[0]), 'ənˈæləsəs');
  });

  test('function words as misaki\'s lexicon stresses them in a sentence, their vowels as CMUdict has them', () => {
    assert.equal(FUNCTION_WORDS.of, 'none');
    assert.equal(word('of', functionWord('misaki', 'of')), 'ʌv');
    assert.equal(word('is', functionWord('misaki', 'is')), 'ɪz');
    assert.equal(word('in', functionWord('misaki', 'in')), 'ɪn');
    assert.equal(word('what', functionWord('misaki', 'what')), 'wˌʌt');
    assert.equal(word('not', functionWord('misaki', 'not')), 'nˌɑt');
    // misaki keeps a secondary stress on these, a primary on these; eSpeak's format reduces them.
    assert.equal(word('him', functionWord('misaki', 'him')), 'hˌɪm');
    assert.equal(word('must', functionWord('misaki', 'must')), 'mˈʌst');
    assert.equal(functionWord('espeak', 'must'), 'none');
    assert.equal(functionWord('misaki', 'hello'), undefined);
    // Common words misaki's lexicon stresses as function words: a secondary at most, or none; I with its primary.
    const fw = (w) => wordToMisaki(cmu(w)[0], functionWord('misaki', w), w);
    assert.deepEqual(['down', 'make', 'got', 'there', 'through', 'it\'s', 'you\'re', 'i'].map(fw), ['dˌWn', 'mˌAk', 'ɡɑt', 'ðɛɹ', 'θɹu', 'ɪts', 'jʊɹ', 'ˈI']);
  });

  test('and, than, your, was, on with the vowels misaki\'s lexicon gives them', async () => {
    const r = await g2p.phonemize('Bread and milk was more than your share.');
    assert.equal(r.phonemes, 'bɹˈɛd ænd mˈɪlk wʌz mˈɔɹ ðən jʊɹ ʃˈɛɹ.');
    assert.equal((await g2p.phonemize('Put it on.')).phonemes, 'pˌʊt ɪt ˌɔn.');
    // The other formats keep CMUdict's first reading (and: AH0 N D).
    assert.deepEqual(r.tokens[1].phonemes, ['AH0', 'N', 'D']);
    assert.match((await g2p.phonemize('bread and milk', { format: 'espeak' })).phonemes, / ənd /);
  });

  test('in a sentence: the, a and to by what follows; function words reduced; punctuation as Kokoro reads it', async () => {
    const r = await g2p.phonemize('The cat sat on the apple, to go to it — "quite" (so) … what is a dog?');
    assert.equal(r.phonemes, 'ðə kˈæt sˈæt ˌɔn ði ˈæpᵊl, tə ɡˌO tu ɪt — "kwˈIt" (sˌO) … wˌʌt ɪz ə dˈɔɡ?');
    assert.deepEqual(r.dropped, []);
  });
});

describe('espeak: the IPA Piper\'s en_US voices read', () => {
  test('long vowels with ː, ɚ, diphthongs of two letters, tʃ dʒ, ɾ, the stress mark before its vowel', () => {
    const cases = {
      hello: 'həlˈoʊ', world: 'wˈɜːld', father: 'fˈɑːðɚ', see: 'sˈiː', happy: 'hˈæpi', food: 'fˈuːd', talk: 'tˈɔːk', judge: 'dʒˈʌdʒ',
      church: 'tʃˈɜːtʃ', water: 'wˈɔːɾɚ', fire: 'fˈaɪɚ', near: 'nˈɪɹ', car: 'kˈɑːɹ', day: 'dˈeɪ', boy: 'bˈɔɪ', now: 'nˈaʊ',
    };
    for (const [w, want] of Object.entries(cases)) assert.equal(wordToEspeak(cmu(w)[0]), want, w);
  });

  test('unstressed vowels by their spelling, stress next to the primary, a t before a schwa and n: as eSpeak NG writes them', () => {
    // Each word as eSpeak NG writes it for en-us (bench/g2p-espeak.mjs measures the rest).
    const cases = {
      against: 'ɐɡˈɛnst', deliver: 'dᵻlˈɪvɚ', embellish: 'ɛmbˈɛlɪʃ', unpaid: 'ʌnpˈeɪd', timidly: 'tˈɪmɪdli', density: 'dˈɛnsᵻɾi',
      secular: 'sˈɛkjʊlɚ', criminal: 'kɹˈɪmɪnəl', reflection: 'ɹᵻflˈɛkʃən', deceitful: 'dᵻsˈiːtfəl', hello: 'həlˈoʊ',
      mutant: 'mjˈuːtənt', setback: 'sˈɛtbæk', upkeep: 'ˈʌpkiːp', infective: 'ɪnfˈɛktɪv', tsunami: 'tsuːnˈɑːmi', ok: 'ˌoʊkˈeɪ',
      // FORCE oː where the spelling marks it (oar, our, oor, or before a vowel or at the end), NORTH ɔː elsewhere.
      board: 'bˈoːɹd', course: 'kˈoːɹs', floor: 'flˈoːɹ', story: 'stˈoːɹi', more: 'mˈoːɹ', doors: 'dˈoːɹz', north: 'nˈɔːɹθ', short: 'ʃˈɔːɹt',
    };
    for (const [w, want] of Object.entries(cases)) assert.equal(wordToEspeak(cmu(w)[0], undefined, w), want, w);
  });

  test('each vowel phone\'s letters: one run of vowel letters each, a silent e left out, two vowels in one run split; null where they do not match', () => {
    assert.deepEqual(vowelLetters('criminal', cmu('criminal')[0]), ['i', 'i', 'a']);
    assert.deepEqual(vowelLetters('timidly', cmu('timidly')[0]), ['i', 'i', 'y']);
    assert.deepEqual(vowelLetters('hospice', cmu('hospice')[0]), ['o', 'i']);
    assert.deepEqual(vowelLetters('media', cmu('media')[0]), ['e', 'i', 'a']);
    assert.deepEqual(vowelLetters('yes', cmu('yes')[0]), ['e']);
    assert.deepEqual(vowelLetters('realism', cmu('realism')[0]), ['e', 'a', 'i']);
    assert.equal(vowelLetters('faceless', cmu('faceless')[0]), null);
    assert.equal(vowelLetters('', cmu('criminal')[0]), null);
  });

  test('punctuation as Piper\'s front end writes it: . , ; : ? ! and no space before; a dash ;, brackets, quotes, hyphens and ellipses dropped', async () => {
    // What piper-phonemize writes for this text (bench/g2p-piper.mjs runs it): həlˈoʊ; wˈɜːld; jˈɛs…
    const r = await g2p.phonemize('Hello — “world”; (yes) ... ok - fine!', { format: 'espeak' });
    assert.equal(r.phonemes, 'həlˈoʊ; wˈɜːld; jˈɛs oʊkˈeɪ fˈaɪn!');
    assert.deepEqual(r.dropped.map((d) => d.text), ['“', '”', '(', ')', '...', '-']);
    assert.equal(PUNCTUATION.espeak['—'], ';');
    assert.equal((await g2p.phonemize('One , two .', { format: 'espeak' })).phonemes, 'wˈʌn, tˈuː.');
  });
});

describe('stress for voices', () => {
  test('a voice format takes the stressed model by default; the others keep the plain one', async () => {
    assert.equal(g2p.stress, true);
    assert.equal(g2p.format, 'misaki');
    assert.equal(plain.stress, false);
    assert.equal(plain.format, 'ipa');
    const stressed = manifest.models.find((m) => m.name === MODEL_NAMES.stressed);
    assert.deepEqual(g2p.decoding, stressed.decoding);
    const model = await loadModel(join(pkg.modelsDir, stressed.file));
    try {
      const r = await g2p.phonemize('Kubernetes');
      assert.equal(r.tokens[0].source, 'model');
      assert.equal(r.tokens[0].stressed, true);
      assert.deepEqual(r.tokens[0].phonemes, model.decode('KUBERNETES', stressed.decoding)[0].text.split(' '));
      assert.equal(r.phonemes, wordToMisaki(r.tokens[0].phonemes, undefined, 'kubernetes'));
      assert.match(r.phonemes, /ˈ/);
    } finally {
      model.delete();
    }
    const e = await createPhonemizer({ format: 'espeak', stress: false });
    assert.equal(e.stress, false);
    e.delete();
  });

  test('a phonemizer without stress asked for a voice format: its model words get a primary stress on their first full vowel', async () => {
    const r = await plain.phonemize('Kubernetes zorblax', { format: 'misaki' });
    for (const t of r.tokens) {
      assert.equal(t.stressed, false);
      assert.ok(t.phonemes.every((p) => !/\d$/.test(p)));
    }
    const words = r.phonemes.split(' ');
    for (const w of words) assert.equal([...w].filter((c) => c === 'ˈ').length, 1, w);
    const first = r.tokens[0].phonemes;
    const main = first.findIndex((p) => /^(AA|AE|AO|AW|AY|EH|EY|IH|IY|OW|OY|UH|UW)$/.test(p));
    assert.equal(words[0], wordToMisaki(first.map((p, i) => (/^(AA|AE|AH|AO|AW|AY|EH|ER|EY|IH|IY|OW|OY|UH|UW)$/.test(p) ? `${p}${i === main ? 1 : 0}` : p)), undefined, 'kubernetes'));
  });
});

describe('the user\'s own words', () => {
  test('over CMUdict, the model and a number\'s words; case and accents as the tokenizer reads them', async () => {
    const p = await createPhonemizer({
      format: 'misaki',
      lexicon: { Kubernetes: 'K UW2 B ER0 N EH1 T IY0 Z', HELLO: ['HH', 'EH1', 'L', 'OW0'], two: [['T', 'UW1'], 'T UW0'], 'café': 'K AH0 F EY1', 'x-ray': 'EH1 K S R EY2' },
    });
    try {
      const r = await p.phonemize('Hello kubernetes 2 CAFÉ x-ray world');
      assert.deepEqual(r.tokens.map((t) => [t.text, t.source]),
        [['Hello', 'user'], ['kubernetes', 'user'], ['2', 'number'], ['CAFÉ', 'user'], ['x-ray', 'user'], ['world', 'lexicon']]);
      assert.deepEqual(r.tokens[0].phonemes, ['HH', 'EH1', 'L', 'OW0']);
      assert.deepEqual(r.tokens[1].phonemes, ['K', 'UW2', 'B', 'ER0', 'N', 'EH1', 'T', 'IY0', 'Z']);
      assert.deepEqual(r.tokens[1].alternatives, []);
      assert.deepEqual(r.tokens[2].phonemes, ['T', 'UW1']);
      assert.deepEqual(r.tokens[0].alternatives, []);
      assert.equal(r.phonemes.split(' ')[1], 'kˌubəɹnˈɛɾiz');
      const map = await createPhonemizer({ model: p.modelInfo && undefined, lexicon: new Map([['zorblax', 'Z AO1 R B L AE2 K S']]) });
      assert.deepEqual((await map.phonemize('zorblax')).tokens[0].phonemes, ['Z', 'AO1', 'R', 'B', 'L', 'AE2', 'K', 'S']);
      map.delete();
    } finally {
      p.delete();
    }
  });

  test('a pronunciation that is no ARPAbet: UsageError naming the word and the phone, when the phonemizer is made', async () => {
    const usage = (re) => (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && re.test(e.message);
    await assert.rejects(createPhonemizer({ lexicon: { cat: 'K AE1 X' } }), usage(/lexicon\["cat"\]: "X" is no ARPAbet phone/));
    await assert.rejects(createPhonemizer({ lexicon: { cat: 'K toString T' } }), usage(/lexicon\["cat"\]: "toString" is no ARPAbet phone/));
    await assert.rejects(createPhonemizer({ lexicon: { cat: 'k æ t' } }), usage(/lexicon\["cat"\]: "k" is no ARPAbet phone/));
    await assert.rejects(createPhonemizer({ lexicon: { cat: '' } }), usage(/lexicon\["cat"\]: a pronunciation must be ARPAbet/));
    await assert.rejects(createPhonemizer({ lexicon: { cat: 5 } }), usage(/lexicon\["cat"\]: a pronunciation must be ARPAbet.*not the number 5/));
    await assert.rejects(createPhonemizer({ lexicon: { 42: 'F AO1 R' } }), usage(/lexicon\["42"\]: a word must be a string with a letter/));
    await assert.rejects(createPhonemizer({ lexicon: 'cmudict' }), usage(/lexicon must be \{ word: pronunciation \}/));
  });
});

describe('options', () => {
  test('a format that is none of the four: UsageError, at creation and per call', async () => {
    const usage = (re) => (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && re.test(e.message);
    await assert.rejects(createPhonemizer({ format: 'kokoro' }), usage(/createPhonemizer: format must be one of 'arpabet', 'ipa', 'misaki', 'espeak', not the string "kokoro"/));
    await assert.rejects(plain.phonemize('hi', { format: 'IPA' }), usage(/phonemize: format must be one of/));
    await assert.rejects(plain.phonemize('hi', { fromat: 'ipa' }), usage(/phonemize: unknown option "fromat"/));
    await assert.rejects(plain.phonemize('hi', null), usage(/phonemize: options must be an object/));
    const r = await plain.phonemize('Hello, world!');
    assert.equal(r.format, 'ipa');
    assert.equal(r.phonemes, r.ipa);
    assert.equal((await plain.phonemize('Hello, world!', { format: 'arpabet' })).phonemes, r.arpabet);
  });
});

describe('the README\'s recipes for voices', () => {
  // The recipes, as the README has them (```js kokoro``` and ```js piper```).
  const blocks = Object.fromEntries(readmeBlocks(join(MODELS_PACKAGE, 'README.md')).filter((b) => b.kind?.run === 'voice').map((b) => [b.info.split(' ')[1], b.code]));
  // The lines that load the voice (a download) stand for what the test hands in.
  const body = (code) => code.replace(/^import .*$/gm, '').replace(/^const (tts|config) = .*$/gm, '');

  test('Kokoro: the phonemes through a tokenizer as Kokoro\'s reads them, every symbol an id, none dropped', async () => {
    // Kokoro's tokenizer maps each symbol to an id, deletes what its vocabulary lacks, and
    // puts its pad ($, 0) at both ends. This stand-in has misaki's symbols, Kokoro's
    // punctuation and space, each an id of its own; T is the flap Kokoro's pipeline writes
    // (misaki for Kokoro 1.0 writes ɾ as T and ʔ as t before the tokenizer).
    const vocab = new Map(['$', ...INVENTORY.misaki, ' ', 'T'].map((c, i) => [c, i]));
    const seen = [];
    const read = [];
    const tts = {
      tokenizer: (text) => {
        read.push(text);
        const ids = [0, ...[...text].filter((c) => vocab.has(c)).map((c) => vocab.get(c)), 0];
        return { input_ids: { data: ids, dims: [1, ids.length] } };
      },
      generate_from_ids: async (input_ids, options) => { seen.push({ input_ids, options }); return { sampling_rate: 24000 }; },
    };
    const code = blocks.kokoro;
    assert.ok(code, 'the README has a kokoro recipe');
    const run = new Function('tts', 'createPhonemizer', `return (async () => { ${body(code)}; return { phonemes, audio }; })();`);
    const { phonemes, audio } = await run(tts, createPhonemizer);
    assert.equal(audio.sampling_rate, 24000);
    assert.equal(seen.length, 1);
    assert.match(phonemes, /ɾ/, 'the text has a flapped t');
    assert.match(phonemes, /ʔ/, 'the text has a glottal stop');
    assert.equal(read[0], phonemes.replaceAll('ɾ', 'T').replaceAll('ʔ', 't'), 'the flap written T and the glottal stop t, as Kokoro\'s own pipeline writes them');
    const ids = seen[0].input_ids.data;
    assert.equal(ids.length, [...phonemes].length + 2, 'no symbol dropped');
    assert.equal(seen[0].options.voice, 'af_heart');
  });

  test('Piper: the phonemes to ids by the voice\'s phoneme_id_map, pad between, ^ and $ around; a symbol the map lacks is an error', async () => {
    // A voice config laid out as Piper's (.onnx.json): phoneme_id_map of symbol → [id],
    // here with eSpeak's symbols this format writes.
    const symbols = ['_', '^', '$', ' ', ...INVENTORY.espeak];
    const config = { phoneme_id_map: Object.fromEntries(symbols.map((c, i) => [c, [i]])) };
    const code = blocks.piper;
    assert.ok(code, 'the README has a piper recipe');
    const run = new Function('config', 'createPhonemizer', `return (async () => { ${body(code)}; return { phonemes, ids, phonemeIds }; })();`);
    const { phonemes, ids, phonemeIds } = await run(config, createPhonemizer);
    const map = config.phoneme_id_map;
    assert.deepEqual(ids.slice(0, 2), [map['^'][0], map._[0]]);
    assert.equal(ids.at(-1), map.$[0]);
    assert.equal(ids.length, 2 * [...phonemes].length + 3);
    assert.deepEqual(ids.filter((_, i) => i % 2 === 0 && i > 0 && i < ids.length - 1), [...phonemes].map((c) => map[c][0]));
    delete map.ɚ;
    assert.throws(() => phonemeIds('wˈɔːɾɚ', config.phoneme_id_map), /ɚ/);
  });
});
