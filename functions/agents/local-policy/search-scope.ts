import type { Query } from './steps.js';

/**
 * What an ask already fixes, for a semantic search to be narrowed to: the accounts the workspace
 * resolved its company name to (ids, from the fuzzy lane's account resolution) and the period it
 * names (dates, `to` exclusive, as AskedPeriod gives them).
 */
export interface SearchScope {
  accountIds?: readonly string[];
  period?: { from: string; to: string } | null;
}

/**
 * The query with the scope as filters: the semantic lane applies them inside its vector search,
 * so the nearest statements are the nearest of that account and period, not the nearest overall
 * thinned afterwards (which leaves fewer, or none). An empty scope leaves the query as it is.
 */
export function scopedQuery(query: Query, scope: SearchScope): Query {
  const filters: Query[] = [];
  const ids = [...new Set(scope.accountIds ?? [])];
  if (ids.length === 1) filters.push({ field: 'account_id', op: 'eq', value: ids[0] });
  else if (ids.length > 1) filters.push({ field: 'account_id', op: 'in', value: ids });
  if (scope.period) {
    filters.push({ field: 'occurred_at', op: 'gte', value: scope.period.from });
    filters.push({ field: 'occurred_at', op: 'lt', value: scope.period.to });
  }
  if (filters.length === 0) return query;
  const existing = Array.isArray(query.filters) ? (query.filters as Query[]) : [];
  return { ...query, filters: [...existing, ...filters] };
}
