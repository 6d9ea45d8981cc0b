import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';

/**
 * The centroids of a workspace for one embedder, recomputed from scratch in the caller's
 * transaction: the mean vector of the external utterances said in each company's (account's) and
 * each deal's interactions. Only external utterances carry vectors (what the customer said is the
 * signal), and every utterance counts once even when its text is stored once for many utterances
 * (a company that says "that makes sense" in ten calls weighs it ten times, as a scan would).
 * Cosine similarity ignores length, so the mean of the stored vectors is the centroid as is.
 */
export async function materializeCentroids(
  tx: Queryable,
  workspaceId: string,
  embedder: string,
  now: Date,
): Promise<{ companies: number; deals: number }> {
  await tx.execute(sql`delete from entity_centroids where workspace_id = ${workspaceId} and embedder = ${embedder}`);
  const rows = await queryRows<{ entity_type: string; n: number }>(
    tx,
    sql`with member as (
          select i.account_id, i.deal_id, v.embedding
          from utterances u
          join interactions i on i.id = u.interaction_id
          join utterance_vectors v
            on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
          where u.workspace_id = ${workspaceId} and u.embedder = ${embedder} and u.side = 'external'
            and (i.account_id is not null or i.deal_id is not null)
        ),
        inserted as (
          insert into entity_centroids (workspace_id, embedder, entity_type, entity_id, embedding, member_count, computed_at)
          select ${workspaceId}::uuid, ${embedder}::text, 'company', account_id, avg(embedding), count(*), ${now.toISOString()}::timestamptz
            from member where account_id is not null group by account_id
          union all
          select ${workspaceId}::uuid, ${embedder}::text, 'deal', deal_id, avg(embedding), count(*), ${now.toISOString()}::timestamptz
            from member where deal_id is not null group by deal_id
          returning entity_type
        )
        select entity_type, count(*)::int as n from inserted group by entity_type`,
  );
  const count = (type: string) => Number(rows.find((r) => r.entity_type === type)?.n ?? 0);
  return { companies: count('company'), deals: count('deal') };
}

/** How many external utterances the workspace's store holds for the embedder (kept by triggers). */
export async function storeUtteranceCount(db: Queryable, workspaceId: string, embedder: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select utterances as n from utterance_store_counts where workspace_id = ${workspaceId} and embedder = ${embedder}`,
  );
  return Number(row?.n ?? 0);
}
