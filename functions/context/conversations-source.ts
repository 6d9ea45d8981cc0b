import { and, count, eq } from 'drizzle-orm';
import { interactions } from '../../schema/warehouse-interactions.js';
import { INTERACTION_KINDS } from '../../schema/warehouse-interactions.js';
import { bestExcerpt } from '../agents/index.js';
import type { OperationContext } from '../registry.js';
import { runFuzzyLane, runSemanticLane, type LaneOutcome, type ResolvedSearch } from '../search/index.js';
import type { EvidenceItem, EvidenceQuery, EvidenceSource, SourceAnswer } from './evidence.js';

/**
 * Conversations as evidence, read through the search lanes themselves (no second search): the
 * semantic lane (what customers said, by meaning: external-speaker utterances) and the fuzzy lane
 * (full-text over titles, summaries, email bodies and transcript turns). One item per interaction,
 * its snippets the utterances or turns that matched; hybrid merges the two lanes by reciprocal rank.
 * `externalOnly` keeps only the customer side: external turns, and inbound email.
 */

const RRF_K = 60;
const SNIPPETS_PER_ITEM = 3;

const laneRequest = (lane: 'semantic' | 'fuzzy', query: string, limit: number): ResolvedSearch => ({
  lane,
  query,
  surface: 'interactions',
  audience: 'all',
  hydrate: false,
  ranking: 'similarity',
  coverage: false,
  filters: [],
  orderBy: null,
  limit,
  groupBy: [],
  metrics: [],
  fields: null,
  maxSubqueries: 3,
});

interface Ranked {
  item: EvidenceItem;
  rank: number;
}

async function runLane(ctx: OperationContext, lane: 'semantic' | 'fuzzy', query: EvidenceQuery): Promise<LaneOutcome> {
  // Semantic matches are utterances (several per interaction): read more than the limit to fill it with interactions.
  const limit = lane === 'semantic' ? Math.min(query.limit * 4, 200) : query.limit;
  const runner = lane === 'semantic' ? runSemanticLane : runFuzzyLane;
  return runner({
    services: ctx.services,
    workspaceId: ctx.caller.workspaceId,
    search: laneRequest(lane, query.query, limit),
    now: ctx.services.clock.now(),
    signal: ctx.signal,
  });
}

function fromSemantic(outcome: LaneOutcome): Ranked[] {
  // A degraded lane answers with themes, not conversations: those are cluster search's, not evidence here.
  if (outcome.corpus.store !== 'pgvector') return [];
  const byInteraction = new Map<string, Ranked>();
  for (const row of outcome.results) {
    const interactionId = String(row.interaction_id);
    const entry = byInteraction.get(interactionId) ?? {
      rank: byInteraction.size,
      item: {
        id: interactionId,
        source: 'conversations',
        title: (row.interaction_title as string | null) ?? null,
        origin: `conversations/${String(row.interaction_kind)}`,
        snippets: [],
        score: 0,
        occurred_at: (row.occurred_at as string | null) ?? null,
        account: null,
        refs: [],
      },
    };
    if (entry.item.snippets.length < SNIPPETS_PER_ITEM) {
      entry.item.snippets.push(String(row.content_preview));
      entry.item.refs.push({
        interaction_id: interactionId,
        turn_id: (row.turn_id as string | null) ?? null,
        utterance_id: String(row.id),
      });
    }
    byInteraction.set(interactionId, entry);
  }
  return [...byInteraction.values()];
}

interface MatchingTurn {
  turn_id: string;
  side: string;
  text: string;
}

function fromFuzzy(outcome: LaneOutcome, query: EvidenceQuery): Ranked[] {
  const { externalOnly } = query;
  const ranked: Ranked[] = [];
  for (const row of outcome.results) {
    const kind = String(row.kind);
    const id = String(row.id);
    let snippets: { text: string; turnId: string | null }[];
    if (kind === 'email') {
      if (externalOnly && row.direction !== 'inbound') continue;
      // The passage of the email that says most about the query, verbatim (its greeting says nothing).
      const body = String(row.body ?? row.summary ?? '');
      snippets = body ? [{ text: bestExcerpt(body, query.query), turnId: null }] : [];
    } else {
      const turns = ((row.matching_turns as MatchingTurn[] | undefined) ?? []).filter(
        (t) => !externalOnly || t.side === 'external',
      );
      if (externalOnly && turns.length === 0) continue;
      snippets = turns.map((t) => ({ text: t.text, turnId: t.turn_id }));
      if (snippets.length === 0 && row.summary) snippets = [{ text: String(row.summary), turnId: null }];
    }
    ranked.push({
      rank: ranked.length,
      item: {
        id,
        source: 'conversations',
        title: (row.title as string | null) ?? null,
        origin: `conversations/${kind}`,
        snippets: snippets.slice(0, SNIPPETS_PER_ITEM).map((s) => s.text),
        score: 0,
        occurred_at: (row.occurred_at as string | null) ?? null,
        account: row.account_id
          ? { id: String(row.account_id), name: (row.account_name as string | null) ?? null }
          : null,
        refs: snippets.slice(0, SNIPPETS_PER_ITEM).map((s) => ({ interaction_id: id, turn_id: s.turnId })),
      },
    });
  }
  return ranked;
}

function fuse(lists: readonly Ranked[][], limit: number): EvidenceItem[] {
  const byId = new Map<string, EvidenceItem>();
  for (const list of lists) {
    for (const { item, rank } of list) {
      const seen = byId.get(item.id);
      const weight = 1 / (RRF_K + rank + 1);
      if (!seen) {
        byId.set(item.id, { ...item, score: weight });
        continue;
      }
      seen.score += weight;
      seen.account ??= item.account;
      for (const [i, snippet] of item.snippets.entries()) {
        if (seen.snippets.length >= SNIPPETS_PER_ITEM || seen.snippets.includes(snippet)) continue;
        seen.snippets.push(snippet);
        const ref = item.refs[i];
        if (ref) seen.refs.push(ref);
      }
    }
  }
  return [...byId.values()]
    .map((i) => ({ ...i, score: Math.round(i.score * 1e6) / 1e6 }))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
    .slice(0, limit);
}

export const conversationsSource: EvidenceSource = {
  name: 'conversations',
  types: INTERACTION_KINDS,
  async search(ctx, query): Promise<SourceAnswer> {
    const lanes: ('semantic' | 'fuzzy')[] =
      query.mode === 'semantic' ? ['semantic'] : query.mode === 'keyword' ? ['fuzzy'] : ['semantic', 'fuzzy'];
    const outcomes = await Promise.all(lanes.map((lane) => runLane(ctx, lane, query)));
    const notes: string[] = [];
    const lists = outcomes.map((outcome, i) => {
      if (outcome.emptyReason === 'read_failed') notes.push(`conversations (${lanes[i]}): the read failed; retry.`);
      if (lanes[i] === 'semantic' && outcome.corpus.store !== 'pgvector')
        notes.push('conversations (semantic): no utterance vectors to search; themes are in cluster search.');
      return lanes[i] === 'semantic' ? fromSemantic(outcome) : fromFuzzy(outcome, query);
    });
    return { items: fuse(lists, query.limit), notes };
  },
  async size(ctx) {
    const [row] = await ctx.services.db
      .select({ n: count() })
      .from(interactions)
      .where(and(eq(interactions.workspaceId, ctx.caller.workspaceId)));
    return Number(row?.n ?? 0);
  },
};
