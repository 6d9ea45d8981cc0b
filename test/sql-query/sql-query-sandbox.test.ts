import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import { ALLOWED_FUNCTIONS, QUERY_VIEWS, VIEW_COLUMNS } from '../../functions/sql-query/guard.js';
import { executeChecked } from '../../functions/sql-query/run.js';
import { QUERY_ROLE } from '../../functions/sql-query/sandbox.js';
import { VIEW_COLUMN_LISTS } from '../../functions/sql-query/views.js';
import { queryRows } from '../../platform/db/port.js';
import type { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { onPostgresTier } from '../pg/tier-switch.js';
import { createHarness, openTestDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Caller SQL can read only the caller's workspace whatever the parser guard misses. The guard's
 * refusals of attribute notation are checked on REST and MCP; then statements the guard would refuse
 * are handed straight to the executor (as if the guard had missed them) and must fail below it: the
 * role cannot read the tables, call the functions outside the allow-list, switch back to the server's
 * role, change the workspace binding, or leave anything behind on the shared connection. Every fact is
 * read back with independent SQL as the server's own role.
 */
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
const secretName = `Secret Co ${newId()}`;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('sandbox-caller');
  other = await h.seedWorkspace('sandbox-other');
  await h.database.db.execute(
    sql`insert into accounts (id, workspace_id, name) values (${newId()}, ${ws.id}, 'Own Co'), (${newId()}, ${other.id}, ${secretName})`,
  );
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const bounds = { limit: 100, timeoutMs: 5_000, maxCost: 500_000 };
/** The executor alone, as if the guard had let `statement` through (on the tier, through the role's own login). */
const unguarded = (statement: string) =>
  executeChecked(
    h.database.db,
    ws.id,
    statement,
    bounds,
    'sqlQueryConnection' in h.database ? h.database.sqlQueryConnection : undefined,
  ).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error: error as ApiError }),
  );
const sqlstateOf = (outcome: Awaited<ReturnType<typeof unguarded>>) =>
  outcome.ok ? 'ran' : (outcome.error.details as { sqlstate?: string }).sqlstate;

describe('the guard refuses attribute notation that names a function', () => {
  const bypasses = [
    "select (select 'secrets.json').pg_read_file as f",
    "select ('select 1').ts_stat as s",
    'select a.pg_sleep from accounts a',
    'select (a.name).set_config from accounts a',
    'select x.query_to_xml from (select name from accounts) x',
  ];

  it('on REST: 400 invalid_argument, reason forbidden_function, naming it', async () => {
    for (const text of bypasses) {
      const res = await h.request('POST', '/sql/query', { key: ws.viewer.key, body: { sql: text } });
      expect(res.status, `${text}: ${res.text}`).toBe(400);
      expect(res.body.error.details).toMatchObject({ field: 'sql', reason: 'forbidden_function' });
    }
  });

  it('on MCP: the same refusal as a tool error', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': ws.viewer.key } },
    });
    const client = new Client({ name: 'sandbox-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      for (const text of bypasses) {
        const result = (await client.callTool({ name: 'sql', arguments: { action: 'query', sql: text } })) as {
          isError?: boolean;
          structuredContent?: { error?: { code: string; details?: Record<string, unknown> } };
        };
        expect(result.isError, text).toBe(true);
        expect(result.structuredContent?.error).toMatchObject({
          code: 'invalid_argument',
          details: { reason: 'forbidden_function' },
        });
      }
    } finally {
      await client.close();
    }
  });

  it('still reads columns through attribute notation: view columns, names the query gives, allowed functions', async () => {
    const res = await h.request('POST', '/sql/query', {
      key: ws.viewer.key,
      body: {
        sql: 'select a.name, x.n, (a.name) as whole, y.count from accounts a, (select count(*) as n from deals) x, (select count(*) from contacts) y',
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.rows).toEqual([{ name: 'Own Co', n: 0, whole: 'Own Co', count: 0 }]);
  });
});

