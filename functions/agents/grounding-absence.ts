import { contentWords, stemWord } from '../../platform/model/local.js';
import { canonicalJson } from '../../platform/canonical-json.js';
import type { BlockDraft } from './answer.js';
import { BOUNDED, claimsAbsence } from './grounding-absence-claims.js';
import { withoutTableBackedClauses } from './grounding-absence-rows.js';
import { isScaffoldWord } from './understanding/question-words.js';

/**
 * The verifier's absence rule (agents.md: "a claim that something is absent or zero is backed by a
 * query in the same answer"), for every model. A sentence of the prose that says, as a fact about the
 * records, that something is not there (grounding-absence-claims.ts: "no one mentioned", "there are
 * no", "No customer mentioned…", "did not come up in any call"; a verdict on the question such as
 * "Nothing in the data settles it yet" is none) stands only when the same answer holds it:
 *
 * - the answer's own verified table states it, in a cell that says it or a row whose cell for that
 *   field holds nothing (grounding-absence-rows.ts: a renewal's "no champion identified");
 * - a metric whose value is 0, or a table with no rows (or one row counting 0), each with its query;
 * - a citation of kind `query` (the query that found nothing, named);
 * - a search this run made that found nothing: no result, or one row counting 0 (from the run's
 *   transcript, so no statement is read for it): the verifier then adds a citation of that search, and
 *   bounds the sentence by it ("— found none in a search for “…”"), so the answer holds it and a reader
 *   sees how far it goes.
 *
 * "On that subject": the backing shares a content word (stemmed, question scaffolding aside) with the
 * sentence; a sentence with no topic of its own ("No calls match.") is matched on the records' words.
 * A backing that shares no topic word still holds a sentence when it reaches every record the sentence
 * speaks of: a query of the same records whose every filter the sentence says ("No calls are synced"
 * beside a search of all calls that found none). A kept metric above 0 or a table with rows that
 * shares more of the sentence's words than any backing contradicts it ("none of the conversations
 * falls in the last four quarters" beside a quarter's count of 23): the sentence is unbacked. An
 * unbacked sentence is removed and the check fails.
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

/**
 * What a block or search found, on which words: `subject` its topic's, `records` with the records' words
 * too; `narrowing`, the words of each of its filters and of its search text (null when its request is not
 * a query of filters or text, so how far it reaches is unknown).
 */
type Backing = {
  subject: Set<string>;
  records: Set<string>;
  narrowing: Set<string>[] | null;
  zero: boolean;
  search?: RunSearch;
};

/** A text's subject words, stemmed; with `records`, the words naming records and questions too ("calls", "deals"). */
const stems = (text: string, records = false): Set<string> =>
  new Set(
    contentWords(text)
      .filter((w) => w.length > 2 && !/^\d/.test(w) && (records || !isScaffoldWord(w)) && !NOT_SUBJECT.has(w))
      .map(stemWord),
  );
const backing = (text: string, request: unknown, zero: boolean, search?: RunSearch): Backing => ({
  subject: stems(text),
  records: stems(text, true),
  narrowing: narrowingOf(request),
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

/**
 * What narrows a query's rows: each filter's value and its search text, as words. A value without
 * words (a date, an amount) narrows in a way no sentence's words can be matched to.
 */
function narrowingOf(request: unknown): Set<string>[] | null {
  if (!request || typeof request !== 'object') return null;
  const { filters, query } = request as { filters?: unknown; query?: unknown };
  if (!Array.isArray(filters) && typeof query !== 'string') return null;
  const values = Array.isArray(filters)
    ? filters.map((f) => requestWords(f && typeof f === 'object' ? (f as { value?: unknown }).value : f))
    : [];
  return [...values, ...(typeof query === 'string' && query.trim() ? [query] : [])].map((v) => stems(v, true));
}

function backingsOf(blocks: readonly BlockDraft[], searches: readonly RunSearch[]): Backing[] {
  const out: Backing[] = [];
  for (const b of blocks) {
    if (b.kind === 'metric') out.push(backing(`${b.label} ${requestWords(b.query)}`, b.query, isZero(b.value)));
    else if (b.kind === 'table')
      out.push(backing(`${b.title ?? ''} ${requestWords(b.query)}`, b.query, countsNothing(b.data)));
    else if (b.kind === 'citation' && b.cite === 'query')
      out.push(backing(`${b.label} ${b.snippet ?? ''} ${b.ref}`, null, true));
  }
  for (const s of searches) if (s.results === 0) out.push(backing(requestWords(s.request), s.request, true, s));
  return out;
}

/**
 * Whether a backing that found nothing reaches every record the sentence speaks of: it found none of
 * the records the sentence names (a record word in common), and each of its filters is said in the
 * sentence. Nothing among all calls is nothing among the calls of any topic ("No calls are synced"
 * beside a search of every call that found none); nothing among last century's calls says nothing of
 * this year's.
 */
const reachesEvery = (b: Backing, records: Set<string>): boolean =>
  b.zero &&
  b.narrowing !== null &&
  overlap(records, b.records) > 0 &&
  b.narrowing.every((words) => words.size > 0 && [...words].every((w) => records.has(w)));

/** How a search reads in the prose and in its citation. */
export function searchWords(request: Record<string, unknown>): string {
  if (typeof request.query === 'string' && request.query.trim()) return `a search for “${request.query.trim()}”`;
  const surface = typeof request.surface === 'string' ? request.surface.replace(/_/g, ' ') : 'records';
  return `a query of the ${surface} with its filters`;
}

/** A sentence ends at its stop and a space (a dot inside "portfol.io" or "2.5" ends none), or at its line's end. */
const SENTENCE = /[^\n]+?(?:[.!?]+(?=\s|$)|(?=\n|$))/g;

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
      // What the answer's own verified rows hold is backed by them; the rest is held to what found nothing.
      const rest = withoutTableBackedClauses(claim, s, kept);
      if (!claimsAbsence(rest.trim())) {
        verdicts.set(s, { keep: true });
        continue;
      }
      if (BOUNDED.test(s)) {
        const searched = searches === undefined || searches.length > 0;
        verdicts.set(s, { keep: searched });
        if (!searched) problems.push(`“${s}”: it says what a search found, but this run searched nothing`);
        continue;
      }
      // A claim about records with no topic of its own ("No calls match.") is matched on the records' words.
      const topical = stems(rest);
      const byRecords = topical.size === 0;
      const records = stems(rest, true);
      const subject = byRecords ? records : topical;
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
      // No backing on its topic, and nothing on it found: what found none of all such records backs it.
      if (!zero && present === 0) {
        const every = backings.find((b) => reachesEvery(b, records));
        if (every) zero = { score: 1, backing: every };
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
