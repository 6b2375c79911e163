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
import { ARPABET_IPA, arpabetToIpa, isPhone, stripStress } from './ipa.js';
import { loadLexicon } from './lexicon.js';
import { tokenize } from './tokenize.js';

export { ARPABET_IPA, arpabetToIpa, loadLexicon, stripStress };

/** The package's model for words the lexicon lacks: without stress, and with. */
export const MODEL_NAMES = Object.freeze({ plain: 'g2p-transformer', stressed: 'g2p-transformer-stress' });

// Literal URLs, so that bundlers that follow new URL(…, import.meta.url) (Vite,
// webpack 5, Parcel) find and emit the file.
const packageModelUrl = (stress) => (stress
  ? new URL('../g2p-transformer-stress.safetensors', import.meta.url)
  : new URL('../g2p-transformer.safetensors', import.meta.url));

const OPTIONS = ['stress', 'model', 'worker', 'loadOptions', 'decoding', 'lexicon'];

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
  const { stress = false, model, worker, loadOptions, decoding, lexicon: givenLexicon } = options;
  if (typeof stress !== 'boolean') throw usage(`createPhonemizer: stress must be true or false, not ${shown(stress)}`);
  if (worker !== undefined && (worker === null || typeof worker.load !== 'function' || typeof worker.decodeBatch !== 'function')) {
    throw usage(`createPhonemizer: worker must be a decoder worker (createDecoderWorker() of seq2seq-wasm/worker), not ${shown(worker)}`);
  }
  if (worker !== undefined && isDecoder(model)) throw usage('createPhonemizer: a model object and a worker were both given: give one');
  if (decoding !== undefined && (decoding === null || typeof decoding !== 'object' || Array.isArray(decoding))) {
    throw usage(`createPhonemizer: decoding must be an object of decoding options, not ${shown(decoding)}`);
  }
  if (givenLexicon !== undefined && givenLexicon !== false && typeof givenLexicon?.lookup !== 'function') {
    throw usage(`createPhonemizer: lexicon must be a lexicon (an object with lookup(word)) or false, not ${shown(givenLexicon)}`);
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
  if (isDecoder(model)) decoder = model;
  else if (worker) {
    const info = await worker.load(source, loadOptions);
    decoder = { info, decodeBatch: (texts, o) => worker.decodeBatch(texts, o) };
  } else {
    owned = await loadModel(source, loadOptions);
    decoder = owned;
  }
  const lexicon = await lexiconPromise;
  return new Phonemizer({ lexicon, checked: givenLexicon !== undefined, decoder, owned, stress, decoding: settings });
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
  #decoder;
  #owned;
  #alphabet;
  #deleted = false;

  constructor({ lexicon, checked, decoder, owned, stress, decoding }) {
    this.#lexicon = lexicon;
    this.#checked = checked;
    this.#decoder = decoder;
    this.#owned = owned;
    this.#alphabet = new Set(decoder.info.sourceVocab);
    this.stress = stress;
    this.decoding = Object.freeze(decoding);
    Object.freeze(this);
  }

  /** The lexicon (null with `lexicon: false`). */
  get lexicon() { return this.#lexicon; }

  /** The model's info. */
  get modelInfo() { return this.#decoder.info; }

  get deleted() { return this.#deleted; }

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
  async phonemize(text) {
    if (this.#deleted) throw usage('phonemize: the phonemizer was deleted');
    if (typeof text !== 'string') throw usage(`phonemize: the text must be a string, not ${shown(text)}`);
    // Refused by its length before it is encoded, whatever its length (as the engine does).
    const bytes = text.length > LIMITS.maxTextBytes ? text.length : new TextEncoder().encode(text).length;
    if (bytes > LIMITS.maxTextBytes) {
      throw new Seq2SeqError(`input: the text has ${text.length > LIMITS.maxTextBytes ? `${text.length} characters` : `${bytes} bytes`}; `
        + `the longest the phonemizer reads is ${LIMITS.maxTextBytes} bytes (UTF-8, LIMITS.maxTextBytes)`, 'InputError');
    }
    const lex = this.#lexicon;
    // A lexicon of the user's own may have lookup() alone.
    const has = !lex ? () => false : typeof lex.has === 'function' ? (key) => lex.has(key) : (key) => lex.lookup(key) !== undefined;
    const raw = tokenize(text, has);

    // Each token as spoken words, each word {prons} from the lexicon or {model: TEXT}.
    const wanted = new Map();   // the model's input → its phones, once decoded
    const ask = (key) => {
      const input = key.replace(/'+$/, '').toUpperCase();
      const problem = this.#unreadable(input);
      if (problem) return { problem };
      wanted.set(input, null);
      return { model: input };
    };
    const plan = raw.map((t) => {
      if (t.kind === 'word') {
        const prons = this.#fromLexicon(t.key);
        return { t, words: [prons ? { prons } : ask(t.key)] };
      }
      if (t.kind === 'number') {
        const words = t.words.flatMap((w) => w.split('-')).map((w) => {
          const prons = this.#fromLexicon(w);
          return prons ? { prons: prons.slice(0, 1) } : ask(w);
        });
        return { t, words };
      }
      return { t, words: [] };
    });

    if (wanted.size) await this.#decode(wanted);

    const spoken = plan.map(({ t, words }) => this.#token(t, words, wanted));
    const tokens = spoken.map((s) => s.token);
    return {
      text,
      tokens,
      // ARPAbet in braces, one pair per word, as TTS front ends that take ARPAbet in text read it.
      arpabet: join(text, spoken, ({ phones }) => phones.map((p) => `{${p.join(' ')}}`).join(' ')),
      ipa: join(text, spoken, ({ token }) => token.ipa),
    };
  }

  /**
   * Decodes the model's words (the keys of `wanted`) in one decodeBatch call and sets
   * each to its phones. A word the model refuses ('InputError': the batch names only
   * one) is that word's error, not the text's: the words are then decoded one by one,
   * and each refused one is set to { error }. Other errors reject.
   */
  async #decode(wanted) {
    const inputs = [...wanted.keys()];
    const phonesOf = (list) => (list[0]?.tokens.length ? list[0].text.split(' ') : []);
    try {
      const lists = await this.#decoder.decodeBatch(inputs, this.decoding);
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
    const phonesOf = words.map((w) => (w.prons ? w.prons[0] : decoded.get(w.model)));
    const stressed = words.every((w) => w.prons || this.stress);
    const token = {
      ...base,
      source: t.kind === 'number' ? 'number' : words[0].prons ? 'lexicon' : 'model',
      phonemes: phonesOf.flat(),
      stressed,
      alternatives: t.kind === 'word' && words[0].prons ? words[0].prons.slice(1) : [],
      ipa: phonesOf.map(arpabetToIpa).join(' '),
    };
    if (t.kind === 'number') token.spoken = t.words.join(' ');
    return { token, phones: phonesOf };
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

/**
 * The tokens as one string: each spoken token as `render` writes it, punctuation
 * as written; a space between two spoken tokens, and between others where the
 * text has one. Unreadable tokens are left out (each says why on its own).
 */
function join(text, spoken, render) {
  let out = '';
  let prev = null;
  for (const s of spoken) {
    const tok = s.token;
    if (tok.source === 'none') continue;
    const said = tok.source !== 'punctuation';
    if (prev) {
      const apart = (said && prev.source !== 'punctuation') || text.slice(prev.end, tok.start) !== '';
      if (apart) out += ' ';
    }
    out += said ? render(s) : tok.text;
    prev = tok;
  }
  return out;
}
