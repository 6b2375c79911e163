// seq2seq-wasm-models/g2p, as a user installs it (the packed tarballs): text to
// phonemes, CMUdict first, numbers read as words, the shipped G2P Transformer for
// the rest (its real output, decoded with the manifest's settings), ARPAbet and
// IPA, and bad input. The CMUdict pronunciations expected are read from the npm
// package the lexicon is written from, not written here.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MODELS_PACKAGE, installPackage } from './helpers.mjs';
import { pronunciationsOf, readPackage } from '../../scripts/build-lexicon.mjs';

const pkg = installPackage();
const { loadModel, LIMITS, Seq2SeqError } = await pkg.importPackage();
const { createDecoderPool, createDecoderWorker } = await pkg.importPackage('/worker');
const g2pModule = await import(await pkg.resolve('seq2seq-wasm-models/g2p'));
const { createPhonemizer, arpabetToIpa, stripStress, ARPABET_IPA, loadLexicon, MODEL_NAMES } = g2pModule;
const manifest = (await import(await pkg.resolve('seq2seq-wasm-models'))).default;
const cmudict = pronunciationsOf((await readPackage()).dictionary);
const cmu = (word) => cmudict.get(word).map((p) => p.split(' '));

const SENTENCE = 'Hello, world! It\'s 2026 and the colonel\'s Kubernetes cluster is down.';
const plainEntry = manifest.models.find((m) => m.name === MODEL_NAMES.plain);

let g2p;
let model;   // the same model, to hold the phonemizer's model words to
before(async () => {
  g2p = await createPhonemizer();
  model = await loadModel(join(pkg.modelsDir, plainEntry.file));
});
after(() => {
  g2p.delete();
  model.delete();
});

const decoded = (word) => model.decode(word, plainEntry.decoding)[0].text.split(' ');

describe('the sentence', () => {
  test('each word from where it should come: lexicon, number, model; punctuation kept', async () => {
    const r = await g2p.phonemize(SENTENCE);
    assert.deepEqual(r.tokens.map((t) => [t.text, t.source]), [
      ['Hello', 'lexicon'], [',', 'punctuation'], ['world', 'lexicon'], ['!', 'punctuation'], ['It\'s', 'lexicon'], ['2026', 'number'],
      ['and', 'lexicon'], ['the', 'lexicon'], ['colonel\'s', 'lexicon'], ['Kubernetes', 'model'], ['cluster', 'lexicon'], ['is', 'lexicon'],
      ['down', 'lexicon'], ['.', 'punctuation'],
    ]);
    const by = Object.fromEntries(r.tokens.map((t) => [t.text, t]));
    // CMUdict's first pronunciation, stress kept; its others as alternatives.
    for (const w of ['Hello', 'world', 'It\'s', 'and', 'the', 'colonel\'s', 'cluster', 'is', 'down']) {
      const [first, ...rest] = cmu(w.toLowerCase());
      assert.deepEqual(by[w].phonemes, first, w);
      assert.deepEqual(by[w].alternatives, rest, w);
      assert.equal(by[w].stressed, true, w);
    }
    assert.deepEqual(by['colonel\'s'].phonemes, ['K', 'ER1', 'N', 'AH0', 'L', 'Z']);
    assert.equal(by['2026'].spoken, 'twenty twenty-six');
    assert.deepEqual(by['2026'].phonemes, [...cmu('twenty')[0], ...cmu('twenty')[0], ...cmu('six')[0]]);
    // The model's output for the word, as the engine decodes it with the manifest's settings; no stress.
    assert.deepEqual(by.Kubernetes.phonemes, decoded('KUBERNETES'));
    assert.ok(by.Kubernetes.phonemes.every((p) => !/\d/.test(p)));
    assert.equal(by.Kubernetes.stressed, false);
    for (const t of r.tokens) assert.equal(SENTENCE.slice(t.start, t.end), t.text);
  });

  test('ARPAbet and IPA of the whole', async () => {
    const r = await g2p.phonemize(SENTENCE);
    const kube = decoded('KUBERNETES');
    assert.equal(r.arpabet, '{HH AH0 L OW1}, {W ER1 L D}! {IH1 T S} {T W EH1 N T IY0} {T W EH1 N T IY0} {S IH1 K S} {AH0 N D} {DH AH0} '
      + `{K ER1 N AH0 L Z} {${kube.join(' ')}} {K L AH1 S T ER0} {IH1 Z} {D AW1 N}.`);
    assert.equal(r.ipa, `həˈloʊ, ˈwɝld! ˈɪts ˈtwɛnti ˈtwɛnti ˈsɪks ənd ðə ˈkɝnəlz ${arpabetToIpa(kube)} ˈklʌstɚ ˈɪz ˈdaʊn.`);
    assert.equal(r.tokens.find((t) => t.text === 'colonel\'s').ipa, 'ˈkɝnəlz');
    assert.equal(r.tokens.find((t) => t.text === '2026').ipa, 'ˈtwɛnti ˈtwɛnti ˈsɪks');
  });
});

