import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * SQL that cannot escape: one SELECT over the workspace's views, checked on the Postgres parser.
 * Each attack is refused with 400 invalid_argument naming why, or runs harmlessly; harmlessness and
 * results are checked with independent SQL on the tables under the views.
 */
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let foreignAccount: string;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('sql-other');
  foreignAccount = newId();
  await h.database.db.execute(
    sql`insert into accounts (id, workspace_id, name, domain) values (${foreignAccount}, ${other.id}, 'Secret Co', 'secret.example')`,
  );
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const query = (body: Record<string, unknown>, key = ws.viewer.key) => h.request('POST', '/sql/query', { key, body });
const count = async (q: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: number }>(h.database.db, q))[0]?.n ?? 0);

describe('POST /sql/query', () => {
  it("answers QueryResult with this workspace's rows, limit + truncated", async () => {
    const expected = await count(sql`select count(*)::int as n from deals where workspace_id = ${ws.id}`);
    expect(expected).toBeGreaterThan(3);
    const all = await query({ sql: 'select count(*) as n from deals' });
    expect(all.status, all.text).toBe(200);
    expect(all.body.data).toEqual({ rowCount: 1, truncated: false, rows: [{ n: expected }] });

    const some = await query({ sql: 'select id, name from ws_views.deals order by name', limit: 3 });
    expect(some.body.data.rowCount).toBe(3);
    expect(some.body.data.truncated).toBe(true);
    const names = await queryRows<{ name: string }>(
      h.database.db,
      sql`select name from deals where workspace_id = ${ws.id} order by name limit 3`,
    );
    expect(some.body.data.rows.map((r: { name: string }) => r.name)).toEqual(names.map((r) => r.name));

    const exact = await query({ sql: 'select id from deals', limit: expected });
    expect(exact.body.data).toMatchObject({ rowCount: expected, truncated: false });

    expect((await query({ sql: '' })).status).toBe(400);
    expect((await query({ sql: 'select 1', limit: 0 })).status).toBe(400);
    expect((await query({ sql: 'select 1', limit: 1001 })).status).toBe(400);
  });

  it('keeps the workspace filter in the views: another workspace id in the text reads nothing', async () => {
    const mine = await count(sql`select count(*)::int as n from accounts where workspace_id = ${ws.id}`);
    const res = await query({ sql: `select count(*) as n from accounts where id = '${foreignAccount}'` });
    expect(res.body.data.rows).toEqual([{ n: 0 }]);
    const all = await query({ sql: `select count(*) as n from accounts where name = 'Secret Co' or true` });
    expect(all.body.data.rows).toEqual([{ n: mine }]);
    const theirs = await query({ sql: 'select name from accounts' }, other.viewer.key);
    expect(theirs.body.data.rows).toEqual([{ name: 'Secret Co' }]);
  });

  const refusals: [string, string, string][] = [
    ['multiple statements', 'select 1; delete from ws_views.accounts', 'multiple_statements'],
    ['a write', 'delete from accounts', 'not_select'],
    ['COPY', "copy accounts to '/tmp/x'", 'not_select'],
    ['a SET', 'set search_path = public', 'not_select'],
    [
      'a CTE with a write',
      'with gone as (delete from accounts returning id) select count(*) from gone',
      'forbidden_construct',
    ],
    ['pg_sleep', 'select pg_sleep(10)', 'forbidden_function'],
    ['pg_catalog.pg_sleep', 'select pg_catalog.pg_sleep(10)', 'forbidden_function'],
    [
      'set_config',
      "select set_config('cip.query_workspace', '00000000-0000-0000-0000-000000000000', true)",
      'forbidden_function',
    ],
    ['current_setting', "select current_setting('cip.query_workspace')", 'forbidden_function'],
    ['dblink', "select * from dblink('host=evil', 'select 1') as t(x int)", 'forbidden_construct'],
    ['a catalog read', 'select relname from pg_class', 'forbidden_relation'],
    ['a qualified catalog read', 'select * from pg_catalog.pg_authid', 'forbidden_relation'],
    ['information_schema', 'select * from information_schema.tables', 'forbidden_relation'],
    ['the base table', 'select * from public.accounts', 'forbidden_relation'],
    ['another table', 'select * from api_keys', 'forbidden_relation'],
    ['a quoted identifier', 'select * from "public"."accounts"', 'forbidden_relation'],
    ['a unicode-escaped identifier', 'select * from U&"pg\\005fclass"', 'forbidden_relation'],
    ['a comment hiding a second statement', 'select 1 /* ; */ ; -- x\n drop table accounts', 'multiple_statements'],
    ['a regclass cast', "select 'accounts'::regclass", 'forbidden_type'],
    ['a CAST to a catalog type', "select cast('1' as pg_catalog.regproc)", 'forbidden_type'],
    ['SELECT INTO', 'select * into stolen from accounts', 'forbidden_construct'],
    ['FOR UPDATE', 'select * from accounts for update', 'forbidden_construct'],
    ['a set-returning function in FROM', 'select * from generate_series(1, 100000000)', 'forbidden_construct'],
    ['a CTE named after a catalog', 'with pg_class as (select 1) select * from pg_class', 'forbidden_relation'],
    ['a syntax error', 'selec 1', 'syntax_error'],
  ];
  it.each(refusals)('refuses %s with 400 invalid_argument naming why', async (_label, text, reason) => {
    const res = await query({ sql: text });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('invalid_argument');
    expect(res.body.error.details.reason).toBe(reason);
  });

  it('runs harmless shapes: comments, CTEs over the views, unicode string escapes, a trailing comment', async () => {
    const n = await count(sql`select count(*)::int as n from interactions where workspace_id = ${ws.id}`);
    const cte = await query({
      sql: "-- how many\nwith i as (select * from interactions) /* all */ select count(*) as n, U&'\\0041' as a from i -- end",
    });
    expect(cte.status, cte.text).toBe(200);
    expect(cte.body.data.rows).toEqual([{ n, a: 'A' }]);
    const semi = await query({ sql: 'select count(*) as n from interactions;' });
    expect(semi.body.data.rows).toEqual([{ n }]);
    // A CTE name used outside its scope resolves on the views' search path only, never to a table.
    const outOfScope = await query({
      sql: 'select * from (with api_keys as (select 1 as x) select * from api_keys) a, api_keys',
    });
    expect(outOfScope.status).toBe(400);
    expect(outOfScope.body.error).toMatchObject({
      code: 'invalid_argument',
      details: { field: 'sql', reason: 'undefined_table', sqlstate: '42P01' },
    });
  });

  it("caps huge results at the limit and answers a column the views lack as the caller's 400", async () => {
    const huge = await query({ sql: 'select t.id from transcript_turns t', limit: 1000 });
    expect(huge.status, huge.text).toBe(200);
    expect(huge.body.data).toMatchObject({ rowCount: 1000, truncated: true });
    const missing = await query({ sql: 'select no_such_column from accounts' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'invalid_argument',
      details: { field: 'sql', reason: 'undefined_column', sqlstate: '42703' },
    });
  });

  it('writes nothing: the transaction is read only, so even a view write the parser missed would fail', async () => {
    const before = await count(sql`select count(*)::int as n from accounts where workspace_id = ${ws.id}`);
    await query({ sql: 'update accounts set name = name' });
    expect(await count(sql`select count(*)::int as n from accounts where workspace_id = ${ws.id}`)).toBe(before);
  });
});
