import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allOperations } from '../../functions/modules.js';
import { ApiError } from '../../platform/errors.js';
import { ManualClock } from '../../platform/clock.js';
import { createLogger } from '../../platform/log.js';
import type { DeliveryOutcome } from '../../queues/engine.js';
import { loadRun, readEventsAfter } from '../../queues/run-store.js';
import { LocalTransport } from '../../queues/transport/local.js';
import type { QueueTransport } from '../../queues/transport/port.js';
import { queueDeliveries, runs } from '../../schema/index.js';
import { createHarness, TEST_QUEUE_KEYS, type Harness, type SeededWorkspace } from '../support/harness.js';
import { allTestPipelines, effectCount, hooks, invocations, RecordingQueue, testRunOperations } from './fixtures.js';

const clock = new ManualClock('2026-11-23T10:00:00.000Z');
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let originalQueue: QueueTransport;

beforeAll(async () => {
  h = await createHarness({ clock, pipelines: allTestPipelines, operations: [...allOperations, ...testRunOperations] });
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
  originalQueue = h.services.queue;
});
afterAll(async () => h.close());
afterEach(() => {
  hooks.clear();
  h.services.queue = originalQueue;
});

const engine = () => h.services.engine;
const local = () => h.services.queue as LocalTransport;
const start = (kind = 'test_three') => engine().start({ workspaceId: ws.id, kind });
const run = async (id: string) => {
  const row = await loadRun(h.services.db, id);
  if (!row) throw new Error('run vanished');
  return row;
};
const eventTypes = async (id: string) => (await readEventsAfter(h.services.db, id, 0)).map((e) => e.type);
const effects = async (id: string) => ({
  alpha: await effectCount(h.services.db, ws.id, id, 'alpha'),
  beta: await effectCount(h.services.db, ws.id, id, 'beta'),
  gamma: await effectCount(h.services.db, ws.id, id, 'gamma'),
});
const recording = () => {
  const q = new RecordingQueue();
  h.services.queue = q;
  return q;
};
const deliver = (q: RecordingQueue, index = q.published.length - 1): Promise<DeliveryOutcome> => {
  const message = q.published[index];
  if (!message) throw new Error('no such message');
  return engine().handleDelivery(message.kind, message.body);
};

describe('the run engine, through the local transport', () => {
  it('runs a three-stage pipeline to completion, each stage once, events in order', async () => {
    const { runId } = await start();
    await local().drain();
    const row = await run(runId);
    expect(row.status).toBe('complete');
    expect(row.stage).toBeNull();
    expect(row.outputs).toMatchObject({
      alpha: { stage: 'alpha' },
      beta: { stage: 'beta' },
      gamma: { stage: 'gamma' },
    });
    expect(row.state).toEqual({ trail: ['alpha', 'beta', 'gamma'] });
    expect(await effects(runId)).toEqual({ alpha: 1, beta: 1, gamma: 1 });
    expect(invocations.get(runId)).toEqual(['alpha#1', 'beta#1', 'gamma#1']);
    const events = await readEventsAfter(h.services.db, runId, 0);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.type)).toEqual([
      'run.queued',
      'run.started',
      'test.progress',
      'stage.completed',
      'test.progress',
      'stage.completed',
      'test.progress',
      'stage.completed',
      'run.completed',
    ]);
    expect(row.lastSeq).toBe(events.length);
    const leftovers = await h.services.db.select().from(queueDeliveries);
    expect(leftovers).toEqual([]);
  });
});