describe('IPA', () => {
  test('the table: every CMUdict phone, and the vowels stress changes', async () => {
    const phones = new Set([...cmudict.values()].flat().flatMap((p) => p.split(' ')));
    for (const p of phones) assert.equal(typeof arpabetToIpa([p]), 'string', p);
    assert.equal(stripStress([...phones]).filter((p, i, a) => a.indexOf(p) === i).length, 39, 'CMUdict\'s 39 phonemes');
    assert.equal(arpabetToIpa(['AH0']), 'ə');
    assert.equal(arpabetToIpa(['AH1']), 'ˈʌ');
    assert.equal(arpabetToIpa(['AH2']), 'ˌʌ');
    assert.equal(arpabetToIpa(['ER0']), 'ɚ');
    assert.equal(arpabetToIpa(['ER1']), 'ˈɝ');
    assert.equal(ARPABET_IPA.AH0, 'ə');
    assert.equal(ARPABET_IPA.ER, 'ɝ');
  });

  test('a symbol that is no ARPAbet phone, an object key\'s name included: UsageError naming it', () => {
    for (const bad of ['XX', 'toString', 'constructor', '__proto__', 'hasOwnProperty', 'AH3', 'ah1', '']) {
      assert.throws(() => arpabetToIpa(['HH', bad]), (e) => e instanceof Seq2SeqError && e.kind === 'UsageError'
        && e.message.includes(`${JSON.stringify(bad)} is no ARPAbet phone`), bad);
    }
    assert.throws(() => arpabetToIpa('HH AH0'), (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && /must be an array/.test(e.message));
  });

  test('a vowel without a digit reads as CMUdict\'s commoner one: AH as ə (89 % of its AH), ER as ɚ (82 %)', () => {
    const count = (re) => [...cmudict.values()].flat().join(' ').split(' ').filter((p) => re.test(p)).length;
    assert.equal(Math.round((100 * count(/^AH0$/)) / count(/^AH\d$/)), 89);
    assert.equal(Math.round((100 * count(/^ER0$/)) / count(/^ER\d$/)), 82);
    assert.equal(arpabetToIpa(['AH', 'B', 'ER']), 'əbɚ');
  });

  test('stress marks at the start of the syllable: before the longest onset English allows', () => {
    const cases = {
      'K AH0 N S T R AH1 K T': 'kənˈstɹʌkt',
      'HH AH0 L OW1': 'həˈloʊ',
      'AH0 B AW1 T': 'əˈbaʊt',
      'EH1 K S T R AH0': 'ˈɛkstɹə',
      'IH0 K S T R IY1 M': 'ɪkˈstɹim',
      'AE2 T AH0 M IH1 K': 'ˌætəˈmɪk',
      'S IH1 NG ER0': 'ˈsɪŋɚ',
      'IH0 N S P AY1 R': 'ɪnˈspaɪɹ',
      'AH0 P L AY1': 'əˈplaɪ',
    };
    for (const [arpabet, ipa] of Object.entries(cases)) assert.equal(arpabetToIpa(arpabet.split(' ')), ipa, arpabet);
  });
});

describe('numbers', () => {
  const spoken = async (text) => (await g2p.phonemize(text)).tokens.filter((t) => t.source === 'number').map((t) => t.spoken);
  test('cardinals, years, ordinals, decimals, currency, percent', async () => {
    const cases = {
      0: 'zero', 7: 'seven', 13: 'thirteen', 42: 'forty-two', 100: 'one hundred', 101: 'one hundred one', 999: 'nine hundred ninety-nine',
      '1,234,567': 'one million two hundred thirty-four thousand five hundred sixty-seven', 1000000: 'one million', 3000: 'three thousand',
      2026: 'twenty twenty-six', 1984: 'nineteen eighty-four', 1905: 'nineteen oh five', 1900: 'nineteen hundred', 2000: 'two thousand',
      2007: 'two thousand seven', 2010: 'twenty ten', 1066: 'one thousand sixty-six', '1990s': 'nineteen nineties', '80s': 'eighties',
      '1st': 'first', '2nd': 'second', '3rd': 'third', '4th': 'fourth', '12th': 'twelfth', '21st': 'twenty-first', '40th': 'fortieth', '100th': 'one hundredth',
      3.14: 'three point one four', '0.5': 'zero point five', '.25': 'point two five',
      $5: 'five dollars', $1: 'one dollar', '$5.50': 'five dollars and fifty cents', '$0.99': 'ninety-nine cents', '$1,000': 'one thousand dollars',
      '£2.5': 'two pounds and fifty pence', '€1': 'one euro', '$1.005': 'one point zero zero five dollars',
      '50%': 'fifty percent', '3.5%': 'three point five percent', '-7': 'minus seven', '-1st': 'minus first', '-5th': 'minus fifth', '007': 'zero zero seven',
      1000000000000000: 'one zero zero zero zero zero zero zero zero zero zero zero zero zero zero zero',
    };
    for (const [text, words] of Object.entries(cases)) assert.deepEqual(await spoken(text), [words], text);
  });

  test('a number\'s phonemes are its words\' first CMUdict pronunciations', async () => {
    const [t] = (await g2p.phonemize('$21.07')).tokens;
    assert.equal(t.spoken, 'twenty-one dollars and seven cents');
    assert.deepEqual(t.phonemes, ['twenty', 'one', 'dollars', 'and', 'seven', 'cents'].flatMap((w) => cmu(w)[0]));
    assert.equal(t.stressed, true);
  });

  test('digits next to letters and hyphens are numbers of their own', async () => {
    const r = await g2p.phonemize('COVID-19 mp3 10am 3-5');
    assert.deepEqual(r.tokens.map((t) => [t.text, t.source]),
      [['COVID', 'model'], ['19', 'number'], ['mp', 'letters'], ['3', 'number'], ['10am', 'time'], ['3', 'number'], ['-', 'range'], ['5', 'number']]);
  });
});

describe('words', () => {
  test('case, accents and curly apostrophes are read as CMUdict spells the word', async () => {
    const r = await g2p.phonemize('HELLO hello Hello naïve café it’s');
    assert.deepEqual(r.tokens.map((t) => t.source), Array(6).fill('lexicon'));
    assert.deepEqual(r.tokens[0].phonemes, r.tokens[1].phonemes);
    assert.deepEqual(r.tokens[3].phonemes, cmu('naive')[0]);
    assert.deepEqual(r.tokens[4].phonemes, cmu('cafe')[0]);
    assert.deepEqual(r.tokens[5].phonemes, cmu('it\'s')[0]);
  });

  test('contractions and possessives: CMUdict\'s own, else the word\'s with /s/, /z/ or /ɪz/', async () => {
    const r = await g2p.phonemize('don\'t we\'ll students\' cat\'s O\'Brien glitch\'s laptop\'s zebra\'s garage\'s');
    const by = Object.fromEntries(r.tokens.map((t) => [t.text, t]));
    for (const w of ['don\'t', 'we\'ll', 'cat\'s', 'O\'Brien']) assert.deepEqual(by[w].phonemes, cmu(w.toLowerCase())[0], w);
    assert.deepEqual(by['students\''].phonemes, cmu('students')[0]);
    const derived = { glitch: ['IH0', 'Z'], laptop: ['S'], zebra: ['Z'], garage: ['IH0', 'Z'] };
    for (const [w, suffix] of Object.entries(derived)) {
      assert.ok(!cmudict.has(`${w}'s`), `CMUdict lacks ${w}'s`);
      assert.deepEqual(by[`${w}'s`].phonemes, [...cmu(w)[0], ...suffix], w);
      assert.deepEqual(by[`${w}'s`].alternatives, cmu(w).slice(1).map((p) => [...p, ...suffix]), w);
    }
    for (const t of r.tokens) assert.equal(t.source, 'lexicon', t.text);
  });

  test('quotes are punctuation; a leading apostrophe stays on words CMUdict has with it', async () => {
    const r = await g2p.phonemize('\'Hello\' \'em \'cause');
    assert.deepEqual(r.tokens.map((t) => [t.text, t.source]),
      [['\'', 'punctuation'], ['Hello', 'lexicon'], ['\'', 'punctuation'], ['\'em', 'lexicon'], ['\'cause', 'lexicon']]);
  });

  test('hyphens: the whole word if CMUdict has it, else each part', async () => {
    assert.ok(cmudict.has('state-of-the-art') && cmudict.has('x-ray') && !cmudict.has('self-esteem') && !cmudict.has('twenty-six'));
    const r = await g2p.phonemize('state-of-the-art X-ray self-esteem twenty-six');
    assert.deepEqual(r.tokens.map((t) => [t.text, t.source]),
      [['state-of-the-art', 'lexicon'], ['X-ray', 'lexicon'], ['self', 'lexicon'], ['esteem', 'lexicon'], ['twenty', 'lexicon'], ['six', 'lexicon']]);
    assert.deepEqual(r.tokens[0].phonemes, cmu('state-of-the-art')[0]);
    assert.deepEqual(r.tokens[1].phonemes, cmu('x-ray')[0]);
    assert.equal(r.ipa, `${arpabetToIpa(cmu('state-of-the-art')[0])} ${arpabetToIpa(cmu('x-ray')[0])} ˈsɛlf əˈstim ˈtwɛnti ˈsɪks`);
  });

  test('titles and street words with their dot: the word they stand for, by what follows', async () => {
    const r = await g2p.phonemize('Dr. O\'Brien lives at 4 Elm Dr. near St. Mark\'s, on Main St. with Mr. and Mrs. Li.');
    const by = r.tokens.filter((t) => /\w\.$/.test(t.text)).map((t) => [t.text, t.source, t.phonemes.join(' ')]);
    assert.deepEqual(by, [['Dr.', 'abbreviation', cmu('doctor')[0].join(' ')], ['Dr.', 'abbreviation', cmu('drive')[0].join(' ')],
      ['St.', 'abbreviation', cmu('saint')[0].join(' ')], ['St.', 'abbreviation', cmu('street')[0].join(' ')],
      ['Mr.', 'abbreviation', cmu('mister')[0].join(' ')], ['Mrs.', 'abbreviation', cmu('missus')[0].join(' ')]]);
    assert.equal(r.tokens.at(-1).text, '.', 'a sentence\'s last dot is punctuation');
    // Without its dot a title is the word CMUdict has ("dr" is its own entry).
    assert.equal((await g2p.phonemize('dr')).tokens[0].phonemes.join(' '), cmu('dr')[0].join(' '));
  });

  test('homographs: one of CMUdict\'s pronunciations chosen by context, the others as alternatives', async () => {
    const [, read, , , live] = (await g2p.phonemize('I read; we live')).tokens;
    for (const [t, word] of [[read, 'read'], [live, 'live']]) {
      assert.deepEqual([t.phonemes, ...t.alternatives].map((p) => p.join(' ')).sort(), cmu(word).map((p) => p.join(' ')).sort(), word);
      assert.ok(t.alternatives.length >= 1, word);
    }
    assert.deepEqual(live.phonemes, ['L', 'IH1', 'V']);
  });

  test('prototype keys are ordinary words', async () => {
    const lexicon = await loadLexicon();
    for (const w of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype']) {
      assert.deepEqual(lexicon.lookup(w), cmudict.has(w.toLowerCase()) ? cmu(w.toLowerCase()) : undefined, w);
    }
    const r = await g2p.phonemize('constructor toString __proto__ hasOwnProperty valueOf');
    assert.deepEqual(r.tokens.find((t) => t.text === 'constructor').phonemes, cmu('constructor')[0]);
    // Written in parts, each a word CMUdict has: read part by part.
    assert.deepEqual(['hasOwnProperty', 'compound', 'has Own Property'], ['source', 'spoken'].reduce((a, k) => [...a, r.tokens.find((t) => t.text === 'hasOwnProperty')[k]], ['hasOwnProperty']));
    assert.ok(r.tokens.every((t) => !t.error));
  });

  test('the words CMUdict lacks go to the model in one decodeBatch call, each once, with the manifest\'s settings', async () => {
    const calls = [];
    const observed = { info: model.info, decodeBatch: (texts, options) => { calls.push({ texts, options }); return model.decodeBatch(texts, options); } };
    const p = await createPhonemizer({ model: observed });
    const r = await p.phonemize('Kubernetes and Wasmtime: kubernetes, Zorblax and the colonel.');
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].texts, ['KUBERNETES', 'WASMTIME', 'ZORBLAX']);
    assert.deepEqual(calls[0].options, plainEntry.decoding);
    for (const t of r.tokens.filter((x) => x.source === 'model')) assert.deepEqual(t.phonemes, decoded(t.text.toUpperCase()), t.text);
    await p.phonemize('the colonel');
    assert.equal(calls.length, 1, 'no call when every word is in the lexicon');
    p.delete();
    assert.ok(!model.deleted, 'a model given is not deleted');
  });

  test('a lexicon of one\'s own, with lookup() alone', async () => {
    const mine = { lookup: (w) => (w === 'kubernetes' ? [['K', 'UW2', 'B', 'ER0', 'N', 'EH1', 'T', 'IY0', 'Z']] : w === '\'em' ? [['AH0', 'M']] : undefined) };
    const p = await createPhonemizer({ model, lexicon: mine });
    const r = await p.phonemize('Kubernetes \'em colonel');
    assert.deepEqual(r.tokens.map((t) => [t.text, t.source]), [['Kubernetes', 'lexicon'], ['\'em', 'lexicon'], ['colonel', 'model']]);
    assert.equal(r.tokens[0].ipa, 'ˌkubɚˈnɛtiz');
  });

  test('a lexicon of one\'s own that answers with what is no pronunciation: UsageError naming the word and the phone', async () => {
    const answers = {
      tostr: [['T', 'toString']], proto: [['constructor']], lower: [['k', 'ae1', 't']], nophone: [['XX']], digit: [['AH3']],
      notarray: 'K AE1 T', empty: [], emptypron: [[]], number: [[5]],
    };
    const p = await createPhonemizer({ model, lexicon: { lookup: (w) => answers[w] } });
    const usage = (re) => (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && re.test(e.message);
    await assert.rejects(p.phonemize('the tostr'), usage(/lookup\("tostr"\) gave "toString", which is no ARPAbet phone/));
    await assert.rejects(p.phonemize('proto'), usage(/lookup\("proto"\) gave "constructor", which is no ARPAbet phone/));
    await assert.rejects(p.phonemize('lower'), usage(/lookup\("lower"\) gave "k", which is no ARPAbet phone/));
    await assert.rejects(p.phonemize('nophone'), usage(/"XX", which is no ARPAbet phone/));
    await assert.rejects(p.phonemize('digit'), usage(/"AH3", which is no ARPAbet phone/));
    await assert.rejects(p.phonemize('notarray'), usage(/lookup\("notarray"\) gave the string "K AE1 T", not undefined or an array/));
    await assert.rejects(p.phonemize('empty'), usage(/lookup\("empty"\) gave an array, not undefined or an array of pronunciations/));
    await assert.rejects(p.phonemize('emptypron'), usage(/lookup\("emptypron"\) gave a pronunciation that is an array, not an array of ARPAbet phones/));
    await assert.rejects(p.phonemize('number'), usage(/lookup\("number"\) gave the number 5, which is no ARPAbet phone/));
    // Its good answers are read as they are; words it lacks go to the model.
    answers.cat = [['K', 'AE1', 'T'], ['K', 'AA1', 'T']];
    const r = await p.phonemize('cat zorblax');
    assert.deepEqual(r.tokens.map((t) => [t.source, t.ipa]), [['lexicon', 'ˈkæt'], ['model', arpabetToIpa(decoded('ZORBLAX'))]]);
    p.delete();
  });

  test('lexicon: false sends every word to the model', async () => {
    const p = await createPhonemizer({ model, lexicon: false });
    const [t] = (await p.phonemize('colonel')).tokens;
    assert.equal(t.source, 'model');
    assert.deepEqual(t.phonemes, decoded('COLONEL'));
    assert.equal(p.lexicon, null);
  });
});

