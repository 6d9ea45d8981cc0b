import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import { newId } from '../../platform/ids.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * A statement the guard accepts can still be one Postgres refuses while planning it: a column, table or
 * function signature that does not exist, types that do not match, a grouping mistake. The same text fails
 * every time, so each is the caller's 400 invalid_argument naming `sql` and the reason, carrying
 * PostgreSQL's own message and nothing of the server's statement around it.
 */
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace('sql-caller-errors');
  await h.database.db.execute(
    sql`insert into accounts (id, workspace_id, name) values (${newId()}, ${ws.id}, 'Own Co')`,
  );
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

/** [SQLSTATE, reason, a statement the guard lets through that Postgres refuses with it, a word of its message]. */
const refused: [string, string, string, string][] = [
  ['42703', 'undefined_column', 'select no_such_column from accounts', 'no_such_column'],
  [
    '42P01',
    'undefined_table',
    'select * from (with api_keys as (select 1 as x) select * from api_keys) a, api_keys',
    'api_keys',
  ],
  ['42883', 'undefined_function', 'select lower(1) as l', 'lower'],
  ['42601', 'syntax_error', 'select 1 as a union select 1, 2', 'UNION'],
  ['42804', 'datatype_mismatch', 'select name from accounts where name', 'boolean'],
  ['42P18', 'indeterminate_datatype', 'select array[] as a', 'empty array'],
  ['42803', 'grouping_error', 'select name, count(*) as n from accounts', 'GROUP BY'],
  ['42702', 'ambiguous_column', 'select id from accounts a, deals d', 'ambiguous'],
];

describe('a statement Postgres refuses while planning it', () => {
  it.each(refused)('%s on REST: 400 invalid_argument, reason %s, naming sql', async (sqlstate, reason, text, word) => {
    const res = await h.request('POST', '/sql/query', { key: ws.viewer.key, body: { sql: text } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_argument',
      details: { field: 'sql', reason, sqlstate, fields: [{ field: 'sql', code: reason }] },
    });
    expect(res.body.error.message).toContain(word);
    // PostgreSQL's message for the caller's text, never the server's wrapping of it.
    expect(res.body.error.message).not.toMatch(/caller_query|explain|Failed query|query_guard|bind_workspace/i);
    expect(JSON.stringify(res.body.error.details)).not.toMatch(/caller_query|explain|Failed query|query_guard/i);
  });

  it('on MCP: the same refusal as a tool error', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': ws.viewer.key } },
    });
    const client = new Client({ name: 'caller-errors-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      for (const [sqlstate, reason, text] of refused) {
        const result = (await client.callTool({ name: 'sql', arguments: { action: 'query', sql: text } })) as {
          isError?: boolean;
          structuredContent?: { error?: { code: string; details?: Record<string, unknown> } };
        };
        expect(result.isError, text).toBe(true);
        expect(result.structuredContent?.error, text).toMatchObject({
          code: 'invalid_argument',
          details: { field: 'sql', reason, sqlstate },
        });
      }
    } finally {
      await client.close();
    }
  });

  it('still runs the statement once it is right', async () => {
    const res = await h.request('POST', '/sql/query', {
      key: ws.viewer.key,
      body: { sql: 'select name, count(*) as n from accounts group by name' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.rows).toEqual([{ name: 'Own Co', n: 1 }]);
  });
});
