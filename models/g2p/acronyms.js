// Acronyms and initialisms: whether a word is spelled letter by letter (GPU,
// HTML, the IT department) or read as a word (NASA, laser, RAM), and words
// written in parts (OpenAI, iPhone, GitHub) read part by part.
//
// readWord(text, has, context) decides, in this order:
//   1. READINGS: words said in a way neither spelling nor the lexicon gives
//      (JSON as "jason", iOS as I O S, nginx as "engine X").
//   2. A word in capitals (AWS, GPUs, US) in text that is not all capitals:
//      SPELLED (a list of initialisms) → letters; AS_WORDS (NASA, RAM, LASER) →
//      a word; two or three letters → letters unless it is one of the short
//      words a writer puts in capitals for emphasis (NOT, YES, THE); longer →
//      letters if it cannot be said as written (no vowel, or consonants no
//      English word begins, ends or joins syllables with: HTML, ADHD), else a
//      word (lexicon or model).
//   3. Any other word the lexicon lacks: letters if it cannot be said as
//      written (nth, lpn, mpg; "y" is a vowel: rhythm, gym), or a word the
//      list spells (gpu in a URL); written in parts (capitals inside: OpenAI,
//      iPhone, LinkedIn) → each part read by these rules, when each part of
//      more than one letter is a word the lexicon has or is spelled.
// A word the rules leave alone has no source: it is read as before (lexicon, model).

/** Initialisms spelled letter by letter even where the lexicon has a word of the same letters. */
export const SPELLED = new Set(('aws gpu cpu tpu npu llm ai ml nlp gpt api sdk cli ide ui ux qa ci cd pr mvp kpi roi ceo cto cfo coo hr ipo '
  + 'it us un uk eu usa fbi cia nsa irs ny la dc tv pc id iq ok vr ar xr iot os ios vm vpn dns ssh ssl tls http https tcp udp ip url uri '
  + 'html css js ts php sql xml csv pdf png jpg svg usb ssd hdd hdmi lcd led rgb gps nfc lte sms mms gb mb tb kb faq fyi diy eta tbd asap '
  + 'adhd ptsd ocd dna rna mri ct er icu bbc cnn nbc abc cbs espn nba nfl mlb nhl ufc wwe bmw hp ibm amd arm aka rsvp bc ad bce ce phd mba '
  + 'md rn cpa llc plc nyc sf uae eu un who wto imf ecb fed sec ftc fda cdc epa nih npm cdn dom jwt sso mfa ddos cpu ram rom').split(' ')
  .filter((w) => !['ram', 'rom', 'who', 'fed', 'sec', 'arm'].includes(w)));

/** Acronyms said as words (where a word in capitals would otherwise be spelled). */
export const AS_WORDS = new Set(('nasa nato laser radar scuba sonar unicef unesco opec fema nafta aids covid ram rom lan wan pin sim dos '
  + 'unix linux gif captcha rest crud raid bios cobol fortran pascal basic wasm yaml toml ascii scsi ikea lego fifa uefa who swat '
  + 'sars mers ebola nimby yolo gaap isis arm fed sec wifi opec').split(' '));

/**
 * Readings neither the letters nor the lexicon give, as words the lexicon has
 * (a capital letter is the letter's name).
 */
export const READINGS = Object.freeze({
  json: ['jason'], gui: ['gooey'], jpeg: ['jay', 'peg'], saas: ['sass'], paas: ['pass'], iaas: ['I', 'A', 'A', 'S'],
  iot: ['I', 'O', 'T'], ios: ['I', 'O', 'S'], macos: ['mac', 'O', 'S'], oauth: ['oh', 'auth'], nginx: ['engine', 'X'],
  ddos: ['D', 'dos'], nosql: ['no', 'S', 'Q', 'L'], mysql: ['my', 'S', 'Q', 'L'], postgresql: ['post', 'gres', 'Q', 'L'],
  oled: ['O', 'led'], ok: ['okay'], sqlite: ['S', 'Q', 'L', 'light'],
  cicd: ['C', 'I', 'C', 'D'], ipv4: ['I', 'P', 'V', 'four'], ipv6: ['I', 'P', 'V', 'six'],
});

// Words of two or three letters a writer puts in capitals for emphasis, read as words.
const EMPHASIS = new Set(('a i am an as at be by do go he if in is me my no of oh on or so to up we '
  + 'all and any are big bad but can did for get got had has her him his how man may new not now off old one our out own '
  + 'saw say see she the too top two use was way why yes yet you win won hot fun wow').split(' '));

// Spelling's consonant runs that may begin a syllable (with the ones English letters double: qu, ph, …).
const ONSETS = new Set(('b bl br c ch chr cl cr d dr dw f fl fr g gh gl gn gr h j k kh kl kn kr l m n p ph phr pl pr ps qu r rh s sc sch '
  + 'scr sh shr sk sl sm sn sp sph spl spr squ st str sw t th thr tr ts tw v w wh wr x y z zh').split(' '));
// … and that may end one (before a plural s, too).
const CODAS = new Set(('b bb c ch ck ct d dd dg f ff ft g gg gh ght h k l lb lch ld lf lk ll lm ln lp ls lt lth m mb mn mp mph n nc nch nd ng '
  + 'ngs nk nn nt nth nx nz p ph pp ps pt r rb rc rch rd rf rg rk rl rm rn rp rr rs rsh rst rt rth rv s sh sk sm sp ss st t tch th tt tz '
  + 'v w wl wn ws wt x y z zz').split(' '));
