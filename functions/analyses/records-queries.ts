import { z } from '@hono/zod-openapi';
import { ApiError } from '../../platform/errors.js';
import { DEAL_STAGES, INTERACTION_KINDS } from '../../schema/index.js';
import { FilterSchema } from '../search/index.js';
import { AnalysisPeriodSchema } from './analysis.js';

/**
 * The request of the records analysis and the `search.query` requests it becomes: deals or
 * conversations filtered, grouped, ordered and limited; counts, totals and averages; a win rate (the
 * filter lane's `share` of `is_won` over closed deals); weighted pipeline (the sum of each open deal's
 * `weighted_amount`, amount × probability). Each figure is a cell of one of these requests, which the
 * analysis's blocks cite, so the verifier re-runs exactly the search the figure came from.
 */

export const RECORDS_MEASURES = ['list', 'count', 'total', 'average', 'win_rate', 'weighted_pipeline'] as const;
export const RECORDS_GROUPS = [
  'owner_email',
  'stage',
  'account_name',
  'account_region',
  'account_industry',
  'kind',
] as const;
/** A row field a list is ordered by, or a metric groups are ranked by. */
export const RECORDS_ORDERS = [
  'amount',
  'close_date',
  'occurred_at',
  'count',
  'sum_amount',
  'avg_amount',
  'share_is_won',
  'sum_weighted_amount',
] as const;

export const RecordsBodySchema = z
  .object({
    records: z.enum(['deals', 'conversations']).default('deals').openapi({
      description: '`deals` (the CRM pipeline) or `conversations` (calls, meetings and emails).',
    }),
    measure: z.enum(RECORDS_MEASURES).default('list').openapi({
      description:
        '`list` and `count`: how many and which (deals also get their total amount); `total` and `average`: of the deal amounts; `win_rate`: won ÷ closed deals; `weighted_pipeline`: open deals, amount × probability. The last four are of deals.',
    }),
    filters: z.array(FilterSchema).max(30).default([]).openapi({
      description:
        'The filter lane’s filters over the records’ search surface (`search.fields` lists them): `{"field": "owner_email", "op": "eq", "value": "zoe.kim@example.com"}`.',
    }),
    period: AnalysisPeriodSchema.optional().openapi({ description: 'Absent: all of the data.' }),
    period_field: z.enum(['close_date', 'occurred_at']).optional().openapi({
      description:
        'The date the period bounds: for deals `close_date` (the default) or `occurred_at` (when the deal was created); conversations only have `occurred_at`.',
    }),
    group_by: z.enum(RECORDS_GROUPS).optional().openapi({
      description: '`kind` is of conversations; `owner_email` and `stage` of deals; the account fields of both.',
    }),
    order: z
      .object({ field: z.enum(RECORDS_ORDERS), dir: z.enum(['asc', 'desc']) })
      .strict()
      .optional()
      .openapi({
        description:
          'A row field (`amount`, `close_date`, `occurred_at`) orders the list; a metric (`count`, `sum_amount`, ...) ranks the groups.',
      }),
    limit: z.number().int().min(1).max(50).optional().openapi({ description: 'Rows listed, 1 to 50 (default 50).' }),
  })
  .strict()
  .openapi('RecordsRequest');
export type RecordsInput = z.output<typeof RecordsBodySchema>;

type Query = Record<string, unknown>;
export interface RecordsQueries {
  totals: Query;
  groups: Query | null;
  list: Query | null;
}

/** The columns a list reads: only these, so a long list stays small where a model reads it. */
const LIST_FIELDS = {
  deals: ['name', 'account_name', 'stage', 'amount', 'close_date', 'owner_email', 'is_closed'],
  interactions: ['occurred_at', 'kind', 'title', 'account_name'],
};

const DEAL_ONLY_MEASURES = new Set(['total', 'average', 'win_rate', 'weighted_pipeline']);
const DEAL_ONLY_GROUPS = new Set(['owner_email', 'stage']);

/** The search surface the records are on. */
export const surfaceOf = (input: RecordsInput): 'deals' | 'interactions' =>
  input.records === 'conversations' ? 'interactions' : 'deals';

