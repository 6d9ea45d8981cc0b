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
    allows: ['changes', 'voice', 'churn', 'history', 'quiet'],
  },
  { analysis: 'champion_changes', needs: ['qualification', 'changes'], allows: ['voice', 'history'] },
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

/** Analyses of people: a capitalised word nothing else explains is one of them, not an unknown account. */
export const PEOPLE_ANALYSES: ReadonlySet<Analysis> = new Set(['talk_ratio']);

export const OPERATION_SUBJECTS: Partial<Record<Analysis, 'deals' | 'interactions'>> = {
  talk_ratio: 'interactions',
  renewal_risk: 'deals',
  champion_changes: 'deals',
  account_history: 'interactions',
};

/** The date an analysis's period bounds, when it is not its records' usual one (a deal's close date). */
export const OPERATION_PERIOD_FIELDS: Partial<Record<Analysis, string>> = {
  champion_changes: 'occurred_at',
};

/** Analyses of one account: without exactly one account named, the question is another reader's. */
export const ONE_ACCOUNT_ANALYSES: ReadonlySet<Analysis> = new Set(['account_history']);

/** The measure each analysis ranks by, as its result rows name it. */
export const OPERATION_MEASURES: Partial<Record<Analysis, string>> = {
  talk_ratio: 'talk_share_pct',
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

/** Verbs of speaking whose amount can be measured ("who talks the most"). */
export const TALK_VERBS: ReadonlySet<string> = new Set(['talk', 'speak', 'yap', 'chat']);

/**
 * Words the reader could not place that are written as a person's name: capitalised inside the
 * question ("Mateo vs Zoe"), or possessive ("zoe's"). A question about people names them this way.
 */
export function namedPeople(ask: string, unexplained: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of unexplained) {
    if (!/^\p{L}{2,}$/u.test(word) || out.includes(word)) continue;
    const at = ask.indexOf(word);
    const capitalised = /^\p{Lu}\p{Ll}+$/u.test(word) && at > 0;
    const possessive = new RegExp(`\\b${word}['’]s\\b`, 'iu').test(ask);
    if (capitalised || possessive) out.push(word);
  }
  return out;
}
