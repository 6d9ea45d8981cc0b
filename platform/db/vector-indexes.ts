import { sql } from 'drizzle-orm';
import { queryRows, type Database } from './port.js';

/**
 * HNSW indexes on the vector columns, created after a bulk load rather than in a migration:
 * inserting into an HNSW-indexed table costs about 15x more than inserting and indexing after.
 *
 * The store indexed is `utterance_vectors`: one vector per distinct external text (a third of
 * the customer's sentences at 1x, and 63% at 10x, repeat another word for word).
 *
 * History, from bench/first-start.ts and bench/search-semantic.ts on this 2-core machine (local
 * 384-dim hash vectors, pgvector 0.8 in PGlite, one workspace):
 *   Before the store was deduplicated (one vector per utterance, 47k at 10x), the HNSW graph
 *   degraded on the copies: recall@10 0.66-0.88 at the default ef_search and 0.91-1.0 per build
 *   even at ef_search 1000 with m 16; m 32 / ef_construction 128 fixed it for ~3x the build time,
 *   and the index was only built from 100k vectors.
 *   Deduplicated, 10x holds 17,675 vectors: exact top-10 28 ms; HNSW build (m 32, ef_construction
 *   128) 25-27 s; over the 22 labelled queries recall@10 is 1.000 in every build at ef_search 400
 *   (5-6 ms a query, 4-6x faster than the exact scan), while at ef_search 100-300 one build in three
 *   misses a weakly-matched query entirely ("we want to switch away from our current tool": its
 *   true neighbours are all below 0.33 similarity, where the graph walk stops in a local minimum).
 *   Past ef_search ~500 the planner's cost estimate prefers the exact scan anyway.
 *   100x holds 67,271 vectors: exact top-10 153 ms; build 96 s; ef_search 400 6.1 ms at recall@10
 *   1.000 over bench/first-start.ts's 8 queries (ef_search 40: 2.2 ms, recall 0.875).
 * Threshold: the exact scan costs ~1.6 us per vector, so below ten thousand vectors it answers in
 * under ~16 ms with perfect recall, and a build (~1.5 ms per vector) is not worth a first start's
 * wait; from there up the index is built (10x and beyond) and a query using it sets
 * hnsw.ef_search (functions/search/semantic-utterances.ts). `force` overrides.
 * The index spans all workspaces while a query filters on one: for a small workspace in a large
 * table the planner should still prefer the exact scan through the primary key (with fresh
 * statistics; the loader runs ANALYZE), and the lane uses pgvector's hnsw.iterative_scan so
 * filtering does not starve the result.
 */
export const HNSW_MIN_VECTORS = 10_000;
/** Graph degree and build-time candidate list (see above). */
export const HNSW_BUILD = { m: 32, efConstruction: 128 } as const;

export interface VectorIndexSpec {
  name: string;
  table: string;
  column: string;
}

export const VECTOR_INDEXES: readonly VectorIndexSpec[] = [
  { name: 'utterance_vectors_embedding_hnsw_idx', table: 'utterance_vectors', column: 'embedding' },
  { name: 'themes_embedding_hnsw_idx', table: 'themes', column: 'embedding' },
];

export interface VectorIndexReport {
  index: string;
  vectors: number;
  status: 'exists' | 'built' | 'below_threshold';
  buildMs: number | null;
}

/**
 * Create each vector index that is missing, if its table holds at least `minVectors` vectors.
 * Idempotent (IF NOT EXISTS); safe to call at every start or after every load.
 */
export async function ensureVectorIndexes(
  db: Database,
  options: { minVectors?: number; force?: boolean } = {},
): Promise<VectorIndexReport[]> {
  const minVectors = options.minVectors ?? HNSW_MIN_VECTORS;
  const reports: VectorIndexReport[] = [];
  for (const spec of VECTOR_INDEXES) {
    const [existing] = await queryRows<{ present: boolean }>(
      db,
      sql`select to_regclass(${spec.name}) is not null as present`,
    );
    const [counted] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from ${sql.identifier(spec.table)} where ${sql.identifier(spec.column)} is not null`,
    );
    const vectors = counted?.n ?? 0;
    if (existing?.present) {
      reports.push({ index: spec.name, vectors, status: 'exists', buildMs: null });
      continue;
    }
    if (!options.force && vectors < minVectors) {
      reports.push({ index: spec.name, vectors, status: 'below_threshold', buildMs: null });
      continue;
    }
    const started = performance.now();
    await db.transaction(async (tx) => {
      // The graph is built in memory; past maintenance_work_mem (64 MB by default, ~40k vectors)
      // pgvector switches to a much slower build. LOCAL, in a transaction: on a pooled connection
      // a session SET could land on another connection than the CREATE INDEX.
      await tx.execute(sql`set local maintenance_work_mem = '512MB'`);
      await tx.execute(
        sql`create index if not exists ${sql.identifier(spec.name)} on ${sql.identifier(spec.table)} using hnsw (${sql.identifier(spec.column)} vector_cosine_ops) with (m = ${sql.raw(String(HNSW_BUILD.m))}, ef_construction = ${sql.raw(String(HNSW_BUILD.efConstruction))})`,
      );
    });
    reports.push({ index: spec.name, vectors, status: 'built', buildMs: Math.round(performance.now() - started) });
  }
  return reports;
}
