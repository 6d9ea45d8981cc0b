import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { answerWith, callTool, ScriptedModel } from '../support/scripted-model.js';

/**
 * The `agents` MCP tool and its resources through the official SDK client: every action answers
 * the same JSON as REST, errors carry the same envelope, and another tenant's objects are 404.
 */

const model = new ScriptedModel(() => answerWith('unscripted'));
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
const open: Client[] = [];

beforeAll(async () => {
  h = await createHarness({ model });
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
});
afterAll(async () => h.close());
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
    fetch: async (url, init) => h.fetch(new Request(url, init)),
    requestInit: { headers: { 'X-API-Key': key } },
  });
  const client = new Client({ name: 'agents-mcp-test', version: '0.0.1' });
  await client.connect(transport);
  open.push(client);
  return client;
}

type ToolResult = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, any>;
};
const call = async (client: Client, args: Record<string, unknown>) =>
  (await client.callTool({ name: 'agents', arguments: args })) as ToolResult;
const json = (r: ToolResult) => JSON.parse(r.content[0]?.text ?? 'null');
const drain = () => (h.services.queue as LocalTransport).drain();

describe('the agents tool', () => {
  it('lists its actions: the agent library, chats and run control', async () => {
    const client = await connect(ws.editor.key);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'agents');
    const actions = (tool!.inputSchema.properties as { action: { enum: string[] } }).action.enum;
    expect(actions).toEqual(
      expect.arrayContaining([
        'list_agents',
        'get_agent',
        'create_agent',
        'update_agent',
        'delete_agent',
        'start_chat',
        'chat_status',
        'respond',
        'cancel_chat',
      ]),
    );
  });

  it('manages agents with the same JSON as REST', async () => {
    const client = await connect(ws.editor.key);
    const listed = json(await call(client, { action: 'list_agents' }));
    expect(listed).toEqual((await h.request('GET', '/agents', { key: ws.editor.key })).body.data);
    const created = await call(client, { action: 'create_agent', name: 'MCP made', prompt: 'Made over MCP.' });
    expect(created.isError).toBeFalsy();
    const agent = json(created).agent;
    expect(agent).toMatchObject({ slug: 'mcp-made', authored_by: 'tenant' });
    expect(json(await call(client, { action: 'get_agent', id: 'mcp-made' }))).toEqual(
      (await h.request('GET', '/agents/mcp-made', { key: ws.editor.key })).body.data,
    );
    expect(
      json(await call(client, { action: 'update_agent', id: agent.id, description: 'edited' })).agent.description,
    ).toBe('edited');
    const locked = await call(client, { action: 'delete_agent', id: 'researcher' });
    expect(locked.isError).toBe(true);
    expect(locked.structuredContent).toMatchObject({ error: { code: 'locked' } });
    expect(json(await call(client, { action: 'delete_agent', id: agent.id }))).toMatchObject({ deleted: true });
  });

  it('starts a chat, reads it with wait_ms, answers its question and cancels, as REST does', async () => {
    const client = await connect(ws.editor.key);
    model.setScript((r) =>
      r.messages.some((m) => m.role === 'tool')
        ? answerWith('Thanks, that settles it.')
        : callTool('q1', 'ask_user', { question: 'Which region?' }),
    );
    const handles = json(await call(client, { action: 'start_chat', input: 'Summarise EMEA', on_question: 'pause' }));
    expect(handles).toMatchObject({ status: 'queued', chat_id: expect.any(String), run_id: expect.any(String) });
    await drain();
    const paused = json(await call(client, { action: 'chat_status', run_id: handles.run_id, wait_ms: 1000 }));
    expect(paused).toEqual((await h.request('GET', `/chat/runs/${handles.run_id}`, { key: ws.editor.key })).body.data);
    expect(paused).toMatchObject({ status: 'awaiting_input', pending_input_type: 'question', trigger: 'mcp' });
    const bad = await call(client, { action: 'respond', session_id: handles.run_id, input: { wrong: true } });
    expect(bad.structuredContent).toMatchObject({
      error: { code: 'invalid_input', details: { validation_error: expect.any(Array) } },
    });
    expect(
      json(await call(client, { action: 'respond', session_id: handles.run_id, input: { response: 'EMEA' } })),
    ).toMatchObject({ status: 'queued', job_id: handles.run_id });
    await drain();
    expect(json(await call(client, { action: 'chat_status', run_id: handles.run_id })).answer.text).toBe(
      'Thanks, that settles it.',
    );
    const ended = await call(client, { action: 'cancel_chat', session_id: handles.run_id });
    expect(ended.structuredContent).toMatchObject({
      error: { code: 'cannot_cancel', details: { current_status: 'complete' } },
    });
  });

  it('reads agent://list, agent://{id} and chat://{id}; another tenant\u2019s chat is not found', async () => {
    model.setScript(() => answerWith('ok'));
    const started = (await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'resource me' } })).body
      .data;
    await drain();
    const client = await connect(ws.viewer.key);
    const list = await client.readResource({ uri: 'agent://list' });
    expect(JSON.parse((list.contents[0] as { text: string }).text)).toEqual(
      (await h.request('GET', '/agents', { key: ws.viewer.key })).body.data,
    );
    const one = await client.readResource({ uri: 'agent://call-prep' });
    expect(JSON.parse((one.contents[0] as { text: string }).text).slug).toBe('call-prep');
    const chat = await client.readResource({ uri: `chat://${started.chat_id}` });
    expect(JSON.parse((chat.contents[0] as { text: string }).text)).toEqual(
      (await h.request('GET', `/chats/${started.chat_id}`, { key: ws.viewer.key })).body.data,
    );
    const stranger = await connect(other.viewer.key);
    await expect(stranger.readResource({ uri: `chat://${started.chat_id}` })).rejects.toMatchObject({
      data: { error: { code: 'not_found' } },
    });
    const theirStatus = await call(stranger, { action: 'chat_status', run_id: started.run_id });
    expect(theirStatus.structuredContent).toMatchObject({ error: { code: 'not_found' } });
  });

  it('manages routines and reads routine://list and routine://{id} with the same JSON as REST', async () => {
    model.setScript(() => answerWith('Routine done.'));
    const client = await connect(ws.editor.key);
    const created = await call(client, {
      action: 'create_routine',
      name: 'MCP digest',
      prompt: 'Summarise the week.',
      cron: '0 8 * * 1',
      timezone: 'Europe/Paris',
    });
    expect(created.isError, created.content[0]?.text).toBeFalsy();
    const routine = json(created);
    expect(json(await call(client, { action: 'get_routine', id: routine.id }))).toEqual(
      (await h.request('GET', `/routines/${routine.id}`, { key: ws.editor.key })).body.data,
    );
    expect(json(await call(client, { action: 'update_routine', id: routine.id, enabled: false })).enabled).toBe(false);
    const list = await client.readResource({ uri: 'routine://list' });
    expect(JSON.parse((list.contents[0] as { text: string }).text)).toEqual(
      (await h.request('GET', '/routines', { key: ws.editor.key })).body.data,
    );
    const one = await client.readResource({ uri: `routine://${routine.id}` });
    expect(JSON.parse((one.contents[0] as { text: string }).text).name).toBe('MCP digest');
    const fired = json(await call(client, { action: 'run_routine_now', id: routine.id }));
    expect(fired).toMatchObject({ chat_id: expect.any(String), run_id: expect.any(String) });
    await drain();
    expect(json(await call(client, { action: 'chat_status', run_id: fired.run_id })).trigger).toBe('routine');
    const bad = await call(client, { action: 'create_routine', name: 'x', prompt: 'y', cron: '* * *' });
    expect(bad.structuredContent).toMatchObject({
      error: { code: 'invalid_argument', details: { fields: [expect.objectContaining({ field: 'cron' })] } },
    });
    expect(json(await call(client, { action: 'delete_routine', id: routine.id }))).toEqual({
      deleted: true,
      id: routine.id,
    });
  });
});
