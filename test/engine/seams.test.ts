import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allOperations } from '../../functions/modules.js';
import { ManualClock } from '../../platform/clock.js';
import { definePipeline, type Pipeline, type StageContext } from '../../queues/pipeline.js';
import { loadRun, readEventsAfter } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { allTestPipelines, approvalPipeline, testRunOperations } from './fixtures.js';

/**
 * The engine's seams: typed pipelines (stored input and state parsed with zod), cancel reaching
 * child runs, waking a waiting run from another run's commit, and the production run operations
 * (read, cancel, resume) as a surface declares them.
 */

const seen = new Map<string, unknown>();

const typedPipeline = definePipeline({
  kind: 'test_typed',
  input: z.object({ n: z.number().int() }).strict(),
  state: z.object({ total: z.number().int().default(0) }),
  stages: {
    add: async (ctx) => {
      seen.set(ctx.run.id, { input: ctx.input, state: ctx.state });
      return { next: 'double', state: { total: ctx.state.total + ctx.input.n } };
    },
    double: async (ctx) => ({ complete: true, output: ctx.state.total * 2 }),
  },
});

/** A run that waits on a child: it re-checks every 60 s unless woken. */
const parentPipeline: Pipeline = {
  kind: 'test_parent',
  order: ['spawn', 'wait'],
  stages: {
    spawn: async (ctx) => ({
      next: 'wait',
      delaySeconds: 60,
      effects: async (scope) => {
        const { runId } = await scope.startRun({
          workspaceId: ctx.run.workspaceId,
          kind: 'test_child',
          parentRunId: ctx.run.id,
          input: { parent: ctx.run.id },
        });
        seen.set(`${ctx.run.id}:child`, runId);
      },
    }),
    wait: async (ctx: StageContext) => {
      const child = await loadRun(ctx.services.db, seen.get(`${ctx.run.id}:child`) as string);
      return child?.status === 'complete' ? { complete: true } : { next: 'wait', delaySeconds: 60 };
    },
  },
};

const childPipeline: Pipeline = {
  kind: 'test_child',
  order: ['work'],
  stages: { work: async () => ({ complete: true }) },
  async onTerminal(run, scope) {
    const parent = run.input.parent as string | undefined;
    if (parent) await scope.wakeRun(parent);
  },
};

/** A child that never finishes by itself (parked for a day), to be canceled through its parent. */
const stuckChildPipeline: Pipeline = {
  kind: 'test_stuck_child',
  order: ['park'],
  stages: { park: async () => ({ next: 'park', delaySeconds: 86_400 }) },
};
const stuckParentPipeline: Pipeline = {
  kind: 'test_stuck_parent',
  order: ['spawn', 'park'],
  stages: {
    spawn: async (ctx) => ({
      next: 'park',
      delaySeconds: 86_400,
      effects: async (scope) => {
        const child = await scope.startRun({
          workspaceId: ctx.run.workspaceId,
          kind: 'test_stuck_child',
          parentRunId: ctx.run.id,
        });
        seen.set(`${ctx.run.id}:child`, child.runId);
        const grandchild = await scope.startRun({
          workspaceId: ctx.run.workspaceId,
          kind: 'test_stuck_child',
          parentRunId: child.runId,
        });
        seen.set(`${ctx.run.id}:grandchild`, grandchild.runId);
      },
    }),
    park: async () => ({ next: 'park', delaySeconds: 86_400 }),
  },
};

const clock = new ManualClock('2026-11-23T10:00:00.000Z');
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({
    clock,
    pipelines: [
      ...allTestPipelines,
      typedPipeline,
      parentPipeline,
      childPipeline,
      stuckChildPipeline,
      stuckParentPipeline,
    ],
    operations: [...allOperations, ...testRunOperations],
  });
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
});
afterAll(async () => h.close());
afterEach(() => seen.clear());

const local = () => h.services.queue as LocalTransport;
const row = async (id: string) => {
  const r = await loadRun(h.services.db, id);
  if (!r) throw new Error('run vanished');
  return r;
};

