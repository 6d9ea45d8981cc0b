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
 * carry `rows`; this is the one place that knows it. Raw values match across drivers (timestamps
 * and numerics are strings in both, via drizzle's parsers) except int8, which PGlite parses to a
 * number (a bigint past 2^53) and Neon's pg leaves a string: `count(*)` would be `1` in tests and
 * `"1"` in production. int8 and int8[] columns are normalised here to PGlite's shape.
 */
export async function queryRows<T extends Record<string, unknown>>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as {
    rows: T[];
    fields?: readonly { name: string; dataTypeID: number }[];
  };
  const int8Columns = (result.fields ?? [])
    .filter((f) => f.dataTypeID === PG_INT8 || f.dataTypeID === PG_INT8_ARRAY)
    .map((f) => f.name);
  if (int8Columns.length === 0) return result.rows;
  for (const row of result.rows as Record<string, unknown>[]) {
    for (const name of int8Columns) row[name] = normalizeInt8(row[name]);
  }
  return result.rows;
}

const PG_INT8 = 20;
const PG_INT8_ARRAY = 1016;

function normalizeInt8(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeInt8);
  if (typeof value !== 'string') return value;
  const big = BigInt(value);
  return big < BigInt(Number.MIN_SAFE_INTEGER) || big > BigInt(Number.MAX_SAFE_INTEGER) ? big : Number(big);
}
