import { z } from '@hono/zod-openapi';
import { ApiError } from '../../platform/errors.js';
import { defineOperation, type OperationContext } from '../registry.js';
import { assembleResponse } from './assemble.js';
import { searchFields } from './fields-operation.js';
import { runFilterLane } from './filter-lane.js';
import { runFuzzyLane } from './fuzzy-lane.js';
import { collectSearchJob, SEARCH_JOB_KIND, startSearchJob } from './jobs.js';
import { loadWorkspaceRun } from '../../queues/run-store.js';
import type { LaneRunner } from './lane.js';
import { semanticOverview, surfaceOverview } from './overview.js';
import { SearchRequestSchema, type Lane } from './request.js';
import { SearchQueryOutputSchema, SearchResponseSchema, type SearchResponse } from './response.js';
import { runSemanticLaneWithKnowledge } from './semantic-knowledge.js';
import { resolveSearch } from './validate.js';

export const LANES: Record<Lane, LaneRunner> = {
  filter: runFilterLane,
  fuzzy: runFuzzyLane,
  semantic: runSemanticLaneWithKnowledge,
};

const common = {
  tags: ['Search'],
  scopes: ['data:read'] as const,
  minRole: 'viewer' as const,
  stability: 'beta' as const,
  visibility: 'public' as const,
};

export const searchQuery = defineOperation({
  ...common,
  id: 'search.query',
  example: { query: 'pricing objections from enterprise accounts last quarter', mode: 'auto', limit: 20 },
  method: 'post',
  path: '/search/query',
  summary: 'Routed search: typed filters, natural language (fuzzy) or meaning (semantic)',
  description:
    'Past validation every answer is `success: true`; degradations are typed fields (`corpus.empty_reason`, `corpus.degraded`, `detail.coverage`), never errors. ' +
    '`mode: auto` sends filters without text to the filter lane, meaning-shaped wording to the semantic lane, anything else to the fuzzy lane. ' +
    'With `async: true` the fuzzy lane returns a job handle; collect it by sending `{"job_id": ...}` alone (each collection counts toward the per-user limit); ' +
    "the same body with `Accept: text/event-stream` streams the job's run events until it ends. " +
    'Coverage age buckets are disjoint (0–7 days, 7–30, 30–90, older). Gap detection (`coverage: true`) reports, within the span of the result, the weeks in which the corpus held rows and the result none.',
  mcp: { tool: 'search', action: 'query' },
  body: SearchRequestSchema,
  output: SearchQueryOutputSchema,
  rateLimit: { limit: 10, windowSeconds: 60 },
  quota: 'search',
  readOnly: true,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    if (input.job_id) {
      const others = Object.keys(input).filter(
        (k) => k !== 'job_id' && (input as Record<string, unknown>)[k] !== undefined,
      );
      if (others.length > 0) {
        throw new ApiError(
          'invalid_argument',
          `Invalid request: job_id must be sent alone (also got ${others.join(', ')})`,
          {
            fields: others.map((field) => ({ field, problem: 'not allowed with job_id', code: 'job_id_alone' })),
          },
        );
      }
      return collectSearchJob(services, caller.workspaceId, input.job_id);
    }
    const { search, ignored } = await resolveSearch(input, services.model);
    if (search.lane === 'fuzzy' && input.async)
      return startSearchJob(services, caller.workspaceId, caller.userId, { search, ignored });
    return runResolvedSearch(ctx, search, ignored);
  },
  /**
   * `{"job_id": ...}` with `Accept: text/event-stream` streams the job's run events (replayed from
   * the first; a job has a handful), ending after run.completed / run.failed; then collect it.
   */
  async stream(ctx, input) {
    if (!input.job_id) {
      throw new ApiError(
        'invalid_argument',
        'Invalid request: only an async job streams; send {"job_id": ...} alone with Accept: text/event-stream.',
        {
          fields: [{ field: 'job_id', problem: 'required to stream', code: 'required' }],
        },
      );
    }
    await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, input.job_id, [SEARCH_JOB_KIND]);
    return { runId: input.job_id, after: 0 };
  },
});

const SurfaceOverviewSchema = z
  .object({
    row_count: z.number().int(),
    earliest_event_at: z.string().nullable(),
    latest_event_at: z.string().nullable(),
  })
  .nullable()
  .openapi({ description: 'Null when the surface could not be read (never 0 for unknown).' });

export const searchOverview = defineOperation({
  ...common,
  id: 'search.overview',
  method: 'get',
  path: '/search/overview',
  summary: 'Row counts and time spans of the queryable surfaces',
  mcp: { tool: 'search', action: 'overview', resource: 'search_overview://current' },
  output: z
    .object({
      surfaces: z.object({
        interactions: SurfaceOverviewSchema,
        deals: SurfaceOverviewSchema,
        deal_qualification: SurfaceOverviewSchema,
      }),
      semantic: z.object({
        utterances_external: SurfaceOverviewSchema,
        themes: SurfaceOverviewSchema,
        embedder: z.string(),
      }),
    })
    .openapi('SearchOverview'),
  async handler(ctx) {
    const { db, embedder } = ctx.services;
    return {
      surfaces: await surfaceOverview(db, ctx.caller.workspaceId),
      semantic: { ...(await semanticOverview(db, ctx.caller.workspaceId, embedder.id)), embedder: embedder.id },
    };
  },
});

/** One resolved search run synchronously in its lane, as the caller, and its response assembled. */
async function runResolvedSearch(
  ctx: OperationContext,
  search: Awaited<ReturnType<typeof resolveSearch>>['search'],
  ignored: Awaited<ReturnType<typeof resolveSearch>>['ignored'],
) {
  const { services, caller } = ctx;
  const now = services.clock.now();
  const outcome = await LANES[search.lane]({
    services,
    workspaceId: caller.workspaceId,
    search,
    now,
    signal: ctx.signal,
  });
  return assembleResponse(services, caller.workspaceId, search, outcome, ignored, now);
}

/**
 * `search.query` run as one step of another operation (an analysis): the same validation, lane and
 * response a client gets, checked against the same output schema, without counting a call of its own
 * against the per-user limit and the monthly quota (the calling operation is counted). Synchronous only.
 * The body is the operation's own, so one the schema refuses is a defect, not the caller's error.
 */
export async function searchWithin(
  ctx: OperationContext,
  body: z.input<typeof SearchRequestSchema>,
): Promise<SearchResponse> {
  const input = SearchRequestSchema.parse(body);
  const { search, ignored } = await resolveSearch(input, ctx.services.model);
  return SearchResponseSchema.parse(await runResolvedSearch(ctx, search, ignored));
}

export const searchOperations = [searchQuery, searchFields, searchOverview];
