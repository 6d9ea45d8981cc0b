import { eq } from 'drizzle-orm';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allOperations } from '../../functions/modules.js';
import { newId } from '../../platform/ids.js';
import type { StepRequest, StepResult } from '../../platform/model/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { runs, webhooks } from '../../schema/index.js';
import { removeMembership } from '../../functions/identity/members.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { startFakeServer, type FakeRequest, type FakeServer } from '../support/fake-http-server.js';
import { agentTestOperations, held, offerTestingToolsToLibraryAgents } from '../support/agent-test-operations.js';
import { answerWith, callTool, ScriptedModel } from '../support/scripted-model.js';

/**
 * Chat runs through REST with a scripted tool-calling model: handles, reads, streams, threads,
 * the tools a run is offered, pauses and resumes, run control, budgets, the session.completed
 * webhook, and the caller re-checked every turn.
 */

const model = new ScriptedModel(() => answerWith('unscripted'));
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let hookServer: FakeServer;
const hookHits: FakeRequest[] = [];

offerTestingToolsToLibraryAgents();

beforeAll(async () => {
  h = await createHarness({
    model,
    operations: [...allOperations, ...agentTestOperations],
    env: { ALLOW_LOOPBACK_WEBHOOKS: '1' },
  });
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
  hookServer = await startFakeServer((req, res) => {
    hookHits.push(req);
    res.writeHead(200).end('ok');
  });
});
afterAll(async () => {
  await h.close();
  await hookServer.close();
});
beforeEach(() => {
  model.requests.length = 0;
  model.setScript(() => answerWith('unscripted'));
});

const drain = () => (h.services.queue as LocalTransport).drain();
const startChat = (body: Record<string, unknown>, key = ws.editor.key) => h.request('POST', '/chat', { key, body });
const readRun = (runId: string, key = ws.viewer.key, query: Record<string, string | number> = {}) =>
  h.request('GET', `/chat/runs/${runId}`, { key, query });
const lastUser = (r: StepRequest) => [...r.messages].reverse().find((m) => m.role === 'user')?.content;
const toolResults = (r: StepRequest) =>
  r.messages.filter((m): m is Extract<StepRequest['messages'][number], { role: 'tool' }> => m.role === 'tool');
const emptySearch = { filters: [{ field: 'kind', op: 'eq', value: 'call' }], limit: 1 };

/** A script from a list of steps (the last one repeats). */
const steps =
  (...list: ((r: StepRequest) => StepResult)[]) =>
  (r: StepRequest, n: number) =>
    (list[Math.min(n, list.length) - 1] ?? list.at(-1)!)(r);

async function runToEnd(body: Record<string, unknown>, key = ws.editor.key) {
  const started = await startChat(body, key);
  expect(started.status, started.text).toBe(202);
  await drain();
  return { started: started.body.data, run: (await readRun(started.body.data.run_id)).body.data };
}

