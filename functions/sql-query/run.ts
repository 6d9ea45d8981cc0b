import { sql } from 'drizzle-orm';
import { queryRows, type Database, type DatabaseHandle } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import type { SqlParser } from '../../platform/sql-parser/port.js';
import { checkQuery } from './guard.js';
import { estimatedCost } from './plan-cost.js';
import { inSandbox, querySandbox } from './sandbox.js';
import { callerStatementError, databaseCause } from './statement-errors.js';

/** The default of SQL_QUERY_TIMEOUT_MS: how long one caller query may run before Postgres cancels it. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
/**
 * The default of SQL_QUERY_MAX_COST: the planner's total cost (Postgres cost units) above which a query
 * is refused before it runs. Every documented example and ordinary analytic query over the 10x demo
 * corpus plans far below it; a cross join of the views multiplies past it (docs/guides/sql-query.md).
 */
export const DEFAULT_MAX_PLAN_COST = 500_000;

export interface QueryResult {
  rowCount: number;
  truncated: boolean;
  rows: Record<string, unknown>[];
}

/** What one caller query may use: rows returned, milliseconds run, and planner cost. */
export interface QueryBounds {
  limit: number;
  timeoutMs: number;
  maxCost: number;
}

/** Check the caller's text on the parser (400 when refused), then run it (executeChecked). */
export async function runQuery(
  db: Database,
  parser: SqlParser,
  workspaceId: string,
  text: string,
  bounds: QueryBounds,
  ownConnection?: () => DatabaseHandle,
): Promise<QueryResult> {
  return executeChecked(db, workspaceId, await checkQuery(parser, text), bounds, ownConnection);
}

/**
 * Run one statement the guard accepted, for a workspace, in the query sandbox (sandbox.ts): as the
 * least-privilege role, read-only, with the workspace bound for the transaction, the statement timeout,
 * the search path on the views only, always rolled back. The statement is wrapped as a subquery with
 * limit + 1 rows, so `truncated` is known without reading more. A failure of the caller's statement that
 * its text decides (a bad value, class 22; a name, type or privilege Postgres refuses, class 42) is the
 * caller's 400 invalid_argument (statement-errors.ts); any other failure, the sandbox's own statements
 * included, is 500 query_failed with the SQLSTATE.
 *
 * Before it runs, the planner's estimate of exactly what would run (the wrapped statement, in the same
 * transaction and role, so the views plan for this workspace) is held to `maxCost`: 400
 * query_too_expensive above it. The estimate is the costliest node of the plan, not its root, so a `LIMIT`
 * (whose own cost is the fraction of its input it expects to read) cannot hide a costly join beneath it
 * (plan-cost.ts). That is the protection PGlite (the embedded default) has: it accepts statement_timeout
 * but cannot enforce it (no timer signals in its WebAssembly build). On Postgres/Neon both apply: the cap
 * refuses what the planner can foresee, the timeout stops what it underestimated (the PostgreSQL test tier
 * checks a real cancellation: test/sql-query/sql-query-execution.test.ts).
 */
export async function executeChecked(
  db: Database,
  workspaceId: string,
  statement: string,
  { limit, timeoutMs, maxCost }: QueryBounds,
  ownConnection?: () => DatabaseHandle,
): Promise<QueryResult> {
  // Newlines around the statement: a trailing `--` comment in it cannot swallow the closing parenthesis.
  // The limit is a validated integer, inlined so that EXPLAIN plans the very text that then runs.
  const wrapped = `select * from (\n${statement}\n) as caller_query limit ${Math.trunc(limit) + 1}`;
  const sandbox = await querySandbox(db, ownConnection);
  let rows: Record<string, unknown>[];
  try {
    rows = await inSandbox(sandbox, db, workspaceId, { timeoutMs }, async (tx) => {
      try {
        const cost = await estimatedCost(tx, wrapped);
        if (cost > maxCost) throw tooExpensive(cost, maxCost);
        return await queryRows<Record<string, unknown>>(tx, sql.raw(wrapped));
      } catch (e) {
        throw callerStatementError(e) ?? e;
      }
    });
  } catch (e) {
    if (e instanceof ApiError) throw e;
    const cause = databaseCause(e);
    const timedOut = cause.code === '57014';
    throw new ApiError(
      'query_failed',
      timedOut
        ? `The query ran past ${timeoutMs} ms and was canceled.`
        : `The query failed: ${cause.message ?? 'the database gave no reason'}`,
      { reason: timedOut ? 'statement_timeout' : 'execution_error', sqlstate: cause.code ?? null },
      { cause: e },
    );
  }
  const truncated = rows.length > limit;
  const kept = truncated ? rows.slice(0, limit) : rows;
  return { rowCount: kept.length, truncated, rows: kept };
}

/** A caller error, not a failure: the same text is refused every time, so it is 400 (no retry), naming the numbers. */
function tooExpensive(estimated: number, max: number): ApiError {
  return new ApiError(
    'invalid_argument',
    `The query's estimated cost (${Math.round(estimated)}) is over the cap (${max}): narrow it (filters, fewer joins, no cross joins).`,
    { field: 'sql', reason: 'query_too_expensive', estimated_cost: Math.round(estimated), max_cost: max },
  );
}