describe('below the guard: the statement runs as the least-privilege role', () => {
  it("reads the views for the caller's workspace only", async () => {
    const own = await unguarded('select name from accounts');
    expect(own.ok && own.result.rows).toEqual([{ name: 'Own Co' }]);
    const [{ n } = { n: -1 }] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from accounts where workspace_id = ${other.id} and name = ${secretName}`,
    );
    expect(n).toBe(1);
  });

  it('cannot read the tables, the catalog of secrets, or files', async () => {
    for (const statement of [
      'select name from public.accounts',
      'select key_hash from public.api_keys',
      'select * from query_guard.bindings',
      "select pg_read_file('secrets.json')",
      "select pg_read_file('PG_VERSION')",
      "select pg_ls_dir('.')",
      'select rolpassword from pg_authid',
    ])
      expect(sqlstateOf(await unguarded(statement)), statement).toBe('42501');
  });

  it('cannot call a function outside the allow-list, even one that runs SQL of its own', async () => {
    for (const statement of [
      "select * from ts_stat('select to_tsvector(name) from public.accounts')",
      "select query_to_xml('select name from public.accounts', true, true, '')",
      "select set_config('role', 'postgres', true)",
      "select set_config('statement_timeout', '0', false)",
      'select pg_sleep(0)',
      'select pg_advisory_lock(1)',
      "select current_setting('data_directory')",
      'select txid_current()',
      'select generate_series(1, 3)',
    ])
      expect(sqlstateOf(await unguarded(statement)), statement).toBe('42501');
  });

  it('cannot bind another workspace: the binding is written before the transaction turns read-only', async () => {
    const rebound = await unguarded(
      `select query_guard.bind_workspace('${other.id}') as b, (select count(*) from accounts) as n`,
    );
    expect(sqlstateOf(rebound)).toBe('25006');
    const names = await unguarded(`select name from accounts where name = '${secretName}'`);
    expect(names.ok && names.result.rows).toEqual([]);
  });

  it('leaves nothing behind on the connection: role, settings, bindings, locks', async () => {
    await unguarded("select set_config('default_transaction_read_only', 'on', false)");
    await unguarded('select pg_advisory_lock(42)');
    const [state] = await queryRows<Record<string, unknown>>(
      h.database.db,
      sql`select current_user::text as role, current_setting('default_transaction_read_only') as read_only,
            current_setting('statement_timeout') as timeout, current_setting('search_path') as path,
            (select count(*)::int from query_guard.bindings) as bindings,
            (select count(*)::int from pg_locks where locktype = 'advisory') as locks`,
    );
    expect(state).toMatchObject({ role: 'postgres', read_only: 'off', timeout: '0', bindings: 0, locks: 0 });
    expect(String(state?.path)).not.toContain('ws_views');
    // The other workspace's writes still work on the same connection.
    const res = await h.request('POST', '/sql/query', {
      key: other.viewer.key,
      body: { sql: 'select name from accounts' },
    });
    expect(res.body.data.rows).toEqual([{ name: secretName }]);
  });
});

describe('attribute notation through a name the query gives, resolved per relation', () => {
  // Each would be a call in PostgreSQL (pg_read_file of a text, to_json of a whole row): the name is given,
  // but not by the relation (or row) it is read from at that point of the query. Run past the guard, the
  // role refuses each (42501), which shows they are calls and not columns.
  const calls: [sql: string, fn: string][] = [
    [
      "with x as (select 'secrets.json' as pg_read_file) select (select 'secrets.json' as n).pg_read_file from x",
      'pg_read_file',
    ],
    ["select (x).pg_read_file from (select 'secrets.json' as x, 1 as pg_read_file) x", 'pg_read_file'],
    ["select x.to_json from (select 'secrets.json' as f) x, (select 1 as to_json) y", 'to_json'],
    ["select x.to_json from (select 'secrets.json' as to_json) x(f)", 'to_json'],
    [
      "with y as (select 1 as to_json), accounts as (select 'secrets.json' as n) select accounts.to_json from accounts, y",
      'to_json',
    ],
    ["select (select x.to_json from (select 'secrets.json' as n) x) from (select 1 as to_json) x", 'to_json'],
    [
      "select l.n from (select 'secrets.json' as n) x, lateral (select x.to_json as n) l, (select 1 as to_json) z",
      'to_json',
    ],
    ["select x.to_json from (select * from (select 'secrets.json' as n) i) x, (select 1 as to_json) z", 'to_json'],
  ];
  // Each reads a column through attribute notation, wherever the query gives it.
  const columns = [
    'select x.n from (select count(*) as n from deals) x',
    'select x.q from (select 1 as n) x(q)',
    'select t.a from (select * from (select 1 as a, 2 as b) i) t',
    'with t(a) as (select 1) select t.a from t',
    'with recursive r as (select 1 as n union all select r.n + 1 from r where r.n < 3) select max(r.n) as n from r',
    'select a.name from accounts a where exists (select 1 from deals d where d.account_id = a.id)',
    'select a.name, l.n from accounts a, lateral (select count(*) as n from deals d where d.account_id = a.id) l',
    'select j.stage from (accounts a join deals d on d.account_id = a.id) as j',
    'select ws_views.accounts.name from ws_views.accounts',
    'select (x).n from (select 1 as n) x',
    'select u.k from (select name as k from accounts union select name from deals) u',
    'select v.column1 from (values (1)) v',
    'select s.int4, s.n, s.exists from (select 1::int4, (select 2 as n), exists (select 1)) s',
    'select t.n from (select count(*) as n from deals) t where t.n <= (select count(t.m) from (select amount as m from deals) t)',
  ];

  it('refuses a name given by another relation or expression: 400 forbidden_function, never a 500', async () => {
    for (const [text, fn] of calls) {
      const res = await h.request('POST', '/sql/query', { key: ws.viewer.key, body: { sql: text } });
      expect(res.status, `${text}: ${res.text}`).toBe(400);
      expect(res.body.error.details, text).toMatchObject({ field: 'sql', reason: 'forbidden_function', function: fn });
      expect(sqlstateOf(await unguarded(text)), text).toBe('42501');
    }
  });

  it('reads the column where the relation it is read from gives the name', async () => {
    for (const text of columns) {
      const res = await h.request('POST', '/sql/query', { key: ws.viewer.key, body: { sql: text } });
      expect(res.status, `${text}: ${res.text}`).toBe(200);
    }
  });

  it("answers what the role refuses as the caller's 400, not a 500", async () => {
    const outcome = await unguarded("select pg_read_file('secrets.json')");
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.status).toBe(400);
    expect(!outcome.ok && outcome.error.toEnvelope().error).toMatchObject({
      code: 'invalid_argument',
      details: { field: 'sql', reason: 'insufficient_privilege', sqlstate: '42501' },
    });
    expect(!outcome.ok && outcome.error.message).not.toContain('oauth_signing_secret');
  });
});

describe('the role as the database holds it', () => {
  it('may execute exactly the allow-list (with what operators and casts call), and read only the views', async () => {
    const executable = await queryRows<{ name: string }>(
      h.database.db,
      sql.raw(`select distinct p.proname as name from pg_proc p
        where has_function_privilege('${QUERY_ROLE}', p.oid, 'EXECUTE')
          and p.oid not in (select oprcode from pg_operator) and p.oid not in (select castfunc from pg_cast)
          and p.pronamespace <> 'query_guard'::regnamespace`),
    );
    const outside = executable.map((r) => r.name).filter((n) => !ALLOWED_FUNCTIONS.has(n));
    expect(outside).toEqual([]);
    const callable = await queryRows<{ name: string }>(
      h.database.db,
      sql.raw(
        `select distinct proname as name from pg_proc where has_function_privilege('${QUERY_ROLE}', oid, 'EXECUTE')`,
      ),
    );
    const names = new Set(callable.map((r) => r.name));
    // The ones that are syntax, not functions of the catalog, are left out.
    for (const name of ALLOWED_FUNCTIONS)
      if (!['nullif', 'coalesce', 'greatest', 'least', 'extract', 'position', 'trim'].includes(name))
        expect(names.has(name), name).toBe(true);

    const readable = await queryRows<{ name: string }>(
      h.database.db,
      sql.raw(`select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'v', 'm', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
          and has_table_privilege('${QUERY_ROLE}', c.oid, 'SELECT')`),
    );
    expect(readable.map((r) => r.name).sort()).toEqual(QUERY_VIEWS.map((v) => `ws_views.${v}`).sort());
    const [role] = await queryRows<{ super: boolean; bypass: boolean; owns: number }>(
      h.database.db,
      sql.raw(`select rolsuper as super, rolbypassrls as bypass,
        (select count(*)::int from pg_class where relowner = r.oid) as owns from pg_roles r where rolname = '${QUERY_ROLE}'`),
    );
    expect(role).toEqual({ super: false, bypass: false, owns: 0 });
  });

  it("names every view's columns, in order, in the guard's lists", async () => {
    const columns = await queryRows<{ view: string; name: string }>(
      h.database.db,
      sql`select table_name::text as view, column_name::text as name from information_schema.columns
          where table_schema = 'ws_views' order by table_name, ordinal_position`,
    );
    const byView: Record<string, string[]> = {};
    for (const { view, name } of columns) byView[view] = [...(byView[view] ?? []), name];
    expect(byView).toEqual(VIEW_COLUMN_LISTS);
    expect(new Set(columns.map((c) => c.name))).toEqual(VIEW_COLUMNS);
  });
});

describe('where the role cannot be held on the server connection', () => {
  it('refuses with 503 sql_sandbox_unavailable, never running as the server role', { timeout: 120_000 }, async () => {
    const database = await openTestDatabase();
    const loose = await createHarness({ database });
    try {
      const caller = await loose.seedWorkspace('sandbox-loose');
      await database.db.execute(
        sql.raw(`grant execute on function pg_catalog.set_config(text, text, boolean) to ${QUERY_ROLE}`),
      );
      const res = await loose.request('POST', '/sql/query', {
        key: caller.viewer.key,
        body: { sql: 'select count(*) as n from accounts' },
      });
      expect(res.status, res.text).toBe(503);
      expect(res.body.error).toMatchObject({
        code: 'dependency_unavailable',
        details: { reason: 'sql_sandbox_unavailable' },
      });
    } finally {
      await loose.close();
      await database.close();
    }
  });
});

// A managed PostgreSQL: the server's role cannot revoke set_config from PUBLIC, so caller SQL logs in as
// the role itself (SQL_QUERY_DATABASE_URL; `.ci/start-postgres` makes the login as an operator would).
describe.skipIf(!onPostgresTier())("on PostgreSQL, through the role's own login", () => {
  it('reads only the bound workspace and cannot reach further, whatever the statement', {
    tags: ['postgres'],
  }, async () => {
    const own = await unguarded('select name from accounts');
    expect(own.ok && own.result.rows).toEqual([{ name: 'Own Co' }]);
    for (const statement of [
      'select name from public.accounts',
      "select set_config('role', 'cip_test', true)",
      "select * from ts_stat('select to_tsvector(name) from public.accounts')",
    ]) {
      const outcome = await unguarded(statement);
      expect(outcome.ok, statement).toBe(false);
      expect(['42501', '22023'], statement).toContain(sqlstateOf(outcome));
    }
    expect(sqlstateOf(await unguarded(`select query_guard.bind_workspace('${other.id}')`))).toBe('25006');
    const res = await h.request('POST', '/sql/query', {
      key: ws.viewer.key,
      body: { sql: 'select name from accounts' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.rows).toEqual([{ name: 'Own Co' }]);
  });

  it("refuses (503) rather than run on the server's connection when no login of the role is configured", {
    tags: ['postgres'],
  }, async () => {
    const { sqlQueryConnection: _left, ...withoutLogin } = h.database as typeof h.database & {
      sqlQueryConnection?: unknown;
    };
    const bare = await createHarness({ database: withoutLogin as typeof h.database });
    try {
      const res = await bare.request('POST', '/sql/query', {
        key: ws.viewer.key,
        body: { sql: 'select name from accounts' },
      });
      expect(res.status, res.text).toBe(503);
      expect(res.body.error.details).toMatchObject({ reason: 'sql_sandbox_unavailable' });
    } finally {
      await bare.close();
    }
  });
});
