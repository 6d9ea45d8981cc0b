import { and, count, eq, max, sql } from 'drizzle-orm';
import { z } from 'zod';
import { accounts, deals, interactions } from '../../schema/index.js';
import type { Queryable } from '../../platform/db/port.js';
import {
  bestExcerpt,
  sameStatement,
  RELEVANCE_THRESHOLD,
  relevanceScore,
  semanticTurnsOf,
  topicAskedOf,
  verifyAnswer,
} from '../agents/index.js';
import type { InvocationResult } from '../invoke.js';
import { FilterSchema, type TopicTerms, topicTerms } from '../search/index.js';
import { WAREHOUSE_SURFACES } from '../../schema/warehouse-settings.js';
import type { AccountFacts, GradedQuote } from './grading-context.js';
import { sentencesOf, stemsOf } from './text.js';

/**
 * Retrieval for an eval run: verbatim customer quotes about what the message or prompt is about,
 * found through the search lanes as the run's caller (semantic, customer voice, bridged to the
 * transcript turn), narrowed to the reference accounts and the scope's slice, cut at sentence
 * boundaries and re-checked by the grounding verifier. Too few quotes is said, not hidden: the
 * run abstains (unless `allow_thin_evidence`) and records why.
 */

/** Fewer verified quotes than this and the evidence is thin. */
export const EVIDENCE_FLOOR = 3;
export const MAX_QUOTES = 8;
export const MAX_SCOPE_FILTERS = 25;
/**
 * Customer statements read by meaning before the relevance check (agents/relevance.ts) keeps the
 * ones about the text. A drafted message is a wide topic: the first sixty by meaning held as few as
 * two on-topic quotes for an onboarding email while the corpus holds dozens, so retrieval reads deep
 * and ranks by relevance, rather than lowering the bar.
 */
const RETRIEVAL_DEPTH = 400;
/** Rows read per surface to resolve a scope slice (the filter lane's page); past it the slice is partial and says so. */
const SLICE_ROWS = 1000;

export const ScopeFilterSchema = FilterSchema.extend({ surface: z.enum(WAREHOUSE_SURFACES).optional() });
export const EvalScopeSchema = z
  .object({
    filters: z.array(ScopeFilterSchema).max(MAX_SCOPE_FILTERS).optional(),
    audience: z.enum(['all', 'customer_voice']).optional(),
    allow_thin_evidence: z.boolean().optional(),
  })
  .strict();
export type EvalScope = z.infer<typeof EvalScopeSchema>;

export const RETRIEVAL_STATUSES = ['ok', 'thin', 'none', 'from_run'] as const;

export interface Evidence {
  topic: string;
  quotes: GradedQuote[];
  retrieval_status: (typeof RETRIEVAL_STATUSES)[number];
  /** Customer statements the search returned before narrowing. */
  retrieved: number;
  /**
   * Of the statements considered (after the reference accounts and the scope slice), those the
   * relevance check left out: verbatim, but not about the text. Absent on runs from before the check.
   */
  off_topic?: number;
  floor: number;
  slice: { filters: number; interactions: number | null; accounts: number | null; partial: boolean } | null;
  account: AccountFacts | null;
  account_found: boolean | null;
  /** Why the run will not grade (thin evidence without allow_thin_evidence); null when it will. */
  abstain_reason: string | null;
  notes: string[];
}

type Invoke = (operationId: string, args: Record<string, unknown>) => Promise<InvocationResult>;

const rowsOf = (result: InvocationResult): Record<string, unknown>[] => {
  if (!result.ok) return [];
  const rows = (result.output as { results?: unknown } | null)?.results;
  return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
};

/** The scope's filters as one filter-lane request per surface (validated and access-checked by running it). */
export function sliceRequests(
  scope: EvalScope | undefined,
): { surface: (typeof WAREHOUSE_SURFACES)[number]; request: Record<string, unknown> }[] {
  const bySurface = new Map<(typeof WAREHOUSE_SURFACES)[number], Record<string, unknown>[]>();
  for (const { surface, ...filter } of scope?.filters ?? []) {
    const key = surface ?? 'interactions';
    bySurface.set(key, [...(bySurface.get(key) ?? []), filter]);
  }
  return [...bySurface].map(([surface, filters]) => ({ surface, request: { surface, filters, limit: SLICE_ROWS } }));
}

