import { z } from '@hono/zod-openapi';
import NEAR_WORDS from './near-words.json';
import type { Token } from './tokens.js';

/**
 * Words the lexicon does not hold, read as the lexicon phrase WordNet says they share a meaning with
 * ("begging" → "request", "appointments" → "meeting", "rickety" → "shaky"). The table is built from the
 * lexicon itself by scripts/build-near-words.ts; the reader looks a word up here only when nothing else
 * (a name, a period, the lexicon) placed it, and the reading says which word it read as which.
 */

type WordNetPos = 'n' | 'v' | 'a' | 'r';
/** The generated table, checked once when the module loads: a malformed build fails at start, not mid-reading. */
const WORDS = z
  .record(z.string(), z.tuple([z.string().min(1), z.enum(['n', 'v', 'a', 'r']), z.string().regex(/^n?v?a?r?$/)]))
  .parse(NEAR_WORDS.words);

export interface NearWord {
  /** The lexicon phrase the words are read as. */
  phrase: string;
  /** How many tokens, from the one looked up, the words take (a collocation takes two: "bump into"). */
  length: number;
}

/**
 * The token is used in the sense's part of speech, as compromise tagged it. A gerund may be a verb or a
 * noun; and compromise tags a word it does not know a noun, so a "noun" WordNet holds no noun of is not one.
 */
function usedAs(t: Token, pos: WordNetPos, poses: string): boolean {
  if (t.pos === null || t.pos === pos) return true;
  if (pos === 'n') return t.gerund;
  return t.pos === 'n' && !t.plural && !poses.includes('n');
}

/** The lexicon phrase the words at `i` are near, trying a two-word collocation first; null when none is. */
export function nearWordAt(tokens: readonly Token[], i: number, free: (j: number) => boolean): NearWord | null {
  const t = tokens[i]!;
  const next = tokens[i + 1];
  if (next && free(i + 1)) {
    for (const words of [`${t.lemma} ${next.lemma}`, `${t.lemma} ${next.lower}`]) {
      const hit = WORDS[words];
      if (hit) return { phrase: hit[0], length: 2 };
    }
  }
  for (const word of [t.lemma, t.lower]) {
    const hit = WORDS[word];
    if (hit && usedAs(t, hit[1], hit[2])) return { phrase: hit[0], length: 1 };
  }
  return null;
}
