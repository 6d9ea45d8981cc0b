import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import type { SqlParser } from '../../platform/sql-parser/port.js';
import { checkQuery, VIEW_SCHEMA } from './guard.js';

/** The default of SQL_QUERY_TIMEOUT_MS: how long one caller query may run before Postgres cancels it. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

export interface QueryResult {
  rowCount: number;
  truncated: boolean;
  rows: Record<string, unknown>[];
}

/** Check the caller's text on the parser (400 when refused), then run it (executeChecked). */
export async function runQuery(
  db: Database,
  parser: SqlParser,
  workspaceId: string,
  text: string,
  limit: number,
  timeoutMs: number,
): Promise<QueryResult> {
  return executeChecked(db, workspaceId, await checkQuery(parser, text), limit, timeoutMs);
}

/**
 * Run one statement the guard accepted, for a workspace: in a READ ONLY transaction (a write that got
 * past the guard is still refused by Postgres), with the statement timeout, the search path on the
 * views only, and the workspace the views filter on set by the server (`set_config(..., true)`:
 * local to this transaction). The statement is wrapped as a subquery with limit + 1 rows, so
 * `truncated` is known without reading more. Any failure is 500 query_failed with the SQLSTATE.
 *
 * The timeout is Postgres's: PGlite (the embedded default) accepts the setting but cannot enforce
 * it (no timer signals in its WebAssembly build), so it protects on Postgres/Neon only (the PostgreSQL
 * test tier checks a real cancellation: test/sql-query/sql-query-execution.test.ts).
 */
export async function executeChecked(
  db: Database,
  workspaceId: string,
  statement: string,
  limit: number,
  timeoutMs: number,
): Promise<QueryResult> {
  let rows: Record<string, unknown>[];
  try {
    rows = await db.transaction(async (tx) => {
      await tx.execute(sql`set transaction read only`);
      await tx.execute(sql.raw(`set local statement_timeout = ${Math.trunc(timeoutMs)}`));
      await tx.execute(sql.raw(`set local search_path = ${VIEW_SCHEMA}`));
      await tx.execute(sql`select set_config('cip.query_workspace', ${workspaceId}, true)`);
      // Newlines around the statement: a trailing `--` comment in it cannot swallow the closing parenthesis.
      return queryRows<Record<string, unknown>>(
        tx,
        sql`select * from (${sql.raw(`\n${statement}\n`)}) as caller_query limit ${limit + 1}`,
      );
    });
  } catch (e) {
    const cause =
      (e as { cause?: { code?: string; message?: string } }).cause ?? (e as { code?: string; message?: string });
    const timedOut = cause?.code === '57014';
    throw new ApiError(
      'query_failed',
      timedOut
        ? `The query ran past ${timeoutMs} ms and was canceled.`
        : `The query failed: ${cause?.message ?? String(e)}`,
      { reason: timedOut ? 'statement_timeout' : 'execution_error', sqlstate: cause?.code ?? null },
    );
  }
  const truncated = rows.length > limit;
  const kept = truncated ? rows.slice(0, limit) : rows;
  return { rowCount: kept.length, truncated, rows: kept };
}
