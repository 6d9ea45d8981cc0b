import { z } from 'zod';
import { RoutineFireInputSchema, runScheduledFire, ROUTINE_FIRE_KIND, type RoutineFireInput } from './fire.js';
import type { Services } from '../services.js';
import { definePipeline } from '../../queues/pipeline.js';

/**
 * One scheduled fire of a routine, claimed by the scheduler's tick: its one stage starts the fire's
 * agent run (idempotently: a fire already started is done). Keeping this out of the tick keeps the
 * tick to a handful of statements however many routines are due.
 */
export const routineFirePipeline = definePipeline<Services, RoutineFireInput, Record<string, never>>({
  kind: ROUTINE_FIRE_KIND,
  input: RoutineFireInputSchema,
  state: z.object({}),
  stages: {
    fire: async (ctx) => ({ complete: true, output: await runScheduledFire(ctx.services, ctx.input) }),
  },
  retry: { maxAttempts: 5, baseDelayMs: 5_000, maxDelayMs: 60_000 },
});
