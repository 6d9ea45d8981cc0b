import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { embeddingTerms } from '../../platform/model/local-text.js';
import { Bm25 } from './bm25.js';
import type { Match } from './semantic-utterances.js';
import { topicTerms } from './topic-terms.js';

/**
 * `ranking: 'hybrid'` on the semantic lane: what the agents read when they look for what customers
 * said about something. The nearest utterances by vector are the candidates; their order is the
 * reciprocal-rank fusion of two rankings, weighted by how much each one says:
 *
 * - the vector ranking (cosine similarity to the query, as `ranking: 'similarity'` orders them),
 *   weighing `vectorWeight` beside the keyword ranking's 1 (0 as tuned: the vector search chooses the
 *   candidates, and its order decides only between candidates the keyword ranking cannot tell apart);
 * - a keyword ranking of the conversation around each candidate: BM25 of the query's topic words
 *   over the transcript turns within `contextTurns` of the candidate's turn (both sides: a buyer's
 *   answer is about the question they were asked), nearer turns counting more. In a conversation a
 *   subject is discussed over several turns, and the words of the subject are spread across them;
 *   the document frequencies are those of the turns read, so a word every turn says ("remote" in a
 *   meeting about a remote control) weighs little.
 * - The fused score is multiplied by the text's information: a text of fewer than `informativeWords`
 *   content words ("Sounds good.", "We have to discuss about that.") keeps that share of its score,
 *   so a short generic sentence that happens to share the query's one word cannot outrank an
 *   informative one about the subject.
 *
 * The constants (HYBRID_PARAMS) were chosen on QMSum's train meetings (bench/retrieval-real-speech.ts
 * reports the validation meetings, never used to choose them).
 */

/** Nearest utterances read as candidates (the limit's worth when it is larger). */
export const HYBRID_CANDIDATES = 300;

/** The tunables of the hybrid order (bench/retrieval-real-speech-tune.ts searches them on the train meetings). */
export interface HybridParams {
  /** Turns on each side of a candidate's turn that make up its context. */
  contextTurns: number;
  /** Weight of a context turn d turns away: contextDecay ** d. */
  contextDecay: number;
  /** Reciprocal-rank fusion constant (the usual 60). */
  rrfK: number;
  /** The vector ranking's weight beside the keyword ranking's 1. */
  vectorWeight: number;
  /** Content words (stopwords and fillers out) from which a text counts as informative. */
  informativeWords: number;
  /** BM25's term-frequency saturation and length normalisation over the context turns. */
  k1: number;
  b: number;
}

/**
 * Chosen on QMSum's train meetings by bench/retrieval-real-speech-tune.ts (coordinate descent, the sum
 * of the two domains' precision@10 ratios to BM25): a wider window (20 turns each side) and a sharper
 * fusion (k 10) lift both domains; the keyword ranking of the conversation orders the candidates alone
 * (vector weight 0: the vector search chooses them, and orders them only where no topic word is said
 * around any), and BM25 saturates a repeated word sooner (k1 0.6). Train: product 1.28x -> 1.40x,
 * committee 1.34x -> 1.43x; the validation meetings are reported in docs/benchmarks.md.
 */
export const HYBRID_PARAMS: HybridParams = {
  contextTurns: 20,
  contextDecay: 0.9,
  rrfK: 10,
  vectorWeight: 0,
  informativeWords: 4,
  k1: 0.6,
  b: 0.75,
};

/**
 * How a question about conversations asks, beside its subject ("What did the group discuss about the
 * design goal?" is about the design goal): never a topic word of the keyword ranking.
 */
const QUESTION_WORDS = new Set(
  embeddingTerms(
    'about what which who whom whose why how where when discuss discussed discussion discussing group team say said ' +
      'talk talked mention mentioned think thought opinion opinions decide decided decision summarize summarise ' +
      'meeting meetings member members customer customers people someone anyone',
  ).stems,
);

/** The query's topic words (stems): its words without the asking. All of them when nothing else is left. */
export function topicStems(query: string): string[] {
  const { stems } = embeddingTerms(query);
  const topic = stems.filter((s) => !QUESTION_WORDS.has(s));
  return topic.length > 0 ? topic : stems;
}

/** An acronym as a term of the keyword ranking, apart from any stem ("SSO" is also the stem "sso"). */
const acronymTerm = (letters: string): string => `acronym:${letters}`;

/** How a text is read into words and stems (embeddingTerms; a bench re-ordering the same texts passes a memoized one). */
export type Terms = (text: string) => { words: readonly string[]; stems: readonly string[] };

/** The share of its score a text keeps: 1 from `informativeWords` content words, less below. */
export function information(
  text: string,
  informativeWords = HYBRID_PARAMS.informativeWords,
  terms: Terms = embeddingTerms,
): number {
  return Math.min(1, terms(text).words.length / informativeWords);
}

export interface ContextTurn extends Record<string, unknown> {
  interaction_id: string;
  turn_index: number;
  id: string;
  text: string;
}

