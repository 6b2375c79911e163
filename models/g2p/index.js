// seq2seq-wasm-models/g2p: English text to phonemes. CMUdict first (the lexicon,
// stress kept), numbers read as words, and the package's G2P Transformer for
// every word CMUdict lacks, all of them in one decodeBatch call with the
// manifest's decoding settings for that model.
//
//   import { createPhonemizer } from 'seq2seq-wasm-models/g2p';
//   const g2p = await createPhonemizer();            // the lexicon and g2p-transformer
//   const { tokens, arpabet, ipa } = await g2p.phonemize("It's 2026.");
//   g2p.delete();
//
// Tokens: tokenize.js; numbers: numbers.js; ARPAbet to IPA: ipa.js; the lexicon:
// lexicon.js (loaded when a phonemizer is created, not when this module is).
import { LIMITS, Seq2SeqError, loadModel } from 'seq2seq-wasm';
import manifest from '../manifest.js';
import { FORMATS, INVENTORY, STRESSED_FORMATS, WORD_WRITERS, functionReading, functionWord, punctuationIn } from './formats.js';
import { ARPABET_IPA, arpabetToIpa, isPhone, stripStress } from './ipa.js';
import { chooseReading } from './homographs.js';
import { loadLexicon } from './lexicon.js';
import { readText } from './normalize.js';

export { ARPABET_IPA, FORMATS, INVENTORY, arpabetToIpa, loadLexicon, stripStress };

/** The package's model for words the lexicon lacks: without stress, and with. */
export const MODEL_NAMES = Object.freeze({ plain: 'g2p-transformer', stressed: 'g2p-transformer-stress' });

// Literal URLs, so that bundlers that follow new URL(…, import.meta.url) (Vite,
// webpack 5, Parcel) find and emit the file.
const packageModelUrl = (stress) => (stress
  ? new URL('../g2p-transformer-stress.safetensors', import.meta.url)
  : new URL('../g2p-transformer.safetensors', import.meta.url));

const OPTIONS = ['stress', 'format', 'model', 'worker', 'pool', 'loadOptions', 'decoding', 'lexicon'];

const usage = (message) => new Seq2SeqError(message, 'UsageError');

/** A value as a message names it (the engine's messages name values the same way). */
function shown(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return typeof value === 'number' || typeof value === 'boolean' ? `the ${typeof value} ${value}` : typeof value;
}

const isDecoder = (m) => m !== null && typeof m === 'object' && typeof m.decodeBatch === 'function' && typeof m.info === 'object';

// The possessive 's after a word's last phone: /ɪz/ after a sibilant, /s/ after
// another voiceless consonant, /z/ otherwise (the English rule).
const SIBILANTS = new Set(['S', 'Z', 'SH', 'ZH', 'CH', 'JH']);
const VOICELESS = new Set(['P', 'T', 'K', 'F', 'TH']);
function possessive(phones) {
  const last = phones.at(-1)?.replace(/\d$/, '');
  return [...phones, ...(SIBILANTS.has(last) ? ['IH0', 'Z'] : VOICELESS.has(last) ? ['S'] : ['Z'])];
}

