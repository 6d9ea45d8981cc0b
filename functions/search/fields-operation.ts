import { z } from '@hono/zod-openapi';
import { defineOperation } from '../registry.js';
import { deepFreeze } from '../../platform/static-value.js';
import {
  allSurfaceVocabularies,
  FIELD_TYPES,
  UTTERANCE_VOCABULARY,
  type FieldInfo,
  type SurfaceVocabulary,
} from './fields.js';
import { FILTER_OPERATORS, METRIC_FUNCTIONS, SEARCH_LIMITS } from './request.js';

const FieldSchema = z
  .object({
    name: z.string(),
    type: z.enum(FIELD_TYPES),
    operators: z.array(z.enum(FILTER_OPERATORS)).openapi({ description: 'Filter operators this field takes.' }),
    nullable: z
      .boolean()
      .openapi({ description: 'Whether the field can be null (is_null / not_null are offered only then).' }),
    description: z.string(),
    values: z.array(z.string()).optional().openapi({ description: 'Enum fields only: the allowed values.' }),
    groupable: z.boolean().openapi({ description: 'Whether the field may appear in group_by.' }),
    metrics: z
      .array(z.enum(METRIC_FUNCTIONS))
      .openapi({ description: 'Metric functions that accept this field as their `field`.' }),
  })
  .openapi('SearchField');

const SurfaceFieldsSchema = z
  .object({
    event_time_field: z
      .literal('occurred_at')
      .openapi({ description: 'The event-time field of the surface (coverage and time windows read it).' }),
    default_order: z.string().openapi({ description: 'Row order when no order_by is given.' }),
    fields: z.array(FieldSchema),
  })
  .openapi('SearchSurfaceFields');

const OperatorSchema = z.object({
  op: z.enum(FILTER_OPERATORS),
  value: z
    .enum(['scalar', 'array', 'range', 'none'])
    .openapi({ description: 'scalar: one value; array: 1 to 200 values; range: [low, high]; none: no value.' }),
  description: z.string(),
});

export const SearchFieldsSchema = z
  .object({
    surfaces: z.object({
      interactions: SurfaceFieldsSchema,
      deals: SurfaceFieldsSchema,
      deal_qualification: SurfaceFieldsSchema,
    }),
    semantic: z.object({ fields: z.array(FieldSchema) }).openapi({
      description:
        'The fields a semantic-lane filter may name: every interactions field (read of the utterance’s interaction) plus the utterance’s `side` and `speaker`. The semantic lane neither groups nor aggregates (`groupable` false, `metrics` empty); a field only another surface has is named in `corpus.ignored_params` as `filters.<i>`.',
    }),
    operators: z.array(OperatorSchema),
    metric_functions: z.array(
      z.object({
        fn: z.enum(METRIC_FUNCTIONS),
        needs_field: z.boolean(),
        numeric_only: z.boolean(),
        alias: z.string(),
      }),
    ),
    limits: z.object({
      filters: z.number().int(),
      in_values: z.number().int(),
      group_by: z.number().int(),
      metrics: z.number().int(),
      limit: z.number().int(),
    }),
  })
  .openapi('SearchFields');

const OPERATORS: {
  op: (typeof FILTER_OPERATORS)[number];
  value: 'scalar' | 'array' | 'range' | 'none';
  description: string;
}[] = [
  { op: 'eq', value: 'scalar', description: 'Equal (exact, case-sensitive on text; never matches null).' },
  { op: 'neq', value: 'scalar', description: 'Not equal; rows where the field is null are kept (IS DISTINCT FROM).' },
  { op: 'gt', value: 'scalar', description: 'Greater than.' },
  { op: 'gte', value: 'scalar', description: 'Greater than or equal.' },
  { op: 'lt', value: 'scalar', description: 'Less than.' },
  { op: 'lte', value: 'scalar', description: 'Less than or equal.' },
  { op: 'contains', value: 'scalar', description: 'Case-insensitive substring; % and _ match themselves.' },
  { op: 'in', value: 'array', description: `Any of 1 to ${SEARCH_LIMITS.inValues} values.` },
  {
    op: 'not_in',
    value: 'array',
    description: `None of 1 to ${SEARCH_LIMITS.inValues} values; rows where the field is null are kept.`,
  },
  { op: 'between', value: 'range', description: 'Inclusive range [low, high], low <= high.' },
  { op: 'is_null', value: 'none', description: 'The field is null (nullable fields only).' },
  { op: 'not_null', value: 'none', description: 'The field is not null (nullable fields only).' },
];

