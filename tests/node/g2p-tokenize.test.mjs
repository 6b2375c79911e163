// The phonemizer's tokenizer (models/g2p/tokenize.js) against its promises:
// offsets that slice back to each token's text and stay inside the text, tokens
// in order covering every character but white space and joining hyphens
// (checkTokens in tests/fuzz/g2p_tokenize.mjs), over thousands of seeded random
// texts and a short run of the fuzz harness; and the cases that broke them.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { tokenize } from '../../models/g2p/tokenize.js';
import { checkText, checkTokens, fuzz, lexicons, random, randomText, readCorpus } from '../fuzz/g2p_tokenize.mjs';

let lex;
let cmudict;
before(async () => {
  lex = await lexicons();
  cmudict = lex[0][1];
});

const shape = (text, has = cmudict) => tokenize(text, has).map((t) => [t.kind, t.text, t.start, t.end]);

test('a text that ends with a word the lexicon has: its last token ends at the text\'s end', () => {
  assert.deepEqual(shape('hello'), [['word', 'hello', 0, 5]]);
  assert.deepEqual(shape('say hello'), [['word', 'say', 0, 3], ['word', 'hello', 4, 9]]);
  assert.deepEqual(shape('co-op'), [['word', 'co-op', 0, 5]]);
  // A trailing apostrophe is still the word's where it belongs to it.
  assert.deepEqual(shape('students\''), [['word', 'students\'', 0, 9]]);
  assert.deepEqual(shape('goin\''), [['word', 'goin\'', 0, 5]]);
  for (const text of ['hello', 'the colonel', 'I', 'co-op', 'a b c']) assert.equal(checkTokens(text, tokenize(text, cmudict)), null, text);
});

test('a modifier apostrophe (U+02BC) is an apostrophe: inside a word, or a quote alone, never a word without letters', () => {
  assert.deepEqual(shape('hello ʼ world'), [['word', 'hello', 0, 5], ['punctuation', 'ʼ', 6, 7], ['word', 'world', 8, 13]]);
  assert.deepEqual(shape('ʼʼ'), [['punctuation', 'ʼʼ', 0, 2]]);
  assert.deepEqual(tokenize('itʼs ʼem', cmudict).map((t) => [t.text, t.key]), [['itʼs', 'it\'s'], ['ʼem', '\'em']]);
  // As with ' and ’: a leading one the lexicon does not have with the word is a quote.
  assert.deepEqual(shape('ʼhelloʼ'), [['punctuation', 'ʼ', 0, 1], ['word', 'hello', 1, 6], ['punctuation', 'ʼ', 6, 7]]);
  assert.deepEqual(shape('\'hello\''), [['punctuation', '\'', 0, 1], ['word', 'hello', 1, 6], ['punctuation', '\'', 6, 7]]);
});

test('a dotted abbreviation of letters the lexicon cannot spell is no word, whatever the lexicon says it has', () => {
  const everything = () => true;
  const tokens = tokenize('i.鉍. U.S.', everything);
  assert.equal(checkTokens('i.鉍. U.S.', tokens), null);
  assert.ok(tokens.every((t) => t.kind !== 'word' || t.key), JSON.stringify(tokens));
  assert.deepEqual(tokens.at(-1), { kind: 'word', text: 'U.S.', start: 5, end: 9, key: 'u.s.' });
});

test('a minus before an ordinal is read', () => {
  assert.deepEqual(tokenize('-1st -5th 3rd', cmudict).map((t) => t.words.join(' ')), ['minus first', 'minus fifth', 'third']);
});

test('5,000 random texts: every promise kept, with CMUdict, with no lexicon and with one that has every word', () => {
  const rnd = random(57);
  for (let n = 0; n < 5000; n++) {
    const text = randomText(rnd, 40);
    assert.equal(checkText(text, lex), null, JSON.stringify(text));
  }
});

test('the fuzz harness: the committed corpus and 20,000 texts, random and mutated, with no finding', async () => {
  const corpus = readCorpus();
  assert.ok(corpus.length >= 20);
  const { executions, findings } = await fuzz({ executions: 20_000, seed: 1, corpus });
  assert.equal(executions, 20_000);
  assert.deepEqual(findings.slice(0, 3), []);
});

test('the checker finds what it is for', () => {
  // Each broken promise, written by hand: the harness must see it.
  const text = 'hello world';
  const good = tokenize(text);
  assert.equal(checkTokens(text, good), null);
  const cases = [
    [[{ ...good[0] }, { ...good[1], end: 12 }], /past the text's end/],
    [[{ ...good[0], text: 'hellp' }, good[1]], /slice "hello"/],
    [[good[0], good[0], good[1]], /before the previous token's end/],
    [[good[0]], /outside every token/],
    [[{ ...good[0], key: '\'' }, good[1]], /has no letter/],
    [[{ ...good[0], kind: 'number', words: [] }, good[1]], /number words/],
  ];
  for (const [tokens, re] of cases) assert.match(checkTokens(text, tokens), re);
  assert.match(checkTokens('a-', [{ kind: 'word', text: 'a', start: 0, end: 1, key: 'a' }]), /hyphen at 1/);
  assert.match(checkTokens('😀', [{ kind: 'unreadable', text: '\uD83D', start: 0, end: 1 }]), /surrogate pair|outside every token/);
});
