/**
 * The local model's word handling: tokens, stopwords, spoken fillers and a small stemmer. Shared by
 * the local embedder, its term weights, the relevance check and the lexical features elsewhere, so
 * all of them agree on what a "word" of a text is.
 */

export const STOPWORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for from has have i in is it its of on or our so that the their them they this to was we were what when which who will with you your do does did not no'.split(
    ' ',
  ),
);

/** Lower-cased word tokens without stopwords; shared with lexical features elsewhere. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? []).filter((w) => !STOPWORDS.has(w) && w.length > 1);
}

/**
 * Discourse fillers and modal verbs of spoken English: frequent in transcripts ("honestly", "look",
 * "just", "would"), they say nothing about the topic, and in a hashed space every shared filler is
 * a false match. Dropped by the embedder only (contentWords keeps them).
 */
export const SPOKEN_FILLERS: ReadonlySet<string> = new Set(
  "just really actually honestly frankly candidly realistically basically literally look okay ok yeah yes well also very quite pretty much lot lots thing things something anything stuff kind sort maybe perhaps probably would could should can may might must shall me my us i'm we're it's that's there here then than now right one".split(
    ' ',
  ),
);

/** A few irregular forms the suffix rules cannot reach ("left" as in "our champion left"). */
const IRREGULAR_STEMS: Record<string, string> = {
  left: 'leav',
  gone: 'go',
  went: 'go',
  took: 'tak',
  taken: 'tak',
  bought: 'buy',
  sold: 'sell',
  paid: 'pay',
  spent: 'spend',
  chose: 'choos',
  chosen: 'choos',
  said: 'say',
  told: 'tell',
  saw: 'see',
  seen: 'see',
  cheaper: 'cheap',
  cheapest: 'cheap',
};

const PLURAL_RULES: readonly (readonly [RegExp, string])[] = [
  [/ies$/, 'y'],
  [/(ss)es$/, '$1'],
  [/([^s])s$/, '$1'],
];
const SUFFIX_RULES: readonly (readonly [RegExp, string])[] = [
  [/ational$/, 'ate'],
  [/ization$/, 'ize'],
  [/ations?$/, 'ate'],
  [/ments?$/, ''],
  [/ness$/, ''],
  [/ingly$/, ''],
  [/edly$/, ''],
  [/ions?$/, ''],
  [/ing$/, ''],
  [/ed$/, ''],
  [/ly$/, ''],
  [/e$/, ''],
];

/**
 * A tiny suffix stemmer (plural, then one derivational or inflectional suffix, then a doubled final
 * consonant): "leaving", "leaves", "leave" and "left" all become "leav"; "pricing", "priced" and
 * "price" become "pric"; "objections" becomes "object". Crude next to Porter's, but it never
 * shortens a word below three letters and is deterministic, which is all the embedder needs.
 */
export function stemWord(word: string): string {
  const irregular = IRREGULAR_STEMS[word];
  if (irregular) return irregular;
  if (word.length <= 3) return word;
  let s = word.replace(/'s$/, '');
  for (const [re, to] of PLURAL_RULES) {
    if (s.length > 4 && re.test(s)) {
      s = s.replace(re, to);
      break;
    }
  }
  for (const [re, to] of SUFFIX_RULES) {
    if (!re.test(s)) continue;
    const stripped = s.replace(re, to);
    if (stripped.length >= 3) {
      s = stripped;
      break;
    }
  }
  if (/([bdfgkmnprt])\1$/.test(s)) s = s.slice(0, -1);
  return s;
}

/**
 * The words the embedder reads, and their stems: lower-cased tokens (a hyphen splits), at least two
 * characters, stopwords and spoken fillers dropped.
 */
export function embeddingTerms(text: string): { words: string[]; stems: string[] } {
  const words = (text.toLowerCase().match(/[a-z0-9][a-z0-9']*/g) ?? []).filter(
    (w) => w.length > 1 && !STOPWORDS.has(w) && !SPOKEN_FILLERS.has(w),
  );
  return { words, stems: words.map(stemWord) };
}
