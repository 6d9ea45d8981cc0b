import { contentWords, stemWord } from '../../platform/model/local.js';
import { canonicalJson } from '../../platform/canonical-json.js';
import type { BlockDraft } from './answer.js';
import { isScaffoldWord } from './understanding/question-words.js';

/**
 * The verifier's absence rule (agents.md: "a claim that something is absent or zero is backed by a
 * query in the same answer"), for every model. A sentence of the prose that says, as a fact about the
 * world, that something is not there — "no one mentioned", "nobody", "none of", "there are no",
 * "never brought up", "not a single", a negative subject ("No customer mentioned…", "Nothing was
 * said…") or a negated verb over any case ("did not come up in any call", "not raised by anyone") —
 * stands only when the same answer holds what found nothing:
 *
 * - a metric whose value is 0, or a table with no rows (or one row counting 0), each with its query;
 * - a citation of kind `query` (the query that found nothing, named);
 * - a search this run made that found nothing: no result, or one row counting 0 (from the run's transcript, so no statement is
 *   read for it): the verifier then adds a citation of that search, and bounds the sentence by it
 *   ("— found none in a search for “…”"), so the answer holds it and a reader sees how far it goes.
 *
 * "On that subject": the backing shares a content word (stemmed, question scaffolding aside) with the
 * sentence. A kept metric above 0 or a table with rows that shares more of the sentence's words than
 * any backing contradicts it ("none of the conversations falls in the last four quarters" beside a
 * quarter's count of 23): the sentence is unbacked. An unbacked sentence is removed and the check
 * fails.
 *
 * A sentence that bounds itself by its own search ("I found no…", "I could not find…", "in a
 * transcript I can quote") is the honest form this rule rewrites towards; it is held only to the run
 * having searched at all, when the verifier knows the run's searches.
 */

/** A search the run made and how many results it returned (its request as the tool call gave it). */
export interface RunSearch {
  request: Record<string, unknown>;
  results: number;
}

const UNIVERSAL =
  /\b(?:no[- ]one|nobody|none of|none (?:was|were|is|are|came|come)|there (?:are|were|is|was|have been|has been) no|never (?:once )?(?:mentioned|brought|raised|named|said|talked|came|comes|asked|spoke|discussed)|not (?:a single|once|one (?:of|person|customer|buyer|contact))|no (?:mentions?|sign|record|trace) of|zero)\b/i;
/**
 * A negative quantifier as the subject of its clause ("No customer mentioned Pipewell", "No competitors
 * were named", "Not one account brought it up", "Nothing was said about it"): the clause opens the
 * sentence (after a list marker or bold), or follows a semicolon, a dash or ", and"/", but". "No" as an
 * adverb ("no longer", "no more than", "no matter") quantifies nothing.
 */
const NEGATIVE_SUBJECT =
  /(?:^|[;—–]\s*|,\s*(?:and|but)\s+)(?:[-*]\s+|\d+\.\s+)?(?:\*\*|__)?(?:no(?!\s+(?:longer|later|earlier|sooner|more|less|fewer|matter|doubt|wonder|way)\b)\s+[a-z]|not (?:one|a single)\b|nothing\b)/i;
/**
 * A negated verb with a word of any ("did not come up in any call", "has not been raised by anyone",
 * "was never mentioned at all"): the negation is over every case, a claim that none holds.
 */
const NEGATED_ANY = /(?:\bnot\b|\bnever\b|n't\b)[^.;:!?]{0,80}?\b(?:any(?:one|body|thing|where)?|ever|at all)\b/i;
/** Whether a sentence claims that something is absent. */
const claimsAbsence = (claim: string): boolean =>
  UNIVERSAL.test(claim) || NEGATIVE_SUBJECT.test(claim) || NEGATED_ANY.test(claim);
const BOUNDED =
  /\b(?:I|we) (?:found|could(?: not|n't)? find|can(?:not|'t)? find|did(?: not|n't) find|do(?: not|n't) see|saw)\b|\bI can quote\b|\bsearch(?:es)? (?:found|returned)\b/i;
/** The words that make a sentence an absence claim, and the little words around them: never its subject. */
const NOT_SUBJECT = new Set(
  'no one nobody none never not single once zero there any anyone anything nothing mention mentions mentioned sign record trace found find match matches matched'.split(
    ' ',
  ),
);

export interface AbsenceResult {
  /** The prose with unbacked sentences taken out and search-backed ones bounded by their search. */
  rewrite: (text: string) => string;
  /** Citations of the searches that back a sentence (the answer holds its backing). */
  citations: BlockDraft[];
  /** Sentences removed, and why. */
  problems: string[];
  removed: number;
  held: number;
}

/** What a block or search found, on which words: `subject` its topic's, `records` with the records' words too. */
type Backing = { subject: Set<string>; records: Set<string>; zero: boolean; search?: RunSearch };

/** A text's subject words, stemmed; with `records`, the words naming records and questions too ("calls", "deals"). */
const stems = (text: string, records = false): Set<string> =>
  new Set(
    contentWords(text)
      .filter((w) => w.length > 2 && !/^\d/.test(w) && (records || !isScaffoldWord(w)) && !NOT_SUBJECT.has(w))
      .map(stemWord),
  );
const backing = (text: string, zero: boolean, search?: RunSearch): Backing => ({
  subject: stems(text),
  records: stems(text, true),
  zero,
  ...(search ? { search } : {}),
});
const isZero = (v: unknown): boolean =>
  (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '')) && Number(v) === 0;
/** No rows, or one row whose count is 0 (an aggregate over nothing). */
export const countsNothing = (rows: readonly Record<string, unknown>[]): boolean =>
  rows.length === 0 || (rows.length === 1 && 'count' in rows[0]! && isZero(rows[0]!.count));
