import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allOperations } from '../../functions/modules.js';
import type { StepRequest } from '../../platform/model/port.js';
import type { DeliveryOutcome } from '../../queues/engine.js';
import { loadRun } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import type { QueueTransport } from '../../queues/transport/port.js';
import { runs, runToolCalls, usageCounters } from '../../schema/index.js';
import { RecordingQueue } from '../engine/fixtures.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import {
  agentTestOperations,
  crashes,
  effectFamily,
  held,
  started as waitStarted,
  offerTestingToolsToLibraryAgents,
} from '../support/agent-test-operations.js';
import { answerWith, callTool, ScriptedModel } from '../support/scripted-model.js';

/**
 * The agent loop under at-least-once delivery: duplicates and crashes at every turn boundary leave
 * each tool call's side effect done once and each model step asked once; cancel in the middle of a
 * tool call; a 30-turn run; the per-workspace cap on working agent runs.
 */

const model = new ScriptedModel(() => answerWith('unscripted'));
let h: Harness;
let ws: SeededWorkspace;
let originalQueue: QueueTransport;

offerTestingToolsToLibraryAgents();

beforeAll(async () => {
  h = await createHarness({ model, operations: [...allOperations, ...agentTestOperations] });
  ws = await h.seedWorkspace();
  originalQueue = h.services.queue;
});
afterAll(async () => h.close());
afterEach(() => {
  h.services.queue = originalQueue;
  model.requests.length = 0;
});

const effects = async (tag: string) => {
  const [row] = await h.database.db
    .select({ used: usageCounters.used })
    .from(usageCounters)
    .where(and(eq(usageCounters.workspaceId, ws.id), eq(usageCounters.family, effectFamily(tag))));
  return row?.used ?? 0;
};
/** Drive the local queue until the run ends (a retried stage is delivered after its backoff). */
async function untilEnded(runId: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await (h.services.queue as LocalTransport).drain();
    const row = await loadRun(h.services.db, runId);
    if (row && ['complete', 'failed', 'canceled'].includes(row.status)) return row;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not end (status ${row?.status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const toolCount = (r: StepRequest) => r.messages.filter((m) => m.role === 'tool').length;
const recording = () => {
  const q = new RecordingQueue();
  h.services.queue = q;
  return q;
};
const deliver = (q: RecordingQueue, index: number): Promise<DeliveryOutcome> => {
  const m = q.published[index];
  if (!m) throw new Error(`no message ${index}`);
  return h.services.engine.handleDelivery(m.kind, m.body);
};

/** Two effects per turn for two turns, then an answer. */
const twoTurns = (tag: string) => (r: StepRequest) => {
  const done = toolCount(r);
  if (done >= 4) return answerWith('All recorded.');
  return {
    content: null,
    tool_calls: [
      { id: `a${done}`, name: 'testing_count_effect', arguments: { tag } },
      { id: `b${done}`, name: 'testing_count_effect', arguments: { tag } },
    ],
    usage: null,
  };
};

describe('exactly-once tool calls under at-least-once delivery', () => {
  it('delivering every stage message five times runs each tool call once and asks the model once per turn', {
    tags: ['race'],
  }, async () => {
    const tag = 'dupes';
    model.setScript(twoTurns(tag));
    const q = recording();
    const started = await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'record' } });
    const runId = started.body.data.run_id as string;
    for (let i = 0; i < 10 && (await loadRun(h.services.db, runId))?.status !== 'complete'; i++) {
      const index = q.published.length - 1;
      const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => deliver(q, index)));
      expect(outcomes.filter((o) => o === 'done')).toHaveLength(1);
      // And once more after the fact: a stale duplicate.
      expect(await deliver(q, index)).toBe('ignored');
    }
    expect((await loadRun(h.services.db, runId))?.status).toBe('complete');
    expect(await effects(tag)).toBe(4);
    expect(model.requests).toHaveLength(3);
  });

  it('a crash in the middle of a turn (after one call, before the next) replays the step and the first call, and runs the rest once', async () => {
    const tag = 'crash-mid-turn';
    model.setScript((r) =>
      toolCount(r) >= 2
        ? answerWith('Recovered.')
        : {
            content: null,
            tool_calls: [
              { id: 'x1', name: 'testing_count_effect', arguments: { tag } },
              { id: 'x2', name: 'testing_crash_once', arguments: { tag } },
            ],
            usage: null,
          },
    );
    const runId = (await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'crash' } })).body.data
      .run_id as string;
    const run = await untilEnded(runId);
    expect(run?.status).toBe('complete');
    expect(run?.totalAttempts).toBe(3); // turn 1 crashed once and ran again; then turn 2
    expect(await effects(tag)).toBe(1);
    expect(crashes.get(tag)).toBe(2);
    expect(model.requests).toHaveLength(2);
  });

  it('a stage that dies after its tool calls and before its commit replays the saved step and results', async () => {
    const tag = 'die-before-commit';
    model.setScript(twoTurns(tag));
    const q = recording();
    const runId = (await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'die' } })).body.data
      .run_id as string;
    // Fail the commit of the first turn once: the transaction that would write its state throws.
    const db = h.services.db;
    let failNextCommit = true;
    const originalTransaction = db.transaction.bind(db);
    (db as { transaction: typeof db.transaction }).transaction = (async (fn: Parameters<typeof db.transaction>[0]) => {
      if (failNextCommit && (await effects(tag)) === 2) {
        failNextCommit = false;
        throw new Error('process killed before commit');
      }
      return originalTransaction(fn);
    }) as typeof db.transaction;
    try {
      await deliver(q, 0).catch(() => 'crashed');
    } finally {
      (db as { transaction: typeof db.transaction }).transaction = originalTransaction;
    }
    expect(await effects(tag)).toBe(2);
    expect(model.requests).toHaveLength(1);
    // The lease runs out (time passes), and the queue retries the same message.
    await db
      .update(runs)
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(runs.id, runId));
    for (let i = 0; i < 10 && (await loadRun(db, runId))?.status !== 'complete'; i++)
      await deliver(q, q.published.length - 1);
    expect((await loadRun(db, runId))?.status).toBe('complete');
    expect(await effects(tag)).toBe(4);
    // The first turn's step was replayed from the journal, not asked again.
    expect(model.requests).toHaveLength(3);
    const journal = await db.select().from(runToolCalls).where(eq(runToolCalls.runId, runId));
    expect(journal.map((j) => j.callKey).sort()).toEqual([
      't1:a0',
      't1:b0',
      't1:step',
      't2:a2',
      't2:b2',
      't2:step',
      't3:step',
    ]);
  });

  it('a lost publish between commit and delivery is recovered by the sweeper without repeating a call', async () => {
    const tag = 'lost-publish';
    model.setScript(twoTurns(tag));
    const q = recording();
    const runId = (await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'lose' } })).body.data
      .run_id as string;
    q.failNext = 1;
    await deliver(q, 0);
    const published = q.published.length;
    expect((await loadRun(h.services.db, runId))?.stage).toBe('turn');
    // Nothing was published for turn 2; the sweeper finds the overdue run.
    await h.services.db
      .update(runs)
      .set({ dueAt: new Date(Date.now() - 120_000) })
      .where(eq(runs.id, runId));
    expect(await h.services.engine.sweep()).toBeGreaterThanOrEqual(1);
    expect(q.published.length).toBe(published + 1);
    for (let i = 0; i < 10 && (await loadRun(h.services.db, runId))?.status !== 'complete'; i++)
      await deliver(q, q.published.length - 1);
    expect(await effects(tag)).toBe(4);
  });
});

