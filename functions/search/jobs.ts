import { ApiError } from '../../platform/errors.js';
import { loadWorkspaceRun } from '../../queues/run-store.js';
import type { Services } from '../services.js';
import { z } from 'zod';
import type { ResolvedSearch } from './lane.js';
import { FilterSchema, MetricSchema, SEARCH_LIMITS } from './request.js';
import type { SearchResponse } from './response.js';

export const SEARCH_JOB_KIND = 'search_fuzzy';

export interface SearchJobInput extends Record<string, unknown> {
  search: ResolvedSearch;
  ignored: string[];
}

/** The job's input as the queue delivers it back (stored JSON): checked before the stage trusts it. */
export const SearchJobInputSchema: z.ZodType<SearchJobInput> = z.object({
  search: z.object({
    lane: z.literal('fuzzy'),
    query: z.string().min(1).max(SEARCH_LIMITS.queryChars),
    surface: z.enum(['interactions', 'deals', 'deal_qualification']),
    audience: z.enum(['all', 'customer_voice']),
    hydrate: z.boolean(),
    ranking: z.enum(['similarity', 'hybrid']).default('similarity'),
    coverage: z.boolean(),
    filters: z.array(FilterSchema),
    orderBy: z.object({ field: z.string(), dir: z.enum(['asc', 'desc']) }).nullable(),
    limit: z.number().int().min(1).max(SEARCH_LIMITS.limit),
    groupBy: z.array(z.string()),
    metrics: z.array(MetricSchema),
    fields: z.array(z.string()).nullable().default(null),
    maxSubqueries: z.number().int().min(1).max(SEARCH_LIMITS.maxSubqueriesAsync),
  }),
  ignored: z.array(z.string()),
});

const POLL_HINT = 'POST /search/query with {"job_id": "<job_id>"} alone';

/** Start an async fuzzy search on the run engine; the handshake carries no corpus. */
export async function startSearchJob(services: Services, workspaceId: string, userId: string, input: SearchJobInput) {
  const { runId } = await services.engine.start({ workspaceId, kind: SEARCH_JOB_KIND, input, createdBy: userId });
  return {
    success: true as const,
    mode_ran: 'fuzzy' as const,
    job: { job_id: runId, status: 'queued' as const, poll: POLL_HINT },
  };
}

/**
 * Collect a job by id: still working → the handle again; complete → the full response (with its
 * corpus) plus the job; failed → an honest read_failed response. Another workspace's job is 404.
 */
export async function collectSearchJob(
  services: Services,
  workspaceId: string,
  jobId: string,
): Promise<SearchResponse | ReturnType<typeof handle>> {
  const run = await loadWorkspaceRun(services.db, workspaceId, jobId, [SEARCH_JOB_KIND]);
  if (run.status === 'complete') {
    const response = run.outputs.search as SearchResponse | undefined;
    if (!response) throw new ApiError('internal', 'The search job completed without a result.');
    return { ...response, job: { job_id: jobId, status: 'complete' } };
  }
  if (run.status === 'failed' || run.status === 'canceled') {
    const input = run.input as SearchJobInput;
    return {
      success: true,
      mode_ran: 'fuzzy',
      results: [],
      compiled: { sql: '' },
      detail: {
        internal: { status: 'read_failed', rows: null, row_count: 0 },
        message: `The search job ${run.status === 'failed' ? 'failed' : 'was canceled'}${run.error ? `: ${run.error.message}` : ''}. Start it again.`,
        coverage: null,
      },
      corpus: {
        store: 'warehouse',
        grain: 'row',
        row_count: 0,
        match_count: 0,
        content: 'full',
        filters_applied: false,
        ignored_params: input.ignored ?? [],
        audience_applied: false,
        empty_reason: 'read_failed',
        coverage: {
          basis: 'unavailable',
          basis_reason: 'no_rows',
          max_timestamp: null,
          min_timestamp: null,
          age_buckets: {
            last_7d: { row_count: 0 },
            last_30d: { row_count: 0 },
            last_90d: { row_count: 0 },
            older: { row_count: 0 },
          },
          dated_row_count: 0,
          gaps_status: input.search?.coverage ? 'unavailable' : 'not_requested',
          ...(input.search?.coverage ? { gaps_reason: 'job_failed' } : {}),
        },
      },
      job: { job_id: jobId, status: 'failed' },
    };
  }
  return handle(jobId, run.status === 'queued' ? 'queued' : 'running');
}

const handle = (jobId: string, status: 'queued' | 'running') => ({
  success: true as const,
  mode_ran: 'fuzzy' as const,
  job: { job_id: jobId, status, poll: POLL_HINT },
});