/** A request whose parts belong to different records is refused, naming the part. */
export function checkRecordsInput(input: RecordsInput): void {
  const problems: { field: string; problem: string; code: string }[] = [];
  const conversations = input.records === 'conversations';
  if (conversations && DEAL_ONLY_MEASURES.has(input.measure))
    problems.push({ field: 'measure', problem: `${input.measure} is a measure of deals`, code: 'invalid_value' });
  if (conversations && input.group_by && DEAL_ONLY_GROUPS.has(input.group_by))
    problems.push({ field: 'group_by', problem: `${input.group_by} groups deals`, code: 'invalid_value' });
  if (!conversations && input.group_by === 'kind')
    problems.push({ field: 'group_by', problem: 'kind groups conversations', code: 'invalid_value' });
  if (conversations && input.period_field === 'close_date')
    problems.push({ field: 'period_field', problem: 'conversations have no close date', code: 'invalid_value' });
  if (problems.length > 0)
    throw new ApiError('invalid_argument', `Invalid request: ${problems.map((p) => p.problem).join('; ')}`, {
      fields: problems,
    });
}

/** The metric a comparison of periods compares and the groups are ranked by by default. */
export function mainColumn(input: RecordsInput): string {
  if (input.measure === 'win_rate') return 'share_is_won';
  if (input.measure === 'weighted_pipeline') return 'sum_weighted_amount';
  if (input.measure === 'total') return 'sum_amount';
  if (input.measure === 'average') return 'avg_amount';
  return 'count';
}

export function recordsQueries(input: RecordsInput): RecordsQueries {
  const surface = surfaceOf(input);
  const filters: Query[] = input.filters.map(({ field, op, value }) => ({ field, op, value }));
  // A win rate is over closed deals, weighted pipeline over open ones, unless the request says which.
  const statedClosed = input.filters.some((f) => f.field === 'is_closed');
  if (input.measure === 'win_rate' && !statedClosed) filters.push({ field: 'is_closed', op: 'eq', value: true });
  if (input.measure === 'weighted_pipeline' && !statedClosed)
    filters.push({ field: 'is_closed', op: 'eq', value: false });
  const periodField = surface === 'interactions' ? 'occurred_at' : (input.period_field ?? 'close_date');
  if (input.period)
    filters.push(
      { field: periodField, op: 'gte', value: input.period.from },
      { field: periodField, op: 'lt', value: input.period.to },
    );
  // A search needs a filter to be one; with none asked, every kind or stage is the whole set, said as such.
  if (filters.length === 0)
    filters.push(
      surface === 'interactions'
        ? { field: 'kind', op: 'in', value: [...INTERACTION_KINDS] }
        : { field: 'stage', op: 'in', value: [...DEAL_STAGES] },
    );
  const metrics: Query[] =
    input.measure === 'win_rate'
      ? [{ fn: 'share', field: 'is_won' }, { fn: 'count' }]
      : input.measure === 'weighted_pipeline'
        ? [
            { fn: 'sum', field: 'weighted_amount' },
            { fn: 'sum', field: 'amount' },
            { fn: 'count' },
            { fn: 'count', field: 'probability' },
          ]
        : surface === 'deals'
          ? [
              { fn: 'count' },
              { fn: 'sum', field: 'amount' },
              ...(input.measure === 'average' ? [{ fn: 'avg', field: 'amount' }] : []),
            ]
          : [{ fn: 'count' }];
  const aliases = metrics.map((m) => (m.field ? `${String(m.fn)}_${String(m.field)}` : String(m.fn)));
  const main = mainColumn(input);
  const groupOrder =
    input.order && aliases.includes(input.order.field)
      ? input.order
      : { field: main === 'count' && surface === 'deals' ? 'sum_amount' : main, dir: 'desc' };
  const listOrder =
    input.order && ['amount', 'close_date', 'occurred_at'].includes(input.order.field)
      ? input.order
      : surface === 'deals'
        ? (input.period && periodField === 'close_date') || input.filters.some((f) => f.field === 'close_date')
          ? { field: 'close_date', dir: 'asc' }
          : { field: 'amount', dir: 'desc' }
        : { field: 'occurred_at', dir: 'desc' };
  const listed =
    !['win_rate', 'weighted_pipeline'].includes(input.measure) && (input.measure === 'list' || surface === 'deals');
  return {
    totals: { surface, filters, metrics },
    groups: input.group_by
      ? { surface, filters, group_by: [input.group_by], metrics, order_by: groupOrder, limit: 50 }
      : null,
    list: listed
      ? { surface, filters, order_by: listOrder, limit: Math.min(input.limit ?? 50, 50), fields: LIST_FIELDS[surface] }
      : null,
  };
}
