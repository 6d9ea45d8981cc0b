import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../functions/http/env.js';
import { authenticateApiKey } from '../functions/identity/api-keys.js';
import { invokeOperation, type InvocationScope } from '../functions/invoke.js';
import { createHarness, type Harness, type SeededWorkspace } from './support/harness.js';
import { THING_IDS, withTestOperations } from './support/test-operations.js';

let h: Harness;
let ws: SeededWorkspace;
const MCP_URL = () => new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`);

beforeAll(async () => {
  h = await createHarness({ operations: withTestOperations });
  ws = await h.seedWorkspace('MCP Workspace');
});
afterAll(async () => h.close());

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** Every HTTP exchange the SDK client made, for asserting on the transport itself. */
interface Exchange {
  method: string;
  status: number;
  headers: Headers;
}

/** The SDK's own client over Streamable HTTP, routed in-process to the harness app. */
async function connect(
  credential: string,
  options: { bearer?: boolean } = {},
): Promise<{ client: Client; exchanges: Exchange[] }> {
  const exchanges: Exchange[] = [];
  const transport = new StreamableHTTPClientTransport(MCP_URL(), {
    fetch: async (url, init) => {
      const response = await h.fetch(new Request(url, init));
      exchanges.push({ method: init?.method ?? 'GET', status: response.status, headers: response.headers });
      return response;
    },
    requestInit: { headers: options.bearer ? { Authorization: `Bearer ${credential}` } : { 'X-API-Key': credential } },
  });
  const client = new Client({ name: 'platform-test-client', version: '0.0.1' });
  await client.connect(transport);
  open.push(client);
  return { client, exchanges };
}

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, any>;
};
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

/** A tool error carries the REST envelope both as structured content and as its text. */
function expectToolError(result: ToolResult, code: string): Record<string, any> {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toMatchObject({ error: { code, message: expect.any(String) } });
  const text = result.content.find((c) => c.type === 'text')?.text ?? '';
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent?.error;
}

const rpc = (body: unknown, headers: Record<string, string> = {}) =>
  h.fetch(`${API_PREFIX}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

describe('MCP transport', () => {
  it('initializes statelessly: no session id, server info and capabilities', async () => {
    const { client, exchanges } = await connect(ws.admin.key);
    expect(client.getServerVersion()).toMatchObject({ name: 'customer-intelligence-platform', version: '1.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    // The client's optional GET stream is declined with 405, which it accepts without reconnecting.
    await new Promise((r) => setTimeout(r, 100));
    expect(exchanges.map((e) => `${e.method} ${e.status}`)).toEqual(['POST 200', 'POST 202', 'GET 405']);
    for (const e of exchanges) {
      expect(e.headers.get('mcp-session-id')).toBeNull();
      expect(e.headers.get('x-correlation-id')).toBeTruthy();
    }
  });

  it('serves each request on its own (a tools/list without initialize on the same connection)', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }, { 'x-api-key': ws.viewer.key });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; result: { tools: Array<{ name: string }> } };
    expect(body.id).toBe(7);
    expect(body.result.tools.map((t) => t.name)).toContain('connections');
  });

  it('declines GET and DELETE with 405 method_not_allowed and Allow: POST, in the envelope', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await h.fetch(`${API_PREFIX}/mcp`, {
        method,
        headers: { 'x-api-key': ws.viewer.key, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('x-correlation-id')).toBeTruthy();
      expect(await res.json()).toMatchObject({
        error: { code: 'method_not_allowed', details: { method, allowed_methods: ['POST'] } },
      });
    }
  });

  it('refuses a body over 1 MiB with the same 400 as REST, before JSON-RPC', async () => {
    const big = { ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(1_100_000) } };
    const res = await rpc(big, { 'x-api-key': ws.viewer.key });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: 'invalid_argument', details: { body: 'too_large', max_bytes: 1_048_576 } },
    });
    // Multi-byte characters count as bytes, not characters.
    const wide = { ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'é'.repeat(600_000) } };
    expect((await rpc(wide, { 'x-api-key': ws.viewer.key })).status).toBe(400);
    // Just under the limit is still served.
    const fits = { ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(1_000_000) } };
    expect((await rpc(fits, { 'x-api-key': ws.viewer.key })).status).toBe(200);
  });

  it('answers a request without credential with the 401 envelope, before any JSON-RPC', async () => {
    const res = await rpc(INITIALIZE);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-correlation-id')).toBeTruthy();
    expect(await res.json()).toMatchObject({ error: { code: 'unauthenticated', message: expect.any(String) } });
  });

  it('answers a wrong credential with 401, on the raw endpoint and through the SDK client', async () => {
    const wrong: Array<Record<string, string>> = [
      { 'x-api-key': `cip_${'x'.repeat(40)}` },
      { 'x-api-key': 'not-a-key' },
      { authorization: 'Bearer not.a.jwt' },
    ];
    for (const headers of wrong) {
      const res = await rpc(INITIALIZE, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      const body = (await res.json()) as { error: { code: string } };
      expect(['unauthenticated', 'invalid_token']).toContain(body.error.code);
    }
    await expect(connect(`cip_${'y'.repeat(40)}`)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('invalid_token'),
    });
  });

  it('accepts the same API key as a bearer token', async () => {
    const { client } = await connect(ws.viewer.key, { bearer: true });
    const result = await call(client, 'connections', { action: 'setup_status' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ caller: { email: ws.viewer.email } });
  });
});

