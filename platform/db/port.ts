import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type * as schema from '../../schema/index.js';

export type Schema = typeof schema;

/** The database port: drizzle over PGlite (embedded default, tests) or Neon (production). */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything a repository function can run a query on: the database or an open transaction. */
export type Queryable = Database | Transaction;

export interface DatabaseHandle {
  readonly db: Database;
  readonly driver: 'pglite' | 'neon';
  close(): Promise<void>;
}

/**
 * Run raw SQL and return its rows. The PGlite and Neon drivers shape results differently but both
 * carry `rows`; this is the one place that knows it.
 */
export async function queryRows<T extends Record<string, unknown>>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
