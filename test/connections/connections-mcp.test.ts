import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionsWorld, seedHubSpot, type ConnectionsWorld } from './support.js';

/** The `connections` MCP tool and its resources, through the official SDK client. */
describe('the connections MCP tool', () => {
  let w: ConnectionsWorld;
  beforeAll(async () => {
    w = await connectionsWorld();
    seedHubSpot(w.hubspot);
  }, 60_000);
  afterAll(async () => w?.close());

  const clientWith = async (headers: Record<string, string>) => {
    const transport = new StreamableHTTPClientTransport(
      new URL(`${w.h.services.config.publicUrl}/api/platform/v1/mcp`),
      {
        fetch: (url, init) => w.h.fetch(new Request(url, init)),
        requestInit: { headers },
      },
    );
    const client = new Client({ name: 'connections-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  type ToolResult = { isError?: boolean; structuredContent?: Record<string, any> };

  it('lists every action, connects over an OAuth session, reads back through actions and resources, and repairs', async () => {
    const client = await clientWith({ authorization: `Bearer ${w.admin}` });
    const call = async (args: Record<string, unknown>) => {
      const result = (await client.callTool({ name: 'connections', arguments: args })) as ToolResult;
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      return result.structuredContent as Record<string, any>;
    };
    const tool = (await client.listTools()).tools.find((t) => t.name === 'connections');
    for (const action of [
      'catalog',
      'list',
      'get',
      'status',
      'runs',
      'summary',
      'connect',
      'disconnect',
      'update',
      'reconnect',
      'setup_status',
    ])
      expect(tool?.description, action).toContain(`- ${action}:`);
    // The three config writes are REST only.
    for (const restOnly of ['call-filters', 'crm-recency', 'comms-filter', 'set_call_filters'])
      expect(tool?.description).not.toContain(`- ${restOnly}:`);

    expect((await call({ action: 'catalog' })).connectors.length).toBeGreaterThanOrEqual(6);
    const connected = await call({ action: 'connect', connector_type: 'hubspot', api_key: w.hubspot.token });
    expect(connected.mode).toBe('connected');
    expect(JSON.stringify(connected)).not.toContain(w.hubspot.token);
    const id = connected.connection.id as string;
    await w.settle();
    expect((await call({ action: 'list' })).connections.map((c: any) => c.id)).toEqual([id]);
    expect((await call({ action: 'get', id })).health).toBe('healthy');
    expect((await call({ action: 'status', id })).is_syncing).toBe(false);
    expect((await call({ action: 'runs', id })).runs[0].status).toBe('complete');
    expect((await call({ action: 'summary', id })).crm.deals).toBe(4);
    expect((await call({ action: 'update', id, display_name: 'CRM' })).display_name).toBe('CRM');
    expect((await call({ action: 'setup_status' })).auth_method).toBe('oauth');

    const read = async (uri: string) => {
      const first = (await client.readResource({ uri })).contents[0];
      return JSON.parse(first && 'text' in first ? first.text : 'null');
    };
    expect((await read('connection://catalog')).connectors.map((c: any) => c.type)).toContain('gong');
    expect((await read('connection://list')).total).toBe(1);
    expect((await read(`connection://${id}`)).display_name).toBe('CRM');
    expect((await read(`connection://${id}/status`)).health).toBe('healthy');
    expect((await read(`connection://${id}/runs`)).total).toBe(1);
    expect((await read(`connection://${id}/summary`)).crm.accounts).toBe(3);

    expect((await call({ action: 'disconnect', id })).status).toBe('disconnected');
    const back = await call({ action: 'reconnect', id, api_key: w.hubspot.token });
    expect(back.connection).toMatchObject({ id, status: 'connected' });
    await client.close();
  });

  it('refuses lifecycle writes on an API key with the error envelope, and still serves reads on it', async () => {
    const client = await clientWith({ 'X-API-Key': w.ws.admin.key });
    const refused = (await client.callTool({
      name: 'connections',
      arguments: { action: 'connect', connector_type: 'hubspot', api_key: w.hubspot.token },
    })) as ToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent?.error).toMatchObject({ code: 'forbidden', details: { auth_method: 'api_key' } });
    const list = (await client.callTool({ name: 'connections', arguments: { action: 'list' } })) as ToolResult;
    expect(list.isError).toBeFalsy();
    expect(list.structuredContent?.total).toBe(1);
    await client.close();
  });
});