describe('MCP tools', () => {
  it('lists the connections tool with an action enum that includes setup_status, documented', async () => {
    const { client } = await connect(ws.viewer.key);
    const { tools } = await client.listTools();
    const connections = tools.find((t) => t.name === 'connections');
    expect(connections).toBeDefined();
    const action = connections?.inputSchema.properties?.action as { type: string; enum: string[] };
    expect(action.type).toBe('string');
    expect(action.enum).toContain('setup_status');
    expect(connections?.inputSchema.required).toEqual(['action']);
    expect(connections?.description).toMatch(/setup_status: .+\[scopes: none; role: viewer\+; stable\]/);
  });

  it('only lists published operations: no console-only or coming-soon action', async () => {
    const { client } = await connect(ws.viewer.key);
    const { tools } = await client.listTools();
    const testing = tools.find((t) => t.name === 'testing');
    const actions = (testing!.inputSchema.properties!.action as { enum: string[] }).enum;
    expect(actions).toEqual(expect.arrayContaining(['echo', 'get_thing', 'list_things', 'needs_scope', 'admin_only']));
    expect(actions).not.toContain('console_only');
    expect(actions).not.toContain('coming_soon');
    // Fields are the union of the actions' inputs and say which actions use them.
    const props = testing?.inputSchema.properties as Record<string, { description?: string; enum?: string[] }>;
    expect(props.kind?.enum).toEqual(['alpha', 'beta']);
    expect(props.kind?.description).toMatch(/Used by: echo \(required\)/);
    expect(props.id?.description).toMatch(/Used by: get_thing \(required\)/);
  });

  it('returns the same payload as REST for connections/setup_status', async () => {
    const { client } = await connect(ws.editor.key);
    const result = await call(client, 'connections', { action: 'setup_status' });
    const rest = await h.request('GET', '/setup/status', { key: ws.editor.key });
    expect(rest.status).toBe(200);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(rest.body.data);
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(rest.body.data);
  });

  it('validates per action and returns the handler output', async () => {
    const { client } = await connect(ws.viewer.key);
    const ok = await call(client, 'testing', { action: 'echo', name: 'n', kind: 'beta', items: [{ label: 'a' }] });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toEqual({ echoed: { name: 'n', kind: 'beta', items: [{ label: 'a' }] } });
    // Query fields arrive as JSON values over MCP, not strings.
    const list = await call(client, 'testing', { action: 'list_things', limit: 1, offset: 1 });
    expect(list.structuredContent).toMatchObject({ limit: 1, offset: 1, total: 2, rows: [{ id: THING_IDS[1] }] });
  });

  it('answers an unknown action with invalid_argument listing the actions', async () => {
    const { client } = await connect(ws.viewer.key);
    const error = expectToolError(await call(client, 'connections', { action: 'explode' }), 'invalid_argument');
    expect(error.details.fields[0]).toMatchObject({
      field: 'action',
      allowed: expect.arrayContaining(['setup_status']),
    });
    expectToolError(await call(client, 'connections', {}), 'invalid_argument');
    // Console-only and coming-soon operations are not reachable as actions either.
    expectToolError(await call(client, 'testing', { action: 'console_only' }), 'invalid_argument');
    expectToolError(await call(client, 'testing', { action: 'coming_soon' }), 'invalid_argument');
  });

  it('answers an unknown tool with the JSON-RPC error -32602 (not a tool result), the envelope as its data', async () => {
    const { client } = await connect(ws.viewer.key);
    const error = await client.callTool({ name: 'no_such_tool', arguments: { action: 'x' } }).then(
      (result) => ({ result }),
      (e: { code?: number; message?: string; data?: any }) => e,
    );
    expect(error).toMatchObject({
      code: -32602,
      data: { error: { code: 'invalid_argument', details: { tool: 'no_such_tool' } } },
    });
    if (!('code' in error)) throw new Error('no error');
    expect(error.data.error.details.allowed).toEqual(expect.arrayContaining(['connections', 'testing']));
    // The SDK client prefixes "MCP error <code>: " itself: the server's message must not carry it too.
    expect(error.message).toBe('MCP error -32602: Unknown tool "no_such_tool".');
  });

  it('answers an unknown argument with invalid_argument naming the allowed fields', async () => {
    const { client } = await connect(ws.viewer.key);
    const none = expectToolError(
      await call(client, 'connections', { action: 'setup_status', verbose: true }),
      'invalid_argument',
    );
    expect(none.details.fields[0]).toMatchObject({ field: 'verbose', code: 'unknown_field', allowed: [] });
    // A field another action of the same tool takes is still unknown to this one.
    const other = expectToolError(
      await call(client, 'testing', { action: 'echo', name: 'n', kind: 'alpha', limit: 3 }),
      'invalid_argument',
    );
    expect(other.details.fields[0]).toMatchObject({ field: 'limit', allowed: ['name', 'kind', 'items', 'note'] });
    // Unknown nested fields get the same treatment as over REST.
    const nested = expectToolError(
      await call(client, 'testing', { action: 'echo', name: 'n', kind: 'alpha', items: [{ label: 'a', x: 1 }] }),
      'invalid_argument',
    );
    expect(nested.details.fields[0]).toMatchObject({ field: 'items.0.x', allowed: ['label', 'weight'] });
  });

  it('renders validation errors exactly as REST does', async () => {
    const { client } = await connect(ws.viewer.key);
    const mcp = expectToolError(await call(client, 'testing', { action: 'echo', kind: 'gamma' }), 'invalid_argument');
    const rest = await h.request('POST', '/testing/echo', { key: ws.viewer.key, body: { kind: 'gamma' } });
    expect(mcp).toEqual(rest.body.error);
  });

  it('gives scope and role failures the same codes as REST', async () => {
    // The customer_agent bundle lacks platform:write; a token can carry exactly the scopes we pick.
    const token = await ws.tokenFor(ws.admin, ['data:read']);
    const cases: Array<[credential: string, bearer: boolean, action: string, code: string]> = [
      [ws.editor.key, false, 'needs_scope', 'scope_denied'],
      [token, true, 'needs_scope', 'scope_denied'],
      [ws.editor.key, false, 'admin_only', 'insufficient_role'],
      [ws.viewer.key, false, 'admin_only', 'insufficient_role'],
    ];
    for (const [credential, bearer, action, code] of cases) {
      const { client } = await connect(credential, { bearer });
      const mcp = expectToolError(await call(client, 'testing', { action }), code);
      const path = action === 'needs_scope' ? '/testing/needs-scope' : '/testing/admin-only';
      const rest = await h.request('GET', path, bearer ? { bearer: credential } : { key: credential });
      expect(rest.status).toBe(403);
      expect(mcp).toEqual(rest.body.error);
    }
    // And the same credential with enough scope and role gets through.
    const admin = await connect(ws.admin.key);
    expect((await call(admin.client, 'testing', { action: 'needs_scope' })).structuredContent).toEqual({ ok: true });
    expect((await call(admin.client, 'testing', { action: 'admin_only' })).structuredContent).toEqual({ ok: true });
    const scoped = await connect(await ws.tokenFor(ws.admin, ['platform:write']), { bearer: true });
    expect((await call(scoped.client, 'testing', { action: 'needs_scope' })).structuredContent).toEqual({ ok: true });
  });

  it('hides internals of a crash and masks secrets, as REST does', async () => {
    const { client } = await connect(ws.viewer.key);
    const crash = await call(client, 'testing', { action: 'crash' });
    const error = expectToolError(crash, 'internal');
    expect(JSON.stringify(crash)).not.toContain('hunter2');
    expect(error.details).toBeUndefined();
    const secret = expectToolError(await call(client, 'testing', { action: 'secret' }), 'invalid_argument');
    expect(secret.details).toMatchObject({
      api_key: '[MASKED]',
      api_key_masked: true,
      nested: { client_secret: '[MASKED]', client_secret_masked: true },
    });
    expect(JSON.stringify(secret)).not.toContain('sk-123');
  });
});