// A word of a 'spoken' token as the lexicon spells it: a capital letter is the
// letter's name, which CMUdict has as "a.", "b.", … ("U's" → "u.'s").
const spokenKey = (w) => (/^[A-Z](['’]s)?$/.test(w) ? `${w[0].toLowerCase()}.${w.slice(1).replace('’', '\'')}` : w.toLowerCase());

/**
 * A phonemizer: the lexicon, and a model for the words it lacks (loaded here,
 * in a worker, or given). Rejects with a Seq2SeqError: 'UsageError' for bad
 * options, the engine's errors for a model that cannot be loaded ('ModelError'
 * for a package whose manifest lacks the model asked for).
 */
export async function createPhonemizer(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw usage(`createPhonemizer: options must be an object, not ${shown(options)}`);
  }
  for (const k of Object.keys(options)) {
    if (!OPTIONS.includes(k)) throw usage(`createPhonemizer: unknown option ${JSON.stringify(k)} (the options: ${OPTIONS.join(', ')})`);
  }
  const { format = 'ipa', model, worker, pool, loadOptions, decoding, lexicon: lexiconOption } = options;
  checkFormat('createPhonemizer', format);
  // A format for voices wants every word stressed: the stressed model by default.
  const { stress = STRESSED_FORMATS.includes(format) } = options;
  if (typeof stress !== 'boolean') throw usage(`createPhonemizer: stress must be true or false, not ${shown(stress)}`);
  // A plain object of words is the user's own entries, over CMUdict; an object with lookup() replaces CMUdict.
  const ownWords = isWordTable(lexiconOption) ? userEntries(lexiconOption) : null;
  const givenLexicon = ownWords ? undefined : lexiconOption;
  if (worker !== undefined && (worker === null || typeof worker.load !== 'function' || typeof worker.decodeBatch !== 'function')) {
    throw usage(`createPhonemizer: worker must be a decoder worker (createDecoderWorker() of seq2seq-wasm/worker), not ${shown(worker)}`);
  }
  if (worker !== undefined && isDecoder(model)) throw usage('createPhonemizer: a model object and a worker were both given: give one');
  if (pool !== undefined && (pool === null || typeof pool.load !== 'function' || typeof pool.decodeBatch !== 'function' || typeof pool.terminate !== 'function' || typeof pool.minTexts !== 'number')) {
    throw usage(`createPhonemizer: pool must be a decoder pool (createDecoderPool() of seq2seq-wasm/worker), not ${shown(pool)}`);
  }
  if (pool !== undefined && isDecoder(model)) throw usage("createPhonemizer: a pool loads the model from its source: give the model's URL, path or bytes, not a model object");
  if (decoding !== undefined && (decoding === null || typeof decoding !== 'object' || Array.isArray(decoding))) {
    throw usage(`createPhonemizer: decoding must be an object of decoding options, not ${shown(decoding)}`);
  }
  if (givenLexicon !== undefined && givenLexicon !== false && typeof givenLexicon?.lookup !== 'function') {
    throw usage(`createPhonemizer: lexicon must be { word: pronunciation }, a lexicon (an object with lookup(word)) or false, not ${shown(givenLexicon)}`);
  }
  const name = stress ? MODEL_NAMES.stressed : MODEL_NAMES.plain;
  const entry = manifest.models.find((m) => m.name === name);
  if (!entry && decoding === undefined) {
    throw new Seq2SeqError(`createPhonemizer: this package has no ${name} model (manifest.json lists ${manifest.models.map((m) => m.name).join(', ')}); `
      + 'give a model and its decoding options', 'ModelError');
  }
  const settings = { ...(decoding ?? entry.decoding) };

  const lexiconPromise = givenLexicon === undefined ? loadLexicon() : Promise.resolve(givenLexicon || null);
  let decoder;
  let owned = null;
  const source = model === undefined || isDecoder(model) ? packageModelUrl(stress) : model;
  // The pool's copies load beside the model of the short texts.
  const pooled = pool === undefined ? null : pool.load(source, loadOptions);
  pooled?.catch(() => {});
  if (isDecoder(model)) decoder = model;
  else if (worker) {
    const info = await worker.load(source, loadOptions);
    decoder = { info, decodeBatch: (texts, o) => worker.decodeBatch(texts, o) };
  } else {
    owned = await loadModel(source, loadOptions);
    decoder = owned;
  }
  const lexicon = await lexiconPromise;
  if (pooled) {
    try {
      await pooled;
    } catch (e) {
      owned?.delete();
      throw e;
    }
  }
  // A model given as an object says itself whether it writes stress: its phonemes carry digits.
  const stressed = isDecoder(model) ? decoder.info.targetVocab.some((p) => /^[A-Z]+[012]$/.test(p)) : stress;
  return new Phonemizer({ lexicon, checked: givenLexicon !== undefined, ownWords, decoder, pool: pool ?? null, owned, stress: stressed, format, decoding: settings });
}

function checkFormat(where, format) {
  if (!FORMATS.includes(format)) throw usage(`${where}: format must be one of ${FORMATS.map((f) => `'${f}'`).join(', ')}, not ${shown(format)}`);
}

const isWordTable = (v) => v instanceof Map || (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.lookup !== 'function');

/**
 * The user's own words (`lexicon: { word: pronunciation }` or a Map): each
 * pronunciation ARPAbet, a string of phones separated by spaces or an array of
 * them, or several such in an array; checked now, so that a typo is a UsageError
 * naming the word and the phone when the phonemizer is made, not later.
 */
function userEntries(table) {
  const entries = table instanceof Map ? [...table] : Object.entries(table);
  const words = new Map();
  for (const [word, value] of entries) {
    const where = `createPhonemizer: lexicon[${JSON.stringify(String(word))}]`;
    if (typeof word !== 'string' || !/\p{L}/u.test(word)) throw usage(`${where}: a word must be a string with a letter, not ${shown(word)}`);
    const list = typeof value === 'string' ? [value]
      : Array.isArray(value) && value.length && value.every((v) => typeof v === 'string') && !value.some((v) => v.includes(' ')) && value.every(isPhone) ? [value]
        : Array.isArray(value) ? value : null;
    if (!list || !list.length) throw usage(`${where}: a pronunciation must be ARPAbet, a string ('K AE1 T') or an array of phones, not ${shown(value)}`);
    const prons = list.map((pron) => {
      const phones = typeof pron === 'string' ? pron.trim().split(/\s+/) : pron;
      if (!Array.isArray(phones) || !phones.length || phones[0] === '') throw usage(`${where}: a pronunciation must be ARPAbet, a string ('K AE1 T') or an array of phones, not ${shown(pron)}`);
      const bad = phones.find((ph) => !isPhone(ph));
      if (bad !== undefined) throw usage(`${where}: ${typeof bad === 'string' ? JSON.stringify(bad) : shown(bad)} is no ARPAbet phone (CMUdict's 39, vowels with stress 0, 1 or 2 or none)`);
      return Object.freeze([...phones]);
    });
    words.set(word.normalize('NFD').replace(/\p{M}/gu, '').replace(/[’ʼ]/g, '\'').toLowerCase(), Object.freeze(prons));
  }
  return words;
}

