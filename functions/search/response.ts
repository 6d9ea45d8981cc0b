import { z } from '@hono/zod-openapi';
import { INTERACTION_KINDS } from '../../schema/warehouse-interactions.js';

const isoOrNull = z.string().nullable().openapi({ format: 'date-time' });

export const EMPTY_REASONS = ['no_match', 'scope_disjoint', 'not_synced', 'read_failed'] as const;
export type EmptyReason = (typeof EMPTY_REASONS)[number];

export const AGE_BUCKETS = ['last_7d', 'last_30d', 'last_90d', 'older'] as const;

export const CorpusCoverageSchema = z
  .object({
    basis: z
      .enum(['matched_set', 'returned_rows', 'unavailable'])
      .openapi({ description: 'What the figures cover; never read unavailable as zero.' }),
    basis_reason: z.enum(['truncated', 'aggregate', 'no_time_field', 'no_rows']).optional(),
    max_timestamp: isoOrNull,
    min_timestamp: isoOrNull,
    age_buckets: z
      .object(
        Object.fromEntries(AGE_BUCKETS.map((b) => [b, z.object({ row_count: z.number().int() })])) as Record<
          (typeof AGE_BUCKETS)[number],
          z.ZodObject<{ row_count: z.ZodNumber }>
        >,
      )
      .openapi({
        description: 'Disjoint buckets by event age: 0–7 days, 7–30, 30–90, older; they sum to dated_row_count.',
      }),
    dated_row_count: z.number().int(),
    gaps_status: z.enum(['not_requested', 'ok', 'unavailable']),
    gaps: z.array(z.object({ start: z.string(), end: z.string(), corpus_row_count: z.number().int() })).optional(),
    gaps_reason: z.string().optional(),
    gaps_baseline: z.enum(['interactions', 'interactions_external']).optional(),
  })
  .openapi('SearchCoverage');
export type CorpusCoverage = z.infer<typeof CorpusCoverageSchema>;

/** The semantic lane's second source: whether the knowledge bank's document nodes were searched, and why not. */
export const KnowledgeInCorpusSchema = z
  .object({
    searched: z.boolean(),
    match_count: z
      .number()
      .int()
      .openapi({ description: 'Document nodes with positive similarity (before the limit).' }),
    reason: z.string().optional().openapi({ description: 'Why the documents were not searched.' }),
  })
  .openapi('SearchCorpusKnowledge');
export type KnowledgeInCorpus = z.infer<typeof KnowledgeInCorpusSchema>;

export const CorpusSchema = z
  .object({
    store: z.enum(['warehouse', 'pgvector', 'theme_index']),
    grain: z.enum(['row', 'utterance', 'theme']),
    surface: z.enum(['interactions', 'deals', 'deal_qualification']).optional(),
    row_count: z.number().int(),
    match_count: z.number().int(),
    hydrated_grain: z.enum(['turn', 'call']).optional(),
    unresolved_matches: z.number().int().optional(),
    collapsed_matches: z.number().int().optional(),
    truncated: z.literal(true).optional(),
    content: z.enum(['full', 'preview']),
    speaker_scope: z.literal('external_only').optional(),
    filters_applied: z.boolean(),
    ignored_params: z.array(z.string()),
    audience_applied: z.boolean(),
    empty_reason: z.enum(EMPTY_REASONS).optional(),
    degraded: z.literal(true).optional(),
    ranking: z.enum(['similarity', 'hybrid']).optional().openapi({
      description:
        'Semantic lane over utterances only: the order that ran. `hybrid` rows carry `hybrid_score`, the fused score they are ordered by (beside the cosine `similarity`); absent when the lane degraded to the theme index, where no ranking applies.',
    }),
    knowledge: KnowledgeInCorpusSchema.optional().openapi({
      description:
        "Semantic lane only: the workspace's document nodes are a second source, merged by similarity (each result's `source` is `conversations` or `knowledge`).",
    }),
    coverage: CorpusCoverageSchema,
  })
  .openapi('SearchCorpus');
export type Corpus = z.infer<typeof CorpusSchema>;

export const DetailCoverageSchema = z
  .object({
    latest_event_at: isoOrNull,
    latest_ingest_at: isoOrNull,
    total_rows: z.number().int(),
    days_behind: z.number().int().nullable(),
    is_stale: z.boolean(),
  })
  .openapi('SearchFreshness');
export type DetailCoverage = z.infer<typeof DetailCoverageSchema>;

const SubqueryReportSchema = z.object({
  terms: z.array(z.string()),
  match: z.enum(['all', 'any']),
  phrases: z.array(z.string()),
  accounts: z.array(z.string()),
  kinds: z.array(z.enum(INTERACTION_KINDS)),
  fields: z.array(z.object({ field: z.string(), op: z.string(), value: z.union([z.string(), z.number()]) })).openapi({
    description:
      'Field restrictions read from the wording (direction, source, duration_seconds, deal_stage, account_type).',
  }),
  since: isoOrNull,
  until: isoOrNull,
  matched: z.number().int().openapi({ description: 'Interactions this subquery matched (before the limit).' }),
});

/** The fuzzy lane's plan as it ran: what a reader needs to see why rows did or did not come back. */
export const FuzzyPlanReportSchema = z
  .object({
    planner: z.string().openapi({ description: 'The model that planned (`local` for the deterministic rules).' }),
    date_phrase: z.string().nullable(),
    accounts: z
      .array(z.object({ asked: z.string(), matched: z.array(z.object({ id: z.uuid(), name: z.string() })) }))
      .openapi({
        description:
          'Each company the ask named and the accounts it resolved to (an exact name, else names holding it as whole words, else the closest misspellings); none matched means its words were searched as terms.',
      }),
    subqueries: z.array(SubqueryReportSchema),
  })
  .openapi('SearchFuzzyPlan');
export type FuzzyPlanReport = z.infer<typeof FuzzyPlanReportSchema>;

export const INTERNAL_STATUSES = ['ok', 'empty', 'degraded', 'read_failed'] as const;

export const SearchResponseSchema = z
  .object({
    success: z.literal(true),
    mode_ran: z.enum(['filter', 'fuzzy', 'semantic']),
    results: z.array(z.record(z.string(), z.unknown())),
    compiled: z.object({ sql: z.string() }),
    detail: z.object({
      internal: z.object({
        status: z.enum(INTERNAL_STATUSES),
        rows: z
          .number()
          .int()
          .nullable()
          .openapi({ description: 'Rows the store matched before limits; null when unknown.' }),
        row_count: z.number().int(),
        plan: FuzzyPlanReportSchema.optional().openapi({
          description: 'Fuzzy lane only: the subqueries it planned and ran.',
        }),
      }),
      message: z.string(),
      coverage: DetailCoverageSchema.nullable().openapi({
        description: 'Freshness of the store; null only when the probe failed.',
      }),
    }),
    corpus: CorpusSchema,
    job: z
      .object({ job_id: z.uuid(), status: z.enum(['complete', 'failed']) })
      .optional()
      .openapi({ description: 'Present when this response collects an async fuzzy job.' }),
  })
  .openapi('SearchResponse');

export const SearchJobHandleSchema = z
  .object({
    success: z.literal(true),
    mode_ran: z.literal('fuzzy'),
    job: z.object({
      job_id: z.uuid(),
      status: z.enum(['queued', 'running']),
      poll: z.string().openapi({ description: 'How to collect it: POST /search/query with {"job_id": ...} alone.' }),
    }),
  })
  .openapi('SearchJobHandle');

export const SearchQueryOutputSchema = z.union([SearchResponseSchema, SearchJobHandleSchema]);
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