const fieldOut = (f: FieldInfo) => ({
  name: f.name,
  type: f.type,
  operators: [...f.operators],
  nullable: f.nullable,
  description: f.description,
  ...(f.values ? { values: [...f.values] } : {}),
  groupable: f.groupable,
  metrics: [...f.metrics],
});

const surfaceOut = (v: SurfaceVocabulary) => ({
  event_time_field: v.eventTimeField,
  default_order: 'occurred_at desc, id asc',
  fields: v.fields.map(fieldOut),
});

/** The catalog is the vocabulary itself, so it is computed once (and frozen: checked and serialized once). */
const catalog = deepFreeze(
  (() => {
    const [interactions, deals, dealQualification] = allSurfaceVocabularies() as [
      SurfaceVocabulary,
      SurfaceVocabulary,
      SurfaceVocabulary,
    ];
    return {
      surfaces: {
        interactions: surfaceOut(interactions),
        deals: surfaceOut(deals),
        deal_qualification: surfaceOut(dealQualification),
      },
      semantic: {
        fields: UTTERANCE_VOCABULARY.fields.map((f) => ({ ...fieldOut(f), groupable: false, metrics: [] })),
      },
      operators: OPERATORS,
      metric_functions: METRIC_FUNCTIONS.map((fn) => ({
        fn,
        needs_field: fn !== 'count',
        numeric_only: fn === 'sum' || fn === 'avg',
        alias: fn === 'count' ? 'count (count_<field> with a field)' : `${fn}_<field>`,
      })),
      limits: {
        filters: SEARCH_LIMITS.filters,
        in_values: SEARCH_LIMITS.inValues,
        group_by: SEARCH_LIMITS.groupBy,
        metrics: SEARCH_LIMITS.metrics,
        limit: SEARCH_LIMITS.limit,
      },
    };
  })(),
);

export const searchFields = defineOperation({
  id: 'search.fields',
  method: 'get',
  path: '/search/fields',
  summary: 'Filterable fields per surface',
  description:
    'The filter lane’s field catalog, from the same vocabulary the filter compiler validates against. ' +
    '`surfaces.<surface>.fields[]`: `name`, `type` (string, text, enum, number, integer, timestamp, date, boolean, uuid), ' +
    '`operators` (those this field takes; `is_null`/`not_null` only on nullable fields), `nullable`, `description`, `values` (enum fields), ' +
    '`groupable` (may appear in group_by) and `metrics` (metric functions that accept it). ' +
    '`operators[]` gives each operator’s value shape (scalar, array of 1–200, range [low, high], none); `metric_functions[]` which need a field, ' +
    'which need a numeric one, and the alias a metric gets in results and order_by (`count`, `count_<field>`, `sum_amount`, ...). ' +
    'Timestamps and dates are ISO strings; `occurred_at` is each surface’s event time. Joined fields (e.g. `account_name`, `account_type`, `deal_stage`) ' +
    'read the linked account or deal of the row.',
  tags: ['Search'],
  scopes: ['data:read'],
  minRole: 'viewer',
  stability: 'beta',
  visibility: 'public',
  mcp: { tool: 'search', action: 'fields' },
  output: SearchFieldsSchema,
  async handler() {
    return catalog;
  },
});
