import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { toDate } from '../../platform/db/timestamps.js';
import type { LaneContext } from './lane.js';
import { quote } from './semantic-format.js';
import { filteredUtterances, type SemanticFilter } from './semantic-filters.js';

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
  /** `ranking: 'hybrid'` only: the fused score the match was ordered by (semantic-hybrid.ts). */
  hybridScore?: number;
  title: string;
  kind: string;
  excluded: boolean;
  accountId: string | null;
  accountName: string | null;
  dealId: string | null;
  dealName: string | null;
}

/**
 * Filtered searches with at most this many external utterances passing the filter read them
 * exactly (their distinct texts' vectors through the primary key, every distance computed): a
 * selective filter starves an index walk, which must visit about `take / selectivity` candidates
 * and gives up at `hnsw.max_scan_tuples` (20,000 by default: past the whole 10x store, not the 100x
 * one). Above it the filter rides inside the HNSW walk (iterative scan). At 10x
 * (bench/search-semantic-filters.ts, both reads forced, recall@10 1.000 each) the walk costs about
 * the same whatever the filter (20-45 ms on a loaded machine) while the exact read grows with the
 * kept utterances (19 ms for 40, 41 ms for 83, 131 ms for 3,342): they cross near a thousand.
 */
export const EXACT_FILTERED_MAX = 1000;

/** How a read found its nearest texts: the index walk (or the planner's own scan) or the exact filtered scan. */
export type SemanticScan = 'nearest' | 'exact_filtered';

const HNSW_INDEX = 'utterance_vectors_embedding_hnsw_idx';

/**
 * The `take` nearest external utterances to the query vector that the filter keeps (every one
 * without a filter), nearest first (ties by id): the `take` nearest distinct texts that at least one
 * such utterance says, then every such utterance saying them. Each of those texts has at least one,
 * so the first `take` rows of the expansion are exactly the `take` nearest utterances an exact scan
 * over the filtered utterances would give: a filter narrows the search, it never thins the result.
 */
export async function readUtteranceMatches(
  db: LaneContext['services']['db'],
  workspaceId: string,
  embedderId: string,
  literal: string,
  take: number,
  filter: SemanticFilter | null = null,
  options: { scan?: SemanticScan } = {},
): Promise<{ matches: Match[]; scan: SemanticScan }> {
  return db.transaction(async (tx) => {
    // LOCAL, inside a transaction: on a pooled connection a session SET could land elsewhere.
    // ef_search widens the HNSW candidate list (recall); iterative scan keeps walking the graph
    // when the tenant, embedder and caller's filters drop candidates, so the walk still yields
    // `take` neighbours. Relaxed order is re-sorted below.
    // One statement for both (set_config's `true` is SET LOCAL): each statement is a round trip.
    await tx.execute(
      sql`select set_config('hnsw.ef_search', ${String(HNSW_EF_SEARCH)}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`,
    );
    const scan = filter ? (options.scan ?? (await chooseScan(tx, filter, workspaceId, embedderId))) : 'nearest';
    const nearest = !filter
      ? sql`select v.text_hash, v.embedding <=> ${literal}::vector as distance
            from utterance_vectors v
            where v.workspace_id = ${workspaceId} and v.embedder = ${embedderId}
            order by v.embedding <=> ${literal}::vector
            limit ${take}`
      : scan === 'nearest'
        ? sql`select v.text_hash, v.embedding <=> ${literal}::vector as distance
              from utterance_vectors v
              where v.workspace_id = ${workspaceId} and v.embedder = ${embedderId}
                and exists (select 1 ${filteredUtterances(filter, workspaceId, embedderId)} and u.text_hash = v.text_hash)
              order by v.embedding <=> ${literal}::vector
              limit ${take}`
        : // Materialized twice so the planner cannot walk the index instead: every distance is computed.
          sql`with f as materialized (select distinct u.text_hash ${filteredUtterances(filter, workspaceId, embedderId)}),
              e as materialized (
                select v.text_hash, v.embedding <=> ${literal}::vector as distance
                from f join utterance_vectors v on v.workspace_id = ${workspaceId} and v.embedder = ${embedderId} and v.text_hash = f.text_hash)
              select text_hash, distance from e order by distance, text_hash limit ${take}`;
    const rows = await queryRows<MatchRow>(
      tx,
      sql`select u.id, u.interaction_id, u.turn_id, u.speaker_name, u.text, u.occurred_at, n.distance, t.title, t.kind,
                 t.account_id, a.name as account_name, t.deal_id, d.name as deal_name,
                 exists (select 1 from excluded_interactions x where x.workspace_id = ${workspaceId} and x.interaction_id = u.interaction_id) as excluded
          from (${nearest}) n
          join utterances u on u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder = ${embedderId} and u.text_hash = n.text_hash
          join interactions t on t.id = u.interaction_id and t.workspace_id = ${workspaceId}
          left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
          left join deals d on d.id = t.deal_id and d.workspace_id = t.workspace_id
          where ${filter ? filter.where : sql`true`}
          order by n.distance, u.id
          limit ${take}`,
    );
    return { matches: rows.map(toMatch), scan };
  });
}