describe('duplicate, stale and out-of-order deliveries', () => {
  it('leaves exactly one effect when the same message arrives 5 times in sequence', async () => {
    const q = recording();
    const { runId } = await start();
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await deliver(q, 0));
    expect(outcomes).toEqual(['done', 'ignored', 'ignored', 'ignored', 'ignored']);
    expect(await effects(runId)).toEqual({ alpha: 1, beta: 0, gamma: 0 });
    expect(q.published).toHaveLength(2); // the first delivery and the next stage's, once
  });

  it('leaves exactly one effect when the same message arrives 5 times concurrently', { tags: ['race'] }, async () => {
    const q = recording();
    const { runId } = await start();
    await deliver(q, 0);
    const beta = q.published.length - 1;
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => deliver(q, beta)));
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(1);
    expect(outcomes.every((o) => ['done', 'busy', 'ignored'].includes(o))).toBe(true);
    expect(await effects(runId)).toEqual({ alpha: 1, beta: 1, gamma: 0 });
    expect(invocations.get(runId)?.filter((s) => s.startsWith('beta'))).toHaveLength(1);
  });

  it('ignores stale and out-of-order messages and accepts the current one', async () => {
    const q = recording();
    const { runId } = await start();
    expect(await deliver(q, 0)).toBe('done');
    const current = q.last().body as { run_id: string; stage: string; version: number };
    const send = (body: Record<string, unknown>) => engine().handleDelivery('test_three', body);
    expect(await send({ run_id: runId, stage: 'alpha', version: 0 })).toBe('ignored'); // finished stage replayed
    expect(await send({ run_id: runId, stage: 'gamma', version: current.version })).toBe('ignored'); // a later stage, early
    expect(await send({ run_id: runId, stage: 'beta', version: current.version + 3 })).toBe('ignored'); // a future version
    expect(await send({ run_id: runId, stage: 'beta', version: current.version - 1 })).toBe('ignored'); // an old version
    expect(await engine().handleDelivery('test_approval', current)).toBe('ignored'); // wrong kind for the run
    expect(await effects(runId)).toEqual({ alpha: 1, beta: 0, gamma: 0 });
    expect(await send(current)).toBe('done');
    expect(await effects(runId)).toEqual({ alpha: 1, beta: 1, gamma: 0 });
  });

  it('answers through the signed stage endpoint with the same idempotence', async () => {
    const q = recording();
    const { runId } = await start();
    const body = JSON.stringify(q.published[0]?.body);
    const { signDelivery } = await import('../../queues/transport/signing.js');
    const url = 'http://platform.test/queues/test_three';
    const post = async (signature?: string, payload = body, path = '/queues/test_three') =>
      h.fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature ? { 'upstash-signature': signature } : {}) },
        body: payload,
      });
    expect((await post()).status).toBe(401);
    expect((await post(await signDelivery('not-the-key-at-all-0123456789', url, body))).status).toBe(401);
    expect((await post(await signDelivery(TEST_QUEUE_KEYS.current, url, '{"tampered":true}'))).status).toBe(401);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(await signDelivery(TEST_QUEUE_KEYS.next, url, body))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(await effects(runId)).toEqual({ alpha: 1, beta: 0, gamma: 0 });
    const unknown = await post(
      await signDelivery(TEST_QUEUE_KEYS.current, 'http://platform.test/queues/nope', body),
      body,
      '/queues/nope',
    );
    expect(unknown.status).toBe(404);
    const malformed = await post(await signDelivery(TEST_QUEUE_KEYS.current, url, '{"run_id":"x"}'), '{"run_id":"x"}');
    expect(malformed.status).toBe(200);
    expect(await malformed.json()).toMatchObject({ data: { accepted: false } });
  });
});

describe('crashes', () => {
  /** Replace the transport as a restarted process would: same database, new dispatcher. */
  const restartTransport = () => {
    const next = new LocalTransport({
      publicUrl: h.services.config.publicUrl,
      keys: TEST_QUEUE_KEYS,
      clock,
      db: h.services.db,
      log: createLogger('silent'),
    });
    h.services.queue = next;
    next.attach(async (req) => h.app.fetch(req));
    return next;
  };

  for (const crashStage of ['alpha', 'beta', 'gamma']) {
    it(`completes with every effect applied once after a crash in the middle of ${crashStage}`, async () => {
      const first = restartTransport();
      const { runId } = await start();
      hooks.set(runId, (stage, ctx) => {
        if (stage === crashStage && ctx.run.attempt === 1) {
          first.crash();
          return new Promise<void>(() => {}); // the process died here: this stage never returns
        }
      });
      await new Promise((r) => setTimeout(r, 50));
      await waitUntil(async () => (invocations.get(runId) ?? []).includes(`${crashStage}#1`));
      expect((await run(runId)).status).toBe('running');

      const second = restartTransport();
      await second.drain();
      expect((await run(runId)).status).toBe('running'); // lease and delivery lock still held
      await clock.advance(61_000); // both expire
      await waitUntil(async () => (await run(runId)).status === 'complete');
      await second.drain();
      expect(await effects(runId)).toEqual({ alpha: 1, beta: 1, gamma: 1 });
      expect(invocations.get(runId)?.filter((s) => s.startsWith(crashStage))).toEqual([
        `${crashStage}#1`,
        `${crashStage}#2`,
      ]);
      await second.close();
    });
  }

  it('recovers a delivery lost between a commit and its publish (the sweeper)', async () => {
    const q = recording();
    const { runId } = await start();
    q.failNext = 1; // the publish after alpha's commit is lost
    expect(await deliver(q, 0)).toBe('done');
    expect(q.published).toHaveLength(1);
    const betaMessages = () => q.published.filter((m) => m.body.run_id === runId && m.body.stage === 'beta');
    await engine().sweep();
    expect(betaMessages()).toHaveLength(0); // not overdue yet: its delivery may still be on the way
    await clock.advance(61_000);
    await engine().sweep();
    expect(betaMessages()).toHaveLength(1);
    expect(await deliver(q, q.published.indexOf(betaMessages()[0]!))).toBe('done');
    expect(await effects(runId)).toEqual({ alpha: 1, beta: 1, gamma: 0 });
  });
});