const VOWELS = /[aeiouy]+/g;

/** Whether a word (letters only) can be said as written: every consonant run begins, ends or joins syllables as English spelling does. */
export function pronounceable(word) {
  const w = word.toLowerCase();
  if (!/^[a-z]+$/.test(w) || !/[aeiouy]/.test(w)) return false;
  const runs = w.split(VOWELS);
  const first = runs[0];
  const last = runs.at(-1);
  if (first && !ONSETS.has(first)) return false;
  const endOk = (c) => !c || CODAS.has(c) || (c.endsWith('s') && CODAS.has(c.slice(0, -1))) || c === 's';
  if (runs.length > 1 && !endOk(last)) return false;
  for (const mid of runs.slice(1, -1)) {
    let ok = false;
    for (let k = 0; k <= mid.length && !ok; k++) {
      const coda = mid.slice(0, k);
      const onset = mid.slice(k);
      ok = (coda === '' || CODAS.has(coda)) && (onset === '' || ONSETS.has(onset));
    }
    if (!ok) return false;
  }
  return true;
}

// The longest word spelled for being unpronounceable: initialisms are short; a longer run of letters is left to the model.
const MAX_SPELLED = 6;

/** The letters of a word as their names ('GPU' → ['G', 'P', 'U']); a plural s after capitals joins the last ('GPUs' → ['G', 'P', "U's"]). */
function letters(word, pluralS) {
  const names = word.toUpperCase().split('');
  if (pluralS) names[names.length - 1] += '\'s';
  return names;
}

/** A word written in parts: split before each capital that follows a small letter (OpenAI → Open AI; iPhone → i Phone). */
export function splitWord(word) {
  return word.split(/(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll}{2,})/u);
}

/**
 * How a word is read: { source: 'letters' | 'compound', words } when the rules
 * read it, else { words: [word] } (the lexicon or the model reads it). `has(key)`:
 * whether the lexicon has a word. context.headline: the text is all capitals;
 * context.inUrl: a piece of a URL or address (lower case; the list still spells).
 */
export function readWord(word, has, context = {}) {
  const plain = { words: [word] };
  if (!/^[A-Za-z]+(['’]s)?$/.test(word)) return plain;
  const possessive = /['’]s$/.test(word);
  const bare = possessive ? word.slice(0, -2) : word;
  const key = bare.toLowerCase();
  const inLexicon = has(key);
  if (Object.hasOwn(READINGS, key) && !(inLexicon && !/^[A-Z]{2,}$/.test(bare) && key !== 'ok' && /^[a-z]+$/.test(bare) && !context.inUrl)) {
    const words = [...READINGS[key]];
    if (possessive) words[words.length - 1] += '\'s';
    return { source: READINGS[key].every((w) => /^[A-Z]$/.test(w)) ? 'letters' : 'compound', words };
  }
  const caps = /^\p{Lu}{2,}$/u.test(bare) || /^\p{Lu}{2,}s$/u.test(bare);
  if (caps && !context.headline) {
    // A plural s after capitals (GPUs) belongs to the initialism.
    const pluralS = /^\p{Lu}{2,}s$/u.test(bare);
    const stem = pluralS ? bare.slice(0, -1) : bare;
    const k = stem.toLowerCase();
    if (AS_WORDS.has(k)) return plain;
    const spell = SPELLED.has(k) || (stem.length <= 3 ? !EMPHASIS.has(k) : stem.length <= MAX_SPELLED && !pronounceable(k));
    if (spell) return { source: 'letters', words: letters(stem, pluralS || possessive) };
    return plain;
  }
  if (context.inUrl && SPELLED.has(key)) return { source: 'letters', words: letters(bare, possessive) };
  if (inLexicon) return plain;
  if (/^\p{Lu}?\p{Ll}+$/u.test(bare) || /^\p{Ll}$/u.test(bare)) {
    if (bare.length === 1) return { source: 'letters', words: letters(bare, possessive) };
    if (SPELLED.has(key) && (context.inUrl || /^[a-z]+$/.test(bare))) return { source: 'letters', words: letters(bare, possessive) };
    // In an address words run together (nodejs, myshop): a word the lexicon has, then one it has or an initialism.
    if (context.inUrl && /^[a-z]+$/.test(bare)) {
      for (let k = bare.length - 2; k >= 3; k--) {
        const [head, tail] = [bare.slice(0, k), bare.slice(k)];
        if (!has(head)) continue;
        if (has(tail) && tail.length >= 3) return { source: 'compound', words: [head, tail] };
        if (tail.length <= 3 && (SPELLED.has(tail) || !pronounceable(tail))) return { source: 'compound', words: [head, ...letters(tail, false)] };
      }
    }
    if (bare.length <= MAX_SPELLED && !pronounceable(bare)) return { source: 'letters', words: letters(bare, possessive) };
    return plain;
  }
  // Written in parts: each part read on its own, if every part is one the rules or the lexicon know.
  const parts = splitWord(bare);
  if (parts.length > 1) {
    const read = parts.map((p) => (p.length === 1 ? { source: 'letters', words: [p.toUpperCase() === p ? p : p.toUpperCase()] } : readWord(p, has, context)));
    const known = (p, r) => p.length === 1 || r.source || has(p.toLowerCase());
    if (parts.every((p, i) => known(p, read[i]))) {
      const words = read.flatMap((r) => r.words);
      if (possessive) words[words.length - 1] += '\'s';
      return { source: 'compound', words };
    }
  }
  return plain;
}
