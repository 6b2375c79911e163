// Type declarations for seq2seq-wasm-models/g2p (g2p/index.js): English text to phonemes.
import type { DecodingOptions, LoadOptions, ModelInfo, ModelSource, Result } from 'seq2seq-wasm';
import type { DecoderPool, DecoderWorker } from 'seq2seq-wasm/worker';

/** Where a token's phonemes come from. */
export type PhonemeSource =
  /** CMUdict (a possessive 's or s' of a word it has included). */
  | 'lexicon'
  /** The G2P model: a word CMUdict lacks. */
  | 'model'
  /** A number read as words (`spoken`), each word's pronunciation CMUdict's first. */
  | 'number'
  /** The user's own words (PhonemizerOptions.lexicon as { word: pronunciation }). */
  | 'user'
  /**
   * Text read as words by a rule of the normaliser (`spoken` holds the words; each word's
   * pronunciation CMUdict's first, a capital letter the letter's name):
   * 'date' (American order, month first: 3/4/2025 is March fourth; day first where the first
   * number is no month, 25/12/2025, or with dots, 25.12.2025), 'time' (9:30pm, 09:00),
   * 'phone' (digit by digit), 'money' (with a scale: €2.5 billion, £12m, $3bn; ¥, ₹, ¢),
   * 'unit' (20°C, 5 km, 16 GB), 'symbol' (& + @ = % # × ~ ±), 'range' (the dash of 50–60:
   * "to"), 'fraction' (½, 3/4), 'roman' (Henry VIII, Chapter IV), 'url', 'email',
   * 'abbreviation' (by what follows: "Main St. The" street, "St. John" saint; a dot that also
   * ends the sentence is left as punctuation), 'letters' (an initialism spelled: GPU, U.K.),
   * 'compound' (a word read in parts: OpenAI, or as a list says: JSON "jason").
   */
  | 'date' | 'time' | 'phone' | 'money' | 'unit' | 'symbol' | 'range' | 'fraction' | 'roman'
  | 'url' | 'email' | 'abbreviation' | 'letters' | 'compound'
  /** Punctuation or a symbol: no phonemes. */
  | 'punctuation'
  /** Nothing: characters the phonemizer cannot read (`error` says which). */
  | 'none';

/** One token of the text. */
export interface PhonemeToken {
  /** The token as written. */
  text: string;
  /** Where it is in the text (UTF-16 offsets, end exclusive). */
  start: number;
  end: number;
  source: PhonemeSource;
  /**
   * ARPAbet phonemes (CMUdict's 39), with stress digits 0, 1, 2 on the vowels when
   * `stressed`; a number's words one after the other. Empty for punctuation and 'none'.
   */
  phonemes: string[];
  /**
   * Whether `phonemes` carry stress: true for the lexicon's and numbers' words and for the
   * stressed model's; false for words of the model without stress (their vowels have no
   * digit: not unstressed, unknown), and for tokens without phonemes.
   */
  stressed: boolean;
  /** CMUdict's other pronunciations of the word (homographs: read, live), in its order, less the one chosen; [] if none. */
  alternatives: string[][];
  /**
   * For a heteronym (read, live, lead, record, …: homographs.js's TABLE), which of CMUdict's
   * readings the context chose and why: { reading: 'past', why: 'after "she": the present would be "reads"' }.
   */
  homograph?: { reading: string; why: string };
  /** `phonemes` in IPA (ARPABET_IPA), stress marks ˈ ˌ at the syllable's start; a number's words separated by spaces. */
  ipa: string;
  /** What a number or a normaliser's rule read the token as: '2026' → 'twenty twenty-six', 'GPU' → 'G P U'. */
  spoken?: string;
  /** Why a token has no phonemes: characters the phonemizer cannot read, or a word the model refuses (too long for it, or any InputError of its decodeBatch). */
  error?: { kind: 'InputError'; message: string };
}

