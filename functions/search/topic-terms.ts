import { contentWords, SPOKEN_FILLERS, STOPWORDS, stemWord } from '../../platform/model/local-text.js';

/**
 * What a topic means in the words of the texts it is matched against, and whether a text is about it.
 * A text is about a topic when it
 *
 * - shares a stem with it (stemWord over contentWords, or the caller's own reading of words);
 * - writes one of its acronyms: a topic word that is one ("SSO"), or the initials of a phrase of the
 *   topic ("customer relationship management" is "CRM"), in capitals as a whole word, so the pronoun
 *   "it" is never "IT"; any case when the topic itself writes the acronym in lower case ("sso");
 * - says a phrase whose initials spell an acronym of the topic ("single sign-on" spells SSO).
 *
 * Acronyms are read from the texts, not from a table: a topic word is one when it is written in
 * capitals, or, in a topic of a few words, when it has 2 to 5 letters and the texts never write it as
 * an ordinary word. The phrases spelling one are those the texts say (a two-letter one's, said twice
 * or more). A phrase
 * spells an acronym when its words' initials are its letters, each part of a hyphenated word a word
 * ("sign-on" gives S and O), within one clause (punctuation ends a phrase: letters that start words
 * on both sides of a full stop spell nothing), its words content words: a stopword inside ends it,
 * except "of", "and", "for" and "the", which may give their initial or be passed over ("Department of
 * Defense" is DOD and DD). A word in capitals is an acronym itself, never a word of a phrase.
 */

/** Words an expansion may hold without giving an initial ("bill of materials" is BOM and BM). */
const CONNECTORS: ReadonlySet<string> = new Set(['of', 'and', 'for', 'the']);

/** The letters of an acronym the topic writes in capitals, at most. */
const CAPITALS_MAX = 8;
/**
 * A lower-case topic word of this many letters may be an acronym ("sso", "crm") when the texts never
 * write it as a word, in a topic of at most `topicWords` words: a few words name a thing ("crm sync");
 * in prose (a drafted email's "Hi Dana", a whole question) only capitals tell an acronym from a word.
 */
const LOWER_CASE_ACRONYM = { min: 2, max: 5, topicWords: 4 };
/** The words of a topic's phrase that give it an acronym ("role-based access control" is three words). */
const PHRASE_WORDS = { min: 2, max: 5 };

/** One acronym of a topic, and the topic words it stands for. */
export interface TopicAcronym {
  /** Its letters in capitals: "SSO". */
  letters: string;
  /** The topic's words it stands for, in lower case: ["sso"], or ["single", "sign-on"]. */
  words: readonly string[];
  /** Whether the topic names the acronym itself (texts may then spell it as a phrase), or a phrase of the topic spells it. */
  named: boolean;
  /** Whether a text may write it in any case: the topic wrote it in lower case. */
  anyCase: boolean;
}

export interface TopicTermsOptions {
  /**
   * The texts the topic is matched against. A lower-case topic word written as an ordinary word in
   * any of them is no acronym; without them each text matched is its own evidence.
   */
  texts?: readonly string[];
  /** How a text is read into stems (contentWords, then stemWord, unless the caller reads words its own way). */
  stemsOf?: (text: string) => Iterable<string>;
  /** The topic's stems, when they are not its stemsOf (a question read without its asking words). */
  stems?: Iterable<string>;
  /**
   * Words of the topic that do not stand for it alone: a compound's head its modifier narrows (the
   * "connector" of "zapier connector", agents/understanding/topic-heads.ts). A text holding only
   * these is about something broader than the topic.
   */
  heads?: Iterable<string>;
}

const defaultStems = (text: string): string[] => contentWords(text).map(stemWord);

/**
 * Two initials are met by chance in ordinary speech ("integration timeline" spells IT): a two-letter
 * acronym is read in a phrase only when the texts say that phrase this many times or more.
 */
const TWO_LETTER_RECURRENCE = 2;

/** The terms that mean a topic (its stems and its acronyms), and whether a text is about it. */
export class TopicTerms {
  readonly topic: string;
  readonly stems: ReadonlySet<string>;
  readonly acronyms: readonly TopicAcronym[];
  /** The stems of the heads (TopicTermsOptions.heads) that no other word of the topic gives. */
  readonly narrowed: ReadonlySet<string>;
  /** The heads whose stems are narrowed, as the topic writes them, for messages. */
  private readonly narrowedWords: readonly string[];
  private readonly stemsOf: (text: string) => Iterable<string>;
  /** Each acronym's written form, null when the topic's stems already see it ("SSO" is the stem "sso"). */
  private readonly written: readonly { acronym: TopicAcronym; pattern: RegExp | null }[];
  /** With the texts: the phrases they say that spell each named acronym (lower case), by its letters. */
  private readonly expansions: Map<string, Map<string, string>> | null;

