import type { Analysis, InterpretedFilter } from './interpretation.js';
import type { CueAnalysis } from './lexicon.js';

/**
 * The kinds of question a registry analysis answers (functions/analyses/): the cue that names each,
 * and the records it is about. The reader composes such a question like any other (period, names,
 * order, limit, filters) and names the analysis; the local policy then calls the operation.
 */
const OPERATION_CUES: Partial<Record<CueAnalysis, Analysis>> = {
  talk: 'talk_ratio',
  requests: 'feature_requests',
  competitors: 'competitors',
};

export const OPERATION_SUBJECTS: Partial<Record<Analysis, 'deals' | 'interactions'>> = {
  talk_ratio: 'interactions',
  feature_requests: 'interactions',
  competitors: 'interactions',
};

/** The measure each analysis ranks by, as its result rows name it. */
export const OPERATION_MEASURES: Partial<Record<Analysis, string>> = {
  talk_ratio: 'talk_share_pct',
  feature_requests: 'accounts',
  competitors: 'conversations',
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

/** Whose asks a question names: prospects, or the customers already buying (plain "customers" is everyone). */
const AUDIENCE_WORDS: readonly (readonly [RegExp, 'customers' | 'prospects'])[] = [
  [/\bprospect(?:s|ive)?\b|\bpipeline accounts\b|\bleads?\b/i, 'prospects'],
  [
    /\b(?:existing|current|paying|installed[- ]base|our own) (?:customers?|clients?|accounts?)\b|\bcustomers only\b/i,
    'customers',
  ],
];

/** Words of asking itself ("asks", "wants"): how a request is said, never what it is about. */
const ASKING_WORDS =
  /^(?:asks?|asked|asking|wants?|wanted|needs?|needed|requests?|requested|requesting|top|biggest|common)$/i;

export interface OperationWords {
  people: string[];
  competitors: string[];
  topic: string | null;
  filters: InterpretedFilter[];
  /** The unexplained words these took. */
  placed: string[];
}

/**
 * What the words nothing else placed are in an analysis's reading: in talk ratio, the people written
 * as names ("Zoe", "zoe's"); in competitors, the names the workspace does not hold ("Quotient Labs");
 * in feature requests, what they ask about ("slack alerts") and whose asks (prospects, existing customers).
 */
export function operationWords(
  operation: Analysis | null,
  ask: string,
  unexplained: readonly string[],
  unknown: readonly string[],
): OperationWords {
  const none: OperationWords = { people: [], competitors: [], topic: null, filters: [], placed: [] };
  if (operation === 'talk_ratio') {
    const words = namedPeople(ask, unexplained);
    return { ...none, people: words.map((word) => word.replace(/['’]s$/u, '')), placed: words };
  }
  if (operation === 'competitors') {
    const words = unknown.flatMap((n) => n.split(/\s+/)).filter((w) => unexplained.includes(w));
    return { ...none, competitors: [...unknown], placed: words };
  }
  if (operation === 'feature_requests') {
    const audience = AUDIENCE_WORDS.find(([words]) => words.test(ask));
    const who = audience ? (audience[0].exec(ask)?.[0] ?? '') : '';
    const whoWords = new Set(who.toLowerCase().split(/\s+/));
    const topicWords = unexplained.filter((w) => !whoWords.has(w.toLowerCase()) && !ASKING_WORDS.test(w));
    return {
      ...none,
      topic: topicWords.length > 0 ? topicWords.join(' ') : null,
      filters: audience ? [{ field: 'audience', op: 'eq', value: audience[1], from_words: who }] : [],
      placed: [...unexplained],
    };
  }
  return none;
}
