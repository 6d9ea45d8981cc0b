import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { toDate } from '../../platform/db/timestamps.js';
import type { DetailCoverage } from './response.js';

/** A store older than this many days (newest event vs. now) is reported stale. */
export const STALE_AFTER_DAYS = 7;
const DAY_MS = 86_400_000;

export type FreshnessStore = 'interactions' | 'deals' | 'deal_qualification' | 'utterances_external' | 'themes';

/**
 * The freshness probe behind detail.coverage: how many rows the lane's store holds for the
 * workspace, its newest event, and the newest ingest its sources reported. `total_rows: 0` with
 * `latest_event_at: null` is an empty workspace; a failed probe returns null (never zeros).
 */
export async function probeFreshness(
  db: Queryable,
  workspaceId: string,
  store: FreshnessStore,
  now: Date,
  embedderId?: string,
): Promise<DetailCoverage | null> {
  try {
    const query =
      store === 'interactions'
        ? sql`select count(*)::int as n, max(occurred_at) as latest from interactions where workspace_id = ${workspaceId}`
        : store === 'deals'
          ? sql`select count(*)::int as n, max(occurred_at) as latest from deals where workspace_id = ${workspaceId}`
          : store === 'deal_qualification'
            ? sql`select count(*)::int as n, max(occurred_at) as latest from deal_qualification where workspace_id = ${workspaceId}`
            : store === 'utterances_external'
              ? // The count is kept by triggers (utterance_store_counts); the newest event is one index probe.
                sql`select coalesce((select utterances from utterance_store_counts where workspace_id = ${workspaceId} and embedder = ${embedderId ?? ''}), 0)::int as n,
                           (select max(occurred_at) from utterances
                            where workspace_id = ${workspaceId} and side = 'external' and embedder is not null and embedder = ${embedderId ?? ''}) as latest`
              : sql`select count(*)::int as n, max(last_seen_at) as latest from themes
                    where workspace_id = ${workspaceId} and embedding is not null and embedder = ${embedderId ?? ''}`;
    const surface = store === 'utterances_external' || store === 'themes' ? 'interactions' : store;
    // The store's counts and its sources' newest ingest in ONE statement: one round trip on Neon's HTTP
    // transport, and no second connection on the Pool (two reads in parallel would take one).
    const [counts] = await queryRows<{ n: number; latest: Date | string | null; latest_ingest: Date | string | null }>(
      db,
      sql`select c.n, c.latest,
                 (select max(latest_ingest_at) from source_freshness where workspace_id = ${workspaceId} and surface = ${surface}) as latest_ingest
          from (${query}) c`,
    );
    const ingest = counts;
    const latest = toDate(counts?.latest);
    const daysBehind = latest ? Math.max(0, Math.floor((now.getTime() - latest.getTime()) / DAY_MS)) : null;
    return {
      latest_event_at: latest?.toISOString() ?? null,
      latest_ingest_at: toDate(ingest?.latest_ingest)?.toISOString() ?? null,
      total_rows: Number(counts?.n ?? 0),
      days_behind: daysBehind,
      is_stale: daysBehind !== null && daysBehind > STALE_AFTER_DAYS,
    };
  } catch {
    return null;
  }
}
