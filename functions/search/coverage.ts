import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { AGE_BUCKETS, type CorpusCoverage } from './response.js';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

export type CoverageBasis =
  | { basis: 'matched_set' }
  | { basis: 'returned_rows'; reason: 'truncated' }
  | { basis: 'unavailable'; reason: 'aggregate' | 'no_time_field' | 'no_rows' };

/**
 * The time-range coverage of a result (spec, corpus.coverage): newest and oldest event time, the
 * four age buckets (always all four, zeros included; disjoint: 0–7 days, 7–30, 30–90, older) and how
 * many covered rows had a readable event time. Event times come only from the allowlisted columns
 * `timestamp` and `occurred_at`; the lanes pass exactly those.
 */
export function coverageBlock(
  basis: CoverageBasis,
  eventTimes: readonly (Date | null)[],
  now: Date,
): Omit<CorpusCoverage, 'gaps_status'> {
  const buckets = Object.fromEntries(AGE_BUCKETS.map((b) => [b, { row_count: 0 }])) as CorpusCoverage['age_buckets'];
  if (basis.basis === 'unavailable') {
    return {
      basis: 'unavailable',
      basis_reason: basis.reason,
      max_timestamp: null,
      min_timestamp: null,
      age_buckets: buckets,
      dated_row_count: 0,
    };
  }
  let min: number | null = null;
  let max: number | null = null;
  let dated = 0;
  for (const t of eventTimes) {
    if (!t || Number.isNaN(t.getTime())) continue;
    const ms = t.getTime();
    dated++;
    min = min === null ? ms : Math.min(min, ms);
    max = max === null ? ms : Math.max(max, ms);
    const age = now.getTime() - ms;
    const bucket =
      age <= 7 * DAY_MS ? 'last_7d' : age <= 30 * DAY_MS ? 'last_30d' : age <= 90 * DAY_MS ? 'last_90d' : 'older';
    buckets[bucket].row_count++;
  }
  return {
    basis: basis.basis,
    ...(basis.basis === 'returned_rows' ? { basis_reason: basis.reason } : {}),
    max_timestamp: max === null ? null : new Date(max).toISOString(),
    min_timestamp: min === null ? null : new Date(min).toISOString(),
    age_buckets: buckets,
    dated_row_count: dated,
  };
}

export type GapsBaseline = 'interactions' | 'interactions_external';

/** Monday 00:00 UTC of the week holding `ms` (Postgres date_trunc('week') agrees). */
const weekStart = (ms: number): number => {
  const d = new Date(ms);
  const day = (d.getUTCDay() + 6) % 7;
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day);
};

/**
 * Gap detection (coverage: true): within the span of the result's event times, the weeks in which
 * the baseline corpus held rows but the result had none, merged into runs of consecutive weeks.
 * The baseline is the workspace's interactions (excluded ones dropped) for warehouse lanes, or its
 * external utterances for the semantic mirror. Weeks where the corpus itself is silent are not gaps.
 */
export async function detectGaps(
  db: Queryable,
  workspaceId: string,
  baseline: GapsBaseline,
  eventTimes: readonly (Date | null)[],
  /** interactions_external only: the semantic lane reads this embedder's vectors, so the baseline counts only those. */
  embedderId?: string,
): Promise<{ start: string; end: string; corpus_row_count: number }[]> {
  const times = eventTimes.filter((t): t is Date => t !== null).map((t) => t.getTime());
  if (times.length === 0) return [];
  const from = weekStart(Math.min(...times));
  const to = weekStart(Math.max(...times)) + WEEK_MS;
  const rows =
    baseline === 'interactions'
      ? await queryRows<{ week_ms: number; n: number }>(
          db,
          sql`select (extract(epoch from date_trunc('week', i.occurred_at at time zone 'UTC')) * 1000)::float8 as week_ms, count(*)::int as n
              from interactions i
              where i.workspace_id = ${workspaceId}
                and i.occurred_at >= ${new Date(from).toISOString()}::timestamptz and i.occurred_at < ${new Date(to).toISOString()}::timestamptz
                and not exists (select 1 from excluded_interactions x where x.workspace_id = i.workspace_id and x.interaction_id = i.id)
              group by 1`,
        )
      : await queryRows<{ week_ms: number; n: number }>(
          db,
          sql`select (extract(epoch from date_trunc('week', u.occurred_at at time zone 'UTC')) * 1000)::float8 as week_ms, count(*)::int as n
              from utterances u
              where u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder is not null
                ${embedderId === undefined ? sql`` : sql`and u.embedder = ${embedderId}`}
                and u.occurred_at >= ${new Date(from).toISOString()}::timestamptz and u.occurred_at < ${new Date(to).toISOString()}::timestamptz
              group by 1`,
        );
  const corpusByWeek = new Map<number, number>();
  for (const r of rows) corpusByWeek.set(weekStart(Number(r.week_ms)), Number(r.n));
  const resultWeeks = new Set(times.map(weekStart));
  const gaps: { start: string; end: string; corpus_row_count: number }[] = [];
  let open: { start: number; end: number; n: number } | null = null;
  for (let w = from; w < to; w += WEEK_MS) {
    const corpus = corpusByWeek.get(w) ?? 0;
    const isGap = corpus > 0 && !resultWeeks.has(w);
    if (isGap) {
      if (open && open.end === w) {
        open.end = w + WEEK_MS;
        open.n += corpus;
      } else {
        if (open)
          gaps.push({
            start: new Date(open.start).toISOString(),
            end: new Date(open.end).toISOString(),
            corpus_row_count: open.n,
          });
        open = { start: w, end: w + WEEK_MS, n: corpus };
      }
    } else if (corpus > 0 && open) {
      gaps.push({
        start: new Date(open.start).toISOString(),
        end: new Date(open.end).toISOString(),
        corpus_row_count: open.n,
      });
      open = null;
    }
  }
  if (open)
    gaps.push({
      start: new Date(open.start).toISOString(),
      end: new Date(open.end).toISOString(),
      corpus_row_count: open.n,
    });
  return gaps;
}