describe('retries', () => {
  it('retries a retryable failure with exponential backoff on the clock, then fails with the reason', async () => {
    const q = recording();
    const { runId } = await start('test_flaky');
    expect(await deliver(q, 0)).toBe('done');
    expect(q.last()).toMatchObject({ delaySeconds: 1, body: { stage: 'only', version: 1 } });
    expect((await run(runId)).dueAt?.toISOString()).toBe(new Date(clock.now().getTime() + 1000).toISOString());
    expect(await deliver(q)).toBe('done');
    expect(q.last()).toMatchObject({ delaySeconds: 2, body: { version: 2 } });
    expect(await deliver(q)).toBe('done');
    const row = await run(runId);
    expect(row.status).toBe('failed');
    expect(row.error).toMatchObject({ code: 'dependency_unavailable', stage: 'only' });
    expect(row.error?.message).toContain('gave up after 3 attempts');
    const events = await readEventsAfter(h.services.db, runId, 0);
    expect(events.filter((e) => e.type === 'stage.retrying').map((e) => e.data.delay_ms)).toEqual([1000, 2000]);
    expect(events.at(-1)?.type).toBe('run.failed');
  });

  it('waits for the clock before each retry when the transport delivers', async () => {
    const { runId } = await start('test_flaky');
    await local().drain();
    expect(invocations.get(runId)).toEqual(['only#1']);
    await clock.advance(999);
    await local().drain();
    expect(invocations.get(runId)).toEqual(['only#1']);
    await clock.advance(1);
    await waitUntil(async () => (invocations.get(runId) ?? []).length === 2);
    await local().drain();
    await clock.advance(1_999);
    await local().drain();
    expect(invocations.get(runId)).toHaveLength(2);
    await clock.advance(1);
    await waitUntil(async () => (await run(runId)).status === 'failed');
    expect(invocations.get(runId)).toEqual(['only#1', 'only#2', 'only#3']);
  });

  it('fails at once on a non-retryable error', async () => {
    const { runId } = await start('test_fatal');
    await local().drain();
    const row = await run(runId);
    expect(row.status).toBe('failed');
    expect(row.error).toEqual({ code: 'bad_input', message: 'the input can never work', stage: 'only' });
    expect(invocations.get(runId)).toEqual(['only#1']);
  });
});

