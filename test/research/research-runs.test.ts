import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import { allOperations } from '../../functions/modules.js';
import type { StepRequest } from '../../platform/model/port.js';
import { loadRun } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import type { QueueTransport } from '../../queues/transport/port.js';
import { runs, usageCounters } from '../../schema/index.js';
import { RecordingQueue } from '../engine/fixtures.js';
import {
  agentTestOperations,
  effectFamily,
  held,
  started as waitStarted,
  offerTestingToolsToLibraryAgents,
} from '../support/agent-test-operations.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { answerWith, ScriptedModel } from '../support/scripted-model.js';

/**
 * Research jobs under at-least-once delivery and over MCP, with a scripted model: duplicate and
 * crashed deliveries in the middle of a job change nothing twice; cancel while a tool call runs;
 * the `research` MCP tool and `research://{id}` answer the same JSON as REST.
 */

const model = new ScriptedModel(() => answerWith('unscripted'));
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let originalQueue: QueueTransport;
const open: Client[] = [];

offerTestingToolsToLibraryAgents();

beforeAll(async () => {
  h = await createHarness({ model, operations: [...allOperations, ...agentTestOperations] });
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
  originalQueue = h.services.queue;
});
afterAll(async () => h.close());
afterEach(async () => {
  h.services.queue = originalQueue;
  model.requests.length = 0;
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const effects = async (tag: string) =>
  (
    await h.database.db
      .select({ used: usageCounters.used })
      .from(usageCounters)
      .where(and(eq(usageCounters.workspaceId, ws.id), eq(usageCounters.family, effectFamily(tag))))
  )[0]?.used ?? 0;
const toolCount = (r: StepRequest) => r.messages.filter((m) => m.role === 'tool').length;
const start = async (question: string) =>
  (await h.request('POST', '/research', { key: ws.editor.key, body: { question, allow_questions: false } })).body.data;

describe('a research job under duplicate and crashed deliveries', () => {
  it('runs each tool call once and asks the model once per turn, whatever the queue repeats', {
    tags: ['race'],
  }, async () => {
    const tag = 'research-dupes';
    model.setScript((r) =>
      toolCount(r) >= 2
        ? answerWith('Recorded twice, once each.')
        : {
            content: null,
            tool_calls: [{ id: `c${toolCount(r)}`, name: 'testing_count_effect', arguments: { tag } }],
            usage: null,
          },
    );
    const q = new RecordingQueue();
    h.services.queue = q;
    const job = await start('record, with duplicates');
    for (let i = 0; i < 10 && (await loadRun(h.services.db, job.research_id))?.status !== 'complete'; i++) {
      const m = q.published.at(-1)!;
      const outcomes = await Promise.all([1, 2, 3].map(() => h.services.engine.handleDelivery(m.kind, m.body)));
      expect(outcomes.filter((o) => o === 'done')).toHaveLength(1);
    }
    expect((await loadRun(h.services.db, job.research_id))?.status).toBe('complete');
    expect(await effects(tag)).toBe(2);
    expect(model.requests).toHaveLength(3);
  });

  it('a stage that dies after its tool call and before its commit replays the call\u2019s saved result', async () => {
    const tag = 'research-crash';
    model.setScript((r) =>
      toolCount(r) >= 1
        ? answerWith('Survived.')
        : { content: null, tool_calls: [{ id: 'c0', name: 'testing_count_effect', arguments: { tag } }], usage: null },
    );
    const q = new RecordingQueue();
    h.services.queue = q;
    const job = await start('record, then crash');
    const db = h.services.db;
    const real = db.transaction.bind(db);
    let failOnce = true;
    (db as { transaction: typeof db.transaction }).transaction = (async (fn: Parameters<typeof db.transaction>[0]) => {
      if (failOnce && (await effects(tag)) === 1) {
        failOnce = false;
        throw new Error('killed before commit');
      }
      return real(fn);
    }) as typeof db.transaction;
    try {
      await h.services.engine.handleDelivery(q.published[0]!.kind, q.published[0]!.body).catch(() => 'crashed');
    } finally {
      (db as { transaction: typeof db.transaction }).transaction = real;
    }
    await db
      .update(runs)
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(runs.id, job.research_id));
    for (let i = 0; i < 5 && (await loadRun(db, job.research_id))?.status !== 'complete'; i++) {
      const m = q.published.at(-1)!;
      await h.services.engine.handleDelivery(m.kind, m.body);
    }
    expect((await loadRun(db, job.research_id))?.status).toBe('complete');
    expect(await effects(tag)).toBe(1);
    expect(model.requests).toHaveLength(2);
  });

  it('cancel while a tool call runs: the job is canceled at once and nothing after the call runs', async () => {
    const tag = `research-slow-${Date.now()}`;
    model.setScript(() => ({
      content: null,
      tool_calls: [
        { id: 's1', name: 'testing_wait_for_release', arguments: { tag } },
        { id: 's2', name: 'testing_count_effect', arguments: { tag } },
      ],
      usage: null,
    }));
    const job = await start('slow research');
    for (let i = 0; i < 200 && !waitStarted.get(tag); i++) await new Promise((r) => setTimeout(r, 10));
    const canceled = await h.request('POST', `/research/${job.research_id}/cancel`, { key: ws.editor.key });
    expect(canceled.body.data.status).toBe('canceled');
    held.get(tag)?.();
    await (h.services.queue as LocalTransport).drain();
    expect((await h.request('GET', `/research/${job.research_id}`, { key: ws.viewer.key })).body.data.status).toBe(
      'canceled',
    );
    expect(await effects(tag)).toBe(0);
  });
});

describe('the research MCP tool', () => {
  async function connect(key: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: async (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': key } },
    });
    const client = new Client({ name: 'research-mcp-test', version: '0.0.1' });
    await client.connect(transport);
    open.push(client);
    return client;
  }
  type ToolResult = { isError?: boolean; content: { text?: string }[]; structuredContent?: Record<string, any> };
  const call = async (client: Client, args: Record<string, unknown>) =>
    (await client.callTool({ name: 'research', arguments: args })) as ToolResult;
  const json = (r: ToolResult) => JSON.parse(r.content[0]?.text ?? 'null');

  it('starts, reads, answers and cancels with the same JSON as REST, and reads research://{id}', async () => {
    model.setScript((r) =>
      toolCount(r) === 0
        ? {
            content: null,
            tool_calls: [
              {
                id: 'q',
                name: 'ask_user',
                arguments: { question: 'Which team?', options: [{ id: 'sales', label: 'Sales' }] },
              },
            ],
            usage: null,
          }
        : answerWith('Sales it is.'),
    );
    const client = await connect(ws.editor.key);
    const started = json(await call(client, { action: 'start', question: 'How is the rollout going?' }));
    expect(started).toMatchObject({ success: true, status: 'queued' });
    await (h.services.queue as LocalTransport).drain();
    const status = json(await call(client, { action: 'status', id: started.research_id, wait_ms: 1000 }));
    expect(status).toEqual(
      (await h.request('GET', `/research/${started.research_id}`, { key: ws.editor.key })).body.data,
    );
    expect(status).toMatchObject({ status: 'needs_input', question_for_you: { kind: 'multiple_choice' } });
    const resource = await client.readResource({ uri: `research://${started.research_id}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(status);
    expect(json(await call(client, { action: 'respond', id: started.research_id, answer: 'Sales' })).status).toBe(
      'running',
    );
    await (h.services.queue as LocalTransport).drain();
    expect(json(await call(client, { action: 'status', id: started.research_id })).answer.text).toBe('Sales it is.');
    const ended = await call(client, { action: 'cancel', id: started.research_id });
    expect(ended.structuredContent).toMatchObject({
      error: { code: 'conflict', details: { current_status: 'complete' } },
    });
    const stranger = await connect(other.viewer.key);
    expect((await call(stranger, { action: 'status', id: started.research_id })).structuredContent).toMatchObject({
      error: { code: 'not_found' },
    });
  });
});
