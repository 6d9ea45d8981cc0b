import { sql } from 'drizzle-orm';
import { customType, vector } from 'drizzle-orm/pg-core';

/**
 * Column builders the warehouse shares. Postgres has `tsvector` but drizzle has no builder for it;
 * the column is only ever written by the database (generated), so the TS side never sees its value.
 */
export const tsvector = customType<{ data: string }>({
  dataType: () => 'tsvector',
});

/** 384 dims whichever embedder produced it; the `embedder` column beside it says which one did. */
export const embeddingColumn = () => vector('embedding', { dimensions: 384 });

/** Which side of a conversation someone spoke for: the workspace's own people or the customer. */
export const SIDES = ['external', 'internal'] as const;
export type Side = (typeof SIDES)[number];

/**
 * A literal `'a', 'b'` list for CHECK constraints. Only for the code's own constant vocabularies:
 * the values are inlined into DDL, never taken from input.
 */
export const sqlInList = (values: readonly string[]) =>
  sql.raw(values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', '));