const overlap = (a: Set<string>, b: Set<string>): number => [...a].filter((w) => b.has(w)).length;

/** The words a query or search picks its rows by: its free text, filter values and field names. */
function requestWords(request: unknown): string {
  const out: string[] = [];
  const visit = (v: unknown, key = '') => {
    if (typeof v === 'string' && !/^[0-9a-f-]{36}$/i.test(v) && !['op', 'fn', 'mode', 'dir', 'surface'].includes(key))
      out.push(v.replace(/_/g, ' '));
    else if (Array.isArray(v)) for (const x of v) visit(x, key);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, k);
  };
  visit(request);
  return out.join(' ');
}

function backingsOf(blocks: readonly BlockDraft[], searches: readonly RunSearch[]): Backing[] {
  const out: Backing[] = [];
  for (const b of blocks) {
    if (b.kind === 'metric') out.push(backing(`${b.label} ${requestWords(b.query)}`, isZero(b.value)));
    else if (b.kind === 'table') out.push(backing(`${b.title ?? ''} ${requestWords(b.query)}`, countsNothing(b.data)));
    else if (b.kind === 'citation' && b.cite === 'query')
      out.push(backing(`${b.label} ${b.snippet ?? ''} ${b.ref}`, true));
  }
  for (const s of searches) if (s.results === 0) out.push(backing(requestWords(s.request), true, s));
  return out;
}

/** How a search reads in the prose and in its citation. */
export function searchWords(request: Record<string, unknown>): string {
  if (typeof request.query === 'string' && request.query.trim()) return `a search for “${request.query.trim()}”`;
  const surface = typeof request.surface === 'string' ? request.surface.replace(/_/g, ' ') : 'records';
  return `a query of the ${surface} with its filters`;
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;

export function checkAbsences(
  passages: readonly string[],
  kept: readonly BlockDraft[],
  searches: readonly RunSearch[] | undefined,
): AbsenceResult {
  const backings = backingsOf(kept, searches ?? []);
  const verdicts = new Map<string, { keep: boolean; bound?: RunSearch }>();
  const problems: string[] = [];
  for (const passage of passages) {
    for (const sentence of passage.match(SENTENCE) ?? []) {
      const s = sentence.trim();
      // A gloss in parentheses ("unknown (nobody identified)") defines a word, and a list after a colon
      // ("words that come back: nobody, owns") names words: neither claims anything.
      const claim = s.replace(/\([^)]*\)/g, ' ').replace(/:\s*[^\s,]+(?:,\s*[^\s,]+)+\.?$/, ':');
      if (!s || verdicts.has(s) || !claimsAbsence(claim.trim())) continue;
      if (BOUNDED.test(s)) {
        const searched = searches === undefined || searches.length > 0;
        verdicts.set(s, { keep: searched });
        if (!searched) problems.push(`“${s}”: it says what a search found, but this run searched nothing`);
        continue;
      }
      // A claim about records with no topic of its own ("No calls match.") is matched on the records' words.
      const topical = stems(s);
      const byRecords = topical.size === 0;
      const subject = byRecords ? stems(s, true) : topical;
      let zero: { score: number; backing: Backing } | null = null;
      let present = 0;
      for (const b of backings) {
        const score = overlap(subject, byRecords ? b.records : b.subject);
        if (score === 0) continue;
        // A block of the answer beats a search of the run at the same score: the answer holds it already.
        if (b.zero && (!zero || score > zero.score || (score === zero.score && zero.backing.search && !b.search)))
          zero = { score, backing: b };
        if (!b.zero) present = Math.max(present, score);
      }
      if (zero && zero.score >= present) {
        verdicts.set(s, { keep: true, ...(zero.backing.search ? { bound: zero.backing.search } : {}) });
        continue;
      }
      verdicts.set(s, { keep: false });
      problems.push(
        zero || present
          ? `“${s}”: the answer's own figures on that subject are not 0`
          : `“${s}”: no query or search in this answer found nothing on that subject`,
      );
    }
  }
  const bounds = new Map<string, RunSearch>();
  for (const [s, v] of verdicts) if (v.keep && v.bound) bounds.set(s, v.bound);
  const cited = new Map<string, RunSearch>();
  for (const s of bounds.values()) cited.set(canonicalJson(s.request), s);
  const rewrite = (text: string): string =>
    text
      .split('\n')
      .flatMap((line) => {
        let out = line;
        for (const sentence of line.match(SENTENCE) ?? []) {
          const v = verdicts.get(sentence.trim());
          if (!v) continue;
          if (!v.keep) out = out.replace(sentence, '');
          else if (v.bound) {
            const s = sentence.trim();
            const stop = /[.!?]+$/.exec(s)?.[0] ?? '.';
            out = out.replace(
              s,
              `${s.slice(0, s.length - stop.length)} — found none in ${searchWords(v.bound.request)}${stop}`,
            );
          }
        }
        // A line whose every sentence went goes with them (a list marker alone is nothing).
        return out !== line && /^\s*(?:[-*]|\d+\.)?\s*$/.test(out) ? [] : [out.replace(/\s+$/, '')];
      })
      .join('\n');
  return {
    rewrite,
    citations: [...cited.values()].map((s) => ({
      kind: 'citation',
      cite: 'query',
      ref: canonicalJson(s.request).slice(0, 2_000),
      label: `Found nothing: ${searchWords(s.request)}`.slice(0, 300),
      snippet: '0 results',
    })),
    problems,
    removed: [...verdicts.values()].filter((v) => !v.keep).length,
    held: verdicts.size,
  };
}