describe('MCP resources', () => {
  it('lists fixed resources and templates separately', async () => {
    const { client } = await connect(ws.viewer.key);
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(
      expect.objectContaining({ uri: 'thing://list', name: 'testing.list_things', mimeType: 'application/json' }),
    );
    expect(resources.map((r) => r.uri)).not.toContain('thing://{id}');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(
      expect.objectContaining({ uriTemplate: 'thing://{id}', name: 'testing.get_thing' }),
    );
    expect(resourceTemplates.map((t) => t.uriTemplate)).not.toContain('thing://list');
  });

  it('reads a fixed resource as JSON, even when a template would also match its URI', async () => {
    const { client } = await connect(ws.viewer.key);
    const { contents } = await client.readResource({ uri: 'thing://list' });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: 'thing://list', mimeType: 'application/json' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ total: 2, limit: 50, offset: 0 });
  });

  it('reads a templated resource as JSON, matching the REST payload', async () => {
    const { client } = await connect(ws.viewer.key);
    const { contents } = await client.readResource({ uri: `thing://${THING_IDS[0]}` });
    const rest = await h.request('GET', `/testing/things/${THING_IDS[0]}`, { key: ws.viewer.key });
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual(rest.body.data);
  });

  it('errors on an unknown resource, a missing object and a malformed URI, with the envelope as error data', async () => {
    const { client } = await connect(ws.viewer.key);
    // -32002 is the MCP specification's "resource not found"; the message is prefixed once, by the client.
    await expect(client.readResource({ uri: 'nothing://here' })).rejects.toMatchObject({
      code: -32002,
      message: 'MCP error -32002: Unknown resource nothing://here.',
      data: { error: { code: 'not_found', details: { uri: 'nothing://here' } } },
    });
    await expect(client.readResource({ uri: 'thing://0193a1b2-0000-7000-8000-00000000ffff' })).rejects.toMatchObject({
      code: -32002,
      message: expect.not.stringMatching(/MCP error.*MCP error/),
      data: { error: { code: 'not_found' } },
    });
    await expect(client.readResource({ uri: 'thing://not-a-uuid' })).rejects.toMatchObject({
      code: -32602,
      data: { error: { code: 'invalid_argument' } },
    });
    await expect(client.readResource({ uri: 'thing://%E0%A4%A' })).rejects.toMatchObject({
      code: -32602,
      data: { error: { code: 'invalid_argument' } },
    });
  });

  it('reads a list resource with a query string: its paging fields, parsed by the operation’s own schema', async () => {
    const { client } = await connect(ws.viewer.key);
    const read = async (uri: string) =>
      JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
    expect(await read('thing://list?limit=1')).toMatchObject({
      limit: 1,
      offset: 0,
      total: 2,
      rows: [{ id: THING_IDS[0] }],
    });
    // The offset is the cursor where the REST list pages, and the URI keeps its query in the answer.
    const { contents } = await client.readResource({ uri: 'thing://list?limit=1&offset=1&order=asc' });
    expect(contents[0]).toMatchObject({ uri: 'thing://list?limit=1&offset=1&order=asc' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({
      offset: 1,
      rows: [{ id: THING_IDS[1] }],
    });
    // The same payload as REST with the same query.
    const rest = await h.request('GET', '/testing/things', { key: ws.viewer.key, query: { limit: 1, offset: 1 } });
    expect(await read('thing://list?limit=1&offset=1')).toEqual(rest.body.data);
  });

  it('reads the real list resources with a query string (artifact://, routine://, agent://)', async () => {
    const { client } = await connect(ws.viewer.key);
    const read = async (uri: string) =>
      JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
    expect(await read('artifact://list?limit=10')).toMatchObject({ artifacts: [], limit: 10, offset: 0 });
    expect(await read('routine://list?limit=1')).toMatchObject({ routines: [], limit: 1, offset: 0 });
    const agents = await read('agent://list?limit=5');
    expect(agents.agents).toHaveLength(Math.min(5, agents.total));
    expect(agents.total).toBeGreaterThan(0);
    expect(await read('agent://list?limit=1')).toMatchObject({ agents: [agents.agents[0]], total: agents.total });
    expect(await read('eval://list?limit=1')).toMatchObject({ evals: [expect.any(Object)] });
  });

  it('refuses bad query values and fields of a resource URI as invalid params, naming the field', async () => {
    const { client } = await connect(ws.viewer.key);
    const cases: Array<[uri: string, field: string]> = [
      ['thing://list?limit=0', 'limit'],
      ['thing://list?limit=abc', 'limit'],
      ['thing://list?limit=201', 'limit'],
      ['thing://list?order=sideways', 'order'],
      ['thing://list?cursor=x', 'cursor'],
      ['thing://list?limit=1&limit=2', 'limit'],
      [`thing://${THING_IDS[0]}?limit=1`, 'limit'],
      [`thing://${THING_IDS[0]}?id=${THING_IDS[1]}`, 'id'],
      ['artifact://list?limit=-1', 'limit'],
      ['agent://list?limit=x', 'limit'],
      ['thing://list?limit=%E0%A4%A', 'limit'],
    ];
    for (const [uri, field] of cases) {
      const error = await client.readResource({ uri }).then(
        () => null,
        (e: { code?: number; message?: string; data?: any }) => e,
      );
      expect(error, uri).toMatchObject({ code: -32602, data: { error: { code: 'invalid_argument' } } });
      expect(error?.data.error.details.fields[0].field, uri).toBe(field);
      expect(error?.message, uri).not.toMatch(/MCP error.*MCP error/);
    }
  });

  it('enforces scopes on resource reads', async () => {
    const { client } = await connect(ws.viewer.key);
    // A resource bound to an operation the caller may not run is refused with the REST code.
    const scoped = await createHarness({
      database: h.database,
      operations: withTestOperations.map((op) =>
        op.id === 'testing.list_things' ? { ...op, scopes: ['platform:write' as const] } : op,
      ),
    });
    try {
      const transport = new StreamableHTTPClientTransport(MCP_URL(), {
        fetch: async (url, init) => scoped.fetch(new Request(url, init)),
        requestInit: { headers: { 'X-API-Key': ws.viewer.key } },
      });
      const other = new Client({ name: 'scoped', version: '0' });
      await other.connect(transport);
      open.push(other);
      await expect(other.readResource({ uri: 'thing://list' })).rejects.toMatchObject({
        data: { error: { code: 'scope_denied' } },
      });
    } finally {
      await scoped.close();
    }
    // The unmodified app lets the same key read it.
    await expect(client.readResource({ uri: 'thing://list' })).resolves.toBeDefined();
  });
});