describe('POST /chat and the run read', () => {
  it('answers at once with handles a client follows, and the run completes with a verified answer', async () => {
    model.setScript(
      steps(
        () => callTool('c1', 'search_query', emptySearch),
        () => answerWith('No calls are synced in this workspace yet, so there is nothing to summarise.'),
      ),
    );
    const started = await startChat({ input: 'What happened on our calls this week?' });
    expect(started.status, started.text).toBe(202);
    const handles = started.body.data;
    expect(handles).toMatchObject({ status: 'queued', chat_id: expect.any(String), run_id: expect.any(String) });
    expect(handles.read_url).toBe(`http://platform.test/api/platform/v1/chat/runs/${handles.run_id}`);
    expect(handles.stream_url).toBe(`http://platform.test/api/platform/v1/chat/runs/${handles.run_id}/stream`);
    expect(handles.resume_url).toBe(`http://platform.test/api/platform/v1/agents/${handles.run_id}/resume`);

    const polled = await h.fetch(`${handles.read_url.replace('http://platform.test', '')}?wait_ms=20000`, {
      headers: { 'x-api-key': ws.viewer.key },
    });
    await drain();
    expect(polled.status).toBe(200);
    const done = (await readRun(handles.run_id, ws.viewer.key, { wait_ms: 20_000 })).body.data;
    expect(done).toMatchObject({
      run_id: handles.run_id,
      session_id: handles.run_id,
      chat_id: handles.chat_id,
      status: 'complete',
      trigger: 'api',
      agent: { slug: 'researcher' },
      input: 'What happened on our calls this week?',
      on_question: 'auto',
      depth: 'standard',
      pending_input_type: null,
      draft: null,
      error: null,
      usage: { turns_used: 2, turn_budget: 50, input_tokens: null, output_tokens: null },
    });
    expect(done.answer).toMatchObject({
      text: expect.stringContaining('nothing to summarise'),
      partial: false,
      partial_reason: null,
      grounding: { verified: true },
    });
    expect(done.last_seq).toBeGreaterThan(5);
    expect(done.completed_at).toEqual(expect.any(String));

    // The model saw the system prompt, the user's words, and the tool's real result.
    const second = model.requests[1]!;
    expect(second.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Agent: researcher') });
    expect(lastUser(second)).toBe('What happened on our calls this week?');
    expect(JSON.parse(toolResults(second)[0]!.content)).toMatchObject({
      ok: true,
      output: { success: true, mode_ran: 'filter', corpus: { empty_reason: 'not_synced' } },
    });
  });

  it('streams the run\u2019s events with their types, replays from ?after= and Last-Event-ID, and the read with Accept streams too', async () => {
    model.setScript(
      steps(
        () => callTool('c1', 'search_query', emptySearch),
        () => answerWith('Done.'),
      ),
    );
    const { started } = await runToEnd({ input: 'stream me' });
    const res = await h.fetch(`/api/platform/v1/chat/runs/${started.run_id}/stream`, {
      headers: { 'x-api-key': ws.viewer.key },
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await res.text()).split('\n\n').filter((b) => b.includes('event:'));
    const types = frames.map((b) => /event: (.+)/.exec(b)?.[1]);
    expect(types).toEqual(
      expect.arrayContaining([
        'run.queued',
        'run.started',
        'turn.started',
        'tool.started',
        'tool.completed',
        'stage.completed',
        'run.completed',
      ]),
    );
    expect(types.at(-1)).toBe('run.completed');
    const toolStarted = frames.find((b) => b.includes('event: tool.started'))!;
    expect(JSON.parse(/data: (.+)/.exec(toolStarted)![1]!).data).toEqual({
      tool: 'search_query',
      label: 'Reading interactions',
    });
    const viaRead = await h.fetch(`/api/platform/v1/chat/runs/${started.run_id}?after=3`, {
      headers: { 'x-api-key': ws.viewer.key, accept: 'text/event-stream' },
    });
    const ids = (await viaRead.text())
      .split('\n\n')
      .filter((b) => b.includes('id:'))
      .map((b) => Number(/id: (\d+)/.exec(b)?.[1]));
    expect(ids[0]).toBe(4);
    const resumed = await h.fetch(`/api/platform/v1/chat/runs/${started.run_id}/stream`, {
      headers: { 'x-api-key': ws.viewer.key, 'last-event-id': String(frames.length - 1) },
    });
    expect((await resumed.text()).split('\n\n').filter((b) => b.includes('id:'))).toHaveLength(1);
  });

  it('refuses bad requests before anything is stored, naming the field', async () => {
    const before = (await h.request('GET', '/chats', { key: ws.viewer.key })).body.data.total;
    for (const [body, field] of [
      [{}, 'input'],
      [{ input: '   ' }, 'input'],
      [{ input: 'x', colour: 'red' }, 'colour'],
      [{ input: 'x', on_question: 'sometimes' }, 'on_question'],
      [{ input: 'x', config: { depth: 'bottomless' } }, 'config.depth'],
      [{ input: 'x', config: { temperature: 2 } }, 'config.temperature'],
      [{ input: 'x', agent: 'no-such-agent' }, 'agent'],
      [{ input: 'x'.repeat(20_001) }, 'input'],
    ] as const) {
      const res = await startChat(body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('invalid_argument');
      expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    expect((await h.request('GET', '/chats', { key: ws.viewer.key })).body.data.total).toBe(before);
  });

  it('replays the first response for a repeated Idempotency-Key: one run, the same handles', async () => {
    model.setScript(() => answerWith('Once.'));
    const headers = { 'Idempotency-Key': `chat-${newId()}` };
    const body = { input: 'do this once' };
    const first = await h.request('POST', '/chat', { key: ws.editor.key, body, headers });
    const again = await h.request('POST', '/chat', { key: ws.editor.key, body, headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'something else' }, headers });
    expect(other.body.error).toMatchObject({ code: 'conflict', details: { reason: 'key_reused' } });
    await drain();
    const chats = (await h.request('GET', '/chats', { key: ws.viewer.key, query: { limit: 200 } })).body.data.chats as {
      name: string;
    }[];
    expect(chats.filter((c) => c.name === 'do this once')).toHaveLength(1);
  });

  it('hides another workspace\u2019s chats and runs (404), and a read-only key cannot start one', async () => {
    const { started } = await runToEnd({ input: 'mine' });
    expect((await startChat({ input: 'hijack', chat_id: started.chat_id }, other.editor.key)).status).toBe(404);
    expect((await readRun(started.run_id, other.viewer.key)).status).toBe(404);
    expect((await h.request('GET', `/chats/${started.chat_id}`, { key: other.viewer.key })).status).toBe(404);
    expect(
      (await h.request('PATCH', `/chats/${started.chat_id}`, { key: other.editor.key, body: { name: 'x' } })).status,
    ).toBe(404);
    const readOnly = await ws.keyFor(ws.viewer, 'read_only');
    expect((await startChat({ input: 'x' }, readOnly.key)).body.error.code).toBe('scope_denied');
  });
});

describe('chats: threads, lists, rename', () => {
  it('continues a thread: the next run sees earlier turns; the chat lists both turns of each run', async () => {
    model.setScript(() => answerWith('First answer.'));
    const { started } = await runToEnd({ input: 'First question', name: 'Thread test' });
    model.setScript(() => answerWith('Second answer.'));
    await runToEnd({ input: 'And a follow-up?', chat_id: started.chat_id });
    const seen = model.requests.at(-1)!.messages.map((m) => `${m.role}:${m.content}`);
    expect(seen.slice(1)).toEqual(['user:First question', 'assistant:First answer.', 'user:And a follow-up?']);

    const chat = (await h.request('GET', `/chats/${started.chat_id}`, { key: ws.viewer.key })).body.data;
    expect(chat).toMatchObject({
      chat_id: started.chat_id,
      name: 'Thread test',
      status: 'complete',
      agent: { slug: 'researcher', id: null },
    });
    expect(
      chat.turns.map((t: { role: string; content: string; status: string | null }) => [t.role, t.content, t.status]),
    ).toEqual([
      ['user', 'First question', null],
      ['assistant', 'First answer.', 'complete'],
      ['user', 'And a follow-up?', null],
      ['assistant', 'Second answer.', 'complete'],
    ]);
    expect(chat.turns[1].answer.text).toBe('First answer.');

    const renamed = await h.request('PATCH', `/chats/${started.chat_id}`, {
      key: ws.editor.key,
      body: { name: 'Renamed' },
    });
    expect(renamed.body.data.name).toBe('Renamed');
  });

  it('refuses a new turn while the chat\u2019s run is in progress (409 conflict)', async () => {
    model.setScript(() => callTool('w', 'testing_wait_for_release', { tag: 'busy-chat' }));
    const first = await startChat({ input: 'slow one' });
    const second = await startChat({ input: 'too soon', chat_id: first.body.data.chat_id });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'conflict', details: { chat_id: first.body.data.chat_id } });
    await h.request('POST', `/agents/${first.body.data.run_id}/cancel`, { key: ws.editor.key });
    for (const release of held.values()) release();
    await drain();
  });

  it('lists chats newest activity first with paging and filters', async () => {
    const team = await h.seedWorkspace();
    model.setScript(() => answerWith('ok'));
    const made = [];
    for (const [input, agent] of [
      ['one', 'researcher'],
      ['two', 'call-prep'],
      ['three', 'researcher'],
    ] as const)
      made.push((await runToEnd({ input, agent }, team.editor.key)).started);
    const all = (await h.request('GET', '/chats', { key: team.viewer.key })).body.data;
    expect(all).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.chats.map((c: { name: string }) => c.name)).toEqual(['three', 'two', 'one']);
    const page = (await h.request('GET', '/chats', { key: team.viewer.key, query: { limit: 1, offset: 1 } })).body.data;
    expect(page.chats.map((c: { name: string }) => c.name)).toEqual(['two']);
    const byAgent = (await h.request('GET', '/chats', { key: team.viewer.key, query: { agent_ref: 'call-prep' } })).body
      .data;
    expect(byAgent.chats.map((c: { name: string }) => c.name)).toEqual(['two']);
    const libraryId = (await h.request('GET', '/agents/call-prep', { key: team.viewer.key })).body.data.id;
    expect(
      (await h.request('GET', '/chats', { key: team.viewer.key, query: { agent_ref: libraryId } })).body.data.total,
    ).toBe(1);
    expect(
      (await h.request('GET', '/chats', { key: team.viewer.key, query: { status: 'failed' } })).body.data.total,
    ).toBe(0);
    expect(
      (await h.request('GET', '/chats', { key: team.viewer.key, query: { status: 'complete' } })).body.data.total,
    ).toBe(3);
    expect(
      (await h.request('GET', '/chats', { key: team.viewer.key, query: { routine_id: newId() } })).body.data.total,
    ).toBe(0);
    expect((await h.request('GET', '/chats', { key: team.viewer.key, query: { status: 'done' } })).status).toBe(400);
  });
});

