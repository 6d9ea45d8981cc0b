import { sql } from 'drizzle-orm';
import { queryRows, type Database } from './port.js';

/**
 * HNSW indexes on the vector columns, created after a bulk load rather than in a migration:
 * inserting into an HNSW-indexed table costs about 15x more than inserting and indexing after.
 *
 * Threshold, from bench/first-start.ts on this 2-core machine (local 384-dim hash vectors,
 * pgvector 0.8 in PGlite, one workspace; ranges over several runs, the machine shared with others):
 *   1x  (~4.7k vectors): exact top-10 10-16 ms; HNSW build 2.7-3.5 s (a third of a first start);
 *       HNSW top-10 2-6 ms, recall@10 0.96-1.0.
 *   10x (~47k vectors):  exact top-10 80-110 ms; HNSW build 25 s (55 s when the machine is busy);
 *       HNSW top-10 2.5-8 ms, but recall@10 only 0.66-0.88 at the default ef_search (40) and
 *       0.88-1.0 at ef_search 400 (the generated text has clusters of near-identical sentences,
 *       where HNSW misses neighbours; the build is randomized, so recall varies per build).
 *   bench/search-semantic.ts at 10x, through the lane (ef_search 1000): HNSW 0.66-0.78x the exact
 *       scan's latency (75 vs 113 ms per call), but recall@10 over the labelled queries varied per
 *       build from 0.91 (one query at 0.00) to 1.0.
 *   Build parameters, bench at 10x over 23 labelled queries (ef_search 1000), builds are random:
 *       default (m 16, ef_construction 64): mean recall@10 0.996, 0.996, 1.000 in three builds here,
 *       0.955 (one query at 0.00) and 0.909 in others; m 32, ef_construction 128: 1.000 in all three,
 *       for ~3x the build time (88 s vs 30 s). The corpus repeats sentences (a third of external
 *       utterances at 1x duplicate another), and duplicates are what thin a sparse graph; so the
 *       denser graph is worth its one-time cost. At 100x (471,822 vectors) it took 26 min to build
 *       on one core, and the query the default graph missed there ("renewing with fewer seats next
 *       year": 0.225 vs the exact 0.440) came back exact in 116 ms.
 * Below about a hundred thousand vectors the exact scan answers in ~0.1-0.2 s with perfect recall,
 * and growing linearly (~2 us per vector); a faster answer that can miss every true neighbour is
 * the worse trade there. So the index is built only from HNSW_MIN_VECTORS up, and a query using it
 * raises hnsw.ef_search. `force` overrides.
 * The index spans all workspaces while a query filters on one: for a small workspace in a large
 * table the planner should still prefer the exact scan through utterances_workspace_embedder_idx
 * (with fresh statistics; the loader runs ANALYZE), or the query should use pgvector's
 * hnsw.iterative_scan so filtering does not starve the result.
 */
export const HNSW_MIN_VECTORS = 100_000;
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
export async function ensureVectorIndexes(db: Database, options: { minVectors?: number; force?: boolean } = {}): Promise<VectorIndexReport[]> {
  const minVectors = options.minVectors ?? HNSW_MIN_VECTORS;
  const reports: VectorIndexReport[] = [];
  for (const spec of VECTOR_INDEXES) {
    const [existing] = await queryRows<{ present: boolean }>(db, sql`select to_regclass(${spec.name}) is not null as present`);
    const [counted] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from ${sql.identifier(spec.table)} where ${sql.identifier(spec.column)} is not null`);
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