  constructor(topic: string, options: TopicTermsOptions = {}) {
    this.topic = topic;
    this.stemsOf = options.stemsOf ?? defaultStems;
    this.stems = new Set(options.stems ?? this.stemsOf(topic));
    const narrowed = narrowedStems(topic, this.stems, [...(options.heads ?? [])], this.stemsOf);
    this.narrowed = narrowed.stems;
    this.narrowedWords = narrowed.words;
    const texts = options.texts;
    const ordinary = texts ? ordinaryWordsIn(texts, lowerCaseCandidates(topic)) : null;
    this.acronyms = acronymsOf(topic, (word) => !ordinary?.has(word));
    const seenByStems = (letters: string) => [...this.stemsOf(letters)].some((stem) => this.stems.has(stem));
    this.written = this.acronyms.map((acronym) => ({
      acronym,
      pattern: acronym.named && seenByStems(acronym.letters) ? null : writtenPattern(acronym),
    }));
    this.expansions = texts ? expansionsIn(texts, this.acronyms) : null;
  }

  /** Whether the text is about the topic: a shared stem, an acronym written, or a phrase spelling one. */
  matches(text: string): boolean {
    if (this.stems.size > 0)
      for (const stem of this.stemsOf(text)) if (this.stems.has(stem) && !this.narrowed.has(stem)) return true;
    return this.acronymsIn(text).length > 0;
  }

  /** Whether nothing could match: a topic of no content word and no acronym ("the", "it"). */
  get isEmpty(): boolean {
    return this.stems.size === 0 && this.acronyms.length === 0;
  }

  /** How much of the topic a text holds: the topic's stems it shares, and each time it holds an acronym of it. */
  heldIn(text: string): number {
    const shared = new Set([...this.stemsOf(text)].filter((stem) => this.stems.has(stem)));
    return shared.size + this.acronymsIn(text).length;
  }

  /**
   * The topic's acronyms the text holds, once per time it writes one or says a phrase spelling one:
   * what a stem cannot see ("single sign-on" for "SSO", "CRM" for "customer relationship management").
   */
  acronymsIn(text: string): TopicAcronym[] {
    const held: TopicAcronym[] = [];
    for (const { acronym, pattern } of this.written) {
      // Without the texts to learn from, a text writing a lower-case topic word as a word ("the team")
      // says it is no acronym there.
      if (!this.expansions && acronym.anyCase && writesAsWord(text, acronym.letters)) continue;
      if (pattern) for (const _ of text.matchAll(pattern)) held.push(acronym);
      if (!acronym.named) continue;
      const learned = this.expansions?.get(acronym.letters);
      if (!learned && acronym.letters.length < 3) continue;
      for (const phrase of phrasesSpelling(text, acronym.letters))
        if (!learned || learned.has(phraseKey(phrase))) held.push(acronym);
    }
    return held;
  }

  /**
   * What was looked for, in words for a message: 'the words of "SSO" in any form and a phrase whose
   * initials spell SSO (found: "single sign-on")'.
   */
  lookedFor(): string {
    const heads = this.narrowedWords;
    const alone = heads.length > 0 ? ` (${heads.map((h) => `"${h}"`).join(', ')} only with another of them)` : '';
    const parts = [`the words of "${this.topic}" in any form${alone}`];
    for (const acronym of this.acronyms) {
      if (!acronym.named) {
        parts.push(`${acronym.letters} in capitals`);
        continue;
      }
      const found = [...(this.expansions?.get(acronym.letters)?.values() ?? [])].slice(0, 3);
      const listed = found.length > 0 ? ` (found: ${found.map((p) => `"${p}"`).join(', ')})` : '';
      parts.push(
        `a phrase whose initials spell ${acronym.letters}${this.expansions && !listed ? ' (none found)' : listed}`,
      );
    }
    return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  }
}

export const topicTerms = (topic: string, options?: TopicTermsOptions): TopicTerms => new TopicTerms(topic, options);

/**
 * The stems only the heads give, of the topic's stems: a stem another word gives too stands alone.
 * None when the heads would leave nothing to match.
 */
