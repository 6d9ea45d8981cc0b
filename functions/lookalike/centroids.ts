import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { yieldToEventLoop } from '../../platform/scheduler/yield.js';

/**
 * Entities whose centroids one statement computes. A PGlite statement holds the event loop for as
 * long as it runs, and a workspace's centroids in one statement held it for a second on the demo
 * corpus: they are computed a chunk of entities at a time, the loop turning between two.
 */
export const CENTROID_ENTITY_CHUNK = 16;

const ENTITY_TYPES = [
  { type: 'company', column: sql.raw('account_id') },
  { type: 'deal', column: sql.raw('deal_id') },
] as const;

export interface ComputedCentroid {
  entityType: 'company' | 'deal';
  entityId: string;
  /** The mean vector, as pgvector writes it ('[x,y,...]'). */
  embedding: string;
  memberCount: number;
}

/**
 * The centroids of a workspace for one embedder, computed from scratch: the mean vector of the
 * external utterances said in each company's (account's) and each deal's interactions. Only
 * external utterances carry vectors (what the customer said is the signal), and every utterance
 * counts once even when its text is stored once for many utterances (a company that says "that
 * makes sense" in ten calls weighs it ten times, as a scan would). Cosine similarity ignores length,
 * so the mean of the stored vectors is the centroid as is. Reads only, CENTROID_ENTITY_CHUNK
 * entities a statement with the event loop turning between two: run it outside a transaction, and
 * write the result with writeCentroids in one.
 */
export async function computeCentroids(
  db: Queryable,
  workspaceId: string,
  embedder: string,
): Promise<ComputedCentroid[]> {
  const out: ComputedCentroid[] = [];
  for (const { type, column } of ENTITY_TYPES) {
    const entities = await queryRows<{ id: string }>(
      db,
      sql`select distinct ${column} as id from interactions where workspace_id = ${workspaceId} and ${column} is not null order by 1`,
    );
    for (let i = 0; i < entities.length; i += CENTROID_ENTITY_CHUNK) {
      await yieldToEventLoop();
      const ids = sql.join(
        entities.slice(i, i + CENTROID_ENTITY_CHUNK).map((e) => sql`${e.id}::uuid`),
        sql`, `,
      );
      const rows = await queryRows<{ id: string; embedding: string; n: number }>(
        db,
        sql`select i.${column} as id, avg(v.embedding)::text as embedding, count(*)::int as n
            from interactions i
            join utterances u on u.interaction_id = i.id
            join utterance_vectors v
              on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
            where i.workspace_id = ${workspaceId} and i.${column} in (${ids})
              and u.workspace_id = ${workspaceId} and u.embedder = ${embedder} and u.side = 'external'
            group by i.${column}`,
      );
      for (const r of rows)
        out.push({ entityType: type, entityId: r.id, embedding: r.embedding, memberCount: Number(r.n) });
    }
  }
  return out;
}

/** Rows one insert writes. */
const WRITE_BATCH = 200;

/** Replace the workspace's centroids for the embedder with `centroids`, in the caller's transaction. */
export async function writeCentroids(
  tx: Queryable,
  workspaceId: string,
  embedder: string,
  centroids: readonly ComputedCentroid[],
  now: Date,
): Promise<{ companies: number; deals: number }> {
  await tx.execute(sql`delete from entity_centroids where workspace_id = ${workspaceId} and embedder = ${embedder}`);
  for (let i = 0; i < centroids.length; i += WRITE_BATCH) {
    const values = sql.join(
      centroids
        .slice(i, i + WRITE_BATCH)
        .map(
          (c) =>
            sql`(${workspaceId}::uuid, ${embedder}::text, ${c.entityType}, ${c.entityId}::uuid, ${c.embedding}::vector, ${c.memberCount}, ${now.toISOString()}::timestamptz)`,
        ),
      sql`, `,
    );
    await tx.execute(
      sql`insert into entity_centroids (workspace_id, embedder, entity_type, entity_id, embedding, member_count, computed_at) values ${values}`,
    );
  }
  return {
    companies: centroids.filter((c) => c.entityType === 'company').length,
    deals: centroids.filter((c) => c.entityType === 'deal').length,
  };
}

/** Compute and write in one go, in the caller's transaction (benches; the pipeline computes before its commit). */
export async function materializeCentroids(
  tx: Queryable,
  workspaceId: string,
  embedder: string,
  now: Date,
): Promise<{ companies: number; deals: number }> {
  return writeCentroids(tx, workspaceId, embedder, await computeCentroids(tx, workspaceId, embedder), now);
}

/** How many external utterances the workspace's store holds for the embedder (kept by triggers). */
export async function storeUtteranceCount(db: Queryable, workspaceId: string, embedder: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select utterances as n from utterance_store_counts where workspace_id = ${workspaceId} and embedder = ${embedder}`,
  );
  return Number(row?.n ?? 0);
}
