import { z } from '@hono/zod-openapi';
import { isApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { recordFinishedRun } from '../../queues/run-store.js';
import { runCallerOf } from '../identity/run-caller.js';
import { defineOperation, type Operation } from '../registry.js';
import { CHANNELS, inferChannel } from './channel.js';
import { ExtractionSchema } from './extraction.js';
import { optimizeMessage } from './optimizer.js';

export const MESSAGE_OPTIMIZE_KIND = 'message_optimize';

const OptimizeBody = z
  .object({
    message: z.string().min(1).max(10_000).openapi({ description: 'The outbound draft (up to 10,000 characters).' }),
    channel: z.enum(CHANNELS).optional().openapi({
      description:
        'email, linkedin or whatsapp; inferred from the draft when omitted. Only email blends in the reply-probability model.',
    }),
  })
  .strict();

const OptimizeResult = z
  .union([
    z.object({
      ok: z.literal(true),
      message: z.string(),
      summary: z.string(),
      unchanged: z.boolean(),
      run_id: z.uuid(),
      channel: z.enum(CHANNELS),
      extraction: ExtractionSchema,
    }),
    z.object({
      ok: z.literal(false),
      reason: z.enum(['optimizer_unconfigured', 'optimizer_timeout', 'optimizer_error']),
      run_id: z.uuid().nullable(),
    }),
  ])
  .openapi('OptimizeResult');

export const optimizeOperation = defineOperation({
  id: 'messages.optimize',
  example: {
    message: 'Hi Jordan, we help teams like yours cut onboarding time. Do you have 15 minutes next week?',
    channel: 'email',
  },
  method: 'post',
  path: '/messages/optimize',
  summary: "Rewrite one outbound draft in the sender's voice, keeping the best-scoring of up to three rounds",
  description:
    'Synchronous. Up to three rewrite rounds, each graded with the message rubric for the channel and four 1-5 dimensions; for `email`, a reply-probability model (features and weights in `functions/messages/reply-model.ts`) is half the score. ' +
    "The best-scoring version is returned, possibly the submitted text (`unchanged: true`); rounds that cannot be graded are left out. It does not verify factual claims. The sender is the credential's member. " +
    '`ok: false` with `reason` `optimizer_unconfigured` (OPTIMIZER_ENABLED=0), `optimizer_timeout` (past OPTIMIZER_TIMEOUT_MS, 45 s by default) or `optimizer_error`, and no message. Counted in the optimizer family (1,000 a month per workspace). REST only, not on MCP.',
  tags: ['Messages'],
  scopes: ['messages:execute'],
  minRole: 'editor',
  stability: 'beta',
  visibility: 'public',
  agentTool: false,
  quota: 'optimizer',
  body: OptimizeBody,
  output: OptimizeResult,
  async handler({ services, caller, signal }, input) {
    if (!services.config.OPTIMIZER_ENABLED)
      return { ok: false as const, reason: 'optimizer_unconfigured' as const, run_id: null };
    const channel = input.channel ?? inferChannel(input.message);
    const startedAt = services.clock.now();
    const runId = newId();
    const budgetMs = services.config.OPTIMIZER_TIMEOUT_MS ?? 45_000;
    const deadline = AbortSignal.timeout(budgetMs);
    const record = (
      status: 'complete' | 'failed',
      output: Record<string, unknown>,
      error: { code: string; message: string } | null,
    ) =>
      recordFinishedRun(services.db, {
        id: runId,
        workspaceId: caller.workspaceId,
        kind: MESSAGE_OPTIMIZE_KIND,
        status,
        input: { channel, message: input.message, channel_inferred: input.channel === undefined, sender: caller.email },
        output,
        error,
        caller: runCallerOf(caller),
        createdBy: caller.userId,
        startedAt,
        now: services.clock.now(),
      });
    try {
      const result = await optimizeMessage(
        services.model,
        { message: input.message, channel },
        AbortSignal.any([signal, deadline]),
      );
      await record(
        'complete',
        {
          message: result.best.message,
          unchanged: result.unchanged,
          summary: result.summary,
          rounds: result.rounds,
          extraction: result.extraction,
        },
        null,
      );
      return {
        ok: true as const,
        message: result.best.message,
        summary: result.summary,
        unchanged: result.unchanged,
        run_id: runId,
        channel,
        extraction: result.extraction,
      };
    } catch (error) {
      if (signal.aborted && !deadline.aborted) throw error;
      const reason = deadline.aborted ? ('optimizer_timeout' as const) : ('optimizer_error' as const);
      services.log.warn('message optimizer failed', { reason, error: isApiError(error) ? error.code : String(error) });
      await record(
        'failed',
        {},
        {
          code: reason,
          message: deadline.aborted
            ? `The optimizer passed its ${budgetMs / 1000} s budget.`
            : 'The optimizer could not finish.',
        },
      );
      return { ok: false as const, reason, run_id: runId };
    }
  },
});

export const messageOperations: Operation[] = [optimizeOperation];