/**
 * What `phonemes` is written in: the phonemizer's ARPAbet and IPA, or the symbols a voice
 * reads: 'misaki' (Kokoro's US English, misaki's US_VOCAB), 'espeak' (eSpeak NG's en-us IPA,
 * which Piper's en_US voices map to ids).
 */
export type PhonemeFormat = 'arpabet' | 'ipa' | 'misaki' | 'espeak';

/** The formats, in that order. */
export declare const FORMATS: readonly PhonemeFormat[];

/** Every symbol the voice formats write (white space aside), punctuation included. */
export declare const INVENTORY: Readonly<{ misaki: readonly string[]; espeak: readonly string[] }>;

/** What phonemize() resolves to. */
export interface PhonemizeResult {
  /** The text given. */
  text: string;
  tokens: PhonemeToken[];
  /** The format `phonemes` is written in. */
  format: PhonemeFormat;
  /**
   * The whole text in `format`: for 'arpabet' and 'ipa' the same as `arpabet` and `ipa`; for
   * 'misaki' and 'espeak', each symbol in INVENTORY[format], function words as read in a sentence.
   */
  phonemes: string;
  /** Symbols of the text the format has no place for (& # * …, for a voice quotes too), left out of `phonemes`. */
  dropped: { text: string; start: number; end: number }[];
  /**
   * The text in ARPAbet, each word in braces ({HH AH0 L OW1}, {W ER1 L D}!): punctuation kept,
   * unreadable tokens left out. Without stress digits: stripStress() on each token's phonemes.
   */
  arpabet: string;
  /** The text in IPA (həˈloʊ, ˈwɝld!): words separated by spaces, punctuation kept, unreadable tokens left out. */
  ipa: string;
}

/** What decodes the words the lexicon lacks: a Model, or any object with its info and decodeBatch. */
export interface BatchDecoder {
  readonly info: Readonly<ModelInfo>;
  decodeBatch(texts: readonly string[], options?: DecodingOptions): Result[][] | Promise<Result[][]>;
}

/** CMUdict: its words and pronunciations. */
export interface Lexicon {
  /** Where the data comes from: the npm package and version, and how many words and pronunciations. */
  readonly source: Readonly<{ package: string; version: string; words: number; pronunciations: number }>;
  /** Words in it. */
  readonly size: number;
  /** A word's pronunciations (ARPAbet with stress digits), CMUdict's first first; undefined if it lacks the word. Case is ignored. */
  lookup(word: string): string[][] | undefined;
  has(word: string): boolean;
  /** Every word, lower case, sorted. */
  words(): IterableIterator<string>;
}

/** Anything with a lookup like Lexicon's: a lexicon of your own. */
export interface LexiconLike {
  lookup(word: string): string[][] | undefined;
  has?(word: string): boolean;
}

/** The user's own pronunciations: ARPAbet, 'K AE1 T' or ['K', 'AE1', 'T'], or several such in an array (the first read). */
export type Pronunciation = string | readonly string[] | readonly (string | readonly string[])[];