describe('in a worker', () => {
  test('the same tokens, decoded by a decoder worker', async () => {
    const worker = createDecoderWorker();
    try {
      const p = await createPhonemizer({ worker });
      assert.deepEqual(await p.phonemize(SENTENCE), await g2p.phonemize(SENTENCE));
      p.delete();
    } finally {
      await worker.terminate();
    }
  });

  test('a long text of words CMUdict lacks: the calling thread runs on while the worker decodes them', async () => {
    // 40 made-up words: one batch the worker decodes while this thread keeps turning its event loop.
    let seed = 3;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const word = () => Array.from({ length: 6 + Math.floor(rnd() * 5) }, (_, i) => (i % 2 ? 'aeiou' : 'bdfgklmnprstvz')[Math.floor(rnd() * (i % 2 ? 5 : 14))]).join('');
    const text = Array.from({ length: 40 }, word).join(' ');
    const worker = createDecoderWorker();
    try {
      const p = await createPhonemizer({ worker });
      let turns = 0;
      let done = false;
      const spin = () => { if (!done) { turns++; setImmediate(spin); } };
      setImmediate(spin);
      const r = await p.phonemize(text);
      done = true;
      assert.ok(r.tokens.filter((t) => t.source === 'model').length > 30);
      assert.ok(turns > 5, `the event loop turned ${turns} times while the worker decoded`);
      assert.deepEqual(r, await g2p.phonemize(text), 'the same as decoded in this thread');
      p.delete();
    } finally {
      await worker.terminate();
    }
  });
});