describe('in-process calls (the agents path)', () => {
  async function scopeFor(key: string): Promise<InvocationScope> {
    return {
      registry: h.registry,
      services: h.services,
      caller: await authenticateApiKey(h.services.db, key, new Date()),
      correlationId: 'in-process-test',
      signal: new AbortController().signal,
      origin: 'run',
    };
  }

  it('runs an operation as the caller and returns its validated output', async () => {
    const scope = await scopeFor(ws.admin.key);
    expect(await invokeOperation(scope, 'testing.echo', { name: 'n', kind: 'alpha' })).toEqual({
      echoed: { name: 'n', kind: 'alpha' },
    });
    expect(await invokeOperation(scope, 'testing.needs_scope', {})).toEqual({ ok: true });
  });

  it('enforces the caller’s scopes and role exactly like REST', async () => {
    for (const [key, opId, path, code] of [
      [ws.editor.key, 'testing.needs_scope', '/testing/needs-scope', 'scope_denied'],
      [ws.viewer.key, 'testing.admin_only', '/testing/admin-only', 'insufficient_role'],
      [ws.admin.key, 'testing.console_only', '/testing/console-only', 'not_on_public_api'],
    ] as const) {
      const scope = await scopeFor(key);
      const rest = await h.request('GET', path, { key });
      expect(rest.status).toBe(403);
      await expect(invokeOperation(scope, opId, {})).rejects.toMatchObject({
        code,
        status: 403,
        message: rest.body.error.message,
      });
    }
  });

  it('refuses a coming-soon operation in-process as REST does (404 not_found)', async () => {
    const scope = await scopeFor(ws.admin.key);
    await expect(invokeOperation(scope, 'testing.coming_soon', {})).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });

  it('validates input and refuses unknown fields and operations', async () => {
    const scope = await scopeFor(ws.viewer.key);
    await expect(invokeOperation(scope, 'testing.echo', { name: 'n' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(invokeOperation(scope, 'testing.echo', { name: 'n', kind: 'alpha', extra: 1 })).rejects.toMatchObject({
      code: 'invalid_argument',
      details: { fields: [expect.objectContaining({ field: 'extra', allowed: ['name', 'kind', 'items', 'note'] })] },
    });
    await expect(invokeOperation(scope, 'no.such.op', {})).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('keeps a nested ctx.invoke to the caller’s own rights (an agent can never do what its caller could not)', async () => {
    const viaViewer = await h.request('POST', '/testing/delegate', {
      key: ws.viewer.key,
      body: { operation: 'testing.admin_only' },
    });
    expect(viaViewer.status).toBe(403);
    expect(viaViewer.body.error.code).toBe('insufficient_role');
    const viaEditor = await h.request('POST', '/testing/delegate', {
      key: ws.editor.key,
      body: { operation: 'testing.needs_scope' },
    });
    expect(viaEditor.body.error.code).toBe('scope_denied');
    const viaAdmin = await h.request('POST', '/testing/delegate', {
      key: ws.admin.key,
      body: { operation: 'testing.admin_only' },
    });
    expect(viaAdmin.status).toBe(200);
    expect(viaAdmin.body.data).toEqual({ result: { ok: true } });
  });
});