describe('cancel in the middle of a tool call', () => {
  it('ends the run at once; the call finishes but nothing after it runs, and the turn stays in the thread', async () => {
    const tag = `slow-${Date.now()}`;
    model.setScript(() => ({
      content: null,
      tool_calls: [
        { id: 's1', name: 'testing_wait_for_release', arguments: { tag } },
        { id: 's2', name: 'testing_count_effect', arguments: { tag } },
      ],
      usage: null,
    }));
    const started = (await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'slow' } })).body.data;
    for (let i = 0; i < 200 && !waitStarted.get(tag); i++) await new Promise((r) => setTimeout(r, 10));
    expect(waitStarted.get(tag)).toBe(1);
    const canceled = await h.request('POST', `/agents/${started.run_id}/cancel`, { key: ws.editor.key });
    expect(canceled.body.data.status).toBe('canceled');
    held.get(tag)?.();
    await (h.services.queue as LocalTransport).drain();
    const run = (await h.request('GET', `/chat/runs/${started.run_id}`, { key: ws.viewer.key })).body.data;
    expect(run.status).toBe('canceled');
    expect(await effects(tag)).toBe(0);
    expect(model.requests).toHaveLength(1);
    const chat = (await h.request('GET', `/chats/${started.chat_id}`, { key: ws.viewer.key })).body.data;
    expect(chat.turns.map((t: { role: string; status: string | null }) => [t.role, t.status])).toEqual([
      ['user', null],
      ['assistant', 'canceled'],
    ]);
  });
});

describe('long runs and the workspace cap', () => {
  it('runs 30 turns (29 tool calls, then the answer) within the standard budget', async () => {
    const tag = 'thirty';
    model.setScript((r) =>
      toolCount(r) >= 29
        ? answerWith('Thirty turns later.')
        : callTool(`c${toolCount(r)}`, 'testing_count_effect', { tag }),
    );
    const started = (await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'go long' } })).body.data;
    await (h.services.queue as LocalTransport).drain();
    const run = (await h.request('GET', `/chat/runs/${started.run_id}`, { key: ws.viewer.key })).body.data;
    expect(run).toMatchObject({
      status: 'complete',
      usage: { turns_used: 30, turn_budget: 50 },
      answer: { text: 'Thirty turns later.' },
    });
    expect(await effects(tag)).toBe(29);
  });

  it('refuses an 11th working agent run in a workspace with 429 rate_limited; paused ones do not count', async () => {
    const team = await h.seedWorkspace();
    recording(); // Runs stay queued: nothing delivers them.
    for (let i = 0; i < 10; i++)
      expect((await h.request('POST', '/chat', { key: team.editor.key, body: { input: `run ${i}` } })).status).toBe(
        202,
      );
    const refused = await h.request('POST', '/chat', { key: team.editor.key, body: { input: 'one too many' } });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      details: { limit: 10, active: 10, retry_after_seconds: 5 },
    });
    expect(refused.headers.get('retry-after')).toBe('5');
    // Another workspace is not affected.
    expect((await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'elsewhere' } })).status).toBe(202);
  });
});