describe('with a decoder pool', () => {
  // Made-up words the lexicon lacks, so that the model decodes every one.
  const madeUp = (n, seed) => {
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    return Array.from({ length: n }, () => Array.from({ length: 5 + Math.floor(rnd() * 5) }, (_, i) => (i % 2 ? 'aeiou' : 'bdfgklmnprstvz')[Math.floor(rnd() * (i % 2 ? 5 : 14))]).join(''));
  };

  test("a text of the pool's minTexts unknown words or more goes to the pool, a shorter one does not; the phonemes are the same", async () => {
    const pool = createDecoderPool({ size: 2 });
    const POOL_MIN_WORDS = pool.minTexts;
    const batches = [];
    const spied = { minTexts: pool.minTexts, load: (...a) => pool.load(...a), terminate: () => pool.terminate(), decodeBatch: (texts, ...rest) => { batches.push(texts.length); return pool.decodeBatch(texts, ...rest); } };
    try {
      const p = await createPhonemizer({ pool: spied });
      const long = `${madeUp(POOL_MIN_WORDS + 9, 5).join(' ')}, and the cat.`;
      const short = madeUp(POOL_MIN_WORDS - 1, 9).join(' ');
      const r = await p.phonemize(long);
      assert.equal(r.tokens.filter((t) => t.source === 'model').length, POOL_MIN_WORDS + 9);
      assert.deepEqual(batches, [POOL_MIN_WORDS + 9]);
      assert.deepEqual(r, await g2p.phonemize(long), 'the same as decoded in this thread');
      assert.deepEqual(await p.phonemize(short), await g2p.phonemize(short));
      assert.deepEqual(batches, [POOL_MIN_WORDS + 9], 'the short text is decoded without the pool');
      p.delete();
    } finally {
      await pool.terminate();
    }
  });

  test('a bad pool, or a pool beside a model object: UsageError', async () => {
    for (const pool of [null, 3, {}, { load() {}, decodeBatch() {} }]) {
      await assert.rejects(createPhonemizer({ pool }), (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && /pool must be a decoder pool/.test(e.message));
    }
    const pool = createDecoderPool({ size: 1 });
    try {
      const model = await loadModel(join(pkg.modelsDir, 'g2p-transformer.safetensors'));
      await assert.rejects(createPhonemizer({ pool, model }), (e) => e.kind === 'UsageError' && /a pool loads the model from its source/.test(e.message));
      model.delete();
    } finally {
      await pool.terminate();
    }
  });
});

describe('bad input', () => {
  test('a text that is no string: UsageError', async () => {
    for (const v of [undefined, null, 5, {}, ['a'], Symbol('s')]) {
      await assert.rejects(g2p.phonemize(v), (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && /phonemize: the text must be a string/.test(e.message), String(typeof v));
    }
  });

  test('a text over LIMITS.maxTextBytes bytes of UTF-8: InputError, however long', async () => {
    assert.equal((await g2p.phonemize('a '.repeat(LIMITS.maxTextBytes / 2))).tokens.length, LIMITS.maxTextBytes / 2);
    for (const text of ['a'.repeat(LIMITS.maxTextBytes + 1), 'é'.repeat(LIMITS.maxTextBytes / 2 + 1), 'x'.repeat(50_000_000)]) {
      await assert.rejects(g2p.phonemize(text), (e) => e instanceof Seq2SeqError && e.kind === 'InputError' && /longest the phonemizer reads is 65536 bytes/.test(e.message));
    }
  });

  test('characters it cannot read are reported on their tokens, the rest read', async () => {
    const r = await g2p.phonemize('Hello 日本語 😀 © world \uD800 Привет');
    assert.deepEqual(r.tokens.map((t) => [t.text, t.source]),
      [['Hello', 'lexicon'], ['日本語', 'none'], ['😀', 'none'], ['©', 'none'], ['world', 'lexicon'], ['\uD800', 'none'], ['Привет', 'none']]);
    for (const t of r.tokens.filter((x) => x.source === 'none')) {
      assert.equal(t.error.kind, 'InputError');
      assert.ok(t.error.message.includes(JSON.stringify(t.text)), t.error.message);
      assert.deepEqual(t.phonemes, []);
    }
    assert.equal(r.ipa, 'həˈloʊ ˈwɝld');
  });

  test('a text that ends with a word: its last token ends at the text\'s end', async () => {
    for (const text of ['hello', 'the colonel', 'students\'', 'say hello']) {
      const r = await g2p.phonemize(text);
      assert.equal(r.tokens.at(-1).end, text.length, text);
      for (const t of r.tokens) assert.equal(text.slice(t.start, t.end), t.text);
    }
  });

  test('a lone modifier apostrophe (ʼ) is a quote: the words around it are read', async () => {
    const r = await g2p.phonemize('hello ʼ world itʼs');
    assert.deepEqual(r.tokens.map((t) => [t.text, t.source, t.start, t.end]),
      [['hello', 'lexicon', 0, 5], ['ʼ', 'punctuation', 6, 7], ['world', 'lexicon', 8, 13], ['itʼs', 'lexicon', 14, 18]]);
  });

  test('a word the model refuses is that token\'s error; the others are read', async () => {
    // The engine refuses a word longer than its positions; told a larger limit, the
    // phonemizer sends one, and the engine's refusal of it must stay on its token.
    const lax = { info: { ...model.info, maxPositions: 1000 }, decodeBatch: (texts, o) => model.decodeBatch(texts, o) };
    const long = 'z'.repeat(model.info.maxPositions + 10);
    const p = await createPhonemizer({ model: lax });
    for (const text of [`zorblax ${long} the Kubernetes`, long]) {
      const r = await p.phonemize(text);
      const bad = r.tokens.find((t) => t.text === long);
      assert.equal(bad.source, 'none');
      assert.equal(bad.error.kind, 'InputError');
      assert.match(bad.error.message, /^input: /);
      assert.deepEqual(bad.phonemes, []);
      for (const t of r.tokens.filter((x) => x.source === 'model')) assert.deepEqual(t.phonemes, decoded(t.text.toUpperCase()), t.text);
      assert.equal(r.tokens.filter((x) => x.source === 'model').length, text === long ? 0 : 2);
    }
    // Any other failure of the model rejects the call.
    const broken = { info: model.info, decodeBatch: () => { throw new Seq2SeqError('the model broke', 'ModelError'); } };
    const q = await createPhonemizer({ model: broken });
    await assert.rejects(q.phonemize('zorblax'), (e) => e.kind === 'ModelError');
  });

  test('a word longer than the model reads is reported on its token', async () => {
    const long = 'z'.repeat(model.info.maxPositions + 1);
    const r = await g2p.phonemize(`the ${long} cat`);
    assert.equal(r.tokens[1].source, 'none');
    assert.match(r.tokens[1].error.message, new RegExp(`the word has ${long.length} letters; the model reads at most ${model.info.maxPositions}`));
    assert.equal(r.tokens[2].source, 'lexicon');
  });

  test('random text never throws; every character is in a token or is white space or a joining hyphen', async () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pool = ['a', 'Z', 'é', '\'', '’', '-', '.', ',', '$', '%', '1', '0', ' ', '\n', '\t', '日', '😀', '\uD800', '\uDC00', '\u00AD', '\u200B', '_', '(', 'st', 'th', 's', '£', '€'];
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: Math.floor(rnd() * 30) }, () => pool[Math.floor(rnd() * pool.length)]).join('');
      const r = await g2p.phonemize(text);
      let covered = 0;
      for (const t of r.tokens) {
        assert.ok(t.start >= covered && t.end > t.start && t.end <= text.length, JSON.stringify(text));
        assert.equal(text.slice(t.start, t.end), t.text);
        assert.match(text.slice(covered, t.start), /^[\s\p{Cc}\p{Cf}-]*$/u, JSON.stringify(text));
        covered = t.end;
        assert.ok(t.source === 'none' ? t.error : !t.error);
      }
      assert.match(text.slice(covered), /^[\s\p{Cc}\p{Cf}-]*$/u, JSON.stringify(text));
    }
  });

  test('options: unknown names, wrong types, and a deleted phonemizer are UsageErrors', async () => {
    const usage = (re) => (e) => e instanceof Seq2SeqError && e.kind === 'UsageError' && re.test(e.message);
    await assert.rejects(createPhonemizer({ stres: true }), usage(/unknown option "stres"/));
    await assert.rejects(createPhonemizer({ stress: 'yes' }), usage(/stress must be true or false, not the string "yes"/));
    await assert.rejects(createPhonemizer(5), usage(/options must be an object, not the number 5/));
    await assert.rejects(createPhonemizer({ worker: {} }), usage(/worker must be a decoder worker/));
    await assert.rejects(createPhonemizer({ lexicon: 'cmudict' }), usage(/lexicon must be \{ word: pronunciation \}, a lexicon/));
    await assert.rejects(createPhonemizer({ model, decoding: { beamSize: 0 } }).then((p) => p.phonemize('zorblax')), (e) => e.kind === 'UsageError' && /beamSize/.test(e.message));
    const p = await createPhonemizer({ model });
    p.delete();
    p.delete();
    await assert.rejects(p.phonemize('a'), usage(/deleted/));
  });

  test('a model that cannot be loaded: the engine\'s error', async () => {
    await assert.rejects(createPhonemizer({ model: join(pkg.project, 'missing.safetensors') }), (e) => e instanceof Seq2SeqError && e.kind === 'ModelError' && e.code === 'ENOENT');
  });
});

