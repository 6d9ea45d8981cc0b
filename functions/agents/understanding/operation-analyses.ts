import type { Analysis } from './interpretation.js';
import type { CueAnalysis } from './lexicon.js';

/**
 * The kinds of question a registry analysis answers (functions/analyses/): the cue that names each,
 * and the records it is about. The reader composes such a question like any other (period, names,
 * order, limit, filters) and names the analysis; the local policy then calls the operation.
 */
const OPERATION_CUES: Partial<Record<CueAnalysis, Analysis>> = {
  talk: 'talk_ratio',
};

export const OPERATION_SUBJECTS: Partial<Record<Analysis, 'deals' | 'interactions'>> = {
  talk_ratio: 'interactions',
};

/** The measure each analysis ranks by, as its result rows name it. */
export const OPERATION_MEASURES: Partial<Record<Analysis, string>> = {
  talk_ratio: 'talk_share_pct',
};

/** Words that measure the inverse of an analysis's measure: listening is not talking. */
export const INVERSE_WORDS: ReadonlySet<string> = new Set(['listen', 'listener']);

/**
 * The analysis the question's cues name when every cue is an analysis's (or only says that something
 * was said, which they all read); null when none is, or when another kind of question is cued too.
 */
export function operationAnalysisOf(cues: ReadonlySet<CueAnalysis>): Analysis | null {
  const named = [...cues].flatMap((c) => (OPERATION_CUES[c] ? [OPERATION_CUES[c]] : []));
  if (named.length === 0 || new Set(named).size > 1) return null;
  return [...cues].every((c) => OPERATION_CUES[c] || c === 'voice') ? named[0]! : null;
}

/** Words that ask how much ("talks more", "speaks less"): with a verb of speaking, the talking is measured. */
export const AMOUNT_WORDS: ReadonlySet<string> = new Set(['more', 'less', 'most', 'least', 'much']);

/** Verbs of speaking whose amount can be measured ("who talks the most"). */
export const TALK_VERBS: ReadonlySet<string> = new Set(['talk', 'speak', 'yap', 'chat']);

/** Words after a verb of speaking that make it contact with someone or a subject, not an amount of talking. */
export const TALK_OBJECTS: ReadonlySet<string> = new Set(['to', 'with', 'about', 'of']);

/**
 * Words the reader could not place that are written as a person's name: capitalised inside the
 * question ("Mateo vs Zoe"), or possessive ("zoe's"). A question about people names them this way.
 */
export function namedPeople(ask: string, unexplained: readonly string[]): string[] {
  // The words as the question wrote them (a possessive keeps its "'s"), so the caller can take them out of `unexplained`.
  const out: string[] = [];
  for (const word of unexplained) {
    const name = word.replace(/['’]s$/u, '');
    if (!/^\p{L}{2,}$/u.test(name) || out.includes(word)) continue;
    const capitalised = /^\p{Lu}\p{Ll}+$/u.test(name) && ask.indexOf(word) > 0;
    const possessive = name !== word || new RegExp(`\\b${name}['’]s\\b`, 'iu').test(ask);
    if (capitalised || possessive) out.push(word);
  }
  return out;
}
