import type { Analysis, InterpretedFilter } from './interpretation.js';
import { isCustomerSide } from './customer-asks.js';
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

/**
 * Analyses named by cues together: every cue of `needs` is in the question and each other cue is one
 * of `allows` (what the analysis reads anyway: what buyers said, quiet accounts, qualification).
 */
const OPERATION_CUE_SETS: readonly {
  analysis: Analysis;
  needs: readonly CueAnalysis[];
  allows: readonly CueAnalysis[];
}[] = [
  // "will acme renew", "which customers could cancel", "accounts not renewing"
  { analysis: 'renewal_risk', needs: ['lapse'], allows: ['renewal', 'churn', 'voice', 'quiet', 'qualification'] },
  // "which renewals are at risk", "renewals gone quiet" (who the champion of a renewal is stays qualification)
  { analysis: 'renewal_risk', needs: ['renewal', 'churn'], allows: ['voice', 'quiet', 'qualification'] },
  { analysis: 'renewal_risk', needs: ['renewal', 'quiet'], allows: ['voice', 'qualification'] },
  // "did any champions leave", "champion changes on acme", "where did the champion move on"
  {
    analysis: 'champion_changes',
    needs: ['qualification', 'departure'],
    // "when a champion leaves, do we still win the renewal?": the renewal is the deal it asks about.
    allows: ['changes', 'voice', 'churn', 'history', 'quiet', 'renewal'],
  },
  { analysis: 'champion_changes', needs: ['qualification', 'changes'], allows: ['voice', 'history', 'renewal'] },
  // "walk me through the history with acme", "acme timeline", "when did we first touch acme"
  { analysis: 'account_history', needs: ['history'], allows: ['voice', 'changes', 'brief'] },
];

/**
 * Cues that only qualify another ("left" says something of a champion, "renewals" names deals): without
 * one of their partners they name no kind of question, and the question is read without them.
 */
export const QUALIFYING_CUES: Partial<Record<CueAnalysis, readonly CueAnalysis[]>> = {
  departure: ['qualification'],
  renewal: ['churn', 'quiet', 'qualification', 'lapse'],
};

/**
 * Analyses that read a capitalised word nothing else explains as what they are of — a person (talk
 * ratio), a competitor, a product asked for ("Slack alerts") — not as an unknown account to look for.
 */
export const NAMING_ANALYSES: ReadonlySet<Analysis> = new Set(['talk_ratio', 'competitors', 'feature_requests']);

export const OPERATION_SUBJECTS: Partial<Record<Analysis, 'deals' | 'interactions'>> = {
  talk_ratio: 'interactions',
  feature_requests: 'interactions',
  competitors: 'interactions',
  renewal_risk: 'deals',
  champion_changes: 'deals',
  account_history: 'interactions',
};

/** The date an analysis's period bounds, when it is not its records' usual one (a deal's close date). */
export const OPERATION_PERIOD_FIELDS: Partial<Record<Analysis, string>> = {
  champion_changes: 'occurred_at',
};

/**
 * Analyses whose result says why, row by row (a renewal's risk signals and its buyers' words, what
 * happened after a champion left): a reason word with no loss in it ("any renewals looking shaky, and
 * why") asks for those reasons, not for why deals were lost.
 */
export const REASONING_ANALYSES: ReadonlySet<Analysis> = new Set(['renewal_risk', 'champion_changes']);

/**
 * What an analysis's result holds of the accounts it is about: the records it lists for each, and the
 * cues whose questions it answers. A part of a question asking only that is answered by the analysis.
 */
export const ANALYSIS_HOLDS: Partial<
  Record<Analysis, { subjects: readonly ('deals' | 'interactions')[]; cues: readonly CueAnalysis[] }>
> = {
  account_history: { subjects: ['deals', 'interactions'], cues: ['history'] },
  champion_changes: { subjects: ['deals'], cues: ['departure', 'qualification', 'changes'] },
};

/** Analyses of one account: without exactly one account named, the question is another reader's. */
export const ONE_ACCOUNT_ANALYSES: ReadonlySet<Analysis> = new Set(['account_history']);

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
 * was said, which they all read), or when they form one of the cue sets above; null when none is, or
 * when another kind of question is cued too.
 */
export function operationAnalysisOf(cues: ReadonlySet<CueAnalysis>): Analysis | null {
  const set = OPERATION_CUE_SETS.find(
    (s) => s.needs.every((c) => cues.has(c)) && [...cues].every((c) => s.needs.includes(c) || s.allows.includes(c)),
  );
  if (set) return set.analysis;
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
 * in feature requests, what they ask about ("slack alerts", never a verb in use) and whose asks (prospects,
 * existing customers).
 */
export function operationWords(
  operation: Analysis | null,
  ask: string,
  unexplained: readonly string[],
  unknown: readonly string[],
  verbsInUse: ReadonlySet<string> = new Set(),
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
    const topicWords = unexplained.filter(
      (w) => !whoWords.has(w.toLowerCase()) && !isCustomerSide(w) && !ASKING_WORDS.test(w) && !verbsInUse.has(w),
    );
    return {
      ...none,
      topic: topicWords.length > 0 ? topicWords.join(' ') : null,
      filters: audience ? [{ field: 'audience', op: 'eq', value: audience[1], from_words: who }] : [],
      placed: [...unexplained],
    };
  }
  return none;
}
