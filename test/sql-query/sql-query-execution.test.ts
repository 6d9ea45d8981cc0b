import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PLAN_COST, executeChecked } from '../../functions/sql-query/run.js';
import { queryRows } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { onPostgresTier } from '../pg/tier-switch.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The executor under the parser guard of POST /sql/query: what holds even for a statement the guard
 * let through. The guard's own refusals are test/sql-query/sql-query.test.ts.
 *
 * PGlite (the database of tests) accepts `statement_timeout` but cannot enforce it (no timer signals
 * in WebAssembly): a cross join there runs to its end whatever the setting. So on PGlite the timeout
 * is checked as far as it lets it be (the configured value is the one the transaction runs under, and
 * the cancellation Postgres raises when it fires, SQLSTATE 57014, is answered with the error table's
 * code), and on the PostgreSQL tier (npm run test:pg) a real slow query is stopped by it.
 */
const TIMEOUT_MS = 75;
/** Far above any plan here, so the cross join below reaches the timeout (the cap's own tests: sql-query-cost.test.ts). */
const LIFTED_COST_CAP = 1_000_000_000_000;
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  // The cost cap lifted: what this file proves is what happens to a statement once it runs.
  h = await createHarness({
    env: { SQL_QUERY_TIMEOUT_MS: String(TIMEOUT_MS), SQL_QUERY_MAX_COST: String(LIFTED_COST_CAP) },
  });
  ws = await h.seedWorkspace('sql-executor');
  await h.database.db.execute(sql`create sequence public.sql_executor_probe_seq`);
  // Raises what Postgres raises when statement_timeout fires, from inside the caller's statement.
  await h.database.db.execute(
    sql.raw(`create function public.sql_executor_probe_timeout() returns int language plpgsql as $$
      begin raise exception using errcode = '57014', message = 'canceling statement due to statement timeout'; end $$`),
  );
  // What the probes need of the caller's role, which otherwise may read only the views: to read a
  // setting, and to write the sequence (so the read-only transaction is what refuses that write).
  await h.database.db.execute(sql.raw('grant execute on function pg_catalog.current_setting(text) to cip_query'));
  await h.database.db.execute(sql.raw('grant usage, update on sequence public.sql_executor_probe_seq to cip_query'));
  await h.database.db.execute(sql.raw('grant execute on function pg_catalog.nextval(regclass) to cip_query'));
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const timeout = () => h.services.config.SQL_QUERY_TIMEOUT_MS as number;
const bounds = () => ({ limit: 10, timeoutMs: timeout(), maxCost: h.services.config.SQL_QUERY_MAX_COST as number });
const failure = async (statement: string): Promise<ApiError> => {
  const error = await executeChecked(h.database.db, ws.id, statement, bounds()).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
};

describe('POST /sql/query execution', () => {
  it('runs under the configured statement timeout (SQL_QUERY_TIMEOUT_MS), and the API works with it', async () => {
    expect(timeout()).toBe(TIMEOUT_MS);
    const inside = await executeChecked(
      h.database.db,
      ws.id,
      "select current_setting('statement_timeout') as timeout, current_setting('transaction_read_only') as read_only",
      bounds(),
    );
    expect(inside.rows).toEqual([{ timeout: `${TIMEOUT_MS}ms`, read_only: 'on' }]);
    // Local to the query's transaction: the connection is back to no timeout afterwards.
    const after = await queryRows<{ t: string }>(h.database.db, sql`select current_setting('statement_timeout') as t`);
    expect(after[0]?.t).toBe('0');

    const res = await h.request('POST', '/sql/query', {
      key: ws.viewer.key,
      body: { sql: 'select count(*) as n from deals' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.rows).toEqual([{ n: 0 }]);
  });

  it('answers a statement canceled by the timeout with 500 query_failed, reason statement_timeout', async () => {
    const error = await failure('select public.sql_executor_probe_timeout() as x');
    expect(error.status).toBe(500);
    expect(error.code).toBe('query_failed');
    expect(error.details).toEqual({ reason: 'statement_timeout', sqlstate: '57014' });
    expect(error.message).toContain(`${TIMEOUT_MS} ms`);
  });

  it('answers a date that does not exist in the statement with 400 invalid_argument naming sql, not 500', async () => {
    for (const statement of [
      "select date '2026-02-30' as d",
      "select '9999-99-99'::date as d",
      "select count(*) as n from interactions where occurred_at >= '2026-13-01'",
    ]) {
      const error = await failure(statement);
      expect(error.status, statement).toBe(400);
      expect(error.code, statement).toBe('invalid_argument');
      expect(error.details, statement).toMatchObject({
        reason: 'invalid_value',
        sqlstate: expect.stringMatching(/^22/),
        fields: [{ field: 'sql', code: 'invalid_value' }],
      });
    }
  });

  it('refuses a write that reaches the executor: the transaction is read-only', async () => {
    const error = await failure("select nextval('public.sql_executor_probe_seq') as n");
    expect(error.status).toBe(500);
    expect(error.code).toBe('query_failed');
    expect(error.details).toEqual({ reason: 'execution_error', sqlstate: '25006' });
    const [seq] = await queryRows<{ is_called: boolean }>(
      h.database.db,
      sql`select is_called from public.sql_executor_probe_seq`,
    );
    expect(seq?.is_called).toBe(false);
  });
});

// Only where the timeout is enforced: the PostgreSQL tier (npm run test:pg), not PGlite.
describe.skipIf(!onPostgresTier())('POST /sql/query on PostgreSQL', () => {
  it('stops a slow query the parser allows (a cross join over the views) with 500 query_failed, statement_timeout', {
    tags: ['postgres'],
  }, async () => {
    await h.database.db.execute(
      sql`insert into accounts (id, workspace_id, name)
          select gen_random_uuid(), ${ws.id}, 'Timeout account ' || g from generate_series(1, 2000) g`,
    );
    const res = await h.request('POST', '/sql/query', {
      key: ws.viewer.key,
      body: { sql: 'select count(*) as n from accounts a, accounts b, accounts c' },
    });
    expect(res.status, res.text).toBe(500);
    expect(res.body.error).toMatchObject({
      code: 'query_failed',
      details: { reason: 'statement_timeout', sqlstate: '57014' },
    });
    expect(res.body.error.message).toContain(`${TIMEOUT_MS} ms`);
  });

  it('refuses the same kind of cross join before it runs under the default cost cap, as on PGlite', {
    tags: ['postgres'],
  }, async () => {
    const capped = await createHarness({ database: h.database });
    try {
      const big = await capped.seedWorkspace('sql-cost-cap');
      await h.database.db.execute(
        sql`insert into accounts (id, workspace_id, name)
            select gen_random_uuid(), ${big.id}, 'Cost cap account ' || g from generate_series(1, 1000) g`,
      );
      await h.database.db.execute(sql`analyze accounts`);
      const res = await capped.request('POST', '/sql/query', {
        key: big.viewer.key,
        body: { sql: 'select count(*) as n from accounts a, accounts b, accounts c' },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details).toMatchObject({ reason: 'query_too_expensive', max_cost: DEFAULT_MAX_PLAN_COST });
      expect(res.body.error.details.estimated_cost).toBeGreaterThan(DEFAULT_MAX_PLAN_COST);
    } finally {
      await capped.close();
    }
  });
});
