// Heteronyms: words CMUdict spells one way and says two (read/read, live/live,
// lead, record, wind, tear, bass, close, present, object, minute, wound, …).
// A small tagger of this module's own guesses the word's part of speech from
// the words around it; TABLE says which of CMUdict's pronunciations goes with
// which part of speech, and for the words whose readings share a part of
// speech (bass the fish and bass the sound, the bow one takes and the bow one
// ties) which words nearby choose.
//
// Tags: 'N' noun (or a word before a noun), 'V' a verb's base or present form,
// 'D' a past tense or participle (had read), 'J' after a form of "be" or
// "seem" (is live, was present, seemed content).
//
// Why not a tagger from npm: put in this tagger's place, with the same table
// and the same words-nearby rules (bench/g2p-homographs.mjs), compromise 14.20
// read 80.3 % of the sentences written after these rules right (150 KB
// gzipped to a browser), wink-nlp 2.4 80.3 % (1,001 KB with its model), en-pos
// 73.2 % (1,402 KB); these rules 91.5 % in 3 KB: a heteronym is decided by a
// few words next to it, which a small set of rules covers.

/** The choice of one word: its readings (CMUdict's pronunciations), by tag, and by words nearby. */
export const TABLE = {
  read: { readings: { present: 'R IY1 D', past: 'R EH1 D' }, tags: { V: 'present', N: 'present', D: 'past', J: 'past' } },
  live: { readings: { verb: 'L IH1 V', adjective: 'L AY1 V' }, tags: { V: 'verb', N: 'adjective', D: 'verb', J: 'adjective' } },
  lives: { readings: { verb: 'L IH1 V Z', noun: 'L AY1 V Z' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  lead: {
    readings: { verb: 'L IY1 D', metal: 'L EH1 D' }, tags: { V: 'verb', N: 'verb', D: 'metal', J: 'metal' },
    near: { metal: ['pipe', 'pipes', 'paint', 'poisoning', 'exposure', 'metal', 'toxic', 'levels', 'zinc', 'bullets', 'pencil', 'weights', 'dangerous', 'free'] },
  },
  record: { readings: { noun: 'R EH1 K ER0 D', verb: 'R IH0 K AO1 R D' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  records: { readings: { noun: 'R EH1 K ER0 D Z', verb: 'R IH0 K AO1 R D Z' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  wind: { readings: { noun: 'W IH1 N D', verb: 'W AY1 N D' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  winds: { readings: { noun: 'W IH1 N D Z', verb: 'W AY1 N D Z' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  tear: {
    readings: { eye: 'T IH1 R', rip: 'T EH1 R' }, tags: { V: 'rip', N: 'eye', D: 'rip', J: 'eye' },
    near: { eye: ['eye', 'eyes', 'cheek', 'cheeks', 'rolled', 'cry', 'cried', 'crying', 'wiped', 'shed', 'joy', 'sad'] },
    next: { rip: ['in', 'up', 'down', 'apart', 'off', 'open'] },
  },
  tears: {
    readings: { eye: 'T IH1 R Z', rip: 'T EH1 R Z' }, tags: { V: 'rip', N: 'eye', D: 'eye', J: 'eye' },
    next: { rip: ['up', 'down', 'apart', 'off', 'open'] },
  },
  bass: {
    readings: { fish: 'B AE1 S', music: 'B EY1 S' }, tags: { V: 'music', N: 'music', D: 'music', J: 'music' },
    near: { fish: ['fish', 'fishing', 'caught', 'catch', 'lake', 'river', 'striped', 'swim', 'pond', 'bait', 'grilled', 'sea', 'largemouth', 'smallmouth'] },
  },
  close: { readings: { adjective: 'K L OW1 S', verb: 'K L OW1 Z' }, tags: { V: 'verb', N: 'adjective', D: 'adjective', J: 'adjective' }, next: { adjective: ['to', 'by', 'friend', 'friends', 'call', 'game'] } },
  present: { readings: { noun: 'P R EH1 Z AH0 N T', verb: 'P R IY0 Z EH1 N T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  presents: { readings: { noun: 'P R EH1 Z AH0 N T S', verb: 'P R IY0 Z EH1 N T S' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  object: { readings: { noun: 'AA1 B JH EH0 K T', verb: 'AH0 B JH EH1 K T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  objects: { readings: { noun: 'AA1 B JH EH0 K T S', verb: 'AH0 B JH EH1 K T S' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  minute: { readings: { noun: 'M IH1 N AH0 T', adjective: 'M AY0 N UW1 T' }, tags: { V: 'noun', N: 'noun', D: 'noun', J: 'adjective' }, beforePlural: 'adjective' },
  wound: {
    readings: { noun: 'W UW1 N D', verb: 'W AW1 N D' }, tags: { V: 'verb', N: 'noun', D: 'verb', J: 'verb' },
    next: { verb: ['up', 'down', 'around', 'round', 'through', 'along', 'the', 'it', 'her', 'his', 'its', 'a'] },
  },
  use: { readings: { noun: 'Y UW1 S', verb: 'Y UW1 Z' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  dove: { readings: { bird: 'D AH1 V', verb: 'D OW1 V' }, tags: { V: 'verb', N: 'bird', D: 'verb', J: 'bird' }, next: { verb: ['into', 'in', 'off', 'under', 'down', 'for'] } },
  bow: {
    readings: { bend: 'B AW1', ribbon: 'B OW1' }, tags: { V: 'bend', N: 'ribbon', D: 'bend', J: 'ribbon' },
    near: {
      bend: ['took', 'take', 'takes', 'taking', 'audience', 'crowd', 'stage', 'deep', 'king', 'queen', 'curtain', 'actors', 'applause'],
      ribbon: ['ribbon', 'tied', 'tie', 'hair', 'arrow', 'arrows', 'drew', 'aimed', 'violin', 'cello', 'archery', 'string', 'strings'],
    },
  },
  sow: { readings: { pig: 'S AW1', plant: 'S OW1' }, tags: { V: 'plant', N: 'pig', D: 'plant', J: 'pig' } },
  produce: { readings: { verb: 'P R AH0 D UW1 S', noun: 'P R OW1 D UW0 S' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  project: { readings: { noun: 'P R AA1 JH EH0 K T', verb: 'P R AH0 JH EH1 K T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  permit: { readings: { verb: 'P ER0 M IH1 T', noun: 'P ER1 M IH2 T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  refuse: { readings: { verb: 'R IH0 F Y UW1 Z', noun: 'R EH1 F Y UW2 Z' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  subject: { readings: { noun: 'S AH1 B JH IH0 K T', verb: 'S AH0 B JH EH1 K T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  contract: { readings: { noun: 'K AA1 N T R AE2 K T', verb: 'K AH0 N T R AE1 K T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  conduct: { readings: { noun: 'K AA1 N D AH0 K T', verb: 'K AA0 N D AH1 K T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  increase: { readings: { noun: 'IH1 N K R IY2 S', verb: 'IH2 N K R IY1 S' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  excuse: { readings: { noun: 'IH0 K S K Y UW1 S', verb: 'IH0 K S K Y UW1 Z' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  abuse: { readings: { noun: 'AH0 B Y UW1 S', verb: 'AH0 B Y UW1 Z' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  separate: { readings: { adjective: 'S EH1 P ER0 IH0 T', verb: 'S EH1 P ER0 EY2 T' }, tags: { V: 'verb', N: 'adjective', D: 'adjective', J: 'adjective' } },
  estimate: { readings: { noun: 'EH1 S T AH0 M AH0 T', verb: 'EH1 S T AH0 M EY2 T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  estimates: { readings: { noun: 'EH1 S T AH0 M AH0 T S', verb: 'EH1 S T AH0 M EY2 T S' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  moderate: { readings: { adjective: 'M AA1 D ER0 AH0 T', verb: 'M AA1 D ER0 EY2 T' }, tags: { V: 'verb', N: 'adjective', D: 'adjective', J: 'adjective' } },
  graduate: { readings: { noun: 'G R AE1 JH AH0 W AH0 T', verb: 'G R AE1 JH AH0 W EY2 T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  perfect: { readings: { adjective: 'P ER1 F IH2 K T', verb: 'P ER0 F EH1 K T' }, tags: { V: 'verb', N: 'adjective', D: 'adjective', J: 'adjective' } },
  rebel: { readings: { noun: 'R EH1 B AH0 L', verb: 'R IH0 B EH1 L' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  desert: { readings: { noun: 'D EH1 Z ER0 T', verb: 'D IH0 Z ER1 T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  address: { readings: { noun: 'AE1 D R EH2 S', verb: 'AH0 D R EH1 S' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  content: { readings: { noun: 'K AA1 N T EH0 N T', adjective: 'K AH0 N T EH1 N T' }, tags: { V: 'noun', N: 'noun', D: 'noun', J: 'adjective' } },
  polish: { readings: { shine: 'P AA1 L IH0 SH', nationality: 'P OW1 L IH0 SH' }, tags: { V: 'shine', N: 'shine', D: 'shine', J: 'shine' }, capitalised: 'nationality' },
  progress: { readings: { noun: 'P R AA1 G R EH2 S', verb: 'P R AH0 G R EH1 S' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  conflict: { readings: { noun: 'K AA1 N F L IH0 K T', verb: 'K AH0 N F L IH1 K T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  insult: { readings: { noun: 'IH1 N S AH2 L T', verb: 'IH2 N S AH1 L T' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  resume: { readings: { verb: 'R IH0 Z UW1 M', noun: 'R EH1 Z AH0 M EY2' }, tags: { V: 'verb', N: 'noun', D: 'noun', J: 'noun' } },
  invalid: { readings: { adjective: 'IH2 N V AE1 L AH0 D', noun: 'IH1 N V AH0 L IH0 D' }, tags: { V: 'adjective', N: 'adjective', D: 'adjective', J: 'adjective' } },
};

const set = (s) => new Set(s.split(' '));
const DETERMINERS = set('a an the this that these those my your his her its our their no every each any some another what which whose '
  + 'one two three four five six seven eight nine ten many several few more most much');
const PREPOSITIONS = set('of in on at for with from by about into under over without through between during against across toward towards like upon within');
const MODALS = set('to will would can could shall should may might must cannot can\'t won\'t wouldn\'t couldn\'t shouldn\'t mustn\'t do does did '
  + 'don\'t doesn\'t didn\'t let\'s please i\'ll we\'ll you\'ll they\'ll he\'ll she\'ll it\'ll i\'d we\'d you\'d they\'d');
const HAVE = set('have has had having i\'ve we\'ve you\'ve they\'ve');
const BE = set('is are was were be been being am it\'s that\'s he\'s she\'s seem seems seemed feel feels felt look looks looked become became');
const SUBJECTS = set('i you we they he she it who people');
const THIRD_PERSON = set('he she it who');
const OBJECTS = set('the a an my your his her our their its this that these those me him us them it every each some');
const ADVERBS = set('already just never always often also still usually sometimes rarely really not even only ever recently carefully soon all both');
const ADJECTIVES = set('good great large small big little fresh local personal sharp strong rough serious cold white hot long short whole new old '
  + 'last first next final favorite huge tiny high low deep real true full free rare common special main early late major minor young');
const CONJUNCTIONS = set('and or but as when if because while');
const PAST_CUES = set('yesterday ago last earlier was were had did already then once');

/** Whether a word looks like a plural noun (a subject before a verb: "farmers sow"). */
const pluralNoun = (w) => /[^s]s$/.test(w) && w.length > 3 && !/(ous|ss|is|us)$/.test(w) && !HAVE.has(w) && !BE.has(w);

/**
 * The tag of the word at `i` in `words` (lower case; null where a sentence or clause
 * breaks), and why: [tag, reason].
 */
export function tagAt(words, i) {
  let p = i - 1;
  while (p >= 0 && words[p] !== null && ADVERBS.has(words[p])) p--;
  const prev = p >= 0 ? words[p] : null;
  const prev2 = p >= 1 ? words[p - 1] : null;
  const next = words[i + 1] ?? null;
  if (prev !== null) {
    if (HAVE.has(prev)) return ['D', `after "${prev}"`];
    if (SUBJECTS.has(prev) && prev2 !== null && HAVE.has(prev2)) return ['D', `after "${prev2} ${prev}"`];
    if (BE.has(prev)) return ['J', `after "${prev}"`];
    if (MODALS.has(prev)) return ['V', `after "${prev}"`];
    if (SUBJECTS.has(prev)) return ['V', `after the subject "${prev}"`];
    if (DETERMINERS.has(prev) || /'s$/.test(prev)) return ['N', `after "${prev}"`];
    if (PREPOSITIONS.has(prev)) return ['N', `after "${prev}"`];
    if (ADJECTIVES.has(prev)) return ['N', `after the adjective "${prev}"`];
    if (pluralNoun(prev) && (prev2 === null || DETERMINERS.has(prev2) || CONJUNCTIONS.has(prev2) || ADJECTIVES.has(prev2))) {
      return ['V', `after the plural subject "${prev}"`];
    }
    if (OBJECTS.has(next)) return ['V', `before the object "${next}"`];
    return ['N', 'no verb before it'];
  }
  if (OBJECTS.has(next)) return ['V', `a sentence's first word before "${next}"`];
  return ['N', 'a sentence\'s first word'];
}

/**
 * The reading of a heteronym at `i` in the text's words: { index (into `prons`),
 * reading, why }, or null for a word TABLE lacks or whose readings `prons` (CMUdict's
 * pronunciations of it) do not hold. `words`: the text's words in lower case, null
 * between sentences and clauses; `texts`: the same words as written; `tag`: a tagger
 * to use instead of tagAt (for measuring others).
 */
export function chooseReading(prons, words, texts, i, tag = tagAt) {
  const entry = TABLE[words[i]];
  if (!entry) return null;
  const at = (name) => prons.findIndex((p) => p.join(' ') === entry.readings[name]);
  if (Object.keys(entry.readings).some((name) => at(name) < 0)) return null;
  const pick = (reading, why) => ({ index: at(reading), reading, why });
  const next = words[i + 1] ?? null;
  if (entry.capitalised && /^\p{Lu}/u.test(texts[i]) && words[i - 1] !== null && i > 0) return pick(entry.capitalised, 'capitalised inside a sentence');
  // Words nearby (four each side, in the sentence) that belong to one reading.
  for (const [reading, cues] of Object.entries(entry.near ?? {})) {
    for (let k = Math.max(0, i - 4); k <= Math.min(words.length - 1, i + 4); k++) {
      if (k !== i && words[k] !== null && cues.includes(words[k]) && !words.slice(Math.min(i, k), Math.max(i, k)).includes(null)) {
        return pick(reading, `"${words[k]}" nearby`);
      }
    }
  }
  const [t, because] = tag(words, i);
  for (const [reading, cues] of Object.entries(entry.next ?? {})) {
    if (next !== null && cues.includes(next) && !(t === 'V' && entry.tags.V === reading) && (t !== 'V' || reading === entry.tags.V || entry.tags.N === entry.tags.V)) {
      return pick(reading, `before "${next}"`);
    }
  }
  if (entry.beforePlural && t !== 'J' && next !== null && pluralNoun(next) && next !== `${words[i]}s`) return pick(entry.beforePlural, `before the plural "${next}"`);
  let reading = entry.tags[t];
  // A past tense after a third person's subject: "she read it" (the present would be "reads").
  if (words[i] === 'read' && t === 'V') {
    let p = i - 1;
    while (p >= 0 && words[p] !== null && ADVERBS.has(words[p])) p--;
    const subject = words[p];
    const sentence = [];
    for (let k = i - 1; k >= 0 && words[k] !== null; k--) sentence.push(words[k]);
    for (let k = i + 1; k < words.length && words[k] !== null; k++) sentence.push(words[k]);
    if (THIRD_PERSON.has(subject) || (subject && /^\p{Lu}/u.test(texts[p]) && p > 0 && words[p - 1] !== null)) return pick('past', `after "${subject}": the present would be "reads"`);
    if (SUBJECTS.has(subject) && sentence.some((w) => PAST_CUES.has(w))) return pick('past', 'a past tense in the sentence');
  }
  return pick(reading, `${{ V: 'a verb', N: 'a noun', D: 'a past participle', J: 'after "be"' }[t]} (${because})`);
}
