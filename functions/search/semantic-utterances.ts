import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { toDate } from '../../platform/db/timestamps.js';
import type { LaneContext } from './lane.js';
import { quote } from './semantic-format.js';

/**
 * The semantic lane's primary store: the workspace's mirror of external-speaker utterances and
 * their vectors. Reads only vectors of the given embedder: vectors of different embedders live in
 * different spaces and are never compared.
 */

/**
 * `hnsw.ef_search` for the store read (pgvector's default is 40, its maximum 1000). On the
 * deduplicated 10x store, 400 gives recall@10 1.000 in every build measured, where 100-300 let one
 * build in three miss a weakly-matched query entirely; past ~500 the planner prefers the exact
 * scan (platform/db/vector-indexes.ts has the figures; bench/search-semantic.ts measures the
 * lane's recall against an exact scan). It only matters when the HNSW index exists and the
 * planner picks it; an exact scan ignores it.
 */
export const HNSW_EF_SEARCH = 400;

interface MatchRow extends Record<string, unknown> {
  id: string;
  interaction_id: string;
  turn_id: string | null;
  speaker_name: string | null;
  text: string;
  occurred_at: Date | string;
  distance: number | string;
  title: string;
  kind: string;
  excluded: boolean;
  account_id: string | null;
  account_name: string | null;
  deal_id: string | null;
  deal_name: string | null;
}

/**
 * One utterance near the query, with its interaction's title, kind, account and deal (what a quote
 * of it is attributed to) and whether it is excluded.
 */
export interface Match {
  id: string;
  interactionId: string;
  turnId: string | null;
  speaker: string | null;
  text: string;
  occurredAt: Date | null;
  similarity: number;
  title: string;
  kind: string;
  excluded: boolean;
  accountId: string | null;
  accountName: string | null;
  dealId: string | null;
  dealName: string | null;
}

/**
 * The `take` nearest external utterances to the query vector, nearest first (ties by id): the
 * `take` nearest distinct texts of the store, then every external utterance saying one of them.
 * Each text has at least one utterance (orphans are pruned), so the first `take` rows of the
 * expansion are exactly the `take` nearest utterances an exact scan over utterances would give.
 */
export async function readUtteranceMatches(
  db: LaneContext['services']['db'],
  workspaceId: string,
  embedderId: string,
  literal: string,
  take: number,
): Promise<Match[]> {
  const rows = await db.transaction(async (tx) => {
    // LOCAL, inside a transaction: on a pooled connection a session SET could land elsewhere.
    // ef_search widens the HNSW candidate list (recall); iterative scan keeps scanning the graph
    // when the tenant and embedder filters drop candidates, so a small workspace in a large shared
    // index still gets `take` neighbours. Relaxed order is re-sorted below.
    // One statement for both (set_config's `true` is SET LOCAL): each statement is a round trip.
    await tx.execute(
      sql`select set_config('hnsw.ef_search', ${String(HNSW_EF_SEARCH)}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`,
    );
    return queryRows<MatchRow>(
      tx,
      sql`select u.id, u.interaction_id, u.turn_id, u.speaker_name, u.text, u.occurred_at, n.distance, i.title, i.kind,
                 i.account_id, a.name as account_name, i.deal_id, d.name as deal_name,
                 exists (select 1 from excluded_interactions x where x.workspace_id = ${workspaceId} and x.interaction_id = u.interaction_id) as excluded
          from (
            select v.text_hash, v.embedding <=> ${literal}::vector as distance
            from utterance_vectors v
            where v.workspace_id = ${workspaceId} and v.embedder = ${embedderId}
            order by v.embedding <=> ${literal}::vector
            limit ${take}
          ) n
          join utterances u on u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder = ${embedderId} and u.text_hash = n.text_hash
          join interactions i on i.id = u.interaction_id and i.workspace_id = ${workspaceId}
          left join accounts a on a.id = i.account_id and a.workspace_id = ${workspaceId}
          left join deals d on d.id = i.deal_id and d.workspace_id = ${workspaceId}
          order by n.distance, u.id
          limit ${take}`,
    );
  });
  return rows.map(toMatch);
}

/**
 * External utterances the store can match, this embedder's and every other's: tells "no vectors
 * of this embedder" (degrade to the theme index) from "no match" (an honest empty).
 */
export async function countVectors(
  db: Queryable,
  workspaceId: string,
  embedderId: string,
): Promise<{ own: number; other: Map<string, number> }> {
  const rows = await queryRows<{ embedder: string; n: number }>(
    db,
    sql`select embedder, utterances as n from utterance_store_counts where workspace_id = ${workspaceId} and utterances > 0`,
  );
  const other = new Map<string, number>();
  let own = 0;
  for (const r of rows) {
    if (r.embedder === embedderId) own = Number(r.n);
    else other.set(r.embedder, Number(r.n));
  }
  return { own, other };
}

function toMatch(r: MatchRow): Match {
  return {
    id: r.id,
    interactionId: r.interaction_id,
    turnId: r.turn_id,
    speaker: r.speaker_name,
    text: r.text,
    occurredAt: toDate(r.occurred_at),
    similarity: 1 - Number(r.distance),
    title: r.title,
    kind: r.kind,
    excluded: r.excluded === true || (r.excluded as unknown) === 't',
    accountId: r.account_id ?? null,
    accountName: r.account_name ?? null,
    dealId: r.deal_id ?? null,
    dealName: r.deal_name ?? null,
  };
}

// Record of intent (compiled.sql): no tenant predicate, literals inlined, the query vector named.
export function utteranceSql(embedderId: string, take: number): string {
  return [
    'SELECT u.id, u.interaction_id, u.turn_id, u.speaker_name, u.text, u.occurred_at, i.title, i.kind,',
    '  i.account_id, a.name AS account_name, i.deal_id, d.name AS deal_name, 1 - n.distance AS similarity',
    'FROM (',
    '  SELECT v.text_hash, v.embedding <=> :query_embedding AS distance FROM utterance_vectors v',
    `  WHERE v.embedder = ${quote(embedderId)} ORDER BY v.embedding <=> :query_embedding LIMIT ${take}`,
    ') n',
    `JOIN utterances u ON u.text_hash = n.text_hash AND u.side = 'external' AND u.embedder = ${quote(embedderId)}`,
    'JOIN interactions i ON i.id = u.interaction_id',
    'LEFT JOIN accounts a ON a.id = i.account_id LEFT JOIN deals d ON d.id = i.deal_id',
    'ORDER BY n.distance, u.id',
    `LIMIT ${take}`,
  ].join('\n');
}

/**
 * The account and deal a match's interaction is on, as every semantic row carries them: a quote of
 * the row is attributed from these, as a fuzzy row's are (its `account_name`, `deal_name`).
 */
export function attributionOf(m: Match): {
  account_id: string | null;
  account_name: string | null;
  deal_id: string | null;
  deal_name: string | null;
} {
  return { account_id: m.accountId, account_name: m.accountName, deal_id: m.dealId, deal_name: m.dealName };
}
