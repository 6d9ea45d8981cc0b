import { z } from '@hono/zod-openapi';
import { readsDates } from '../../platform/validation.js';
import { WAREHOUSE_SURFACES } from '../../schema/warehouse-settings.js';

/** Limits of the search request (spec, Limits: Search). */
export const SEARCH_LIMITS = {
  queryChars: 2000,
  filters: 32,
  inValues: 200,
  groupBy: 8,
  metrics: 8,
  limit: 1000,
  maxSubqueriesSync: 5,
  maxSubqueriesAsync: 12,
  /** Semantic falling back to the theme index clamps its limit to this. */
  themeLimit: 50,
} as const;

export const DEFAULT_LIMITS = { filter: 100, semantic: 100, fuzzy: 50 } as const;

export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'in',
  'not_in',
  'between',
  'is_null',
  'not_null',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const METRIC_FUNCTIONS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'share'] as const;
export type MetricFunction = (typeof METRIC_FUNCTIONS)[number];

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/**
 * A typed predicate. The value's shape per operator (scalar, array, [low, high], none) and its type
 * per field are checked against the field vocabulary by the filter compiler, which names the
 * offending `filters.<i>.value`.
 */
export const FilterSchema = z
  .object({
    field: z.string().min(1).max(100),
    op: z.enum(FILTER_OPERATORS),
    value: z.union([scalar, z.array(scalar).max(SEARCH_LIMITS.inValues), z.null()]).optional(),
  })
  .strict()
  .openapi('SearchFilter');
export type Filter = z.infer<typeof FilterSchema>;

export const MetricSchema = z
  .object({ fn: z.enum(METRIC_FUNCTIONS), field: z.string().min(1).max(100).optional() })
  .strict()
  .openapi('SearchMetric');
export type Metric = z.infer<typeof MetricSchema>;

export const SearchRequestSchema = z
  .object({
    query: readsDates(z.string().max(SEARCH_LIMITS.queryChars))
      .optional()
      .openapi({ description: 'Free text for the fuzzy and semantic lanes (up to 2000 characters).' }),
    mode: z.enum(['auto', 'filter', 'fuzzy', 'semantic']).optional().openapi({ default: 'auto' }),
    max_subqueries: z
      .number()
      .int()
      .min(1)
      .max(SEARCH_LIMITS.maxSubqueriesAsync)
      .optional()
      .openapi({ default: 3, description: 'Fuzzy: at most 5, or 12 with async: true.' }),
    async: z
      .boolean()
      .optional()
      .openapi({ default: false, description: 'Fuzzy: run as a background job and return a handle.' }),
    job_id: z.uuid().optional().openapi({ description: 'Collect an async job; send it alone.' }),
    surface: z
      .enum(WAREHOUSE_SURFACES)
      .optional()
      .openapi({ default: 'interactions', description: 'Filter lane only.' }),
    audience: z.enum(['all', 'customer_voice']).optional().openapi({ default: 'all' }),
    hydrate: z
      .boolean()
      .optional()
      .openapi({ default: false, description: 'Semantic only: bridge each match to its turn.' }),
    ranking: z.enum(['similarity', 'hybrid']).optional().openapi({
      default: 'similarity',
      description:
        'Semantic only: `similarity` orders matches by cosine similarity alone; `hybrid` fuses it by rank with BM25 over the conversation around each match (the turns near it) and weighs each row by how much it says, so a short generic turn ("Sounds good.") cannot outrank an informative one. What the agents use to find what customers said. `corpus.ranking` says which ran; hybrid rows carry `hybrid_score`, the fused score they are ordered by.',
    }),
    coverage: z
      .boolean()
      .optional()
      .openapi({ default: false, description: 'Adds gap detection at the cost of one extra read.' }),
    filters: z.array(FilterSchema).max(SEARCH_LIMITS.filters).optional().openapi({ default: [] }),
    order_by: z
      .object({ field: z.string().min(1).max(100), dir: z.enum(['asc', 'desc']).default('asc') })
      .strict()
      .optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(SEARCH_LIMITS.limit)
      .optional()
      .openapi({ description: 'Default 100 (filter, semantic) or 50 (fuzzy); max 1000.' }),
    group_by: z.array(z.string().min(1).max(100)).max(SEARCH_LIMITS.groupBy).optional(),
    metrics: z.array(MetricSchema).max(SEARCH_LIMITS.metrics).optional(),
    fields: z.array(z.string().min(1).max(100)).min(1).max(SEARCH_LIMITS.filters).optional().openapi({
      description:
        'Filter lane, row results: only these vocabulary fields in each row (default: every field). Keeps a long list small enough for an agent transcript. Not with group_by or metrics.',
    }),
  })
  .strict()
  .openapi('SearchRequest');
/** The request as the caller sent it: absent fields stay absent, so the lanes can tell what was asked. */
export type SearchRequest = z.output<typeof SearchRequestSchema>;
export type Lane = 'filter' | 'fuzzy' | 'semantic';
