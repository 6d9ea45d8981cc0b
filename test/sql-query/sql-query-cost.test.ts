import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PLAN_COST } from '../../functions/sql-query/run.js';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { queryRows } from '../../platform/db/port.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * POST /sql/query's cost cap (SQL_QUERY_MAX_COST): before running the caller's statement, the planner's
 * estimate of what would run is held to the cap, which is the protection PGlite has (it cannot cancel
 * a running statement). Estimates are compared with EXPLAIN run here by hand, not with the code's.
 */
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const query = (harness: Harness, text: string) =>
  harness.request('POST', '/sql/query', { key: ws.viewer.key, body: { sql: text } });

interface Node {
  'Total Cost': number;
  Plans?: Node[];
}
/**
 * The cost of the costliest node of what the operation runs for `text` (limit 100), read with EXPLAIN
 * here: the whole plan, so a Limit above a costly join cannot hide it.
 */
async function explainedCost(text: string): Promise<number> {
  const root = await h.database.db.transaction(async (tx) => {
    await tx.execute(sql`select query_guard.bind_workspace(${ws.id}::uuid)`);
    await tx.execute(sql`set local search_path = ws_views`);
    const [row] = await queryRows<{ 'QUERY PLAN': [{ Plan: Node }] }>(
      tx,
      sql.raw(`explain (format json) select * from (\n${text}\n) as caller_query limit 101`),
    );
    return row?.['QUERY PLAN'][0].Plan;
  });
  const costliest = (node: Node): number => Math.max(node['Total Cost'], ...(node.Plans ?? []).map(costliest));
  return root ? costliest(root) : Number.NaN;
}

describe('POST /sql/query cost cap', () => {
  it('lets the documented example and an ordinary aggregate through, with the rows independent SQL finds', async () => {
    const example = await query(h, 'select stage, count(*) as n, sum(amount) as total from deals group by stage');
    expect(example.status, example.text).toBe(200);
    const stages = await queryRows<{ stage: string; n: number }>(
      h.database.db,
      sql`select stage, count(*)::int as n from deals where workspace_id = ${ws.id} group by stage`,
    );
    expect(example.body.data.rowCount).toBe(stages.length);

    const joined = await query(
      h,
      'select a.name, count(t.id) as turns from accounts a join interactions i on i.account_id = a.id ' +
        'join transcript_turns t on t.interaction_id = i.id group by a.name order by turns desc, a.name',
    );
    expect(joined.status, joined.text).toBe(200);
    const [top] = await queryRows<{ name: string; turns: number }>(
      h.database.db,
      sql`select a.name, count(t.id)::int as turns from accounts a join interactions i on i.account_id = a.id
          join transcript_turns t on t.interaction_id = i.id
          where a.workspace_id = ${ws.id} group by a.name order by turns desc, a.name limit 1`,
    );
    expect(joined.body.data.rows[0]).toEqual(top);
  });

  it('refuses a three-way cross join over accounts before it runs: 400 query_too_expensive with both numbers', async () => {
    // Grown to the size where PGlite would be held for minutes (600 accounts: 216M rows), statistics current.
    await h.database.db.execute(
      sql`insert into accounts (id, workspace_id, name)
          select gen_random_uuid(), ${ws.id}, 'Cross join account ' || g from generate_series(1, 540) g`,
    );
    await h.database.db.execute(sql`analyze accounts`);
    const text = 'select count(*) as n from accounts a, accounts b, accounts c';
    const expected = Math.round(await explainedCost(text));
    expect(expected).toBeGreaterThan(DEFAULT_MAX_PLAN_COST);

    const res = await query(h, text);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_argument',
      details: {
        field: 'sql',
        reason: 'query_too_expensive',
        estimated_cost: expected,
        max_cost: DEFAULT_MAX_PLAN_COST,
      },
    });
    expect(res.body.error.message).toContain(String(expected));
  });

  it('cannot be fooled by LIMIT, OFFSET or a CTE over the same join with a filter that never matches', async () => {
    // A Limit costs the fraction of its input it expects to read; with a filter that never matches it reads
    // the whole join. Each of these plans cheap at its root and is refused at the cost of the join beneath.
    const join = "select a.id from accounts a, accounts b, accounts c where a.name || b.name || c.name = 'never'";
    for (const text of [
      `${join} limit 1`,
      `select * from (${join} offset 5 limit 1) x`,
      `with j as (${join}) select * from j limit 1`,
      `select count(*) as n from accounts d where exists (${join} limit 1)`,
      'select a.id from accounts a, accounts b, accounts c',
    ]) {
      const res = await query(h, text);
      expect(res.status, `${text}: ${res.text}`).toBe(400);
      expect(res.body.error.details).toMatchObject({ reason: 'query_too_expensive' });
      expect(res.body.error.details.estimated_cost).toBeGreaterThan(DEFAULT_MAX_PLAN_COST);
    }
    // A row per account that each runs a limited scan of a join that never matches: costed per run.
    const lateral = await query(
      h,
      "select a.id, s.id from accounts a, lateral (select b.id from accounts b, deals d where b.name || d.name = a.name || 'never' limit 1) s",
    );
    expect(lateral.status, lateral.text).toBe(400);
  });

  it('takes its cap from SQL_QUERY_MAX_COST: a tiny cap refuses a simple count', async () => {
    const tiny = await createHarness({ database: h.database, env: { SQL_QUERY_MAX_COST: '1' } });
    try {
      const text = 'select count(*) as n from deals';
      const res = await query(tiny, text);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details).toEqual({
        field: 'sql',
        reason: 'query_too_expensive',
        estimated_cost: Math.round(await explainedCost(text)),
        max_cost: 1,
      });
      expect((await query(h, text)).status).toBe(200);
    } finally {
      await tiny.close();
    }
  });

  it('validates SQL_QUERY_MAX_COST as a positive integer, with a documented default', () => {
    const base = { APP_ENV: 'test', PUBLIC_URL: 'http://platform.test' };
    expect(loadConfig(base).SQL_QUERY_MAX_COST).toBe(DEFAULT_MAX_PLAN_COST);
    expect(loadConfig({ ...base, SQL_QUERY_MAX_COST: '250' }).SQL_QUERY_MAX_COST).toBe(250);
    for (const bad of ['0', '-5', '1.5', 'lots'])
      expect(() => loadConfig({ ...base, SQL_QUERY_MAX_COST: bad })).toThrow(ConfigError);
  });
});
