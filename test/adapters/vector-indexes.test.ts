import { afterAll, beforeAll, expect, it } from 'vitest';
import { HNSW_BUILD, HNSW_MIN_VECTORS, ensureVectorIndexes } from '../../platform/db/vector-indexes.js';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { openTestDatabase } from '../support/harness.js';

/** The HNSW indexes: built only from the threshold up (or when forced), with the tuned graph, once. */
let database: PgliteHandle;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

const indexDefs = async () =>
  (
    await database.client.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where indexname like '%_embedding_hnsw_idx' order by indexname`,
    )
  ).rows;

it('leaves the stores unindexed below the threshold', async () => {
  const reports = await ensureVectorIndexes(database.db);
  expect(reports.map((r) => [r.index, r.status])).toEqual([
    ['utterance_vectors_embedding_hnsw_idx', 'below_threshold'],
    ['themes_embedding_hnsw_idx', 'below_threshold'],
  ]);
  expect(HNSW_MIN_VECTORS).toBe(10_000);
  expect(await indexDefs()).toEqual([]);
});

it('builds cosine HNSW indexes with the tuned graph when forced, and only once', async () => {
  const built = await ensureVectorIndexes(database.db, { force: true });
  expect(built.map((r) => r.status)).toEqual(['built', 'built']);
  const defs = await indexDefs();
  expect(defs.map((d) => d.indexname)).toEqual(['themes_embedding_hnsw_idx', 'utterance_vectors_embedding_hnsw_idx']);
  for (const d of defs) {
    expect(d.indexdef).toContain('USING hnsw (embedding vector_cosine_ops)');
    expect(d.indexdef).toContain(`m='${HNSW_BUILD.m}'`);
    expect(d.indexdef).toContain(`ef_construction='${HNSW_BUILD.efConstruction}'`);
  }
  const again = await ensureVectorIndexes(database.db, { force: true });
  expect(again.map((r) => r.status)).toEqual(['exists', 'exists']);
});
