import { z } from 'zod';
import { definePipeline } from '../../queues/pipeline.js';
import type { Services } from '../services.js';
import { runClaimedFire, SUBSCRIPTION_FIRE_KIND } from './fire.js';
import { pollSubscription, SUBSCRIPTION_POLL_KIND } from './poll.js';

const FIRE_RETRY = { maxAttempts: 5, baseDelayMs: 5_000, maxDelayMs: 60_000 };

/**
 * One read of a subscription's source, started by the scheduled tick: it plans and cancels fires
 * in the ledger. A provider error is recorded on the subscription (`source.last_error`) and the
 * next read, one poll interval later, tries again; anything else is retried by the engine.
 */
export const subscriptionPollPipeline = definePipeline<Services, { subscription_id: string }, Record<string, never>>({
  kind: SUBSCRIPTION_POLL_KIND,
  input: z.object({ subscription_id: z.uuid() }),
  state: z.object({}),
  stages: {
    poll: async (ctx) => ({ complete: true, output: await pollSubscription(ctx.services, ctx.input.subscription_id) }),
  },
  retry: { maxAttempts: 3, baseDelayMs: 5_000, maxDelayMs: 60_000 },
});

/**
 * One claimed fire of the ledger: its one stage starts the fire's agent run (idempotently: a fire
 * no longer pending is done), as routines/fire-pipeline.ts does for a routine's scheduled time.
 */
export const subscriptionFirePipeline = definePipeline<Services, { fire_id: string }, Record<string, never>>({
  kind: SUBSCRIPTION_FIRE_KIND,
  input: z.object({ fire_id: z.uuid() }),
  state: z.object({}),
  stages: {
    fire: async (ctx) => ({
      complete: true,
      output: await runClaimedFire(ctx.services, ctx.input.fire_id, {
        current: ctx.run.attempt,
        max: FIRE_RETRY.maxAttempts,
      }),
    }),
  },
  retry: FIRE_RETRY,
});
