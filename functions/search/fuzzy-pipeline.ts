import { z } from 'zod';
import { assembleResponse } from './assemble.js';
import { runFuzzyLane } from './fuzzy-lane.js';
import { SEARCH_JOB_KIND, SearchJobInputSchema } from './jobs.js';
import type { Services } from '../services.js';
import { definePipeline } from '../../queues/pipeline.js';

/**
 * An async fuzzy search (up to 12 subqueries): one stage runs the lane and stores the whole
 * response, corpus included, as its output; collecting the job returns it. A read that fails
 * inside the lane is an honest `read_failed` answer, not a retry: the caller sees it and retries.
 */
export const searchFuzzyPipeline = definePipeline<
  Services,
  z.infer<typeof SearchJobInputSchema>,
  Record<string, never>
>({
  kind: SEARCH_JOB_KIND,
  input: SearchJobInputSchema,
  state: z.object({}).strict(),
  stages: {
    async search(ctx) {
      const { search, ignored } = ctx.input;
      const now = ctx.services.clock.now();
      const outcome = await runFuzzyLane({
        services: ctx.services,
        workspaceId: ctx.run.workspaceId,
        search,
        now,
        signal: ctx.signal,
      });
      await ctx.checkpoint();
      const response = await assembleResponse(ctx.services, ctx.run.workspaceId, search, outcome, ignored, now);
      return { complete: true, output: response };
    },
  },
  deadlineMs: 60_000,
  retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 },
});