/** The turns within `contextTurns` of each candidate's turn, both sides. */
export async function readContext(
  db: Queryable,
  workspaceId: string,
  turnIds: readonly string[],
  contextTurns = HYBRID_PARAMS.contextTurns,
): Promise<ContextTurn[]> {
  if (turnIds.length === 0) return [];
  return queryRows<ContextTurn>(
    db,
    sql`select distinct tt.interaction_id, tt.turn_index, tt.id, tt.text
        from transcript_turns c
        join transcript_turns tt on tt.workspace_id = c.workspace_id and tt.interaction_id = c.interaction_id
          and tt.turn_index between c.turn_index - ${contextTurns} and c.turn_index + ${contextTurns}
        where c.workspace_id = ${workspaceId} and c.id in (${sql.join(
          turnIds.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`,
  );
}

/**
 * The candidates in hybrid order (see the header), each with its fused score (`hybridScore`);
 * `hydrated`: the text a row will show is the turn, whose information then weighs its score.
 */
export async function rankHybrid(
  db: Queryable,
  workspaceId: string,
  query: string,
  candidates: readonly Match[],
  hydrated: boolean,
  params: HybridParams = HYBRID_PARAMS,
): Promise<Match[]> {
  if (candidates.length === 0) return [];
  const turnIds = [...new Set(candidates.map((m) => m.turnId).filter((t): t is string => t !== null))];
  const context = await readContext(db, workspaceId, turnIds, params.contextTurns);
  return orderHybrid(query, candidates, context, hydrated, params);
}

/** The hybrid order of candidates given the turns around them (at least `params.contextTurns` each side). */
export function orderHybrid(
  query: string,
  candidates: readonly Match[],
  context: readonly ContextTurn[],
  hydrated: boolean,
  params: HybridParams = HYBRID_PARAMS,
  terms: Terms = embeddingTerms,
): Match[] {
  if (candidates.length === 0) return [];
  // The topic's acronyms count as its words (topic-terms.ts): a turn saying "single sign-on" holds the
  // query's "SSO", one writing "CRM" its "customer relationship management", each time as one term.
  const topic = topicTerms(query, {
    texts: [...context.map((t) => t.text), ...candidates.map((m) => m.text)],
    stemsOf: (text) => terms(text).stems,
    stems: topicStems(query),
  });
  const stemsOf = (text: string) => [
    ...terms(text).stems,
    ...topic.acronymsIn(text).map((acronym) => acronymTerm(acronym.letters)),
  ];
  const stems = [...topicStems(query), ...topic.acronyms.map((acronym) => acronymTerm(acronym.letters))];
  const keyword = new Bm25(
    context.map((t) => t.text),
    params.k1,
    params.b,
    stemsOf,
  ).scoresOf(stems);
  const at = new Map(context.map((t, i) => [`${t.interaction_id}:${Number(t.turn_index)}`, i]));
  const turnOf = new Map(context.map((t) => [t.id, t]));
  // A turn's keyword score: its own and its neighbours', nearer ones counting more.
  const around = (turn: ContextTurn): number => {
    let score = 0;
    for (let d = -params.contextTurns; d <= params.contextTurns; d++) {
      const i = at.get(`${turn.interaction_id}:${Number(turn.turn_index) + d}`);
      if (i !== undefined) score += params.contextDecay ** Math.abs(d) * (keyword[i] ?? 0);
    }
    return score;
  };
  // A match outside any transcript (an email's sentence) is its own context.
  const alone = new Bm25(
    candidates.map((m) => m.text),
    params.k1,
    params.b,
    stemsOf,
  ).scoresOf(stems);
  const keywordScore = candidates.map((m, i) => {
    const turn = m.turnId ? turnOf.get(m.turnId) : undefined;
    return turn ? around(turn) : (alone[i] ?? 0);
  });
  const vectorRank = ranks(candidates.map((m) => m.similarity));
  const keywordRank = ranks(keywordScore);
  const scored = candidates.map((m, i) => {
    const turn = m.turnId ? turnOf.get(m.turnId) : undefined;
    const fused =
      params.vectorWeight / (params.rrfK + (vectorRank[i] ?? Infinity)) +
      1 / (params.rrfK + (keywordRank[i] ?? Infinity));
    return { m, score: fused * information(hydrated && turn ? turn.text : m.text, params.informativeWords, terms) };
  });
  return scored
    .sort((a, b) => b.score - a.score || b.m.similarity - a.m.similarity || (a.m.id < b.m.id ? -1 : 1))
    .map((s) => ({ ...s.m, hybridScore: s.score }));
}

/** 1-based rank of each score, highest first (ties share the order of appearance); no score: Infinity. */
function ranks(scores: readonly number[]): number[] {
  const order = scores.map((_, i) => i).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
  const rank = new Array<number>(scores.length).fill(Infinity);
  order.forEach((i, k) => {
    if ((scores[i] ?? 0) > 0) rank[i] = k + 1;
  });
  return rank;
}
