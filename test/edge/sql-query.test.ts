import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, closeSql, edge, newAdminKey, sql } from './support.js';

/**
 * POST /sql/query in workerd: the Postgres parser loads there (its .wasm bundled by wrangler as a
 * compiled module: platform/sql-parser/bundled-wasm.ts), so a SELECT over a view answers rows and
 * each attack is refused by the same guard as on Node, with its reason. Rows are checked with
 * independent SQL on the stack's database.
 */
let key: string;

beforeAll(async () => {
  key = await newAdminKey('edge tier sql query');
});
afterAll(closeSql);

const query = (text: string, limit?: number) =>
  api('POST', '/sql/query', { key, body: { sql: text, ...(limit === undefined ? {} : { limit }) } });

describe('POST /sql/query in workerd', () => {
  it("answers a SELECT over a documented view with this workspace's rows", async () => {
    const res = await query('select stage, count(*) as n from deals group by stage order by stage');
    expect(res.status, res.text).toBe(200);
    const expected = await sql<{ stage: string; n: string }>(
      'select stage, count(*)::text as n from deals where workspace_id = $1 group by stage order by stage',
      [edge.workspaceId],
    );
    expect(expected.length).toBeGreaterThan(1);
    expect(res.body.data).toEqual({
      rowCount: expected.length,
      truncated: false,
      rows: expected.map((r) => ({ stage: r.stage, n: Number(r.n) })),
    });

    const some = await query('select name from ws_views.accounts order by name', 2);
    expect(some.status, some.text).toBe(200);
    expect(some.body.data).toMatchObject({ rowCount: 2, truncated: true });
  });

  const attacks: [string, string, string][] = [
    ['a sleep', 'select pg_sleep(1)', 'forbidden_function'],
    ['a second statement', 'select 1; delete from accounts', 'multiple_statements'],
    ['a catalog read', 'select rolname, rolpassword from pg_catalog.pg_authid', 'forbidden_relation'],
    [
      'a write in a CTE',
      'with gone as (delete from accounts returning id) select count(*) from gone',
      'forbidden_construct',
    ],
    ['set_config', "select set_config('cip.query_workspace', 'x', true)", 'forbidden_function'],
    ['a syntax error', 'selec 1', 'syntax_error'],
    [
      'a cross join too costly to run',
      'select count(*) from transcript_turns a, transcript_turns b, accounts c',
      'query_too_expensive',
    ],
  ];
  it.each(attacks)('refuses %s with 400 invalid_argument and its reason', async (_label, text, reason) => {
    const res = await query(text);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'sql', reason } });
  });

  it('wrote nothing through any of them', async () => {
    const [row] = await sql<{ n: string }>('select count(*)::text as n from accounts where workspace_id = $1', [
      edge.workspaceId,
    ]);
    expect(Number(row?.n)).toBeGreaterThan(0);
  });
});
