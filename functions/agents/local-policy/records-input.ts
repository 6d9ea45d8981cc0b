import type { Interpretation } from '../understanding/interpretation.js';

/**
 * A reading of a records question as the `analyses.records` operation's input: the records, the
 * measure, the reading's filters as the filter lane takes them, the period and the date it bounds,
 * grouping, order and limit. Only what the operation names passes: an order by a field it does not
 * rank by is left to its default, as the reading would be answered without it.
 */

export const RECORDS_OPERATION = 'analyses.records';

/** What each records' rows group by (the operation refuses the others). */
const GROUPS = {
  deals: new Set(['owner_email', 'stage', 'account_name', 'account_region', 'account_industry']),
  conversations: new Set(['account_name', 'account_region', 'account_industry', 'kind']),
};
const ORDERS = new Set([
  'amount',
  'close_date',
  'occurred_at',
  'count',
  'sum_amount',
  'avg_amount',
  'share_is_won',
  'sum_weighted_amount',
]);

function measureOf(r: Interpretation): string {
  if (r.analysis === 'win_rate') return 'win_rate';
  if (r.analysis === 'weighted_pipeline') return 'weighted_pipeline';
  if (r.measure.fn === 'list') return 'list';
  if (r.subject === 'deals' && r.measure.fn === 'sum') return 'total';
  if (r.subject === 'deals' && r.measure.fn === 'avg') return 'average';
  return 'count';
}

export function recordsInput(r: Interpretation): Record<string, unknown> {
  const conversations = r.subject === 'interactions';
  const periodField = r.period?.field;
  return {
    records: conversations ? 'conversations' : 'deals',
    measure: measureOf(r),
    filters: r.filters.map(({ field, op, value }) => ({ field, op, value })),
    ...(r.period ? { period: { from: r.period.from, to: r.period.to } } : {}),
    ...(!conversations && (periodField === 'close_date' || periodField === 'occurred_at')
      ? { period_field: periodField }
      : {}),
    ...(r.group_by && GROUPS[conversations ? 'conversations' : 'deals'].has(r.group_by)
      ? { group_by: r.group_by }
      : {}),
    ...(r.order && ORDERS.has(r.order.field) ? { order: { field: r.order.field, dir: r.order.dir } } : {}),
    ...(r.limit !== null ? { limit: Math.min(r.limit, 50) } : {}),
  };
}