describe('typed pipelines', () => {
  it('hands each stage its parsed input and state, defaults applied', async () => {
    const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind: 'test_typed', input: { n: 4 } });
    await local().drain();
    expect(seen.get(runId)).toEqual({ input: { n: 4 }, state: { total: 0 } });
    const done = await row(runId);
    expect(done.status).toBe('complete');
    expect(done.outputs.double).toBe(8);
    expect(typedPipeline.order).toEqual(['add', 'double']);
  });

  it('fails a run whose stored input does not parse at once, without retrying it', async () => {
    const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind: 'test_typed', input: { n: 'four' } });
    await local().drain();
    const failed = await row(runId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'invalid_input', stage: 'add' });
    expect(failed.error?.message).toContain('n:');
    expect(failed.totalAttempts).toBe(1);
  });
});

describe('runs that start runs', () => {
  it('a child finishing wakes its waiting parent at once instead of after its 60 s delay', async () => {
    const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind: 'test_parent' });
    await local().drain();
    const childId = seen.get(`${runId}:child`) as string;
    expect((await row(childId)).parentRunId).toBe(runId);
    expect((await row(childId)).status).toBe('complete');
    // No clock moved: only the wake-up can have run the parent's delayed stage.
    expect((await row(runId)).status).toBe('complete');
  });

  it('canceling a run cancels its children and theirs, each with its own run.canceled event', async () => {
    const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind: 'test_stuck_parent' });
    await local().drain();
    const child = seen.get(`${runId}:child`) as string;
    const grandchild = seen.get(`${runId}:grandchild`) as string;
    expect((await row(grandchild)).status).toBe('running');
    const outcome = await h.services.engine.cancel(ws.id, runId, undefined, 'user asked');
    expect(outcome).toEqual({ canceled: true, status: 'canceled' });
    for (const id of [runId, child, grandchild]) expect((await row(id)).status, id).toBe('canceled');
    const childEvents = await readEventsAfter(h.services.db, child, 0);
    expect(childEvents.at(-1)).toMatchObject({
      type: 'run.canceled',
      data: { status: 'canceled', reason: 'parent run canceled', parent_run_id: runId },
    });
    const own = await readEventsAfter(h.services.db, runId, 0);
    expect(own.at(-1)).toMatchObject({ type: 'run.canceled', data: { reason: 'user asked' } });
  });
});

describe('run operations declared with the production helpers', () => {
  it('cancel: a paused run is canceled; an ended one is the surface\u2019s error with the current status', async () => {
    const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind: approvalPipeline.kind });
    await local().drain();
    const res = await h.request('POST', `/test-runs/${runId}/cancel`, {
      key: ws.editor.key,
      body: { reason: 'done with it' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: runId, status: 'canceled' });
    const again = await h.request('POST', `/test-runs/${runId}/cancel`, { key: ws.editor.key });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'cannot_cancel', details: { current_status: 'canceled' } });
  });

  it('resume: a reply outside the pause\u2019s schema is invalid_input and changes nothing; a run not paused is invalid_state', async () => {
    const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind: approvalPipeline.kind });
    await local().drain();
    const bad = await h.request('POST', `/test-runs/${runId}/resume`, {
      key: ws.editor.key,
      body: { input: { approved: 'yes' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'invalid_input',
      details: { validation_error: [expect.objectContaining({ field: 'approved' })] },
    });
    expect((await row(runId)).status).toBe('awaiting_input');
    const ok = await h.request('POST', `/test-runs/${runId}/resume`, {
      key: ws.editor.key,
      body: { input: { approved: true } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.status).toBe('queued');
    await local().drain();
    expect((await row(runId)).outputs.finish).toEqual({ approved: true });
    const late = await h.request('POST', `/test-runs/${runId}/resume`, {
      key: ws.editor.key,
      body: { input: { approved: true } },
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'invalid_state', details: { current_status: 'complete' } });
  });

  it('another workspace\u2019s run is 404 to read, cancel and resume, and stays as it was', async () => {
    const { runId } = await h.services.engine.start({ workspaceId: ws.id, kind: approvalPipeline.kind });
    await local().drain();
    for (const [method, path, body] of [
      ['GET', `/test-runs/${runId}`, undefined],
      ['POST', `/test-runs/${runId}/cancel`, {}],
      ['POST', `/test-runs/${runId}/resume`, { input: { approved: true } }],
    ] as const) {
      const res = await h.request(method, path, { key: other.admin.key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await row(runId)).status).toBe('awaiting_input');
  });
});