describe('with stress', () => {
  test('words CMUdict lacks come from the stressed model, with stress digits and marks', async () => {
    const entry = manifest.models.find((m) => m.name === MODEL_NAMES.stressed);
    assert.ok(entry, 'manifest.json lists the stressed model');
    const stressedModel = await loadModel(join(pkg.modelsDir, entry.file));
    const p = await createPhonemizer({ stress: true });
    try {
      assert.deepEqual(p.decoding, entry.decoding);
      const r = await p.phonemize(SENTENCE);
      const kube = r.tokens.find((t) => t.text === 'Kubernetes');
      assert.equal(kube.source, 'model');
      assert.equal(kube.stressed, true);
      assert.deepEqual(kube.phonemes, stressedModel.decode('KUBERNETES', entry.decoding)[0].text.split(' '));
      assert.ok(kube.phonemes.some((x) => /1$/.test(x)), 'a primary stress');
      assert.ok(kube.phonemes.every((x) => !/^(AA|AE|AH|AO|AW|AY|EH|ER|EY|IH|IY|OW|OY|UH|UW)$/.test(x)), 'every vowel has a digit');
      assert.match(kube.ipa, /ˈ/);
      assert.ok(r.tokens.every((t) => t.stressed || t.phonemes.length === 0));
      // The lexicon's words are as without stress.
      const plain = await g2p.phonemize(SENTENCE);
      r.tokens.forEach((t, i) => { if (t.source !== 'model') assert.deepEqual(t, plain.tokens[i]); });
    } finally {
      p.delete();
      stressedModel.delete();
    }
  });
});
