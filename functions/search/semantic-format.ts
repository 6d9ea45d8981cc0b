import { sql, type SQL } from 'drizzle-orm';

/**
 * How the semantic lane's files write values: into SQL (the query vector, uuid lists, literals
 * inlined into compiled.sql) and into responses (similarity, failure text). Shared by the runner,
 * hydration and the theme-index fallback so the three cannot drift apart.
 */

/** pgvector's text form; the values are plain numbers (never user text), so it is safe as a bound parameter. */
export const vectorLiteral = (vector: readonly number[]): string =>
  `[${vector.map((v) => (Number.isFinite(v) ? v : 0)).join(',')}]`;

/** A bound-parameter list of uuids for `in (...)`. */
export const idList = (ids: readonly string[]): SQL =>
  sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );

/** A SQL string literal, for compiled.sql only (a record of intent, never executed). */
export { quote } from './filter-values.js';

export const round = (n: number): number => Math.round(n * 1e6) / 1e6;

/** The first line of a failure, capped, for detail.message. */
export const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