export async function gatherEvidence(
  db: Queryable,
  workspaceId: string,
  invoke: Invoke,
  input: { topic: string; account: string | null; referenceAccounts: string[]; scope: EvalScope | undefined },
): Promise<Evidence> {
  const notes: string[] = [];
  const audience = input.scope?.audience ?? 'customer_voice';
  const found = await invoke('search.query', {
    query: input.topic.slice(0, 2000),
    mode: 'semantic',
    hydrate: true,
    audience,
    limit: RETRIEVAL_DEPTH,
  });
  if (!found.ok) throw new EvidenceUnavailable(found.error.code, found.error.message);
  const turns = rowsOf(found).filter((r) => r.side === 'external');
  const ids = [...new Set(turns.map((r) => String(r.interaction_id)))];
  const named = await interactionsByIds(invoke, ids);
  const meta = new Map(
    named.map((r) => [
      String(r.id),
      {
        accountId: typeof r.account_id === 'string' ? r.account_id : null,
        title: typeof r.title === 'string' ? r.title : null,
      },
    ]),
  );
  let candidates = semanticTurnsOf(turns, RETRIEVAL_DEPTH);
  const retrieved = candidates.length;

  if (input.referenceAccounts.length > 0) {
    const wanted = new Set(input.referenceAccounts.map((a) => a.toLowerCase()));
    candidates = candidates.filter((c) => c.account && wanted.has(c.account.toLowerCase()));
    notes.push(`Quotes limited to the reference accounts (${input.referenceAccounts.join(', ')}).`);
  }

  let slice: Evidence['slice'] = null;
  const requests = sliceRequests(input.scope);
  if (requests.length > 0) {
    let interactionIds: Set<string> | null = null;
    let accountIds: Set<string> | null = null;
    let partial = false;
    for (const { surface, request } of requests) {
      const result = await invoke('search.query', request);
      if (!result.ok) throw new EvidenceUnavailable(result.error.code, result.error.message);
      const rows = rowsOf(result);
      if (rows.length >= SLICE_ROWS) partial = true;
      if (surface === 'interactions')
        interactionIds = intersect(
          interactionIds,
          rows.map((r) => String(r.id)),
        );
      else
        accountIds = intersect(
          accountIds,
          rows.map((r) => r.account_id).filter((v): v is string => typeof v === 'string'),
        );
    }
    candidates = candidates.filter(
      (c) =>
        (!interactionIds || interactionIds.has(c.interactionId)) &&
        (!accountIds || accountIds.has(meta.get(c.interactionId)?.accountId ?? '')),
    );
    slice = {
      filters: input.scope?.filters?.length ?? 0,
      interactions: interactionIds?.size ?? null,
      accounts: accountIds?.size ?? null,
      partial,
    };
    if (partial)
      notes.push(
        `The slice was read from the first ${SLICE_ROWS} rows of a surface; quotes outside them were not considered.`,
      );
  }

  // The same relevance check as every answer's quotes: the excerpt a run would quote must be about the
  // text (its salient words, account and contact names taken out), ranked by how much it is about it.
  // A whole drafted message is a wide topic, whose embedding sits near much of what customers say, so a
  // statement must also share one of the message's own topical words (its filler left out).
  const topic = await topicAskedOf(db, workspaceId, input.topic);
  const topicWords = topicTerms(input.topic, { texts: candidates.map((c) => c.text), stemsOf });
  const scored = candidates.map((c, rank) => {
    const excerpt = bestExcerpt(c.text, input.topic);
    const shares = topicWords.isEmpty || topicWords.matches(excerpt);
    return { c, excerpt, rank, score: !shares ? 0 : topic ? relevanceScore(topic, excerpt) : 1 };
  });
  const relevant = scored.filter((s) => s.score >= RELEVANCE_THRESHOLD);
  const offTopic = scored.length - relevant.length;
  if (offTopic > 0)
    notes.push(
      `${offTopic} of the ${scored.length} customer statements found were left out: verbatim, but about something other than the ${input.topic.length > 0 ? 'text' : 'eval'}.`,
    );
  relevant.sort((a, b) => b.score - a.score || a.rank - b.rank);

  // One quote per distinct statement: the same sentence said twice, or with another opener ("Honestly,
  // ...", "As I mentioned to Zoe, ..."), is not twice the evidence.
  const kept: Set<string>[] = [];
  const distinct = relevant.filter(({ excerpt }) => {
    const stems = stemsOf(topicalSentence(excerpt, topicWords));
    if (kept.some((other) => sameStatement(stems, other))) return false;
    kept.push(stems);
    return true;
  });
  const drafts = distinct.slice(0, MAX_QUOTES).map(({ c, excerpt }) => ({
    kind: 'quote' as const,
    text: excerpt,
    source: {
      interaction_id: c.interactionId,
      turn_id: c.turnId,
      speaker: c.speaker,
      occurred_at: c.occurredAt,
      account: c.account,
    },
    stance: 'supports' as const,
  }));
  const verified = await verifyAnswer(
    { text: '', content_blocks: drafts, follow_ups: [] },
    { db, workspaceId, rerun: async () => ({ ok: false, error: { code: 'internal', message: 'not used' } }) },
  );
  const quotes: GradedQuote[] = verified.content_blocks.flatMap((b) =>
    b.kind === 'quote'
      ? [
          {
            text: b.text,
            stance: 'supports' as const,
            source: {
              interaction_id: b.source.interaction_id,
              turn_id: b.source.turn_id ?? '',
              speaker: b.source.speaker ?? null,
              occurred_at: b.source.occurred_at ?? null,
              account: b.source.account ?? null,
              title: meta.get(b.source.interaction_id)?.title ?? null,
            },
          },
        ]
      : [],
  );

  const account = input.account ? await accountFacts(db, workspaceId, input.account) : null;
  if (input.account && !account)
    notes.push(`No account named "${input.account}" in this workspace: nothing about it was used.`);
  const status = quotes.length >= EVIDENCE_FLOOR ? 'ok' : quotes.length > 0 ? 'thin' : 'none';
  const abstain =
    status === 'ok' || input.scope?.allow_thin_evidence
      ? null
      : status === 'none'
        ? `No customer statement in ${slice ? 'this slice of ' : ''}the workspace matches what the ${input.topic.length > 0 ? 'text' : 'eval'} is about; grading against nothing would claim more than the data holds.`
        : `Only ${quotes.length} customer statement${quotes.length === 1 ? '' : 's'} match${quotes.length === 1 ? 'es' : ''} (the floor is ${EVIDENCE_FLOOR}); send scope.allow_thin_evidence to grade anyway.`;
  return {
    topic: input.topic,
    quotes,
    retrieval_status: status,
    retrieved,
    off_topic: offTopic,
    floor: EVIDENCE_FLOOR,
    slice,
    account,
    account_found: input.account ? account !== null : null,
    abstain_reason: abstain,
    notes,
  };
}