/**
 * The exact filtered scan when few utterances pass the filter or no HNSW index exists (the planner
 * scans exactly then anyway, and the materialized set is cheaper than a subquery per vector); else
 * the index walk. One statement: the count stops at EXACT_FILTERED_MAX + 1.
 */
async function chooseScan(
  db: Queryable,
  filter: SemanticFilter,
  workspaceId: string,
  embedderId: string,
): Promise<SemanticScan> {
  const [row] = await queryRows<{ n: number; indexed: boolean }>(
    db,
    sql`select (select count(*)::int from (select 1 ${filteredUtterances(filter, workspaceId, embedderId)} limit ${EXACT_FILTERED_MAX + 1}) s) as n,
               to_regclass(${HNSW_INDEX}) is not null as indexed`,
  );
  const indexed = row?.indexed === true || (row?.indexed as unknown) === 't';
  return indexed && Number(row?.n ?? 0) > EXACT_FILTERED_MAX ? 'nearest' : 'exact_filtered';
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
// The caller's filters (their intent, over the interactions view and the utterance's side and
// speaker) narrow the nearest texts to those a kept utterance says, and the expansion to those.
export function utteranceSql(embedderId: string, take: number, filterIntent: string | null = null): string {
  const kept = filterIntent
    ? [
        `  AND EXISTS (SELECT 1 FROM utterances u JOIN interactions t ON t.id = u.interaction_id WHERE u.text_hash = v.text_hash AND u.side = 'external' AND ${filterIntent})`,
      ]
    : [];
  return [
    'SELECT u.id, u.interaction_id, u.turn_id, u.speaker_name, u.text, u.occurred_at, t.title, t.kind,',
    '  t.account_id, a.name AS account_name, t.deal_id, d.name AS deal_name, 1 - n.distance AS similarity',
    'FROM (',
    '  SELECT v.text_hash, v.embedding <=> :query_embedding AS distance FROM utterance_vectors v',
    `  WHERE v.embedder = ${quote(embedderId)}`,
    ...kept,
    `  ORDER BY v.embedding <=> :query_embedding LIMIT ${take}`,
    ') n',
    `JOIN utterances u ON u.text_hash = n.text_hash AND u.side = 'external' AND u.embedder = ${quote(embedderId)}`,
    'JOIN interactions t ON t.id = u.interaction_id',
    'LEFT JOIN accounts a ON a.id = t.account_id LEFT JOIN deals d ON d.id = t.deal_id',
    ...(filterIntent ? [`WHERE ${filterIntent}`] : []),
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

/** `hybrid_score` on a row of a hybrid-ranked match: the fused score it was ordered by (absent under `similarity`). */
export const hybridScoreOf = (m: Match): { hybrid_score?: number } =>
  m.hybridScore === undefined ? {} : { hybrid_score: Math.round(m.hybridScore * 1e9) / 1e9 };