function narrowedStems(
  topic: string,
  stems: ReadonlySet<string>,
  heads: readonly string[],
  stemsOf: (text: string) => Iterable<string>,
): { stems: ReadonlySet<string>; words: string[] } {
  const none = { stems: new Set<string>(), words: [] };
  if (heads.length === 0) return none;
  const headWords = new Set(heads.map((h) => h.toLowerCase()));
  const others = (topic.match(WORD) ?? []).filter((w) => !headWords.has(w.toLowerCase())).join(' ');
  const standing = new Set(stemsOf(others));
  const only = (word: string) => [...stemsOf(word)].filter((s) => stems.has(s) && !standing.has(s));
  const words = [...headWords].filter((w) => only(w).length > 0);
  const narrowed = new Set(words.flatMap(only));
  return [...stems].some((s) => !narrowed.has(s)) ? { stems: narrowed, words } : none;
}

/** A phrase as the texts' phrases are compared: lower case, a hyphen or spaces as one space. */
const phraseKey = (phrase: string): string => phrase.toLowerCase().replace(/[\s-]+/g, ' ');

/**
 * The phrases the texts say that spell each named acronym, by its letters: their keys (phraseKey) and
 * each as first written (lower case); a two-letter acronym's only when said again.
 */
function expansionsIn(texts: readonly string[], acronyms: readonly TopicAcronym[]): Map<string, Map<string, string>> {
  const expansions = new Map<string, Map<string, string>>();
  for (const { letters, named } of acronyms) {
    if (!named) continue;
    const said = new Map<string, { phrase: string; times: number }>();
    for (const text of texts)
      for (const phrase of phrasesSpelling(text, letters)) {
        const key = phraseKey(phrase);
        const seen = said.get(key) ?? { phrase: phrase.toLowerCase(), times: 0 };
        seen.times++;
        said.set(key, seen);
      }
    const needed = letters.length < 3 ? TWO_LETTER_RECURRENCE : 1;
    expansions.set(letters, new Map([...said].filter(([, s]) => s.times >= needed).map(([key, s]) => [key, s.phrase])));
  }
  return expansions;
}

// ---- reading words -----------------------------------------------------------------------------

interface Word {
  text: string;
  /** The initials it gives: one per part of a hyphenated word; none for a word that ends a phrase. */
  initials: string;
  kind: 'word' | 'connector' | 'break';
}