describe('the tools a run is offered', () => {
  it('offers the caller\u2019s operations as tools, minus run control and the agent\u2019s blocklist; ask_user only when it may pause', async () => {
    model.setScript(() => answerWith('ok'));
    await runToEnd({ input: 'tools?' });
    const names = model.requests[0]!.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['search_query', 'search_fields', 'search_overview', 'final_answer', 'delegate']),
    );
    // The researcher (a library agent) offers its curated toolset only: no roster or connection writes.
    for (const offTopic of ['agents_list', 'agents_create', 'connections_connect', 'evals_create'])
      expect(names).not.toContain(offTopic);
    for (const hidden of [
      'chat_start',
      'chat_run_status',
      'chat_run_stream',
      'agents_resume',
      'agents_cancel',
      'ask_user',
    ])
      expect(names).not.toContain(hidden);
    // The editor's bundle has no webhooks scope: the tools follow the caller's rights.
    expect(names).not.toContain('webhooks_create');
    const search = model.requests[0]!.tools.find((t) => t.name === 'search_query')!;
    expect(search.parameters).toMatchObject({
      type: 'object',
      properties: { query: expect.any(Object), filters: expect.any(Object) },
    });

    const agent = await h.request('POST', '/agents', {
      key: ws.editor.key,
      body: { name: 'No search', prompt: 'Answer without searching.', tool_blocklist: ['search.query'] },
    });
    await runToEnd({
      input: 'tools?',
      agent: agent.body.data.agent.slug,
      on_question: 'pause',
      config: { depth: 'quick' },
    });
    const limited = model.requests.at(-1)!.tools.map((t) => t.name);
    expect(limited).not.toContain('search_query');
    // A workspace agent offers every operation its caller may call, minus its blocklist.
    expect(limited).toEqual(expect.arrayContaining(['search_fields', 'agents_list', 'connections_list']));
    expect(limited).toContain('ask_user');
    expect(limited).not.toContain('delegate'); // quick runs do not delegate
    expect(model.requests.at(-1)!.messages[0]!.content ?? '').toContain('Answer without searching.');
  });

  it('returns a tool\u2019s error to the model as a tool result, and the run goes on', async () => {
    model.setScript(
      steps(
        () => callTool('bad', 'search_query', { filters: [{ field: 'nope', op: 'eq', value: 1 }] }),
        () => callTool('ghost', 'no_such_tool'),
        () => answerWith('Recovered.'),
      ),
    );
    const { run } = await runToEnd({ input: 'break things' });
    expect(run.status).toBe('complete');
    const [bad, ghost] = toolResults(model.requests[2]!).map((t) => JSON.parse(t.content));
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(ghost).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', message: expect.stringContaining('no_such_tool') },
    });
  });
});