/** The interactions behind the statements (account, title), read in pages of the filter lane's id list. */
async function interactionsByIds(invoke: Invoke, ids: readonly string[]): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let at = 0; at < ids.length; at += ID_PAGE) {
    const page = ids.slice(at, at + ID_PAGE);
    rows.push(
      ...rowsOf(
        await invoke('search.query', {
          surface: 'interactions',
          filters: [{ field: 'id', op: 'in', value: page }],
          limit: page.length,
        }),
      ),
    );
  }
  return rows;
}
const ID_PAGE = 200;

/** The sentence of an excerpt that holds most of the topic's words (an excerpt may add a sentence around it). */
function topicalSentence(excerpt: string, topic: TopicTerms): string {
  const held = (sentence: string) => topic.heldIn(sentence);
  const sentences = sentencesOf(excerpt);
  return sentences.reduce<string>((best, s) => (held(s) > held(best) ? s : best), sentences[0] ?? excerpt);
}

function intersect(current: Set<string> | null, next: readonly string[]): Set<string> {
  const incoming = new Set(next);
  return current ? new Set([...current].filter((v) => incoming.has(v))) : incoming;
}

/** The account's record, by name (case-insensitive), in this workspace; null when there is none. */
async function accountFacts(db: Queryable, workspaceId: string, name: string): Promise<AccountFacts | null> {
  const [row] = await db
    .select({ id: accounts.id, name: accounts.name, type: accounts.type, industry: accounts.industry })
    .from(accounts)
    .where(and(eq(accounts.workspaceId, workspaceId), sql`lower(${accounts.name}) = lower(${name.trim()})`))
    .limit(1);
  if (!row) return null;
  const [open] = await db
    .select({ n: count() })
    .from(deals)
    .where(and(eq(deals.workspaceId, workspaceId), eq(deals.accountId, row.id), eq(deals.isClosed, false)));
  const [last] = await db
    .select({ at: max(interactions.occurredAt) })
    .from(interactions)
    .where(and(eq(interactions.workspaceId, workspaceId), eq(interactions.accountId, row.id)));
  return {
    name: row.name,
    type: row.type ?? null,
    industry: row.industry ?? null,
    openDeals: Number(open?.n ?? 0),
    lastInteractionAt: last?.at ? new Date(last.at).toISOString() : null,
  };
}

/** The search a run depends on failed (not an empty result): the stage retries. */
export class EvidenceUnavailable extends Error {
  override name = 'EvidenceUnavailable';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