/** Punctuation that ends a clause; a hyphen inside a word and an apostrophe do not. */
const CLAUSE_END = /[.,;:!?()[\]{}"“”/\\|…]|\s[-–—]+\s|[–—]/;
const WORD = /[A-Za-z0-9][A-Za-z0-9'’-]*/g;

const isCapitals = (token: string): boolean => /^[A-Z][A-Z0-9]+$/.test(token);

function readWord(token: string): Word {
  const lower = token.toLowerCase();
  if (CONNECTORS.has(lower)) return { text: token, initials: lower[0]!, kind: 'connector' };
  const parts = lower.split('-').filter((p) => p.length > 0);
  const ordinary =
    !isCapitals(token) &&
    !/[0-9'’]/.test(token) &&
    !(parts.length === 1 && (STOPWORDS.has(lower) || SPOKEN_FILLERS.has(lower) || lower.length < 2));
  return ordinary
    ? { text: token, initials: parts.map((p) => p[0]).join(''), kind: 'word' }
    : { text: token, initials: '', kind: 'break' };
}

/** The clauses of a text, each as its words. */
function clausesOf(text: string): Word[][] {
  return text.split(CLAUSE_END).map((clause) => (clause.match(WORD) ?? []).map(readWord));
}

/**
 * The phrases of a text whose initials spell `letters` (capitals): runs of words within a clause,
 * starting and ending on a content word, connectors passed over or giving their initial.
 */
export function phrasesSpelling(text: string, letters: string): string[] {
  const want = letters.toLowerCase();
  const found: string[] = [];
  for (const words of clausesOf(text)) {
    for (let start = 0; start < words.length; start++) {
      if (words[start]!.kind !== 'word') continue;
      const end = spellFrom(words, start, want, 0);
      if (end === null) continue;
      found.push(
        words
          .slice(start, end + 1)
          .map((w) => w.text)
          .join(' '),
      );
      start = end;
    }
  }
  return found;
}

/** The index of the last word of a phrase at `i` spelling `want` from letter `at`, or null. */
function spellFrom(words: readonly Word[], i: number, want: string, at: number): number | null {
  const word = words[i];
  if (!word || word.kind === 'break') return null;
  if (word.kind === 'connector') {
    // Passed over, or giving its initial; never the phrase's last word.
    const passed = spellFrom(words, i + 1, want, at);
    if (passed !== null) return passed;
    return want[at] === word.initials ? spellFrom(words, i + 1, want, at + 1) : null;
  }
  if (!want.startsWith(word.initials, at)) return null;
  const next = at + word.initials.length;
  return next === want.length ? i : spellFrom(words, i + 1, want, next);
}

// ---- a topic's acronyms ------------------------------------------------------------------------

/** The topic's lower-case words that could be acronyms, were the texts never to write them as words. */
function lowerCaseCandidates(topic: string): Set<string> {
  const tokens = topic.match(WORD) ?? [];
  if (tokens.length > LOWER_CASE_ACRONYM.topicWords) return new Set();
  return new Set(
    tokens
      .filter((t) => !isCapitals(t) && /^[A-Za-z]+$/.test(t))
      .map((t) => t.toLowerCase())
      .filter(
        (w) =>
          w.length >= LOWER_CASE_ACRONYM.min &&
          w.length <= LOWER_CASE_ACRONYM.max &&
          !STOPWORDS.has(w) &&
          !SPOKEN_FILLERS.has(w) &&
          !CONNECTORS.has(w),
      ),
  );
}

/** Which of the candidate words the texts write as an ordinary word: not in capitals. */
function ordinaryWordsIn(texts: readonly string[], candidates: ReadonlySet<string>): Set<string> {
  const ordinary = new Set<string>();
  if (candidates.size === 0) return ordinary;
  const pattern = new RegExp(`(?<![A-Za-z0-9])(?:${[...candidates].join('|')})(?![A-Za-z0-9])`, 'gi');
  for (const text of texts) {
    for (const [token] of text.matchAll(pattern)) if (!isCapitals(token)) ordinary.add(token.toLowerCase());
    if (ordinary.size === candidates.size) break;
  }
  return ordinary;
}

/** Whether a text writes the letters as an ordinary word (not in capitals). */
const writesAsWord = (text: string, letters: string): boolean =>
  [...text.matchAll(new RegExp(`(?<![A-Za-z0-9])${letters}(?![A-Za-z0-9])`, 'gi'))].some(([t]) => !isCapitals(t));

/**
 * The acronyms of a topic: its words in capitals, its short lower-case words `mayBeAcronym` allows
 * (each text is its own evidence then: see acronymsIn), and the initials of its phrases of 2 to 5
 * words within a clause. A phrase of two words inside a longer topic gives none: two capitals are
 * most often another abbreviation (a state, a unit, a time of day), so only a two-word topic claims them.
 */
function acronymsOf(topic: string, mayBeAcronym: (word: string) => boolean): TopicAcronym[] {
  const byLetters = new Map<string, TopicAcronym>();
  const add = (acronym: TopicAcronym) => {
    if (!byLetters.has(acronym.letters)) byLetters.set(acronym.letters, acronym);
  };
  const candidates = lowerCaseCandidates(topic);
  for (const token of topic.match(WORD) ?? []) {
    if (isCapitals(token) && /^[A-Z]+$/.test(token) && token.length <= CAPITALS_MAX)
      add({ letters: token, words: [token.toLowerCase()], named: true, anyCase: false });
    const lower = token.toLowerCase();
    if (candidates.has(lower) && mayBeAcronym(lower))
      add({ letters: lower.toUpperCase(), words: [lower], named: true, anyCase: true });
  }
  const whole = (topic.match(WORD) ?? []).length;
  for (const words of clausesOf(topic))
    for (let start = 0; start < words.length; start++)
      for (let end = start + 1; end < Math.min(words.length, start + PHRASE_WORDS.max); end++) {
        const run = words.slice(start, end + 1);
        if (run.some((w) => w.kind === 'break')) break;
        if (run[0]!.kind !== 'word' || run.at(-1)!.kind !== 'word') continue;
        const content = run.filter((w) => w.kind === 'word');
        if (content.length < PHRASE_WORDS.min || (content.length === 2 && whole > run.length)) continue;
        const letters = content
          .map((w) => w.initials)
          .join('')
          .toUpperCase();
        if (letters.length > CAPITALS_MAX) continue;
        add({ letters, words: content.map((w) => w.text.toLowerCase()), named: false, anyCase: false });
      }
  return [...byLetters.values()];
}

/** A whole word: the letters in capitals (a plural "s" allowed), or in any case when the topic wrote them so. */
function writtenPattern(acronym: TopicAcronym): RegExp {
  return new RegExp(`(?<![A-Za-z0-9])${acronym.letters}s?(?![A-Za-z0-9])`, acronym.anyCase ? 'gi' : 'g');
}