export interface PhonemizerOptions {
  /**
   * false: words the lexicon lacks go to g2p-transformer, whose output has no stress digits
   * (those tokens say stressed: false). true: to g2p-transformer-stress, so that every word has
   * stress. Default: true for the voice formats ('misaki', 'espeak'), false otherwise. A model
   * given as an object says itself: stressed if its phonemes carry digits.
   */
  stress?: boolean;
  /** The format of `phonemes` when phonemize() is not given one; default 'ipa'. */
  format?: PhonemeFormat;
  /**
   * The model for words the lexicon lacks: a Model (or BatchDecoder) to use, or where to load
   * one from (anything loadModel takes). Default: the package's own file (MODEL_NAMES), next to
   * this module. A model given as an object is not deleted by the phonemizer.
   */
  model?: BatchDecoder | ModelSource;
  /**
   * Decode in this worker (createDecoderWorker()): the phonemizer loads the model into it, and
   * the calling thread runs on while the words the lexicon lacks are decoded (about 5 ms a word
   * on one thread, which for a long text of unknown words is many seconds). Not terminated by delete().
   */
  worker?: DecoderWorker;
  /**
   * Decode a text's unknown words across these workers (createDecoderPool()) when there are
   * at least pool.minTexts (POOL_MIN_TEXTS, 16) of them; fewer go to the model (or `worker`) as without it. The
   * phonemizer loads the model into the pool too; the phonemes are the same either way. Not
   * terminated by delete().
   */
  pool?: DecoderPool;
  /** loadModel's options for a model the phonemizer loads (cache, sha256, onProgress, compute). */
  loadOptions?: LoadOptions;
  /** Decoding options; default: manifest.json's for the model (beam 5, average length normalisation). */
  decoding?: DecodingOptions;
  /**
   * The user's own words over everything ({ word: pronunciation } or a Map; checked now: a phone
   * that is no ARPAbet is a UsageError naming the word and the phone); another lexicon in place of
   * CMUdict (an object with lookup(), whose answers are checked: anything but undefined or an array
   * of pronunciations of ARPAbet phones makes phonemize() reject with a UsageError naming the
   * word); or false for none (every word to the model). Default: CMUdict (loadLexicon()).
   */
  lexicon?: Readonly<Record<string, Pronunciation>> | ReadonlyMap<string, Pronunciation> | LexiconLike | false;
}

export interface Phonemizer {
  /** Whether words the lexicon lacks get stress (the stressed model). */
  readonly stress: boolean;
  /** The format of `phonemes` by default. */
  readonly format: PhonemeFormat;
  /** The decoding options used for the model. */
  readonly decoding: Readonly<DecodingOptions>;
  /** The lexicon; null with `lexicon: false`. */
  readonly lexicon: Lexicon | LexiconLike | null;
  /** The model's info. */
  readonly modelInfo: Readonly<ModelInfo>;
  readonly deleted: boolean;
  /**
   * The text's tokens with their phonemes, and the whole in ARPAbet and IPA. Rejects with a
   * Seq2SeqError: 'UsageError' for a text that is no string, a deleted phonemizer, or a lexicon of
   * one's own that answers with what is no pronunciation; 'InputError' for a text of more than
   * LIMITS.maxTextBytes bytes (UTF-8); the model's other errors. Characters it cannot read and
   * words the model refuses are reported on their tokens (source 'none', error), not thrown.
   */
  phonemize(text: string, options?: { format?: PhonemeFormat }): Promise<PhonemizeResult>;
  /** Frees a model the phonemizer loaded itself. Idempotent. */
  delete(): void;
}

/**
 * A phonemizer: the lexicon (loaded now, once per page or process) and the model. Rejects with a
 * Seq2SeqError: 'UsageError' for bad options; the engine's errors for a model that cannot be loaded.
 */
export declare function createPhonemizer(options?: PhonemizerOptions): Promise<Phonemizer>;

/** The package's models for words the lexicon lacks. */
export declare const MODEL_NAMES: Readonly<{ plain: 'g2p-transformer'; stressed: 'g2p-transformer-stress' }>;

/** The lexicon: CMUdict, loaded on the first call (about 0.8 MB gzipped); the same object for every call. */
export declare function loadLexicon(): Promise<Lexicon>;

/**
 * The ARPAbet→IPA table: every phone, and AH0 (ə) and ER0 (ɚ), whose unstressed IPA differs
 * (AH1/AH2 ʌ, ER1/ER2 ɝ). A vowel without a digit reads as AH0 and ER0 do.
 */
export declare const ARPABET_IPA: Readonly<Record<string, string>>;

/** One word's phones in IPA, stress marks ˈ ˌ at the stressed syllable's start. Throws a Seq2SeqError ('UsageError') for a symbol that is no ARPAbet phone. */
export declare function arpabetToIpa(phones: readonly string[]): string;

/** Phones without their stress digits. */
export declare function stripStress(phones: readonly string[]): string[];
