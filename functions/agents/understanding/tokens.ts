/**
 * The words of a question with their lemmas, from compromise (a maintained English NLP library that
 * bundles for Workers): "deals" → deal, "slipped" → slip, "lost" → lose, "biggest" → big. The reader
 * (reader.ts) matches its lexicon on lemmas, so one entry covers every inflection of a word.
 * The library is loaded on first use (it takes a few hundred milliseconds), not when a process starts.
 */

export interface Token {
  /** As written. */
  text: string;
  lower: string;
  /** The dictionary form, lower case ("deals" → "deal", "lost" → "lose"). */
  lemma: string;
  /** Offsets in the question. */
  start: number;
  end: number;
  plural: boolean;
  /** A name compromise recognises as a person's ("Zoe", "andre"). */
  person: boolean;
  /** A name compromise recognises as one (a person, an organisation, a place, a known acronym: "EU"). */
  proper: boolean;
  /** The part of speech it is used in (noun, verb, adjective, adverb), as compromise tags it; null when none. */
  pos: 'n' | 'v' | 'a' | 'r' | null;
  /** A verb's -ing form, which may also be used as a noun ("onboarding", "begging"). */
  gerund: boolean;
  /**
   * Placed where a noun goes: after a preposition, a determiner, an adjective or a possessive, or joined
   * by "and"/"or" to a word that is ("about onboarding and reporting"). An -ing form placed so is a noun.
   */
  nominal: boolean;
}

type Nlp = ((text: string) => {
  compute(method: string): unknown;
  json(options?: Record<string, unknown>): {
    terms: {
      text: string;
      normal?: string;
      root?: string;
      implicit?: string;
      tags?: string[];
      offset?: { start: number; length: number };
    }[];
  }[];
}) & { model(): { one: { lexicon: Record<string, string | string[] | undefined> } } };

let nlp: Nlp | null = null;

/** Load the NLP library once; every reading awaits this first. */
export async function loadTokenizer(): Promise<void> {
  if (nlp) return;
  const mod = (await import('compromise/two')) as unknown as { default: Nlp };
  nlp = mod.default;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’&-]*/gu;

const VERB_ROOTS = new Map<string, string>();

/** "delayed" → "delay": the word's root as the verb of a short sentence, once per word. */
function verbRoot(word: string): string {
  const known = VERB_ROOTS.get(word);
  if (known !== undefined) return known;
  const doc = nlp!(`they ${word} it`);
  doc.compute('root');
  const root = doc.json()[0]?.terms[1]?.root ?? word;
  if (VERB_ROOTS.size < 10_000) VERB_ROOTS.set(word, root);
  return root;
}

/** The question's words, lemmatised (loadTokenizer must have run). */
export function tokenize(text: string): Token[] {
  if (!nlp) throw new Error('tokenize before loadTokenizer');
  const doc = nlp(text);
  doc.compute('root');
  doc.compute('offset');
  const tokens: Token[] = [];
  for (const sentence of doc.json({ offset: true })) {
    // Each term's tags and whether it stands where a noun goes, for the terms after it.
    const seen: { tags: readonly string[]; nominal: boolean }[] = [];
    for (const term of sentence.terms) {
      const tags = term.tags ?? [];
      const before = seen.at(-1);
      const nominal: boolean =
        (before?.tags.some((tag) => NOUN_PLACES.has(tag)) ?? false) ||
        (before?.tags.includes('Conjunction') === true && seen.at(-2)?.nominal === true);
      seen.push({ tags, nominal });
      // A percent sign written apart ("win %") is a word of its own: it asks for a rate.
      const written = /^\s*%\W*$/u.test(term.text) ? '%' : term.text.replace(/^[^\p{L}\p{N}$]+|[^\p{L}\p{N}%]+$/gu, '');
      // A contraction's hidden word ("what's" → what + is) has no text of its own: its lemma still counts.
      const implicit = term.implicit && !written ? term.implicit.toLowerCase() : null;
      if (!written && !implicit) continue;
      const start = term.offset?.start ?? 0;
      const lower = (implicit ?? written).toLowerCase().replace(/’/g, "'").replace(/'s$/, '');
      const normal = (term.normal ?? lower).replace(/'s$/, '');
      // A participle read as an adjective ("keep getting delayed") has no root: its verb's is read in a verb frame.
      const participle = !term.root && tags.includes('Adjective') && /..(?:ed|ing)$/.test(normal);
      const lemma = (term.root ?? (participle ? verbRoot(normal) : normal)).toLowerCase();
      tokens.push({
        text: written || (implicit as string),
        lower,
        lemma: lemma.match(WORD) ? lemma : lower,
        start,
        end: start + (term.offset?.length ?? written.length),
        plural: tags.includes('Plural'),
        person: tags.includes('Person') || tags.includes('FirstName'),
        proper: tags.includes('ProperNoun'),
        pos: partOfSpeech(tags),
        gerund: tags.includes('Gerund'),
        nominal,
      });
    }
  }
  return tokens;
}

/** Tags of a word after which a noun goes. */
const NOUN_PLACES: ReadonlySet<string> = new Set(['Preposition', 'Determiner', 'Adjective', 'Possessive']);

function partOfSpeech(tags: readonly string[]): Token['pos'] {
  if (tags.includes('Verb')) return 'v';
  if (tags.includes('Adjective')) return 'a';
  if (tags.includes('Adverb')) return 'r';
  if (tags.includes('Noun')) return 'n';
  return null;
}

/** Tags of the library's own dictionary that make a word a describing one ("better", "new", "improved"). */
const DESCRIBING_TAGS: ReadonlySet<string> = new Set(['Adjective', 'Comparative', 'Superlative']);

/**
 * Whether the library's dictionary knows the word as an adjective ("better", "faster", "new"). A word it
 * only guesses one from its ending is not: "zapier" looks like "happier" but names a product.
 */
export function isKnownAdjective(word: string): boolean {
  if (!nlp) throw new Error('isKnownAdjective before loadTokenizer');
  const entry = nlp.model().one.lexicon[word.toLowerCase()];
  const tags = entry === undefined ? [] : Array.isArray(entry) ? entry : [entry];
  return tags.some((tag) => DESCRIBING_TAGS.has(tag));
}