describe('pauses and resume', () => {
  it('asks a question with on_question: pause; a reply outside the schema is invalid_input; a valid one resumes the run', async () => {
    model.setScript(
      steps(
        () =>
          callTool('q1', 'ask_user', {
            question: 'Which Acme?',
            options: [
              { id: 'acme-logistics', label: 'Acme Logistics' },
              { id: 'acme-health', label: 'Acme Health' },
            ],
          }),
        (r) => answerWith(`You chose: ${JSON.stringify(JSON.parse(toolResults(r).at(-1)!.content).output)}`),
      ),
    );
    const { started, run } = await runToEnd({ input: 'prep me for Acme', on_question: 'pause' });
    expect(run).toMatchObject({
      status: 'awaiting_input',
      pending_input_type: 'question',
      pending_input_context: { question: 'Which Acme?' },
    });
    expect(run.pending_input_context.options.map((o: { id: string }) => o.id)).toEqual([
      'acme-logistics',
      'acme-health',
      'other',
    ]);
    expect(run.pending_input_schema).toMatchObject({
      type: 'object',
      properties: { option_id: { enum: expect.arrayContaining(['acme-health', 'other']) } },
    });

    for (const input of [{ option_id: 'acme-mining' }, { option_id: 'other' }, {}, { response: 'x', extra: 1 }]) {
      const bad = await h.request('POST', `/agents/${started.run_id}/resume`, { key: ws.editor.key, body: { input } });
      expect(bad.status, JSON.stringify(input)).toBe(400);
      expect(bad.body.error.code).toBe('invalid_input');
      expect(bad.body.error.details.validation_error).toEqual(expect.any(Array));
    }
    expect((await readRun(started.run_id)).body.data.status).toBe('awaiting_input');
    const ok = await h.request('POST', `/agents/${started.run_id}/resume`, {
      key: ws.editor.key,
      body: { input: { option_id: 'acme-health' } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toEqual({
      session_id: started.run_id,
      conversation_id: started.chat_id,
      status: 'queued',
      message: expect.any(String),
      job_id: started.run_id,
    });
    await drain();
    const done = (await readRun(started.run_id)).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer.text).toBe('You chose: {"answer":"Acme Health","option_id":"acme-health"}');
  });

  it('guards a write with an approval when it may pause, and makes it a proposal when it may not', async () => {
    const admin = await ws.keyFor(ws.admin, 'full_admin');
    const hook = { url: `${hookServer.url}/approved`, events: ['session.completed'] };
    // Library agents keep webhook writes off their tools; a workspace agent without a blocklist has them.
    await h.request('POST', '/agents', {
      key: admin.key,
      body: { name: 'Hook maker', prompt: 'Set up webhooks when asked.' },
    });
    model.setScript((r) =>
      toolResults(r).length === 0
        ? callTool('w1', 'webhooks_create', hook)
        : answerWith(`Result: ${JSON.parse(toolResults(r).at(-1)!.content).ok}`),
    );
    const paused = await runToEnd(
      { input: 'register a webhook', on_question: 'pause', agent: 'hook-maker' },
      admin.key,
    );
    expect(paused.run).toMatchObject({
      status: 'awaiting_input',
      pending_input_type: 'approval',
      pending_input_context: { operation: 'webhooks.create', arguments: hook },
    });
    const declined = await h.request('POST', `/agents/${paused.started.run_id}/resume`, {
      key: admin.key,
      body: { input: { approved: false } },
    });
    expect(declined.body.error.code).toBe('invalid_input'); // feedback is required when declining
    await h.request('POST', `/agents/${paused.started.run_id}/resume`, {
      key: admin.key,
      body: { input: { approved: true } },
    });
    await drain();
    expect((await readRun(paused.started.run_id)).body.data.answer.text).toBe('Result: true');
    const stored = await h.database.db.select().from(webhooks).where(eq(webhooks.workspaceId, ws.id));
    expect(stored.map((w) => w.url)).toContain(hook.url);

    const auto = await runToEnd({ input: 'register another', on_question: 'auto', agent: 'hook-maker' }, admin.key);
    expect(auto.run.status).toBe('complete');
    expect(auto.run.answer.text).toBe('Result: false');
    expect(auto.run.answer.content_blocks.at(-1)).toMatchObject({
      kind: 'callout',
      markdown: expect.stringContaining('webhooks.create'),
    });
    expect((await h.database.db.select().from(webhooks).where(eq(webhooks.workspaceId, ws.id))).length).toBe(
      stored.length,
    );
  });

  it('answers resume on a run that is not paused with 409 invalid_state and the current status', async () => {
    model.setScript(() => answerWith('done'));
    const { started } = await runToEnd({ input: 'quick' });
    const res = await h.request('POST', `/agents/${started.run_id}/resume`, {
      key: ws.editor.key,
      body: { input: { response: 'hi' } },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', details: { current_status: 'complete' } });
  });
});

describe('turn budgets', () => {
  const forever = () => callTool(`s${Math.random()}`, 'search_query', emptySearch);

  it('with on_question: pause, a spent budget asks continue_or_finish; continue grants turns; finish answers with what it has, marked partial', async () => {
    model.setScript((r) => (r.toolChoice === 'required' ? answerWith('Best answer so far.') : forever()));
    const { started, run } = await runToEnd({ input: 'dig forever', on_question: 'pause', config: { depth: 'quick' } });
    expect(run).toMatchObject({
      status: 'awaiting_input',
      pending_input_type: 'continue_or_finish',
      pending_input_context: { turns_used: 10, turn_budget: 10 },
    });
    await h.request('POST', `/agents/${started.run_id}/resume`, {
      key: ws.editor.key,
      body: { input: { action: 'continue', additional_turns: 2 } },
    });
    await drain();
    expect((await readRun(started.run_id)).body.data).toMatchObject({
      status: 'awaiting_input',
      usage: { turns_used: 12, turn_budget: 12 },
    });
    const tooMany = await h.request('POST', `/agents/${started.run_id}/resume`, {
      key: ws.editor.key,
      body: { input: { action: 'continue', additional_turns: 500 } },
    });
    expect(tooMany.body.error.code).toBe('invalid_input');
    await h.request('POST', `/agents/${started.run_id}/resume`, {
      key: ws.editor.key,
      body: { input: { action: 'finish' } },
    });
    await drain();
    const done = (await readRun(started.run_id)).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer).toMatchObject({ text: 'Best answer so far.', partial: true, partial_reason: 'turn_limit' });
    expect(model.requests.at(-1)!.toolChoice).toBe('required');
    expect(model.requests.at(-1)!.tools.map((t) => t.name)).toEqual(['final_answer']);
  });

  it('with on_question: auto, a spent budget finishes at once with the best answer, partial: turn_limit', async () => {
    model.setScript((r) => (r.toolChoice === 'required' ? answerWith('Partial findings.') : forever()));
    const { run } = await runToEnd({ input: 'dig forever', config: { depth: 'quick' } });
    expect(run).toMatchObject({
      status: 'complete',
      usage: { turns_used: 11, turn_budget: 10 },
      answer: { text: 'Partial findings.', partial: true, partial_reason: 'turn_limit' },
    });
  });
});

describe('run control', () => {
  it('cancels a paused run, keeps the turn in the thread, and answers a second cancel with cannot_cancel', async () => {
    model.setScript(() => callTool('q', 'ask_user', { question: 'Really?' }));
    const { started } = await runToEnd({ input: 'ask me', on_question: 'pause' });
    const res = await h.request('POST', `/agents/${started.run_id}/cancel`, {
      key: ws.editor.key,
      body: { reason: 'changed my mind' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      session_id: started.run_id,
      conversation_id: started.chat_id,
      status: 'canceled',
    });
    const again = await h.request('POST', `/agents/${started.run_id}/cancel`, { key: ws.editor.key });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'cannot_cancel', details: { current_status: 'canceled' } });
    const chat = (await h.request('GET', `/chats/${started.chat_id}`, { key: ws.viewer.key })).body.data;
    expect(chat.turns.map((t: { role: string; status: string | null }) => [t.role, t.status])).toEqual([
      ['user', null],
      ['assistant', 'canceled'],
    ]);
    expect(chat.status).toBe('canceled');
  });

  it('lets a viewer answer or cancel their own run only; editors any run of the workspace; other tenants get 404', async () => {
    model.setScript(() => callTool('q', 'ask_user', { question: 'Which?' }));
    const { started } = await runToEnd({ input: 'viewer asks', on_question: 'pause' }, ws.viewer.key);
    const theirs = await runToEnd({ input: 'editor asks', on_question: 'pause' }, ws.editor.key);
    expect(
      (await h.request('POST', `/agents/${theirs.started.run_id}/cancel`, { key: ws.viewer.key })).body.error.code,
    ).toBe('insufficient_role');
    expect((await h.request('POST', `/agents/${started.run_id}/cancel`, { key: other.admin.key })).status).toBe(404);
    expect(
      (
        await h.request('POST', `/agents/${started.run_id}/resume`, {
          key: other.admin.key,
          body: { input: { response: 'x' } },
        })
      ).status,
    ).toBe(404);
    model.setScript(() => answerWith('thanks'));
    expect(
      (
        await h.request('POST', `/agents/${started.run_id}/resume`, {
          key: ws.viewer.key,
          body: { input: { response: 'this one' } },
        })
      ).status,
    ).toBe(200);
    expect((await h.request('POST', `/agents/${theirs.started.run_id}/cancel`, { key: ws.admin.key })).status).toBe(
      200,
    );
  });

  it('fails the run with forbidden at its next turn when the member who started it was removed', async () => {
    const team = await h.seedWorkspace();
    model.setScript(() => callTool('q', 'ask_user', { question: 'Wait for me?' }));
    const { started } = await runToEnd({ input: 'then leave', on_question: 'pause' }, team.editor.key);
    await h.request('POST', `/agents/${started.run_id}/resume`, {
      key: team.admin.key,
      body: { input: { response: 'go on' } },
    });
    await removeMembership(h.database.db, team.id, team.editor.userId);
    await drain();
    const run = (await readRun(started.run_id, team.viewer.key)).body.data;
    expect(run).toMatchObject({ status: 'failed', error: { code: 'forbidden' } });
    const chat = (await h.request('GET', `/chats/${started.chat_id}`, { key: team.viewer.key })).body.data;
    expect(chat.turns.at(-1)).toMatchObject({
      role: 'assistant',
      status: 'failed',
      content: expect.stringContaining('no longer in the workspace'),
    });
  });
});

describe('delegation', () => {
  it('runs another agent as a child run and hands its answer back as the tool result', async () => {
    model.setScript((r) => {
      const system = r.messages[0]!.content ?? '';
      if (system.includes('Agent: call-prep')) return answerWith('Child brief: nothing synced yet.');
      const done = toolResults(r).find((t) => t.name === 'delegate');
      return done
        ? answerWith(`Parent got: ${JSON.parse(done.content).output.answer.text}`)
        : callTool('d1', 'delegate', { agent: 'call-prep', task: 'Brief me on Acme.' });
    });
    const { run } = await runToEnd({ input: 'ask a colleague' });
    expect(run.status).toBe('complete');
    expect(run.answer.text).toBe('Parent got: Child brief: nothing synced yet.');
    const child = model.requests.find((r) => (r.messages[0]!.content ?? '').includes('Agent: call-prep'))!;
    expect(lastUser(child)).toBe('Brief me on Acme.');
    expect(child.tools.map((t) => t.name)).not.toContain('delegate');
  });

  it('canceling the parent cancels the child', async () => {
    model.setScript((r) =>
      (r.messages[0]!.content ?? '').includes('Agent: deal-review')
        ? callTool('w', 'testing_wait_for_release', { tag: `child-${Math.random()}` })
        : callTool('d1', 'delegate', { agent: 'deal-review', task: 'Review.' }),
    );
    const started = (await startChat({ input: 'delegate then cancel' })).body.data;
    // Wait until the child is inside its slow tool call.
    for (
      let i = 0;
      i < 200 &&
      (await h.database.db.select().from(runs).where(eq(runs.parentRunId, started.run_id))).every(
        (k) => k.status !== 'running',
      );
      i++
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await h.request('POST', `/agents/${started.run_id}/cancel`, { key: ws.editor.key });
    for (const release of held.values()) release();
    await drain();
    const kids = await h.database.db.select().from(runs).where(eq(runs.parentRunId, started.run_id));
    expect(kids).toHaveLength(1);
    expect(kids[0]!.status).toBe('canceled');
  });
});

describe('session.completed', () => {
  it('is delivered, signed, to the workspace\u2019s webhooks when a chat run ends', async () => {
    const team = await h.seedWorkspace();
    const secret = `whsec_${Buffer.from('chat-run-webhook-secret-0123456789').toString('base64')}`;
    await h.database.db.insert(webhooks).values({
      id: newId(),
      workspaceId: team.id,
      userId: team.admin.userId,
      url: `${hookServer.url}/sessions`,
      events: ['session.completed'],
      secretSealed: await h.services.secretBox.seal(secret),
    });
    model.setScript(() => answerWith('All done.'));
    const { started } = await runToEnd({ input: 'notify me' }, team.editor.key);
    await drain();
    const hit = hookHits.find((r) => r.url === '/sessions' && r.body.includes(started.run_id));
    expect(hit).toBeDefined();
    const payload = new StandardWebhook(secret).verify(hit!.body, hit!.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe('session.completed');
    expect(payload.data).toMatchObject({
      session_id: started.run_id,
      chat_id: started.chat_id,
      status: 'complete',
      agent: { slug: 'researcher' },
      trigger: 'api',
      error: null,
    });
  });
});