/**
 * A lexicon of the user's own answers lookup() with what it likes: its answer is
 * checked (an array of pronunciations, each an array of ARPAbet phones), and any
 * other is a UsageError naming the word and what is wrong.
 */
function checkedPronunciations(word, prons) {
  const fail = (what) => usage(`phonemize: the lexicon's lookup(${JSON.stringify(word)}) ${what}`);
  if (!Array.isArray(prons) || !prons.length) throw fail(`gave ${shown(prons)}, not undefined or an array of pronunciations`);
  for (const p of prons) {
    if (!Array.isArray(p) || !p.length) throw fail(`gave a pronunciation that is ${shown(p)}, not an array of ARPAbet phones`);
    const bad = p.find((phone) => !isPhone(phone));
    if (bad !== undefined) {
      throw fail(`gave ${typeof bad === 'string' ? JSON.stringify(bad) : shown(bad)}, which is no ARPAbet phone (CMUdict's 39, vowels with stress 0, 1 or 2 or none)`);
    }
  }
  return prons;
}

class Phonemizer {
  #lexicon;
  #checked;
  #ownWords;
  #decoder;
  #pool;
  #owned;
  #alphabet;
  #deleted = false;

  constructor({ lexicon, checked, ownWords, decoder, pool, owned, stress, format, decoding }) {
    this.#lexicon = lexicon;
    this.#checked = checked;
    this.#ownWords = ownWords;
    this.#decoder = decoder;
    this.#pool = pool;
    this.#owned = owned;
    this.#alphabet = new Set(decoder.info.sourceVocab);
    this.stress = stress;
    this.format = format;
    this.decoding = Object.freeze(decoding);
    Object.freeze(this);
  }