describe('cancellation', () => {
  it('cancels a running run at once; the stage stops at its next checkpoint and commits nothing', async () => {
    const q = recording();
    const { runId } = await start();
    let checkpoints = 0;
    hooks.set(runId, async (_stage, ctx) => {
      for (;;) {
        checkpoints++;
        await ctx.checkpoint();
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    const delivery = deliver(q, 0);
    await waitUntil(async () => checkpoints > 0);
    expect(await engine().cancel(ws.id, runId)).toEqual({ canceled: true, status: 'canceled' });
    expect(await delivery).toBe('ignored');
    const row = await run(runId);
    expect(row.status).toBe('canceled');
    expect(row.completedAt).not.toBeNull();
    expect(await effects(runId)).toEqual({ alpha: 0, beta: 0, gamma: 0 });
    expect((await eventTypes(runId)).at(-1)).toBe('run.canceled');
    expect(await engine().cancel(ws.id, runId)).toEqual({ canceled: false, status: 'canceled' });
  });

  it('leaves a terminal run as it is and hides other workspaces\u2019 runs', async () => {
    const { runId } = await start();
    await local().drain();
    expect(await engine().cancel(ws.id, runId)).toEqual({ canceled: false, status: 'complete' });
    await expect(engine().cancel(other.id, runId)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('pause and resume', () => {
  it('parks awaiting input, refuses a bad reply, resumes with a good one', async () => {
    const { runId } = await start('test_approval');
    await local().drain();
    let row = await run(runId);
    expect(row.status).toBe('awaiting_input');
    expect(row.pendingInput).toMatchObject({ type: 'approval', context: { question: 'Proceed?' } });
    const bad = await engine()
      .resume(ws.id, runId, { approved: 'yes' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ApiError);
    expect(bad).toMatchObject({ code: 'invalid_input', details: { validation_error: [{ field: 'approved' }] } });
    expect((await run(runId)).status).toBe('awaiting_input');
    await expect(engine().resume(other.id, runId, { approved: true })).rejects.toMatchObject({ code: 'not_found' });
    expect(await engine().resume(ws.id, runId, { approved: true })).toEqual({ status: 'queued', runId });
    await local().drain();
    row = await run(runId);
    expect(row.status).toBe('complete');
    expect(row.outputs.finish).toEqual({ approved: true });
    await expect(engine().resume(ws.id, runId, { approved: true })).rejects.toMatchObject({
      code: 'invalid_state',
      details: { current_status: 'complete' },
    });
  });
});

describe('run reads: long-poll and event streams', () => {
  const parseFrames = (text: string) =>
    text
      .split('\n\n')
      .filter((block) => block.includes('data:'))
      .map((block) => {
        const field = (name: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim();
        return {
          id: Number(field('id')),
          event: field('event'),
          data: JSON.parse(field('data') ?? 'null') as { seq: number; type: string },
        };
      });

  it('replays exactly the events after every `after` value, then closes after the terminal event', async () => {
    const { runId } = await start();
    await local().drain();
    const total = (await run(runId)).lastSeq;
    for (let after = 0; after <= total; after++) {
      const res = await h.fetch(`/api/platform/v1/test-runs/${runId}?after=${after}`, {
        headers: { 'x-api-key': ws.viewer.key, accept: 'text/event-stream' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      expect(res.headers.get('x-correlation-id')).toBeTruthy();
      const frames = parseFrames(await res.text());
      expect(frames.map((f) => f.id)).toEqual(Array.from({ length: total - after }, (_, i) => after + i + 1));
      for (const f of frames) expect(f.data.seq).toBe(f.id);
      if (frames.length) expect(frames.at(-1)?.event).toBe('run.completed');
    }
    const resumed = await h.fetch(`/api/platform/v1/test-runs/${runId}`, {
      headers: { 'x-api-key': ws.viewer.key, accept: 'text/event-stream', 'last-event-id': String(total - 2) },
    });
    expect(parseFrames(await resumed.text()).map((f) => f.id)).toEqual([total - 1, total]);
  });

  it('follows a live run: a paused run streams on when resumed', async () => {
    const { runId } = await start('test_approval');
    await local().drain();
    const res = await h.fetch(`/api/platform/v1/test-runs/${runId}`, {
      headers: { 'x-api-key': ws.viewer.key, accept: 'text/event-stream' },
    });
    const body = res.text();
    await new Promise((r) => setTimeout(r, 50));
    await engine().resume(ws.id, runId, { approved: false });
    await local().drain();
    const types = parseFrames(await body).map((f) => f.event);
    expect(types.slice(0, 3)).toEqual(['run.queued', 'run.started', 'stage.completed']);
    expect(types).toContain('run.awaiting_input');
    expect(types).toContain('run.resumed');
    expect(types.at(-1)).toBe('run.completed');
  });

  it('long-polls until the run changes, and returns at once for a paused run', async () => {
    const q = recording();
    const { runId } = await start();
    const poll = h.request('GET', `/test-runs/${runId}`, { key: ws.viewer.key, query: { wait_ms: 25_000 } });
    await new Promise((r) => setTimeout(r, 30));
    await deliver(q, 0);
    const res = await poll;
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('running');
    expect(res.body.data.last_seq).toBeGreaterThan(1);

    h.services.queue = originalQueue;
    const paused = await start('test_approval');
    await local().drain();
    const immediate = await h.request('GET', `/test-runs/${paused.runId}`, {
      key: ws.viewer.key,
      query: { wait_ms: 25_000 },
    });
    expect(immediate.body.data.status).toBe('awaiting_input');
  });

  it('hides another workspace\u2019s run from reads and streams (404)', async () => {
    const { runId } = await start();
    const read = await h.request('GET', `/test-runs/${runId}`, { key: other.admin.key });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('not_found');
    const stream = await h.fetch(`/api/platform/v1/test-runs/${runId}`, {
      headers: { 'x-api-key': other.admin.key, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(404);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

void eq;
void runs;
