import { z } from '@hono/zod-openapi';
import { DEAL_STAGES } from '../../schema/warehouse-deals.js';
import { DetailCoverageSchema, FilterSchema } from '../search/index.js';

/** Limits of POST /simulate (spec, Limits: Simulate), and the search lane's filter cap for its predicates. */
export const SIMULATE_LIMITS = {
  scenarioChars: 500,
  assumptions: 8,
  metrics: 8,
  horizonDays: 365,
  filters: 32,
} as const;

export const SIMULATE_SURFACES = ['deals', 'interactions'] as const;
export type SimulateSurface = (typeof SIMULATE_SURFACES)[number];

export const SIMULATE_METRICS = ['win_rate', 'cycle_days', 'sum_deal_amount', 'count'] as const;
export type SimulateMetric = (typeof SIMULATE_METRICS)[number];

/**
 * The deal fields an assumption may change: the ones the metrics read. On the interactions surface
 * they are the fields of the deal each interaction belongs to.
 */
const ScaleAssumptionSchema = z
  .object({
    type: z.literal('scale'),
    field: z.enum(['amount']).openapi({ description: 'The deal field multiplied (unknown amounts stay unknown).' }),
    factor: z.number().min(0).max(1000),
  })
  .strict()
  .openapi('SimulateScale');

const SetAssumptionSchema = z
  .object({
    type: z.literal('set'),
    field: z.enum(['stage']),
    from: z
      .enum(DEAL_STAGES)
      .optional()
      .openapi({ description: 'Only deals at this stage change; absent: whatever their stage.' }),
    to: z.enum(DEAL_STAGES).openapi({
      description: '`closed_won` and `closed_lost` close the deal (won or lost); another stage reopens it.',
    }),
    where: z.array(FilterSchema).max(SIMULATE_LIMITS.filters).optional().openapi({
      description:
        "Search predicates on the request's surface (the filter lane's vocabulary) selecting the rows that change; absent: every row.",
    }),
  })
  .strict()
  .openapi('SimulateSet');

const ShiftAssumptionSchema = z
  .object({
    type: z.literal('shift'),
    field: z.enum(['close_date']),
    days: z
      .number()
      .int()
      .min(-3650)
      .max(3650)
      .openapi({ description: 'Negative is earlier; a close date never moves before the deal was created.' }),
  })
  .strict()
  .openapi('SimulateShift');

export const AssumptionSchema = z.discriminatedUnion('type', [
  ScaleAssumptionSchema,
  SetAssumptionSchema,
  ShiftAssumptionSchema,
]);
export type Assumption = z.infer<typeof AssumptionSchema>;

export const SimulateRequestSchema = z
  .object({
    scenario: z.string().min(1).max(SIMULATE_LIMITS.scenarioChars).openapi({ description: 'A label, echoed back.' }),
    surface: z.enum(SIMULATE_SURFACES).optional().openapi({ default: 'deals' }),
    cohort: z
      .object({ filters: z.array(FilterSchema).max(SIMULATE_LIMITS.filters).optional() })
      .strict()
      .optional()
      .openapi({
        description: 'Search predicates (POST /search/query, filter lane) on the surface; absent: all of it.',
      }),
    assumptions: z.array(AssumptionSchema).min(1).max(SIMULATE_LIMITS.assumptions),
    metrics: z
      .array(z.enum(SIMULATE_METRICS))
      .min(1)
      .max(SIMULATE_LIMITS.metrics)
      .optional()
      .openapi({ default: ['count'] }),
    horizon_days: z.number().int().min(1).max(SIMULATE_LIMITS.horizonDays).optional().openapi({ default: 90 }),
  })
  .strict()
  .openapi('SimulateRequest');
export type SimulateRequest = z.output<typeof SimulateRequestSchema>;

const metricValue = z.number().nullable();
export const MetricValuesSchema = z
  .object({
    win_rate: metricValue.optional(),
    cycle_days: metricValue.optional(),
    sum_deal_amount: metricValue.optional(),
    count: metricValue.optional(),
  })
  .strict()
  .openapi('SimulateMetricValues', { description: 'One value per requested metric; null when the cohort cannot say.' });
export type MetricValues = z.infer<typeof MetricValuesSchema>;

const DealFieldsSchema = z.object({
  stage: z.enum(DEAL_STAGES),
  amount: z.number().nullable(),
  close_date: z.string().nullable(),
});

export const SimulateResponseSchema = z
  .object({
    success: z.literal(true),
    scenario: z.string(),
    surface: z.enum(SIMULATE_SURFACES),
    horizon_days: z.number().int(),
    projection: z
      .object({ baseline: MetricValuesSchema, projected: MetricValuesSchema, delta: MetricValuesSchema })
      .nullable(),
    reason: z.enum(['cohort_too_thin']).nullable().openapi({ description: 'Why projection is null.' }),
    confidence: z.enum(['high', 'medium', 'low']),
    evidence: z.object({
      cohort_size: z.number().int().openapi({ description: 'Rows of the surface in the cohort and period.' }),
      deal_count: z.number().int().openapi({ description: 'Distinct deals the deal metrics stand on.' }),
      min_cohort_size: z.number().int(),
      rows_affected: z.number().int().openapi({ description: 'Deals changed by at least one assumption.' }),
      sample: z.array(
        z.object({
          deal_id: z.uuid(),
          deal_name: z.string(),
          before: DealFieldsSchema,
          after: DealFieldsSchema,
        }),
      ),
      compiled: z.object({ sql: z.string() }),
    }),
    assumptions_applied: z.array(
      z.object({
        index: z.number().int(),
        type: z.enum(['scale', 'set', 'shift']),
        field: z.string(),
        description: z.string(),
        rows_affected: z.number().int(),
      }),
    ),
    freshness: DetailCoverageSchema.nullable(),
    timing: z.object({ read_ms: z.number().int(), total_ms: z.number().int() }),
  })
  .openapi('SimulateResponse');
export type SimulateResponse = z.input<typeof SimulateResponseSchema>;