  /** The lexicon (null with `lexicon: false`). */
  get lexicon() { return this.#lexicon; }

  /** The model's info. */
  get modelInfo() { return this.#decoder.info; }

  get deleted() { return this.#deleted; }

  /** The user's own pronunciations of a word, or undefined. */
  #own(key) {
    return this.#ownWords?.get(key);
  }

  /** CMUdict's pronunciations of a word as written in text (a possessive 's or s' of a word it has included), or undefined. */
  #fromLexicon(key) {
    const lex = this.#lexicon;
    if (!lex) return undefined;
    const lookup = this.#checked ? (k) => {
      const prons = lex.lookup(k);
      return prons === undefined ? undefined : checkedPronunciations(k, prons);
    } : (k) => lex.lookup(k);
    let prons = lookup(key);
    if (prons) return prons;
    if (key.endsWith('\'s') && (prons = lookup(key.slice(0, -2)))) return prons.map(possessive);
    if (key.endsWith('\'') && (prons = lookup(key.slice(0, -1)))) return prons;
    return undefined;
  }

  /** Why the model cannot read a word, or null. */
  #unreadable(text) {
    const info = this.#decoder.info;
    const bad = [...new Set([...text].filter((c) => !this.#alphabet.has(c)))];
    if (bad.length) return `input: the model cannot read ${bad.map((c) => JSON.stringify(c)).join(', ')}`;
    if (text.length > info.maxPositions) return `input: the word has ${text.length} letters; the model reads at most ${info.maxPositions}`;
    return null;
  }

  /**
   * The tokens of `text` with their phonemes, and the whole as ARPAbet and IPA
   * (see PhonemizeResult in index.d.ts). Rejects with a Seq2SeqError:
   * 'UsageError' for a text that is no string or a deleted phonemizer,
   * 'InputError' for one of more than LIMITS.maxTextBytes bytes (UTF-8);
   * characters it cannot read are reported on their tokens, not thrown.
   */
  async phonemize(text, options = {}) {
    if (this.#deleted) throw usage('phonemize: the phonemizer was deleted');
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw usage(`phonemize: options must be an object, not ${shown(options)}`);
    for (const k of Object.keys(options)) if (k !== 'format') throw usage(`phonemize: unknown option ${JSON.stringify(k)} (the options: format)`);
    const { format = this.format } = options;
    checkFormat('phonemize', format);
    if (typeof text !== 'string') throw usage(`phonemize: the text must be a string, not ${shown(text)}`);
    // Refused by its length before it is encoded, whatever its length (as the engine does).
    const bytes = text.length > LIMITS.maxTextBytes ? text.length : new TextEncoder().encode(text).length;
    if (bytes > LIMITS.maxTextBytes) {
      throw new Seq2SeqError(`input: the text has ${text.length > LIMITS.maxTextBytes ? `${text.length} characters` : `${bytes} bytes`}; `
        + `the longest the phonemizer reads is ${LIMITS.maxTextBytes} bytes (UTF-8, LIMITS.maxTextBytes)`, 'InputError');
    }
    const lex = this.#lexicon;
    // A lexicon of the user's own may have lookup() alone.
    const inLexicon = !lex ? () => false : typeof lex.has === 'function' ? (key) => lex.has(key) : (key) => lex.lookup(key) !== undefined;
    const has = this.#ownWords ? (key) => this.#ownWords.has(key) || inLexicon(key) : inLexicon;
    const raw = readText(text, has);

    // Each token as spoken words, each word {prons} from the lexicon or {model: TEXT}.
    const wanted = new Map();   // the model's input → its phones, once decoded
    const ask = (key) => {
      const input = key.replace(/'+$/, '').toUpperCase();
      const problem = this.#unreadable(input);
      if (problem) return { problem };
      wanted.set(input, null);
      return { model: input };
    };
    // The words around each token, for choosing among a heteronym's readings (homographs.js).
    const context = raw.map((t) => (t.kind === 'word' ? t.key : t.kind === 'punctuation' ? null : t.text.toLowerCase()));
    const texts = raw.map((t) => t.text);
    // The user's own words first, over everything; then CMUdict; then the model.
    const plan = raw.map((t, i) => {
      if (t.kind === 'word') {
        const own = this.#own(t.key);
        if (own) return { t, words: [{ prons: own, own: true, key: t.key }] };
        const prons = this.#fromLexicon(t.key);
        return { t, words: [prons ? { prons, key: t.key, choice: prons.length > 1 ? chooseReading(prons, context, texts, i) : null } : { ...ask(t.key), key: t.key }] };
      }
      if (t.kind === 'number' || t.kind === 'spoken') {
        const words = t.words.flatMap((w) => w.split('-')).map((w) => {
          const key = spokenKey(w);
          const own = this.#own(key);
          if (own) return { prons: own.slice(0, 1), own: true, key };
          const prons = this.#fromLexicon(key);
          return prons ? { prons: prons.slice(0, 1), key } : { ...ask(key), key };
        });
        return { t, words };
      }
      return { t, words: [] };
    });

    if (wanted.size) await this.#decode(wanted);

    const spoken = plan.map(({ t, words }) => this.#token(t, words, wanted));
    const tokens = spoken.map((s) => s.token);
    // ARPAbet in braces, one pair per word, as TTS front ends that take ARPAbet in text read it.
    const dropped = [];
    const arpabet = join(text, kept('arpabet', spoken, format === 'arpabet' ? dropped : []), ({ phones }) => phones.map((p) => `{${p.join(' ')}}`).join(' '), (s) => s.mark);
    const ipa = join(text, kept('ipa', spoken, format === 'ipa' ? dropped : []), ({ token }) => token.ipa, (s) => s.mark);
    const phonemes = format === 'arpabet' ? arpabet : format === 'ipa' ? ipa : forVoice(format, text, spoken, dropped);
    return { text, tokens, format, phonemes, dropped, arpabet, ipa };
  }

  /**
   * Decodes the model's words (the keys of `wanted`) in one decodeBatch call (the pool's,
   * if there is one and they are at least its minTexts) and sets each to its phones. A word the model refuses ('InputError': the batch names only
   * one) is that word's error, not the text's: the words are then decoded one by one,
   * and each refused one is set to { error }. Other errors reject.
   */
  async #decode(wanted) {
    const inputs = [...wanted.keys()];
    const phonesOf = (list) => (list[0]?.tokens.length ? list[0].text.split(' ') : []);
    try {
      const batch = this.#pool && inputs.length >= this.#pool.minTexts ? this.#pool : this.#decoder;
      const lists = await batch.decodeBatch(inputs, this.decoding);
      inputs.forEach((w, i) => wanted.set(w, phonesOf(lists[i])));
      return;
    } catch (e) {
      if (e?.kind !== 'InputError') throw e;
      if (inputs.length === 1) {
        wanted.set(inputs[0], { error: inputError(e) });
        return;
      }
    }
    for (const w of inputs) {
      try {
        wanted.set(w, phonesOf((await this.#decoder.decodeBatch([w], this.decoding))[0]));
      } catch (e) {
        if (e?.kind !== 'InputError') throw e;
        wanted.set(w, { error: inputError(e) });
      }
    }
  }

  /** {token, phones}: the token, and its phones word by word. */
  #token(t, words, decoded) {
    const base = { text: t.text, start: t.start, end: t.end };
    const silent = (source, extra) => ({ token: { ...base, source, phonemes: [], stressed: false, alternatives: [], ipa: '', ...extra }, phones: [] });
    if (t.kind === 'punctuation') return silent('punctuation');
    if (t.kind === 'unreadable') {
      return silent('none', { error: { kind: 'InputError', message: `input: the phonemizer reads English letters, digits and punctuation, not ${JSON.stringify(t.text)}` } });
    }
    const problem = words.find((w) => w.problem)?.problem ?? words.map((w) => w.model && decoded.get(w.model).error).find(Boolean);
    if (problem) return silent('none', { error: { kind: 'InputError', message: problem } });
    const phonesOf = words.map((w) => (w.prons ? w.prons[w.choice?.index ?? 0] : decoded.get(w.model)));
    const choice = t.kind === 'word' ? words[0].choice : null;
    const stressed = words.every((w) => w.prons || this.stress);
    const token = {
      ...base,
      source: t.kind === 'number' ? 'number' : t.kind === 'spoken' ? t.source : words[0].own ? 'user' : words[0].prons ? 'lexicon' : 'model',
      phonemes: phonesOf.flat(),
      stressed,
      alternatives: t.kind === 'word' && words[0].prons ? words[0].prons.filter((_, k) => k !== (choice?.index ?? 0)).map((p) => [...p]) : [],
      ipa: phonesOf.map(arpabetToIpa).join(' '),
    };
    if (choice) token.homograph = { reading: choice.reading, why: choice.why };
    if (t.kind === 'number' || t.kind === 'spoken') token.spoken = t.words.join(' ');
    // Each word's key (how the lexicon spells it) and whether it is the user's, for the voice formats.
    return { token, phones: phonesOf.map((p) => [...p]), keys: words.map((w) => (w.own ? null : w.key)) };
  }

  /** Frees the model if the phonemizer loaded it (not one it was given, nor a worker). Idempotent. */
  delete() {
    if (this.#deleted) return;
    this.#deleted = true;
    this.#owned?.delete();
  }
}

/**
 * The engine's message for one refused word, without the batch's `texts[i] "WORD": `
 * before it (the word, of the model's letters, holds no colon).
 */
const inputError = (e) => String(e.message).replace(/^texts\[\d+\] [^:]*: /, '');

// Words read by what follows: [before a consonant, before a vowel].
const IN_CONTEXT = { the: [['DH', 'AH0'], ['DH', 'IY0']], a: [['AH0'], ['AH0']], to: [['T', 'AH0'], ['T', 'UW0']] };
const startsWithVowel = (phones) => phones !== undefined && /^(AA|AE|AH|AO|AW|AY|EH|ER|EY|IH|IY|OW|OY|UH|UW)/.test(phones[0] ?? '');

/**
 * The text for a voice (format 'misaki' or 'espeak'): each word in the format,
 * function words as a sentence reads them, punctuation the voice has a symbol
 * for written with it; other punctuation is left out and pushed to `dropped`.
 */
/**
 * The spoken tokens, each with its index `n`, and the punctuation the format writes,
 * each with its `mark`; what it does not write is left out and pushed to `dropped`.
 */
function kept(format, spoken, dropped) {
  return spoken.map((s, n) => {
    if (s.token.source !== 'punctuation') return { ...s, n };
    const mark = punctuationIn(format, s.token.text);
    if (!mark) dropped.push({ text: s.token.text, start: s.token.start, end: s.token.end });
    return { ...s, n, mark, skip: !mark };
  }).filter((s) => !s.skip);
}

function forVoice(format, text, spoken, dropped) {
  const write = WORD_WRITERS[format];
  // Every word of the text in order, to know what follows each.
  const all = spoken.flatMap((s, n) => s.phones.map((phones, w) => ({ n, w, phones })));
  const following = new Map(all.map((x, i) => [`${x.n}/${x.w}`, all[i + 1]?.phones]));
  return join(text, kept(format, spoken, dropped), ({ n, phones: words, keys }) => words.map((phones, w) => {
    const key = keys[w];
    const read = key && Object.hasOwn(IN_CONTEXT, key) ? IN_CONTEXT[key][startsWithVowel(following.get(`${n}/${w}`)) ? 1 : 0]
      : functionReading(format, key) ?? phones;
    return write(read, functionWord(format, key), key ?? '');
  }).join(' '), (s) => s.mark, format === 'espeak');
}

/**
 * The tokens as one string: each spoken token as `render` writes it, punctuation
 * as written; a space between two spoken tokens, and between others where the
 * text has one; `tight`: none before punctuation, as Piper's front end writes it
 * (wˈʌn, tˈuː). Unreadable tokens are left out (each says why on its own).
 */
function join(text, spoken, render, punctuation = (s) => s.token.text, tight = false) {
  let out = '';
  let prev = null;
  for (const s of spoken) {
    const tok = s.token;
    if (tok.source === 'none') continue;
    const said = tok.source !== 'punctuation';
    if (prev) {
      // (White space, not a left-out token, parts two tokens: world”; writes wˈɜːld; for Piper.)
      const apart = (said && prev.source !== 'punctuation') || (/[\s\p{Cf}]/u.test(text.slice(prev.end, tok.start)) && !(tight && !said));
      if (apart) out += ' ';
    }
    out += said ? render(s) : punctuation(s);
    prev = tok;
  }
  return out;
}
