import { z } from 'zod';
import { definePipeline, NonRetryableError } from '../../queues/pipeline.js';
import { ENRICH_SUBJECT_KINDS } from '../../schema/enrichment.js';
import type { Services } from '../services.js';
import { buildFullBrief } from './build.js';
import { ENRICH_REFRESH_KIND, storeBrief } from './cache.js';

const RefreshInputSchema = z
  .object({
    subject: z
      .object({
        kind: z.enum(ENRICH_SUBJECT_KINDS),
        key: z.string().min(1),
        label: z.string().min(1),
        domain: z.string().optional(),
        name: z.string().optional(),
        email: z.string().optional(),
        linkedinUrl: z.string().optional(),
        topic: z.string().optional(),
      })
      .strict(),
    limit: z.number().int().min(1).max(50),
  })
  .strict();

/**
 * The background rebuild of a brief (a cache miss with external_search:execute): one stage reads
 * the evidence, asks the external search and verifies the brief, then commits its document and the
 * cache row with the stage. A failed external search is written into the brief (`external.status`),
 * not retried: the customer half is worth caching and the next miss after it expires tries again.
 */
export const enrichRefreshPipeline = definePipeline<
  Services,
  z.infer<typeof RefreshInputSchema>,
  Record<string, never>
>({
  kind: ENRICH_REFRESH_KIND,
  input: RefreshInputSchema,
  state: z.object({}).strict(),
  stages: {
    async build(ctx) {
      const caller = ctx.run.caller;
      if (!caller)
        throw new NonRetryableError('no_caller', 'An enrichment refresh runs as the caller that asked for it.');
      const { subject, limit } = ctx.input;
      const brief = await buildFullBrief(ctx.services, ctx.run.workspaceId, subject, limit, ctx.signal);
      await ctx.checkpoint();
      return {
        complete: true,
        output: { verified: brief.grounding.verified, external: brief.external.status },
        effects: async (scope) => {
          await storeBrief(scope, ctx.run.workspaceId, subject, brief, caller.user_id, ctx.run.id);
        },
      };
    },
  },
  deadlineMs: 60_000,
  retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 },
});
