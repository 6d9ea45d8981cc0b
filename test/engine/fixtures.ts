import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { NonRetryableError, type Pipeline, type StageContext, type StageResult } from '../../queues/pipeline.js';
import type { PublishRequest, PublishResult, QueueTransport } from '../../queues/transport/port.js';
import { usageCounters } from '../../schema/index.js';

/**
 * A three-stage test pipeline whose every stage applies one transactional effect: it increments a
 * counter row (usage_counters, family "effect:<stage>", period = run id). Exactly-once shows as 1.
 * Per-run hooks let a test make a stage hang (a crash), fail, or wait for cancellation.
 */
export type StageHook = (stage: string, ctx: StageContext) => Promise<void> | void;
export const hooks = new Map<string, StageHook>();
export const invocations = new Map<string, string[]>();

const stage =
  (name: string, next: string | null) =>
  async (ctx: StageContext): Promise<StageResult> => {
    invocations.set(ctx.run.id, [...(invocations.get(ctx.run.id) ?? []), `${name}#${ctx.run.attempt}`]);
    await hooks.get(ctx.run.id)?.(name, ctx);
    const previous = (ctx.run.state.trail as string[] | undefined) ?? [];
    const base = {
      output: { stage: name, attempt: ctx.run.attempt },
      state: { trail: [...previous, name] },
      events: [{ type: 'test.progress', data: { stage: name } }],
      effects: async ({ tx }: { tx: Queryable }) => {
        await tx
          .insert(usageCounters)
          .values({ workspaceId: ctx.run.workspaceId, family: `effect:${name}`, period: ctx.run.id, used: 1 })
          .onConflictDoUpdate({
            target: [usageCounters.workspaceId, usageCounters.family, usageCounters.period],
            set: { used: sql`${usageCounters.used} + 1` },
          });
      },
    };
    return next ? { ...base, next } : { ...base, complete: true };
  };

export const threeStagePipeline: Pipeline = {
  kind: 'test_three',
  order: ['alpha', 'beta', 'gamma'],
  stages: { alpha: stage('alpha', 'beta'), beta: stage('beta', 'gamma'), gamma: stage('gamma', null) },
  deadlineMs: 5_000,
  retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000 },
};

/** Pauses once for a yes/no approval, then completes with the answer. */
export const approvalPipeline: Pipeline = {
  kind: 'test_approval',
  order: ['ask', 'finish'],
  stages: {
    ask: async () => ({
      pause: {
        type: 'approval',
        schema: { type: 'object', properties: { approved: { type: 'boolean' } } },
        context: { question: 'Proceed?' },
      },
      next: 'finish',
    }),
    finish: async (ctx) => ({ complete: true, output: { approved: ctx.run.state.approved } }),
  },
  resume: {
    schema: () => z.object({ approved: z.boolean() }).strict(),
    apply: (reply) => ({ approved: (reply as { approved: boolean }).approved }),
  },
};

export const failingPipeline = (kind: string, error: () => Error): Pipeline => ({
  kind,
  order: ['only'],
  stages: {
    only: async (ctx) => {
      invocations.set(ctx.run.id, [...(invocations.get(ctx.run.id) ?? []), `only#${ctx.run.attempt}`]);
      await hooks.get(ctx.run.id)?.('only', ctx);
      throw error();
    },
  },
  retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000 },
});

export const flakyPipeline = failingPipeline(
  'test_flaky',
  () => new ApiError('dependency_unavailable', 'upstream hiccup'),
);
export const fatalPipeline = failingPipeline(
  'test_fatal',
  () => new NonRetryableError('bad_input', 'the input can never work'),
);

export async function effectCount(
  db: Queryable,
  workspaceId: string,
  runId: string,
  stageName: string,
): Promise<number> {
  const [row] = await db
    .select({ used: usageCounters.used })
    .from(usageCounters)
    .where(
      and(
        eq(usageCounters.workspaceId, workspaceId),
        eq(usageCounters.family, `effect:${stageName}`),
        eq(usageCounters.period, runId),
      ),
    );
  return row?.used ?? 0;
}

/** A queue that only records what is published, so a test can deliver by hand. */
export class RecordingQueue implements QueueTransport {
  readonly name = 'local' as const;
  readonly published: PublishRequest[] = [];
  failNext = 0;
  async publish(request: PublishRequest): Promise<PublishResult> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('queue unreachable');
    }
    this.published.push(request);
    return { messageId: String(this.published.length) };
  }
  last(): PublishRequest {
    const last = this.published.at(-1);
    if (!last) throw new Error('nothing published');
    return last;
  }
}

export const allTestPipelines = [threeStagePipeline, approvalPipeline, flakyPipeline, fatalPipeline];

// ---- the production run operations, declared for the test kinds ------------------------------
import { z as zo } from '@hono/zod-openapi';
import { defineRunCancel, defineRunRead, defineRunResume } from '../../functions/runs/run-operations.js';

const testKinds = allTestPipelines.map((p) => p.kind);
const TestRunSchema = zo.object({
  id: zo.string(),
  status: zo.string(),
  stage: zo.string().nullable(),
  last_seq: zo.number(),
});
const common = {
  tags: ['Test'],
  scopes: [],
  minRole: 'viewer' as const,
  stability: 'beta' as const,
  idParam: 'id',
  kinds: testKinds,
};
const render = async (_ctx: unknown, row: { id: string; status: string; stage: string | null; lastSeq: number }) => ({
  id: row.id,
  status: row.status,
  stage: row.stage,
  last_seq: row.lastSeq,
});

export const testRunRead = defineRunRead({
  ...common,
  id: 'test.run_read',
  path: '/test-runs/{id}',
  summary: 'Read a test run (long-poll with wait_ms; SSE with Accept: text/event-stream)',
  output: TestRunSchema,
  render,
});

export const testRunCancel = defineRunCancel({
  ...common,
  id: 'test.run_cancel',
  path: '/test-runs/{id}/cancel',
  summary: 'Cancel a test run',
  output: TestRunSchema,
  whenEnded: (status) => new ApiError('cannot_cancel', `The run is already ${status}.`, { current_status: status }),
  render,
});

export const testRunResume = defineRunResume({
  ...common,
  id: 'test.run_resume',
  path: '/test-runs/{id}/resume',
  summary: 'Answer a paused test run',
  body: zo.object({ input: zo.record(zo.string(), zo.unknown()) }).strict(),
  reply: (input) => input.input,
  output: TestRunSchema,
  render,
});

export const testRunOperations = [testRunRead, testRunCancel, testRunResume];
