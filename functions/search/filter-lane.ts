import { queryRows } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import {
  compileFilterSearch,
  recentWindowStart,
  windowOutsideSpan,
  type CompiledFilterQuery,
} from './filter-compiler.js';
import { outputValue } from './filter-values.js';
import { pgTimestampToIso } from '../../platform/db/timestamps.js';
import { toDate } from '../../platform/db/timestamps.js';
import { noRowsCoverage, rowCoverage, type LaneContext, type LaneOutcome, type LaneRunner } from './lane.js';
import type { EmptyReason } from './response.js';

/**
 * The filter lane (spec, POST /search/query): typed predicates over one warehouse surface, compiled
 * by filter-compiler.ts to parameterized SQL with the tenant predicate and, on interactions, the
 * excluded-interaction and (audience: customer_voice) customer-voice predicates injected.
 *
 * Outcome rules:
 *   - match_count: rows (or groups) matching before the limit; `truncated` only when the limit cut.
 *   - coverage: aggregates → unavailable/aggregate; empty → unavailable/no_rows; cut by the limit →
 *     returned_rows/truncated; else matched_set. Event times are the rows' `occurred_at`.
 *   - gaps: baseline `interactions` on the interactions surface; other surfaces have none.
 *   - empty_reason, when nothing matched: `not_synced` (the surface holds no row for the workspace),
 *     `scope_disjoint` (the caller's predicates select rows but the scope predicates remove them all,
 *     or the asked event-time window lies entirely outside the surface's [min, max] span), else
 *     `no_match`. A bare aggregate (metrics, no group_by) over an empty population still returns its
 *     one row (count 0, max null) with `no_match`. A failed read is `read_failed` with no rows, never
 *     an error.
 */
export const runFilterLane: LaneRunner = async (ctx) => {
  const { search, workspaceId, services, now } = ctx;
  // Validation errors (400) escape on purpose; past this line every failure is a typed outcome.
  const compiled = compileFilterSearch(search, workspaceId);
  const corpus: LaneOutcome['corpus'] = {
    store: 'warehouse',
    grain: 'row',
    surface: search.surface,
    content: 'full',
    filters_applied: search.filters.length > 0,
    audience_applied: search.audience === 'customer_voice',
  };
  const common = {
    compiledSql: compiled.intentSql,
    freshnessStore: search.surface,
    gaps:
      search.surface === 'interactions'
        ? ({ baseline: 'interactions' } as const)
        : ({ baseline: null, reason: 'baseline_unsupported_surface' } as const),
    recentWindowStart: recentWindowStart(compiled.timeWindow, now),
  } satisfies Partial<LaneOutcome>;

  let raw: Record<string, unknown>[];
  try {
    raw = await queryRows<Record<string, unknown>>(services.db, compiled.statement);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    services.log.warn('filter lane read failed', {
      surface: search.surface,
      error: error instanceof Error ? error.message : String(error),
    });
    return { ...common, results: [], matchCount: 0, corpus, emptyReason: 'read_failed', coverage: noRowsCoverage() };
  }

  const results = raw.map((row) =>
    Object.fromEntries(compiled.columns.map((c) => [c.name, outputValue(c.kind, row[c.name])])),
  );
  const matchCount = raw.length > 0 ? Number(raw[0]?.__match_count ?? raw.length) : 0;
  const truncated = matchCount > results.length;
  if (truncated) corpus.truncated = true;

  let emptyReason: EmptyReason | undefined;
  if (compiled.bare) {
    if (Number(raw[0]?.__rows ?? 0) === 0) emptyReason = 'no_match';
  } else if (results.length === 0) {
    emptyReason = await diagnoseEmpty(ctx, compiled);
  }

  const event = compiled.vocab.eventTimeField;
  const coverage: LaneOutcome['coverage'] =
    compiled.mode === 'aggregate'
      ? { basis: { basis: 'unavailable', reason: 'aggregate' }, eventTimes: [] }
      : rowCoverage(
          results.map((r) => toDate(r[event])),
          truncated,
        );
  return { ...common, results, matchCount, corpus, ...(emptyReason ? { emptyReason } : {}), coverage };
};

/** Why nothing matched; one extra read, only on an empty result. A failed diagnosis says no_match. */
async function diagnoseEmpty(ctx: LaneContext, compiled: CompiledFilterQuery): Promise<EmptyReason> {
  try {
    const [row] = await queryRows<{ total: number; min_at: unknown; max_at: unknown; selected: number }>(
      ctx.services.db,
      compiled.diagnosis,
    );
    if (!row || Number(row.total) === 0) return 'not_synced';
    // The caller's own predicates select rows the scope predicates (exclusions, customer voice) removed.
    if (compiled.scoped && Number(row.selected) > 0) return 'scope_disjoint';
    const min = pgTimestampToIso(row.min_at);
    const max = pgTimestampToIso(row.max_at);
    if (min && max && windowOutsideSpan(compiled.timeWindow, Date.parse(min), Date.parse(max))) return 'scope_disjoint';
    return 'no_match';
  } catch (error) {
    ctx.services.log.warn('filter lane empty-result diagnosis failed', {
      error: error instanceof Error ? error.message : String(error),
    });
    return 'no_match';
  }
}
